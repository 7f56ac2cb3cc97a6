import Hummingbird
import LocusCore
import LocusEngine
import LocusWire

/// Pelias's API (`/v1/search`, `/v1/search/structured`, `/v1/autocomplete`, `/v1/reverse`): the
/// protocol's operations answered as Pelias's GeoJSON, so that geopy's `Pelias`, Leaflet and
/// MapLibre geocoder plugins, and anything written against geocode.earth take Locus's URL.
struct PeliasRoutes: Sendable {
    let configuration: HTTPConfiguration

    /// Pelias answers a bad request with HTTP 400 and the FeatureCollection it always sends, its
    /// messages in `geocoding.errors`.
    static let dialect = HTTPDialect(name: "pelias") { failure, parameters in
        var query: [String: JSONValue] = [:]
        if let text = parameters.string("text") { query["text"] = .string(text) }
        let body = PeliasAnswers.Collection(geocoding: .init(query: query, errors: [failure.message]), features: [])
        return HTTPReply(status: failure.status, body: body.jsonBytes(), outcome: failure.code.rawValue)
    }

    func add(to router: Router<BasicRequestContext>, _ service: HTTPService) {
        let d = Self.dialect
        let answers = PeliasAnswers()
        service.route(router, "/v1/search", d, op: "geocode") { p, s, _ throws(HTTPFailure) in
            try answers.search(p, s)
        }
        service.route(router, "/v1/search/structured", d, op: "geocode") { p, s, _ throws(HTTPFailure) in
            try answers.structured(p, s)
        }
        service.route(router, "/v1/autocomplete", d, op: "suggest") { p, s, _ throws(HTTPFailure) in
            try answers.autocomplete(p, s)
        }
        service.route(router, "/v1/reverse", d, op: "reverse") { p, s, _ throws(HTTPFailure) in
            try answers.reverse(p, s)
        }
        service.route(router, "/v1/**", d, op: "unknown") { _, _, _ throws(HTTPFailure) in
            throw HTTPFailure(.notFound, "no such Pelias endpoint: Locus answers /v1/search, /v1/search/structured, /v1/autocomplete and /v1/reverse", code: .notFound)
        }
    }
}

/// Pelias's request parameters as Locus reads them, each refused with Pelias's words when wrong.
struct PeliasParameters {
    /// At most this many features (`size`, 1 … 40, default 10).
    var size = 10
    /// The Locus layers asked for (`layers`); nil: every layer.
    var layers: Set<String>?
    /// `focus.point.lat`/`lon`: rank places near it higher; distances are measured from it.
    var focus: GeoPoint?
    /// `boundary.rect.*`: only places inside.
    var rect: Envelope?
    /// What Pelias calls the cleaned query, echoed in `geocoding.query`.
    var query: [String: JSONValue] = [:]

    static let maximumSize = 40

    /// The layers Locus answers from, as Pelias names them.
    static let locusLayers: Set<String> = ["address", "street", "postalcode", "neighbourhood", "locality"]
    /// Every layer a Pelias server accepts: a client asking for venues is not wrong, it finds none.
    static let peliasLayers = [
        "coarse", "address", "venue", "street", "country", "macroregion", "region", "county", "localadmin",
        "locality", "borough", "neighbourhood", "continent", "empire", "dependency", "macrocounty", "macrohood",
        "microhood", "disputed", "postalcode", "ocean", "marinearea",
    ]

    init(_ p: HTTPParameters, defaultSize: Int = 10) throws(HTTPFailure) {
        size = try p.int("size", in: 1...Self.maximumSize) ?? defaultSize
        query["size"] = .integer(Int64(size))
        if let names = p.list("layers") {
            var layers: Set<String> = []
            for name in names.map({ $0.lowercased() }) {
                guard Self.peliasLayers.contains(name) else {
                    throw HTTPFailure(.badRequest, "'\(name.prefix(40))' is an invalid layers parameter. Valid options: \(Self.peliasLayers.joined(separator: ","))", parameter: "layers")
                }
                if name == "coarse" { layers.formUnion(["postalcode", "neighbourhood", "locality"]) }
                if Self.locusLayers.contains(name) { layers.insert(name) }
            }
            self.layers = layers
            query["layers"] = .array(layers.sorted().map(JSONValue.string))
        }
        if let sources = p.list("sources") {
            for source in sources where source.lowercased() != "locus" {
                throw HTTPFailure(.badRequest, "'\(source.prefix(40))' is an invalid sources parameter. Valid options: locus", parameter: "sources")
            }
            query["sources"] = .array([.string("locus")])
        }
        focus = try Self.point(p, "focus.point", required: false)
        if let focus {
            query["focus.point.lat"] = .number(focus.y)
            query["focus.point.lon"] = .number(focus.x)
        }
        rect = try Self.rect(p)
        if let rect {
            query["boundary.rect.min_lon"] = .number(rect.minX)
            query["boundary.rect.min_lat"] = .number(rect.minY)
            query["boundary.rect.max_lon"] = .number(rect.maxX)
            query["boundary.rect.max_lat"] = .number(rect.maxY)
        }
    }

