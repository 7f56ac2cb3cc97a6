import LocusCore
import LocusEngine
import LocusProtocol
import LocusWire

/// The index's polygon layers as an ArcGIS FeatureServer: the service and layer descriptions,
/// and `query` by point — what the tree app sends to learn a new tree's neighbourhood, answered
/// by the `within` operation. Layer ids are the layers' positions in the index (0, 1, …).
struct EsriFeatureServer: Sendable {
    let configuration: HTTPConfiguration

    static let maximumRecordCount = 2_000

    func describe(_ p: HTTPParameters, _ s: HTTPEngine.Session) throws(HTTPFailure) -> HTTPReply {
        let f = try EsriJSON.format(p)
        let layers = s.metadata.layers.enumerated().map { LayerSummary(id: $0.offset, name: $0.element.name) }
        var extent = Envelope.empty
        for info in s.metadata.layers { if let layer = s.handler.index.layers[info.name] { extent.extend(layer.extentOfFeatures) } }
        let e = extent.isEmpty ? nil : EsriJSON.Extent(xmin: extent.minX, ymin: extent.minY, xmax: extent.maxX, ymax: extent.maxY, spatialReference: .init(.wgs84))
        return .json(ServiceDescription(layers: layers, spatialReference: .init(.wgs84), initialExtent: e, fullExtent: e,
                                        maxRecordCount: Self.maximumRecordCount), pretty: f == "pjson")
    }

    struct LayerSummary: Encodable, Sendable {
        var id: Int
        var name: String
        var parentLayerId = -1
        var defaultVisibility = true
        var subLayerIds: [Int]? = nil
        var geometryType = "esriGeometryPolygon"
    }

    struct ServiceDescription: Encodable, Sendable {
        var currentVersion = 11.1
        var serviceDescription = "Polygon layers of a Locus index"
        var hasVersionedData = false
        var supportsDisconnectedEditing = false
        var layers: [LayerSummary]
        var tables: [LayerSummary] = []
        var spatialReference: EsriJSON.SpatialReferenceJSON
        var initialExtent: EsriJSON.Extent?
        var fullExtent: EsriJSON.Extent?
        var capabilities = "Query"
        var maxRecordCount: Int
        var supportedQueryFormats = "JSON, geoJSON"
        var units = "esriDecimalDegrees"
    }

    /// The layer with Esri id `id`, or a 400 naming the ids there are.
    private func layer(_ id: String, _ s: HTTPEngine.Session) throws(HTTPFailure) -> (Int, LayerInfo, BoundaryLayer) {
        let infos = s.metadata.layers
        guard let n = Int(id), infos.indices.contains(n), let layer = s.handler.index.layers[infos[n].name] else {
            throw HTTPFailure(.notFound, "no layer \(id.prefix(20)) (this service has layers 0 … \(infos.count - 1))", code: .notFound)
        }
        return (n, infos[n], layer)
    }

    // MARK: Layer description

    func describeLayer(_ id: String, _ p: HTTPParameters, _ s: HTTPEngine.Session) throws(HTTPFailure) -> HTTPReply {
        let f = try EsriJSON.format(p)
        let (n, info, layer) = try self.layer(id, s)
        let e = layer.extentOfFeatures
        return .json(LayerDescription(
            id: n, name: info.name, description: "\(info.featureCount) polygons from \(info.source)",
            displayField: "name", fields: Self.fields(info, layer),
            extent: EsriJSON.Extent(xmin: e.minX, ymin: e.minY, xmax: e.maxX, ymax: e.maxY, spatialReference: .init(.wgs84)),
            maxRecordCount: Self.maximumRecordCount), pretty: f == "pjson")
    }

    struct FieldDescription: Encodable, Sendable {
        var name: String
        var type: String
        var alias: String
        var length: Int?
    }

