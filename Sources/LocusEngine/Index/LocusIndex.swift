import Foundation
import LocusCore

/// A polygon layer's description, as `index info` and the locator's info show it.
public struct LayerInfo: Sendable, Codable, Hashable {
    public var name: String
    public var source: String
    public var crs: String
    public var nameField: String
    public var idField: String
    public var featureCount: Int
    public var fields: [String]

    enum CodingKeys: String, CodingKey {
        case name, source, crs, fields
        case nameField = "name_field"
        case idField = "id_field"
        case featureCount = "feature_count"
    }
}

/// Where an index's data came from.
public struct SourceInfo: Sendable, Codable, Hashable {
    public var name: String
    public var kind: String
    public var file: String
    public var size: Int
    public var sha256: String
    public var crs: String
}

/// An index file's self-description, readable without loading any data.
public struct IndexMetadata: Sendable, Codable {
    public var path: String
    public var schemaVersion: Int
    public var values: [String: String]
    public var sources: [SourceInfo]
    public var layers: [LayerInfo]
    /// Rows and features not imported as they stood, per source and outcome.
    public var issueCounts: [String: [String: Int]]

    enum CodingKeys: String, CodingKey {
        case path, values = "metadata", sources, layers
        case schemaVersion = "schema_version"
        case issueCounts = "import_issues"
    }
}

