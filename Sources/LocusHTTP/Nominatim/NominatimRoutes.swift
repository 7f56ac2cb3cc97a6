import Hummingbird
import LocusCore
import LocusEngine
import LocusProtocol
import LocusWire

/// Nominatim's API (`/search`, `/reverse`, `/status`, and the `.php` names older clients use):
/// the protocol's operations answered in Nominatim's formats, so that geopy's `Nominatim`,
/// Leaflet's and QGIS's Nominatim clients take Locus's URL.
struct NominatimRoutes: Sendable {
    let configuration: HTTPConfiguration

    /// Nominatim's error: `{"error": {"code": 400, "message": …}}` with the same HTTP status.
    static let dialect = HTTPDialect(name: "nominatim") { failure, _ in
        .json(ErrorBody(error: .init(code: Int(failure.status.code), message: failure.message)),
              status: failure.status, outcome: failure.code.rawValue)
    }

    struct ErrorBody: Encodable, Sendable {
        struct Inner: Encodable, Sendable {
            var code: Int
            var message: String
        }
        var error: Inner
    }

    func add(to router: Router<BasicRequestContext>, _ service: HTTPService) {
        let d = Self.dialect
        let answers = NominatimAnswers()
        for path in ["/search", "/search.php"] {
            service.route(router, RouterPath(path), d, op: "geocode") { p, s, _ throws(HTTPFailure) in
                try answers.search(p, s)
            }
        }
        for path in ["/reverse", "/reverse.php"] {
            service.route(router, RouterPath(path), d, op: "reverse") { p, s, _ throws(HTTPFailure) in
                try answers.reverse(p, s)
            }
        }
        // Monitoring asks without a token, as load balancers ask /ready.
        for path in ["/status", "/status.php"] {
            service.route(router, RouterPath(path), d, op: "status", authenticated: false) { p, s, _ throws(HTTPFailure) in
                try answers.status(p, s)
            }
        }
    }
}

/// Nominatim's answers over the protocol's operations.
struct NominatimAnswers: Sendable {
    /// Nominatim's documented largest `limit`.
    static let maximumLimit = 40

    enum Format: String, CaseIterable {
        case json, jsonv2, geojson, geocodejson
    }

    /// `format`: the JSON formats; XML and HTML are not written.
    static func format(_ p: HTTPParameters) throws(HTTPFailure) -> Format {
        guard let text = p.string("format") else { return .jsonv2 }
        guard let f = Format(rawValue: text.trimmingWhitespace().lowercased()) else {
            throw HTTPFailure(.badRequest, "Parameter 'format' must be one of: \(Format.allCases.map(\.rawValue).joined(separator: ", "))", parameter: "format")
        }
        return f
    }

    // MARK: /search

    func search(_ p: HTTPParameters, _ s: HTTPEngine.Session) throws(HTTPFailure) -> HTTPReply {
        let format = try Self.format(p)
        let limit = try p.int("limit", in: 1...Self.maximumLimit) ?? 10
        let details = try p.bool("addressdetails") ?? false
        let viewbox = try Self.viewbox(p)
        let bounded = try p.bool("bounded") ?? false
        let text = try Self.searchText(p)
        let query = text ?? ""
        if let codes = p.list("countrycodes"), !codes.contains(where: { $0.lowercased() == "us" }) {
            return NominatimPlace.write([], format, details: details, query: query, single: false)
        }
        guard let text else { return NominatimPlace.write([], format, details: details, query: query, single: false) }
        var arguments = GeocodeArguments(request: GeocodeRequest(.text(text)))
        if let viewbox, !bounded {
            // An unbounded viewbox prefers what is inside it: near its centre.
            arguments.request.near = GeoPoint(x: (viewbox.minX + viewbox.maxX) / 2, y: (viewbox.minY + viewbox.maxY) / 2)
        }
        let box = bounded ? viewbox : nil
        // Candidates outside a bounded viewbox are dropped after the geocode: ask for enough
        // that the ones kept still fill `limit`.
        arguments.request.maxResults = box == nil ? limit : 100
        let places = try s.geocode(arguments).candidates
            .filter { box?.contains(x: $0.location.x, y: $0.location.y) ?? true }
            .prefix(limit)
            .map { NominatimPlace($0.matchType, $0.address, $0.components, GeoPoint(x: $0.location.x, y: $0.location.y), score: $0.score, s) }
        return NominatimPlace.write(places, format, details: details, query: query, single: false)
    }

