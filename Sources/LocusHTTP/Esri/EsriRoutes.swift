import Hummingbird
import LocusCore
import LocusWire

/// The ArcGIS REST paths: `/arcgis/rest/info`, the services directory, and each service's
/// GeocodeServer and FeatureServer operations, under the configured service name (and `World`).
struct EsriRoutes: Sendable {
    let configuration: HTTPConfiguration

    static let dialect = HTTPDialect(name: "esri") { failure, parameters in
        .json(EsriJSON.error(failure), status: .ok, pretty: parameters.string("f")?.lowercased() == "pjson",
              outcome: failure.code.rawValue)
    }

    func add(to router: Router<BasicRequestContext>, _ service: HTTPService) {
        let d = Self.dialect
        let geocoder = EsriGeocodeServer(configuration: configuration)
        let features = EsriFeatureServer(configuration: configuration)
        let root = "/arcgis/rest"
        let base = "\(root)/services/:service"
        // ArcGIS Server's paths ignore case; clients write them as documented, some in lower case.
        func route(_ path: String, op: String, _ answer: @escaping @Sendable (HTTPParameters, HTTPEngine.Session, Parameters) throws(HTTPFailure) -> HTTPReply) {
            service.route(router, RouterPath(path), d, op: op, answer)
            if path.lowercased() != path { service.route(router, RouterPath(path.lowercased()), d, op: op, answer) }
        }

        // What ArcGIS clients ask first: the server's version and whether it wants tokens.
        let tokenBased = service.requiresTokens
        service.route(router, "\(root)/info", d, op: "info", authenticated: false) { p, _, _ throws(HTTPFailure) in
            _ = try EsriJSON.format(p)
            return .json(ServerInfo(authInfo: .init(isTokenBasedSecurity: tokenBased)), pretty: p.string("f") == "pjson")
        }
        service.route(router, "\(root)/services", d, op: "catalog") { [configuration] p, _, _ throws(HTTPFailure) in
            _ = try EsriJSON.format(p)
            let names = [configuration.serviceName] + (configuration.answerAsWorld ? ["World"] : [])
            let services = names.flatMap { [Catalog.Entry(name: $0, type: "GeocodeServer"), Catalog.Entry(name: $0, type: "FeatureServer")] }
            return .json(Catalog(services: services), pretty: p.string("f") == "pjson")
        }
        route("\(base)/GeocodeServer", op: "info") { p, s, r throws(HTTPFailure) in
            try check(r); return try geocoder.describe(p, s)
        }
        route("\(base)/GeocodeServer/findAddressCandidates", op: "geocode") { p, s, r throws(HTTPFailure) in
            try check(r); return try geocoder.findAddressCandidates(p, s)
        }
        route("\(base)/GeocodeServer/suggest", op: "suggest") { p, s, r throws(HTTPFailure) in
            try check(r); return try geocoder.suggest(p, s)
        }
        route("\(base)/GeocodeServer/reverseGeocode", op: "reverse") { p, s, r throws(HTTPFailure) in
            try check(r); return try geocoder.reverseGeocode(p, s)
        }
        route("\(base)/GeocodeServer/geocodeAddresses", op: "geocode_batch") { p, s, r throws(HTTPFailure) in
            try check(r); return try geocoder.geocodeAddresses(p, s)
        }
        route("\(base)/FeatureServer", op: "info") { p, s, r throws(HTTPFailure) in
            try check(r); return try features.describe(p, s)
        }
        route("\(base)/FeatureServer/:layer", op: "info") { p, s, r throws(HTTPFailure) in
            try check(r); return try features.describeLayer(r.get("layer") ?? "", p, s)
        }
        route("\(base)/FeatureServer/:layer/query", op: "within") { p, s, r throws(HTTPFailure) in
            try check(r); return try features.query(r.get("layer") ?? "", p, s)
        }
        service.route(router, "/arcgis/**", d, op: "unknown") { _, _, _ throws(HTTPFailure) in
            throw HTTPFailure(.notFound, "no such ArcGIS REST resource", code: .notFound)
        }
    }

    /// The service name in the path: the configured one, or `World`; any case, as ArcGIS paths.
    private func check(_ route: Parameters) throws(HTTPFailure) {
        let name = route.get("service")?.lowercased() ?? ""
        guard name == configuration.serviceName.lowercased() || (configuration.answerAsWorld && name == "world") else {
            throw HTTPFailure(.notFound, "no service named \(name.prefix(40)); this server has \(configuration.serviceName)", code: .notFound)
        }
    }

    struct ServerInfo: Encodable, Sendable {
        struct AuthInfo: Encodable, Sendable {
            var isTokenBasedSecurity: Bool
        }
        var currentVersion = 11.1
        var fullVersion = "11.1.0"
        var authInfo: AuthInfo
    }

    struct Catalog: Encodable, Sendable {
        struct Entry: Encodable, Sendable {
            var name: String
            var type: String
        }
        var currentVersion = 11.1
        var folders: [String] = []
        var services: [Entry]
    }
}
