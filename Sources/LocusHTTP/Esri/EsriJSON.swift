import LocusCore
import LocusWire

/// Esri's JSON: spatial references, points, envelopes and errors as the ArcGIS REST API writes
/// and reads them, for the GeocodeServer and FeatureServer adapters.
enum EsriJSON {
    /// `{"wkid": 102100, "latestWkid": 3857}`: the wkid as Esri names it (102100 for Web Mercator,
    /// whichever of its names the client used) and the EPSG code it stands for.
    struct SpatialReferenceJSON: Encodable, Sendable {
        var wkid: Int
        var latestWkid: Int

        init(_ reference: SpatialReference) {
            latestWkid = reference.latestWkid
            wkid = latestWkid == 3857 ? 102100 : reference.wkid
        }
    }

    struct Point: Encodable, Sendable {
        var x: Double
        var y: Double
        var spatialReference: SpatialReferenceJSON?
    }

    struct Extent: Encodable, Sendable {
        var xmin: Double
        var ymin: Double
        var xmax: Double
        var ymax: Double
        var spatialReference: SpatialReferenceJSON?
    }

    /// `{"error": {"code": 400, "message": …, "details": […]}}`, sent with HTTP status 200 as
    /// ArcGIS Server does: Esri clients read the code from the body (geopy's `ArcGIS` takes a
    /// reverse geocode's 400 "Unable to find address" as "no answer", which an HTTP 400 would
    /// turn into an exception).
    struct ErrorBody: Encodable, Sendable {
        struct Inner: Encodable, Sendable {
            var code: Int
            var message: String
            var details: [String]
        }
        var error: Inner
    }

    static func error(_ failure: HTTPFailure) -> ErrorBody {
        let code: Int
        let message: String
        switch failure.code {
        case .unauthorized:
            (code, message) = failure.status.code == 403 ? (498, "Invalid Token") : (499, "Token Required")
        case .notFound:
            (code, message) = (400, "Unable to complete operation.")
        case .tooLarge:
            (code, message) = (413, "Request too large.")
        case .internalError, .overloaded, .timeout:
            (code, message) = (500, "Unable to complete operation.")
        default:
            (code, message) = (400, "Unable to complete operation.")
        }
        return ErrorBody(error: .init(code: code, message: message, details: [failure.message]))
    }

    // MARK: Reading Esri parameters

    /// `outSR`/`inSR`: a wkid (`102100`) or a spatial reference object (`{"wkid":102100}`,
    /// `{"latestWkid":3857}`). WKT is not accepted.
    static func spatialReference(_ parameters: HTTPParameters, _ name: String) throws(HTTPFailure) -> SpatialReference? {
        guard let text = parameters.string(name)?.trimmingWhitespace() else { return nil }
        if let wkid = Int(text) { return try checked(wkid, name) }
        guard case .object(let o)? = try parameters.json(name) else {
            throw HTTPFailure(.badRequest, "\(name) must be a wkid such as 4326 or {\"wkid\": 4326}", parameter: name)
        }
        return try spatialReference(o, name)
    }

    static func spatialReference(_ object: [String: JSONValue], _ name: String) throws(HTTPFailure) -> SpatialReference {
        for key in ["wkid", "latestWkid"] {
            if let n = object[key]?.numericValue {
                guard n == n.rounded(), abs(n) < 1e9 else { break }
                return try checked(Int(n), name)
            }
        }
        throw HTTPFailure(.badRequest, "\(name) needs a wkid (well-known text is not supported)", parameter: name)
    }

    private static func checked(_ wkid: Int, _ name: String) throws(HTTPFailure) -> SpatialReference {
        do { return try SpatialReference(wkid: wkid) } catch {
            throw HTTPFailure(.badRequest, "\(name): \(error.message)", parameter: name)
        }
    }

    /// A point: `x,y` in `defaultReference`, or `{"x":…,"y":…,"spatialReference":{"wkid":…}}`.
    static func point(_ parameters: HTTPParameters, _ name: String, defaultReference: SpatialReference) throws(HTTPFailure) -> (GeoPoint, SpatialReference)? {
        guard let text = parameters.string(name)?.trimmingWhitespace() else { return nil }
        if !text.hasPrefix("{") {
            let parts = text.split(separator: ",").map { Double($0.trimmingWhitespace()) }
            guard parts.count == 2, let x = parts[0], let y = parts[1], x.isFinite, y.isFinite else {
                throw HTTPFailure(.badRequest, "\(name) must be x,y or {\"x\": …, \"y\": …, \"spatialReference\": {\"wkid\": …}}", parameter: name)
            }
            return (GeoPoint(x: x, y: y), defaultReference)
        }
        guard case .object(let o)? = try parameters.json(name),
              let x = o["x"]?.numericValue, let y = o["y"]?.numericValue, x.isFinite, y.isFinite else {
            throw HTTPFailure(.badRequest, "\(name) needs numbers x and y", parameter: name)
        }
        var reference = defaultReference
        if case .object(let sr)? = o["spatialReference"] { reference = try spatialReference(sr, name) }
        return (GeoPoint(x: x, y: y), reference)
    }