    /// `q`, or the structured fields as one line ("number street, city, state ZIP", which the
    /// address parser reads best); nil when a structured `country` is not the index's.
    static func searchText(_ p: HTTPParameters) throws(HTTPFailure) -> String? {
        let names = ["amenity", "street", "city", "county", "state", "postalcode", "country"]
        let given = names.filter { p.contains($0) }
        if let q = p.string("q") {
            guard given.isEmpty else {
                throw HTTPFailure(.badRequest, "Structured query parameters(amenity, street, city, county, state, postalcode, country) cannot be used together with 'q' parameter.", parameter: "q")
            }
            return q
        }
        guard !given.isEmpty else {
            throw HTTPFailure(.badRequest, "Nothing to search for: give q, or street, city, county, state, postalcode or country.", parameter: "q")
        }
        if let country = p.string("country"), !HTTPPlace.isUnitedStates(country) { return nil }
        let region = [p.string("state").map(HTTPPlace.stateCode), p.string("postalcode")].compactMap { $0 }.joined(separator: " ")
        let line = [p.string("street"), p.string("city"), region].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ", ")
        // An amenity, county or country alone: Locus has none of them to answer with.
        return line.isEmpty ? nil : line
    }

    /// `viewbox=x1,y1,x2,y2`: two opposite corners, lon/lat, in either order.
    static func viewbox(_ p: HTTPParameters) throws(HTTPFailure) -> Envelope? {
        guard let text = p.string("viewbox") ?? p.string("viewboxlbrt") else { return nil }
        let values = text.split(separator: ",").map { Double($0.trimmingWhitespace()) }
        guard values.count == 4, let x1 = values[0], let y1 = values[1], let x2 = values[2], let y2 = values[3],
              [x1, y1, x2, y2].allSatisfy(\.isFinite), abs(x1) <= 180, abs(x2) <= 180, abs(y1) <= 90, abs(y2) <= 90 else {
            throw HTTPFailure(.badRequest, "Bad parameter 'viewbox'. Expected 4 coordinates.", parameter: "viewbox")
        }
        guard x1 != x2, y1 != y2 else {
            throw HTTPFailure(.badRequest, "Bad parameter 'viewbox'. Not a box.", parameter: "viewbox")
        }
        return Envelope(minX: min(x1, x2), minY: min(y1, y2), maxX: max(x1, x2), maxY: max(y1, y2))
    }

    // MARK: /reverse

    /// The address at a point; none in reach is Nominatim's `{"error": "Unable to geocode"}`,
    /// HTTP 200, which geopy reads as "no answer".
    func reverse(_ p: HTTPParameters, _ s: HTTPEngine.Session) throws(HTTPFailure) -> HTTPReply {
        let format = try Self.format(p)
        let lat = try Self.coordinate(p, "lat", limit: 90)
        let lon = try Self.coordinate(p, "lon", limit: 180)
        // Accepted, and answered at the house level whatever its value.
        _ = try p.int("zoom", in: 0...18)
        let details = try p.bool("addressdetails") ?? true
        let found: ReverseResult?
        do {
            found = try s.reverse(ReverseArguments(request: ReverseRequest(location: GeoPoint(x: lon, y: lat)))).address
        } catch where error.code == .notFound {
            found = nil
        }
        let places = found.map { r in
            var place = NominatimPlace(r.matchType, r.address, r.components, GeoPoint(x: r.location.x, y: r.location.y), score: 100, s)
            place.distanceMetres = r.distanceMetres
            return place
        }
        return NominatimPlace.write(places.map { [$0] } ?? [], format, details: details, query: "", single: true)
    }

    static func coordinate(_ p: HTTPParameters, _ name: String, limit: Int) throws(HTTPFailure) -> Double {
        guard let text = p.string(name) else {
            throw HTTPFailure(.badRequest, "Parameter '\(name)' missing.", parameter: name)
        }
        guard let value = Double(text.trimmingWhitespace()), value.isFinite else {
            throw HTTPFailure(.badRequest, "Parameter '\(name)' must be a number.", parameter: name)
        }
        guard abs(value) <= Double(limit) else {
            throw HTTPFailure(.badRequest, "Invalid coordinates: '\(name)' must be between -\(limit) and \(limit).", parameter: name)
        }
        return value
    }

    // MARK: /status

    func status(_ p: HTTPParameters, _ s: HTTPEngine.Session) throws(HTTPFailure) -> HTTPReply {
        let format = p.string("format")?.trimmingWhitespace().lowercased() ?? "text"
        guard format == "text" || format == "json" else {
            throw HTTPFailure(.badRequest, "Parameter 'format' must be one of: text, json", parameter: "format")
        }
        // Answering: the operation that reads the index's metadata runs on this index.
        let info = try s.run(.info, (), as: LocatorInfo.self)
        guard format == "json" else { return .text("OK") }
        let built = info.index.values["build_time"].map { $0.hasSuffix("Z") ? String($0.dropLast()) + "+00:00" : $0 }
        return .json(Status(dataUpdated: built, softwareVersion: info.version, databaseVersion: String(info.index.schemaVersion)))
    }

    struct Status: Encodable, Sendable {
        var status = 0
        var message = "OK"
        /// When the index was built: Nominatim's date of its data.
        var dataUpdated: String?
        var softwareVersion: String
        /// The index file's schema version.
        var databaseVersion: String

        enum CodingKeys: String, CodingKey {
            case status, message
            case dataUpdated = "data_updated", softwareVersion = "software_version", databaseVersion = "database_version"
        }
    }
}