    struct LayerDescription: Encodable, Sendable {
        var currentVersion = 11.1
        var id: Int
        var name: String
        var type = "Feature Layer"
        var description: String
        var geometryType = "esriGeometryPolygon"
        var objectIdField = "OBJECTID"
        var displayField: String
        var fields: [FieldDescription]
        var extent: EsriJSON.Extent
        var capabilities = "Query"
        var maxRecordCount: Int
        var supportedQueryFormats = "JSON, geoJSON"
        var supportsAdvancedQueries = false
        var hasAttachments = false
        var supportsStatistics = false
    }

    /// OBJECTID (the feature's position + 1), the layer's id and name, then its source attributes
    /// with the type of their values.
    static func fields(_ info: LayerInfo, _ layer: BoundaryLayer) -> [FieldDescription] {
        var out = [FieldDescription(name: "OBJECTID", type: "esriFieldTypeOID", alias: "OBJECTID"),
                   FieldDescription(name: "id", type: "esriFieldTypeString", alias: info.idField, length: 256),
                   FieldDescription(name: "name", type: "esriFieldTypeString", alias: info.nameField, length: 256)]
        for name in info.fields where !["objectid", "id", "name"].contains(name.lowercased()) {
            var type = "esriFieldTypeString"
            if let v = layer.features.lazy.compactMap({ $0.attributes[name] }).first(where: { if case .null = $0 { false } else { true } }) {
                switch v {
                case .integer: type = "esriFieldTypeInteger"
                case .number: type = "esriFieldTypeDouble"
                case .bool: type = "esriFieldTypeSmallInteger"
                default: type = "esriFieldTypeString"
                }
            }
            out.append(FieldDescription(name: name, type: type, alias: name, length: type == "esriFieldTypeString" ? 256 : nil))
        }
        return out
    }

    // MARK: query

