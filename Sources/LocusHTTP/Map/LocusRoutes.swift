import Hummingbird
import LocusCore
import LocusEngine
import LocusProtocol
import LocusWire

/// Locus's own JSON endpoints, under `/locus/`, for what the map page needs and no dialect says:
/// the protocol's operations with their own answers — `reverse` with a method and every layer's
/// covering polygons (what the field app receives when a tree is created), `geocode` with its
/// explanation, `suggest`, `info` — and the address points in a view. Parameters are Esri's
/// where Esri has one (`location`, `distance`, `maxSuggestions`, `maxLocations`); errors are
/// `{"error":{"code","message","parameter"}}`.
struct LocusRoutes: Sendable {
    let configuration: HTTPConfiguration

    func add(to router: Router<BasicRequestContext>, _ service: HTTPService) {
        let d = HTTPDialect.plain
        let configuration = configuration
        service.route(router, "/locus/info", d, op: "info") { _, s, _ throws(HTTPFailure) in
            try Self.info(s, configuration)
        }
        service.route(router, "/locus/suggest", d, op: "suggest") { p, s, _ throws(HTTPFailure) in
            try Self.suggest(p, s)
        }
        service.route(router, "/locus/geocode", d, op: "geocode") { p, s, _ throws(HTTPFailure) in
            try Self.geocode(p, s)
        }
        service.route(router, "/locus/reverse", d, op: "reverse") { p, s, _ throws(HTTPFailure) in
            try Self.reverse(p, s)
        }
        service.route(router, "/locus/addresses", d, op: "addresses") { p, s, _ throws(HTTPFailure) in
            try Self.addresses(p, s, configuration)
        }
        service.route(router, "/locus/**", d, op: "unknown") { _, _, _ throws(HTTPFailure) in
            throw HTTPFailure(.notFound, "no such endpoint: /locus/ has info, suggest, geocode, reverse and addresses", code: .notFound)
        }
    }

    /// The locator's `info` (the index's build time, sources, counts and layers), with what a
    /// map needs besides: where the data is, and the Esri service its layers are queried from.
    struct MapInfo: Encodable, Sendable {
        var locator: LocatorInfo
        var serviceName: String
        /// The envelope of the addresses and the polygons, in lon/lat; nil for an empty index.
        var extent: EsriJSON.Extent?
        var pointsInView: Int

        enum CodingKeys: String, CodingKey {
            case locator, extent
            case serviceName = "service_name"
            case pointsInView = "points_in_view"
        }
    }

    static func info(_ s: HTTPEngine.Session, _ configuration: HTTPConfiguration) throws(HTTPFailure) -> HTTPReply {
        let locator = try s.run(.info, (), as: LocatorInfo.self)
        let e = s.lonLatExtent
        let extent = e.isEmpty ? nil : EsriJSON.Extent(xmin: e.minX, ymin: e.minY, xmax: e.maxX, ymax: e.maxY, spatialReference: .init(.wgs84))
        return .json(MapInfo(locator: locator, serviceName: configuration.serviceName, extent: extent,
                             pointsInView: configuration.maximumPointsInView))
    }

    /// `text` (required), `maxSuggestions` (default 6, at most 15), `location` (x,y: prefer near).
    static func suggest(_ p: HTTPParameters, _ s: HTTPEngine.Session) throws(HTTPFailure) -> HTTPReply {
        guard let text = p.string("text") else { throw HTTPFailure(.badRequest, "suggest needs text", parameter: "text") }
        var request = SuggestRequest(text: text)
        request.maxResults = try p.int("maxSuggestions", in: 1...15) ?? 6
        var arguments = SuggestArguments(request: request)
        if let (near, reference) = try EsriJSON.point(p, "location", defaultReference: .wgs84) {
            arguments.request.near = near
            arguments.locationReference = reference
        }
        return .json(try s.suggest(arguments))
    }

    /// `text` or `magicKey` (a suggestion's key), `maxLocations` (default 5, at most 50),
    /// `explain` (default true), `location`.
    static func geocode(_ p: HTTPParameters, _ s: HTTPEngine.Session) throws(HTTPFailure) -> HTTPReply {
        let input: GeocodeRequest.Input
        if let key = p.string("magicKey") {
            input = .key(key)
        } else if let text = p.string("text") {
            input = .text(text)
        } else {
            throw HTTPFailure(.badRequest, "geocode needs text or magicKey", parameter: "text")
        }
        var arguments = GeocodeArguments(request: GeocodeRequest(input))
        arguments.request.maxResults = try p.int("maxLocations", in: 1...50) ?? 5
        arguments.request.explain = try p.bool("explain") ?? true
        if let (near, reference) = try EsriJSON.point(p, "location", defaultReference: .wgs84) {
            arguments.request.near = near
            arguments.locationReference = reference
        }
        return .json(try s.geocode(arguments))
    }

    /// `location` (x,y in 4326, or a point object), `method` (`frontage`, `nearest`),
    /// `distance` (metres, default 100), `layers` (default: every layer of the index).
    static func reverse(_ p: HTTPParameters, _ s: HTTPEngine.Session) throws(HTTPFailure) -> HTTPReply {
        guard let (point, reference) = try EsriJSON.point(p, "location", defaultReference: .wgs84) else {
            throw HTTPFailure(.badRequest, "reverse needs location: x,y or a point object", parameter: "location")
        }
        var request = ReverseRequest(location: point)
        request.spatialReference = reference
        request.maxDistance = try p.double("distance") ?? request.maxDistance
        if let method = p.string("method") {
            guard let m = ReverseMethod(rawValue: method.lowercased()) else {
                throw HTTPFailure(.badRequest, "method must be frontage or nearest", parameter: "method")
            }
            request.method = m
        }
        let known = s.metadata.layers.map(\.name)
        let layers = p.list("layers") ?? known
        if let unknown = layers.first(where: { !known.contains($0) }) {
            throw HTTPFailure(.notFound, "no layer \(unknown.prefix(40)) (the index has: \(known.joined(separator: ", ")))",
                              parameter: "layers", code: .notFound)
        }
        return .json(try s.reverse(ReverseArguments(request: request, layers: layers)))
    }

    /// `bbox` (xmin,ymin,xmax,ymax in lon/lat, or an extent object), `limit` (default and at
    /// most the server's `maximumPointsInView`).
    static func addresses(_ p: HTTPParameters, _ s: HTTPEngine.Session, _ configuration: HTTPConfiguration) throws(HTTPFailure) -> HTTPReply {
        guard let box = try EsriJSON.envelope(p, "bbox", defaultReference: .wgs84, s) else {
            throw HTTPFailure(.badRequest, "addresses needs bbox: xmin,ymin,xmax,ymax", parameter: "bbox")
        }
        let limit = try p.int("limit", in: 1...configuration.maximumPointsInView) ?? configuration.maximumPointsInView
        return .json(AddressesInView(s.handler.index.addresses, in: box, limit: limit))
    }
}