    /// An envelope: `xmin,ymin,xmax,ymax` in `defaultReference`, or an extent object, as lon/lat.
    static func envelope(_ parameters: HTTPParameters, _ name: String, defaultReference: SpatialReference,
                         _ session: HTTPEngine.Session) throws(HTTPFailure) -> Envelope? {
        guard let text = parameters.string(name)?.trimmingWhitespace() else { return nil }
        var values: [Double?]
        var reference = defaultReference
        if text.hasPrefix("{") {
            guard case .object(let o)? = try parameters.json(name) else {
                throw HTTPFailure(.badRequest, "\(name) must be an extent object", parameter: name)
            }
            values = ["xmin", "ymin", "xmax", "ymax"].map { o[$0]?.numericValue }
            if case .object(let sr)? = o["spatialReference"] { reference = try spatialReference(sr, name) }
        } else {
            values = text.split(separator: ",").map { Double($0.trimmingWhitespace()) }
        }
        guard values.count == 4, let x0 = values[0], let y0 = values[1], let x1 = values[2], let y1 = values[3],
              [x0, y0, x1, y1].allSatisfy(\.isFinite), x0 < x1, y0 < y1 else {
            throw HTTPFailure(.badRequest, "\(name) must be xmin,ymin,xmax,ymax with xmin < xmax and ymin < ymax", parameter: name)
        }
        // A web map that wraps around the world sends views wider than it (zoomed out) or across
        // the antimeridian (panned on), in lon/lat or Web Mercator: their x is read as longitude
        // running on past ±180. Each corner wrapped on its own, a Web Mercator view of the whole
        // world selected nothing (its corners met at one longitude), and one from 179.7° to 180.6°
        // everything (-179.4…179.7); in lon/lat, past ±180 was refused.
        if let degrees = Self.degreesOfLongitude(perUnitOf: reference) {
            let south = try session.lonLat(GeoPoint(x: 0, y: y0), from: reference).y
            let north = try session.lonLat(GeoPoint(x: 0, y: y1), from: reference).y
            let boxes = Self.longitudes(x0 * degrees, x1 * degrees).map { Envelope(minX: $0.west, minY: south, maxX: $0.east, maxY: north) }
            // Across the antimeridian, a view is two boxes; the index lies in one of them at most
            // (no US city crosses it).
            let extent = session.lonLatExtent
            return boxes.first { $0.intersects(extent) } ?? boxes[0]
        }
        var lonLat = Envelope.empty
        for corner in [GeoPoint(x: x0, y: y0), GeoPoint(x: x0, y: y1), GeoPoint(x: x1, y: y0), GeoPoint(x: x1, y: y1)] {
            let p = try session.lonLat(corner, from: reference)
            lonLat.extend(x: p.x, y: p.y)
        }
        return lonLat
    }

    /// Degrees of longitude per unit of x, for the references whose x is longitude to scale
    /// (lon/lat, Web Mercator); nil for the others.
    static func degreesOfLongitude(perUnitOf reference: SpatialReference) -> Double? {
        switch reference.latestWkid {
        case 4326: 1
        case 3857: 180 / (Double.pi * 6_378_137)
        default: nil
        }
    }

    /// The longitudes from `west` to `east` (on past ±180, `west` < `east`) as ranges within
    /// -180…180: the whole circle when they span it, else one range, or two across the antimeridian.
    static func longitudes(_ west: Double, _ east: Double) -> [(west: Double, east: Double)] {
        guard east - west < 360 else { return [(-180, 180)] }
        let turns = ((west + 180) / 360).rounded(.down) * 360
        let w = west - turns, e = east - turns
        return e <= 180 ? [(w, e)] : [(w, 180), (-180, e - 360)]
    }

    /// `f`: json (default) or pjson; anything else is refused, as there is no HTML page.
    static func format(_ parameters: HTTPParameters, allowing extra: [String] = []) throws(HTTPFailure) -> String {
        let f = parameters.string("f")?.lowercased() ?? "json"
        guard (["json", "pjson"] + extra).contains(f) else {
            throw HTTPFailure(.badRequest, "f must be \((["json", "pjson"] + extra).joined(separator: " or ")), got '\(f.prefix(20))'", parameter: "f")
        }
        return f
    }
}

/// US states and territories by USPS code, for Esri's `Region` (the name) beside `RegionAbbr`
/// and Nominatim's `state`.
enum USRegions {
    static let names: [String: String] = [
        "AL": "Alabama", "AK": "Alaska", "AZ": "Arizona", "AR": "Arkansas", "CA": "California", "CO": "Colorado",
        "CT": "Connecticut", "DE": "Delaware", "DC": "District of Columbia", "FL": "Florida", "GA": "Georgia",
        "HI": "Hawaii", "ID": "Idaho", "IL": "Illinois", "IN": "Indiana", "IA": "Iowa", "KS": "Kansas",
        "KY": "Kentucky", "LA": "Louisiana", "ME": "Maine", "MD": "Maryland", "MA": "Massachusetts",
        "MI": "Michigan", "MN": "Minnesota", "MS": "Mississippi", "MO": "Missouri", "MT": "Montana",
        "NE": "Nebraska", "NV": "Nevada", "NH": "New Hampshire", "NJ": "New Jersey", "NM": "New Mexico",
        "NY": "New York", "NC": "North Carolina", "ND": "North Dakota", "OH": "Ohio", "OK": "Oklahoma",
        "OR": "Oregon", "PA": "Pennsylvania", "RI": "Rhode Island", "SC": "South Carolina", "SD": "South Dakota",
        "TN": "Tennessee", "TX": "Texas", "UT": "Utah", "VT": "Vermont", "VA": "Virginia", "WA": "Washington",
        "WV": "West Virginia", "WI": "Wisconsin", "WY": "Wyoming", "PR": "Puerto Rico", "GU": "Guam",
        "VI": "U.S. Virgin Islands", "AS": "American Samoa", "MP": "Northern Mariana Islands",
    ]

    /// The state's name for a USPS code; the text itself when it is not one.
    static func name(_ code: String) -> String { names[code.uppercased()] ?? code }
}