    func query(_ id: String, _ p: HTTPParameters, _ s: HTTPEngine.Session) throws(HTTPFailure) -> HTTPReply {
        let f = try EsriJSON.format(p, allowing: ["geojson"])
        let (_, info, layer) = try self.layer(id, s)
        let inSR = try EsriJSON.spatialReference(p, "inSR") ?? .wgs84
        let out = try EsriJSON.spatialReference(p, "outSR") ?? (f == "geojson" ? .wgs84 : inSR)
        if let w = p.string("where")?.filter({ !$0.isWhitespace }), w != "1=1" {
            throw HTTPFailure(.badRequest, "where supports only 1=1; select features by geometry or objectIds", parameter: "where")
        }
        if let rel = p.string("spatialRel"), !["esrispatialrelintersects", "esrispatialrelwithin"].contains(rel.lowercased()) {
            throw HTTPFailure(.badRequest, "spatialRel must be esriSpatialRelIntersects (a point in a polygon)", parameter: "spatialRel")
        }
        if let d = try p.double("distance"), d != 0 {
            throw HTTPFailure(.badRequest, "distance (a buffer around the geometry) is not supported", parameter: "distance")
        }

        // The features asked for, in the layer's order (smallest first), as positions.
        var selected: [Int]
        let geometryType = (p.string("geometryType") ?? "esriGeometryPoint").lowercased()
        if p.contains("geometry"), geometryType == "esrigeometryenvelope" {
            // A map's view: the polygons it shows.
            guard let box = try EsriJSON.envelope(p, "geometry", defaultReference: inSR, s) else {
                throw HTTPFailure(.badRequest, "geometry must be xmin,ymin,xmax,ymax or an envelope object", parameter: "geometry")
            }
            selected = layer.features(meeting: box)
        } else if p.contains("geometry") {
            guard geometryType == "esrigeometrypoint" else {
                throw HTTPFailure(.badRequest, "geometryType must be esriGeometryPoint or esriGeometryEnvelope", parameter: "geometryType")
            }
            guard let (point, reference) = try EsriJSON.point(p, "geometry", defaultReference: inSR) else {
                throw HTTPFailure(.badRequest, "geometry must be x,y or a point object", parameter: "geometry")
            }
            var w = WithinRequest(location: point)
            w.spatialReference = reference
            w.layer = info.name
            let covering = try s.within(w).features
            selected = covering.compactMap { match in layer.features.firstIndex { $0.id == match.id } }
        } else {
            selected = Array(layer.features.indices)
        }
        if let ids = p.list("objectIds") {
            let wanted = Set(ids.compactMap { Int($0) })
            selected = selected.filter { wanted.contains($0 + 1) }
        }
        if try p.bool("returnCountOnly") == true {
            return .json(["count": selected.count], pretty: f == "pjson")
        }
        if try p.bool("returnIdsOnly") == true {
            return .json(IdsReply(objectIds: selected.map { $0 + 1 }), pretty: f == "pjson")
        }
        let offset = try p.int("resultOffset", in: 0...Int(Int32.max)) ?? 0
        let limit = try p.int("resultRecordCount", in: 1...Self.maximumRecordCount) ?? Self.maximumRecordCount
        let page = Array(selected.dropFirst(offset).prefix(limit))
        let exceeded = selected.count > offset + page.count

        let fieldList = Self.fields(info, layer)
        let wanted = Set((p.list("outFields") ?? ["OBJECTID"]).map { $0.lowercased() })
        let fields = wanted.contains("*") ? fieldList : fieldList.filter { wanted.contains($0.name.lowercased()) || $0.name == "OBJECTID" }
        let returnGeometry = try p.bool("returnGeometry") ?? true
        let returnCentroid = try p.bool("returnCentroid") ?? false
        // Generalisation for drawing at a scale, in the output reference's units; a ring smaller
        // than it is left out, a feature with nothing left has no geometry.
        let tolerance = try p.double("maxAllowableOffset") ?? 0
        guard tolerance >= 0 else {
            throw HTTPFailure(.badRequest, "maxAllowableOffset must be 0 or more (in the units of outSR)", parameter: "maxAllowableOffset")
        }

        var features: [Feature] = []
        for i in page {
            let feature = layer.features[i]
            var attributes: [String: JSONValue] = [:]
            for field in fields {
                switch field.name {
                case "OBJECTID": attributes["OBJECTID"] = .integer(Int64(i + 1))
                case "id": attributes["id"] = .string(feature.id)
                case "name": attributes["name"] = .string(feature.name)
                default: attributes[field.name] = feature.attributes[field.name] ?? .null
                }
            }
            var polygons: [[[[Double]]]]? = nil
            if returnGeometry {
                var projected: [[[[Double]]]] = []
                for polygon in layer.polygons(feature: i) {
                    var rings: [[[Double]]] = []
                    for (r, ring) in polygon.enumerated() {
                        var points: [GeoPoint] = []
                        points.reserveCapacity(ring.count)
                        for v in ring { points.append(try s.project(v, to: out)) }
                        if tolerance > 0 {
                            guard let kept = RingSimplification.simplified(points, tolerance: tolerance) else {
                                // A shell gone takes its holes with it.
                                if r == 0 { break } else { continue }
                            }
                            points = kept
                        }
                        rings.append(points.map { [$0.x, $0.y] })
                    }
                    if !rings.isEmpty { projected.append(rings) }
                }
                polygons = projected.isEmpty ? nil : projected
            }
            let centroid = returnCentroid ? try s.project(layer.labelPoint(feature: i), to: out) : nil
            features.append(Feature(objectID: i + 1, attributes: attributes, polygons: polygons, centroid: centroid))
        }

        if f == "geojson" {
            let collection = GeoJSONCollection(features: features.map { feature in
                let geometry: GeoJSONGeometry? = feature.polygons.map { polygons in
                    polygons.count == 1 ? .polygon(polygons[0]) : .multiPolygon(polygons)
                }
                return GeoJSONFeature(id: feature.objectID, geometry: geometry, properties: feature.attributes,
                                      centroid: feature.centroid.map { [$0.x, $0.y] })
            }, exceededTransferLimit: exceeded ? true : nil)
            return .json(collection, contentType: "application/geo+json; charset=utf-8")
        }
        return .json(QueryReply(
            spatialReference: .init(out), fields: fields,
            features: features.map { f in
                EsriFeature(attributes: f.attributes, geometry: f.polygons.map { Rings(rings: $0.flatMap { $0 }) },
                            centroid: f.centroid.map { EsriJSON.Point(x: $0.x, y: $0.y) })
            },
            exceededTransferLimit: exceeded ? true : nil), pretty: f == "pjson")
    }