/// An opened index: its metadata and, as asked, its addresses and polygon layers in memory.
/// Immutable and `Sendable`; per-thread work (coordinate transforms) lives in `Locator`.
public final class LocusIndex: Sendable {
    public struct Parts: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public static let addresses = Parts(rawValue: 1)
        public static let layers = Parts(rawValue: 2)
        /// Address search (suggest, geocode): derived from the addresses and layers when opened.
        public static let search = Parts(rawValue: 4)
        public static let all: Parts = [.addresses, .layers, .search]
    }

    public let metadata: IndexMetadata
    public let addresses: AddressIndex?
    public let layers: [String: BoundaryLayer]
    public let search: AddressSearch?
    /// Lots linked to their addresses, when the index was built with a lot layer; loaded with the
    /// addresses (reverse geocoding uses them first).
    public let lots: LotLayer?

    public var path: String { metadata.path }

    /// Opens an index, refusing files that are not Locus indexes or are of another schema version.
    /// - Parameters:
    ///   - synonyms: street synonyms to use besides those stored in the index.
    ///   - mapped: use the address tables where they lie in the file (an open then costs the same
    ///     at any size) rather than read them into memory. The file must then be replaced by
    ///     renaming a new one over it, never overwritten in place: see `IndexSections.Residence`.
    public init(path: String, loading parts: Parts = .all, synonyms extra: StreetSynonyms = StreetSynonyms(),
                mapped: Bool = false) throws(LocusError) {
        guard FileManager.default.fileExists(atPath: path) else {
            throw LocusError(.notFound, "no index at \(path); build one with `locus index build`")
        }
        let db = try SQLiteDatabase(path: path, mode: .readOnly)
        let metadata = try Self.readMetadata(db, path: path)
        self.metadata = metadata
        let wantsAddresses = (parts.contains(.addresses) || parts.contains(.search)) && metadata.values["address_count"] != nil
        let wantsLayers = (parts.contains(.layers) || parts.contains(.search)) && !metadata.layers.isEmpty
        // The tables are used as they lie in the file (`IndexSections`): nothing is decoded or
        // checked at open, so an open costs the same at any size (mapped) or a copy (copied).
        let sections = wantsAddresses || wantsLayers
            ? try IndexSections.read(path: metadata.path, mapped ? .mapped : .copied) { wantsAddresses || $0.hasPrefix("layer.") } : [:]
        addresses = wantsAddresses ? try Self.loadAddresses(db, metadata, sections) : nil
        var layers: [String: BoundaryLayer] = [:]
        if wantsLayers {
            for info in metadata.layers {
                layers[info.name] = try Self.openLayer(db, name: info.name, expected: info.featureCount, sections, path: path)
            }
        }
        self.layers = layers
        if let addresses, let name = metadata.values["lot_layer"] {
            guard let info = metadata.layers.first(where: { $0.name == name }) else {
                throw LocusError(.invalidIndex, "\(path): the lot layer \(name) is missing; rebuild the index")
            }
            let layer: BoundaryLayer
            if let loaded = layers[name] {
                layer = loaded
            } else {
                layer = try Self.openLayer(db, name: name, expected: info.featureCount, sections, path: path)
            }
            let reach = metadata.values["lot_reach"].flatMap(Double.init) ?? LotLayer.defaultReach
            let blob = try db.prepare("SELECT data FROM blobs WHERE name = ?")
            try blob.bind([.text("lot_addresses")])
            guard try blob.step() else { throw LocusError(.invalidIndex, "\(path) names a lot layer but has no lot links") }
            let lots: LotLayer? = try blob.withBlob(0) { raw in
                LotLayer.unpack(raw, layer: layer, addressCount: addresses.points.count, reach: reach)
            }
            guard let lots else { throw LocusError(.invalidIndex, "\(path): the lot links are damaged; rebuild the index") }
            self.lots = lots
        } else {
            lots = nil
        }
        if parts.contains(.search), let addresses {
            let stored = try metadata.values["synonyms"].map { (text) throws(LocusError) in try StreetSynonyms(parsing: text) } ?? StreetSynonyms()
            search = AddressSearch(addresses: addresses, layers: layers.keys.sorted().compactMap { layers[$0] },
                                   synonyms: stored.merging(extra),
                                   stored: try SearchTables.unpack(sections, addresses: addresses, path: path))
        } else {
            search = nil
        }
    }

    /// Reads only the metadata (for `index info`), checking the schema version like `init` does.
    public static func metadata(path: String) throws(LocusError) -> IndexMetadata {
        guard FileManager.default.fileExists(atPath: path) else {
            throw LocusError(.notFound, "no index at \(path)")
        }
        return try readMetadata(SQLiteDatabase(path: path, mode: .readOnly), path: path)
    }

    private static func readMetadata(_ db: SQLiteDatabase, path: String) throws(LocusError) -> IndexMetadata {
        var values: [String: String] = [:]
        let rows: SQLiteStatement
        do {
            rows = try db.prepare("SELECT key, value FROM metadata")
        } catch {
            throw LocusError(.invalidIndex, "\(path) is not a Locus index (\(error.message))")
        }
        while try rows.step() { values[rows.text(0)] = rows.text(1) }
        guard values["format"] == "locus-index", let version = values["schema_version"].flatMap(Int.init) else {
            throw LocusError(.invalidIndex, "\(path) is not a Locus index")
        }
        guard version == IndexSchema.version else {
            throw LocusError(.invalidIndex, "\(path) has index schema version \(version); this Locus \(LocusVersion.current) reads version \(IndexSchema.version). Rebuild it with `locus index build`.")
        }
        var sources: [SourceInfo] = []
        let s = try db.prepare("SELECT name, kind, file, size, sha256, crs FROM sources ORDER BY name, file")
        while try s.step() {
            sources.append(SourceInfo(name: s.text(0), kind: s.text(1), file: s.text(2), size: Int(s.int64(3)), sha256: s.text(4), crs: s.text(5)))
        }
        var layers: [LayerInfo] = []
        let l = try db.prepare("SELECT name, source, crs, name_field, id_field, feature_count, fields FROM layers ORDER BY name")
        while try l.step() {
            let fields = (try? JSONDecoder().decode([String].self, from: Data(l.text(6).utf8))) ?? []
            layers.append(LayerInfo(name: l.text(0), source: l.text(1), crs: l.text(2), nameField: l.text(3),
                                    idField: l.text(4), featureCount: Int(l.int64(5)), fields: fields))
        }
        var issues: [String: [String: Int]] = [:]
        if let n = values["address_rejected"].flatMap(Int.init), n > 0 { issues["addresses", default: [:]]["rejected"] = n }
        let i = try db.prepare("SELECT source, outcome, count(*) FROM import_issues WHERE source != 'addresses' GROUP BY source, outcome")
        while try i.step() { issues[i.text(0), default: [:]][i.text(1)] = Int(i.int64(2)) }
        return IndexMetadata(path: path, schemaVersion: version, values: values, sources: sources, layers: layers, issueCounts: issues)
    }

    private static func loadAddresses(_ db: SQLiteDatabase, _ metadata: IndexMetadata,
                                      _ sections: [String: PackedBytes]) throws(LocusError) -> AddressIndex {
        guard let gridJSON = metadata.values["address_grid"],
              let grid = try? JSONDecoder().decode(AddressIndex.Grid.self, from: Data(gridJSON.utf8)) else {
            throw LocusError(.invalidIndex, "\(metadata.path) has no address grid")
        }
        // What is read from the file is checked before arithmetic or indexing trusts it: a flipped
        // byte must be a refused index, never a trap.
        guard grid.originX.isFinite, grid.originY.isFinite, grid.cellWidth.isFinite, grid.cellHeight.isFinite,
              grid.cellWidth > 1e-9, grid.cellHeight > 1e-9, (1...(1 << 24)).contains(grid.columns), (1...(1 << 24)).contains(grid.rows),
              grid.columns * grid.rows <= 1 << 26 else {
            throw LocusError(.invalidIndex, "\(metadata.path): the address grid is damaged")
        }
        func strings(_ sql: String) throws(LocusError) -> [String] {
            let s = try db.prepare(sql)
            var out: [String] = []
            while try s.step() { out.append(s.text(0)) }
            return out
        }
        let streets = try strings("SELECT name FROM streets ORDER BY id")
        let streetDisplay = try strings("SELECT display FROM streets ORDER BY id")
        let suffixes = try strings("SELECT suffix FROM number_suffixes ORDER BY id")
        var places: [AddressPlace] = []
        let p = try db.prepare("SELECT city, state, postcode FROM places ORDER BY id")
        while try p.step() { places.append(AddressPlace(city: p.text(0), state: p.text(1), postcode: p.text(2))) }

        func section(_ name: String, stride: Int, count: Int) throws(LocusError) -> PackedRecords {
            guard let s = sections[name], s.bytes.count == count * stride else {
                throw LocusError(.invalidIndex, "\(metadata.path): the \(name) table is missing or of the wrong size; rebuild the index")
            }
            return PackedRecords(bytes: s.bytes, stride: stride, owner: s.owner)
        }
        guard let count = metadata.values["address_count"].flatMap(Int.init), count >= 0, count < Int(Int32.max) else {
            throw LocusError(.invalidIndex, "\(metadata.path): the address count is missing")
        }
        // The point tables' street, place and suffix numbers are clamped into these tables as they
        // are read (`PointTable`), which holds only if each has a row: an emptied one is damage
        // (found by `scripts/fuzz index`: places deleted, a reverse then trapped).
        guard count == 0 || (!streets.isEmpty && streetDisplay.count == streets.count && !places.isEmpty && !suffixes.isEmpty) else {
            throw LocusError(.invalidIndex, "\(metadata.path): the street, place or suffix table is missing rows; rebuild the index")
        }
        let cells = try section("address_cells", stride: 4, count: grid.columns * grid.rows + 1)
        let points = try section("address_points", stride: IndexSchema.packedAddressSize, count: count)
        let frontage = try section("address_frontage", stride: LotFrontage.packedSize, count: count)
        return AddressIndex(grid: grid, cellStart: cells, points: points, streets: streets, streetDisplay: streetDisplay,
                            places: places, suffixes: suffixes, frontage: frontage)
    }

    /// A layer as the builder wrote it, from its polygons' WKB: what `LayerTables` stores.
    static func loadLayer(_ db: SQLiteDatabase, name: String, expected: Int) throws(LocusError) -> BoundaryLayer {
        let geos = try GEOSContext()
        var rings: [[[GeoPoint]]] = []
        let features = try readFeatures(db, name: name, expected: expected) { (feature, wkb) throws(LocusError) in
            let featureRings: [[GeoPoint]]
            do { featureRings = try geos.readWKB(wkb).rings() } catch {
                throw LocusError(.invalidIndex, "layer \(name): polygon \(feature.id) is damaged (unreadable geometry); rebuild the index")
            }
            guard featureRings.allSatisfy({ $0.allSatisfy { abs($0.x) <= 180 && abs($0.y) <= 90 } }) else {
                throw LocusError(.invalidIndex, "layer \(name): polygon \(feature.id) is damaged (coordinates out of range); rebuild the index")
            }
            rings.append(featureRings)
        }
        return BoundaryLayer(name: name, features: features, rings: rings)
    }

    /// A layer of an index file: its features' rows, and its grid where it lies (`LayerTables`).
    static func openLayer(_ db: SQLiteDatabase, name: String, expected: Int, _ sections: [String: PackedBytes],
                          path: String) throws(LocusError) -> BoundaryLayer {
        try LayerTables.unpack(name: name, features: try readFeatures(db, name: name, expected: expected, geometry: nil), sections, path: path)
    }

    /// A layer's features in rank order, each checked, and with `geometry`, each polygon's WKB.
    private static func readFeatures(_ db: SQLiteDatabase, name: String, expected: Int,
                                     geometry: ((BoundaryFeature, [UInt8]) throws(LocusError) -> Void)?) throws(LocusError) -> [BoundaryFeature] {
        let s = try db.prepare("SELECT id, name, attributes, area_m2, min_x, min_y, max_x, max_y\(geometry == nil ? "" : ", geometry") FROM features WHERE layer = ? ORDER BY rank")
        try s.bind([.text(name)])
        var features: [BoundaryFeature] = []
        while try s.step() {
            let feature = BoundaryFeature(id: s.text(0), name: s.text(1), attributesJSON: s.text(2), areaSquareMetres: s.double(3),
                                          envelope: Envelope(minX: s.double(4), minY: s.double(5), maxX: s.double(6), maxY: s.double(7)))
            // Polygons are stored in lon/lat: anything else (NaN, 1e300 from a flipped byte) is
            // damage, and would trap in the grid arithmetic.
            let e = feature.envelope
            guard feature.areaSquareMetres.isFinite, [e.minX, e.maxX].allSatisfy({ abs($0) <= 180 }), [e.minY, e.maxY].allSatisfy({ abs($0) <= 90 }) else {
                throw LocusError(.invalidIndex, "layer \(name): polygon \(feature.id) is damaged (coordinates out of range); rebuild the index")
            }
            try geometry?(feature, s.blob(8))
            features.append(feature)
        }
        // The builder refuses a layer without polygons, so one here has lost them.
        guard !features.isEmpty, features.count == expected else {
            throw LocusError(.invalidIndex, "layer \(name) has \(features.count) polygons where the index lists \(expected); rebuild the index")
        }
        return features
    }

    /// The polygons of a layer as WKB, in rank order (for the GEOS reference and peers).
    public func layerWKB(_ name: String) throws(LocusError) -> [[UInt8]] {
        let db = try SQLiteDatabase(path: path, mode: .readOnly)
        let s = try db.prepare("SELECT geometry FROM features WHERE layer = ? ORDER BY rank")
        try s.bind([.text(name)])
        var out: [[UInt8]] = []
        while try s.step() { out.append(s.blob(0)) }
        return out
    }

    /// The first import issues of a source, as the build listed them.
    public func importIssues(source: String, limit: Int = 20) throws(LocusError) -> [ImportIssue] {
        let db = try SQLiteDatabase(path: path, mode: .readOnly)
        let s = try db.prepare("SELECT source, row, outcome, reason FROM import_issues WHERE source = ? ORDER BY rowid LIMIT ?")
        try s.bind([.text(source), .integer(Int64(limit))])
        var out: [ImportIssue] = []
        while try s.step() {
            out.append(ImportIssue(source: s.text(0), row: Int(s.int64(1)), outcome: .init(rawValue: s.text(2)) ?? .rejected, reason: s.text(3)))
        }
        return out
    }
}