    /// Whether a feature of this Pelias layer may be answered.
    func wants(_ layer: String) -> Bool { layers?.contains(layer) ?? true }

    /// Whether a place is inside `boundary.rect` (or there is none).
    func inside(_ p: GeoPoint) -> Bool { rect?.contains(x: p.x, y: p.y) ?? true }

    /// `text`, which Pelias requires non-empty.
    static func text(_ p: HTTPParameters) throws(HTTPFailure) -> String {
        guard let text = p.string("text") else {
            throw HTTPFailure(.badRequest, "invalid param 'text': text length, must be >0", parameter: "text")
        }
        return text
    }

    /// `<prefix>.lat` and `<prefix>.lon`, both or neither.
    static func point(_ p: HTTPParameters, _ prefix: String, required: Bool) throws(HTTPFailure) -> GeoPoint? {
        let latName = "\(prefix).lat", lonName = "\(prefix).lon"
        if !required, !p.contains(latName), !p.contains(lonName) { return nil }
        let lat = try coordinate(p, latName, limit: 90)
        let lon = try coordinate(p, lonName, limit: 180)
        return GeoPoint(x: lon, y: lat)
    }

    static func coordinate(_ p: HTTPParameters, _ name: String, limit: Int) throws(HTTPFailure) -> Double {
        guard let text = p.string(name) else {
            throw HTTPFailure(.badRequest, "missing param '\(name)'", parameter: name)
        }
        guard let value = Double(text.trimmingWhitespace()), value.isFinite else {
            throw HTTPFailure(.badRequest, "invalid param '\(name)': must be a number, got '\(text.prefix(40))'", parameter: name)
        }
        guard abs(value) <= Double(limit) else {
            throw HTTPFailure(.badRequest, "invalid param '\(name)': must be >= -\(limit) and <= \(limit)", parameter: name)
        }
        return value
    }

    /// `boundary.rect.min_lon`, `min_lat`, `max_lon`, `max_lat`: all four or none.
    static func rect(_ p: HTTPParameters) throws(HTTPFailure) -> Envelope? {
        let (minLonName, minLatName) = ("boundary.rect.min_lon", "boundary.rect.min_lat")
        let (maxLonName, maxLatName) = ("boundary.rect.max_lon", "boundary.rect.max_lat")
        guard [minLonName, minLatName, maxLonName, maxLatName].contains(where: { p.contains($0) }) else { return nil }
        let minLon = try coordinate(p, minLonName, limit: 180), minLat = try coordinate(p, minLatName, limit: 90)
        let maxLon = try coordinate(p, maxLonName, limit: 180), maxLat = try coordinate(p, maxLatName, limit: 90)
        guard minLat <= maxLat else { throw HTTPFailure(.badRequest, "min_lat is larger than max_lat in boundary.rect", parameter: minLatName) }
        guard minLon <= maxLon else { throw HTTPFailure(.badRequest, "min_lon is larger than max_lon in boundary.rect", parameter: minLonName) }
        return Envelope(minX: minLon, minY: minLat, maxX: maxLon, maxY: maxLat)
    }

    /// `boundary.circle.radius` (kilometres) as the reverse geocoder's reach in metres; absent:
    /// the `reverse` operation's own default.
    static func radiusMetres(_ p: HTTPParameters) throws(HTTPFailure) -> Double? {
        let name = "boundary.circle.radius"
        guard let km = try p.double(name) else { return nil }
        let limit = Int(QueryLimits.maximumDistance) / 1_000
        guard km > 0, km <= Double(limit) else {
            throw HTTPFailure(.badRequest, "invalid param '\(name)': must be more than 0 and at most \(limit) km", parameter: name)
        }
        return km * 1_000
    }
}