    /// One feature of a query's answer, before it is written as Esri JSON or GeoJSON.
    private struct Feature {
        var objectID: Int
        var attributes: [String: JSONValue]
        /// Each polygon's rings, shell first, as [x, y] pairs in the output reference.
        var polygons: [[[[Double]]]]?
        /// A point inside the polygon, for its label (`returnCentroid`), in the output reference.
        var centroid: GeoPoint?
    }

    struct IdsReply: Encodable, Sendable {
        var objectIdFieldName = "OBJECTID"
        var objectIds: [Int]
    }

    struct Rings: Encodable, Sendable {
        var rings: [[[Double]]]
    }

    struct EsriFeature: Encodable, Sendable {
        var attributes: [String: JSONValue]
        var geometry: Rings?
        var centroid: EsriJSON.Point?
    }

    struct QueryReply: Encodable, Sendable {
        var objectIdFieldName = "OBJECTID"
        var globalIdFieldName = ""
        var geometryType = "esriGeometryPolygon"
        var spatialReference: EsriJSON.SpatialReferenceJSON
        var fields: [FieldDescription]
        var features: [EsriFeature]
        var exceededTransferLimit: Bool?
    }

    enum GeoJSONGeometry: Encodable, Sendable {
        case polygon([[[Double]]])
        case multiPolygon([[[[Double]]]])

        enum Keys: String, CodingKey { case type, coordinates }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Keys.self)
            switch self {
            case .polygon(let rings):
                try c.encode("Polygon", forKey: .type)
                try c.encode(rings, forKey: .coordinates)
            case .multiPolygon(let polygons):
                try c.encode("MultiPolygon", forKey: .type)
                try c.encode(polygons, forKey: .coordinates)
            }
        }
    }

    struct GeoJSONFeature: Encodable, Sendable {
        var type = "Feature"
        var id: Int
        var geometry: GeoJSONGeometry?
        var properties: [String: JSONValue]
        /// `returnCentroid`'s label point, as a foreign member (RFC 7946 §6.1): `[x, y]`.
        var centroid: [Double]?

        init(id: Int, geometry: GeoJSONGeometry?, properties: [String: JSONValue], centroid: [Double]? = nil) {
            self.id = id
            self.geometry = geometry
            self.properties = properties
            self.centroid = centroid
        }

        enum Keys: String, CodingKey { case type, id, geometry, properties, centroid }

        // `geometry` is written as null when not asked for, as GeoJSON requires the member.
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(type, forKey: .type)
            try c.encode(id, forKey: .id)
            if let geometry { try c.encode(geometry, forKey: .geometry) } else { try c.encodeNil(forKey: .geometry) }
            try c.encode(properties, forKey: .properties)
            try c.encodeIfPresent(centroid, forKey: .centroid)
        }
    }

    struct GeoJSONCollection: Encodable, Sendable {
        var type = "FeatureCollection"
        var features: [GeoJSONFeature]
        var exceededTransferLimit: Bool?
    }
}

extension BoundaryLayer {
    /// The envelope of every feature, in lon/lat.
    var extentOfFeatures: Envelope {
        var e = Envelope.empty
        for f in features { e.extend(f.envelope) }
        return e
    }
}
