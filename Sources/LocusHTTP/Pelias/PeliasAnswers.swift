import Foundation
import LocusCore
import LocusEngine
import LocusProtocol
import LocusWire

/// Pelias's endpoints over the protocol's operations, and its GeoJSON: a FeatureCollection of
/// points with Pelias's properties (`layer`, `name`, `label`, `confidence`, `match_type`, …)
/// under a `geocoding` header.
struct PeliasAnswers: Sendable {
    // MARK: /v1/search

    func search(_ p: HTTPParameters, _ s: HTTPEngine.Session) throws(HTTPFailure) -> HTTPReply {
        let text = try PeliasParameters.text(p)
        var request = try PeliasParameters(p)
        request.query["text"] = .string(text)
        return try geocode(text, request, s)
    }

    // MARK: /v1/search/structured

    /// Pelias's fields, written as the one line the address parser reads best ("number street,
    /// city, state ZIP"), as Esri's multi-field input is.
    func structured(_ p: HTTPParameters, _ s: HTTPEngine.Session) throws(HTTPFailure) -> HTTPReply {
        let names = ["venue", "address", "neighbourhood", "borough", "locality", "county", "region", "postalcode", "country"]
        var request = try PeliasParameters(p)
        var fields: [String: String] = [:]
        for name in names {
            if let value = p.string(name) {
                fields[name] = value
                request.query[name] = .string(value)
            }
        }
        guard !fields.isEmpty else {
            throw HTTPFailure(.badRequest, "at least one of the following fields is required: \(names.joined(separator: ", "))", parameter: "address")
        }
        if let country = fields["country"], !HTTPPlace.isUnitedStates(country) {
            return reply([], request.query)
        }
        // A neighbourhood beside a street or city would be read as a city: it is searched alone.
        let place = fields["locality"] ?? fields["borough"] ?? (fields["address"] == nil ? fields["neighbourhood"] : nil)
        let region = [fields["region"].map(HTTPPlace.stateCode), fields["postalcode"]].compactMap { $0 }.joined(separator: " ")
        let line = [fields["address"], place, region].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ", ")
        // Venues, counties and countries alone: Locus has none to answer with.
        guard !line.isEmpty else { return reply([], request.query) }
        return try geocode(line, request, s)
    }

    private func geocode(_ text: String, _ request: PeliasParameters, _ s: HTTPEngine.Session) throws(HTTPFailure) -> HTTPReply {
        var arguments = GeocodeArguments(request: GeocodeRequest(.text(text)))
        arguments.request.near = request.focus
        // Candidates outside the rectangle or the layers are dropped after the geocode: ask for
        // enough that the ones kept still fill `size`.
        arguments.request.maxResults = request.rect == nil && request.layers == nil ? request.size : 100
        let candidates = try s.geocode(arguments).candidates.filter { c in
            request.inside(GeoPoint(x: c.location.x, y: c.location.y)) && request.wants(Self.layer(c.matchType))
        }.prefix(request.size)
        // Parsed only when it matters: an answer coarser than a house to a question naming one.
        let askedForHouse = candidates.contains { !HTTPPlace.isHouse($0.matchType) } && HTTPPlace.asksForHouse(text, s)
        let features = candidates.map { c in
            let fallback = askedForHouse && !HTTPPlace.isHouse(c.matchType)
            return feature(c.matchType, c.address, c.components, GeoPoint(x: c.location.x, y: c.location.y),
                           confidence: c.score / 100, matchType: Self.matchType(c.matchType, fallback: fallback),
                           from: request.focus, s)
        }
        return reply(features, request.query)
    }

    // MARK: /v1/autocomplete

    /// Suggestions as features: each suggestion's key geocoded to its place, so that a client
    /// can put the pick on the map without a second request.
    func autocomplete(_ p: HTTPParameters, _ s: HTTPEngine.Session) throws(HTTPFailure) -> HTTPReply {
        let text = try PeliasParameters.text(p)
        var request = try PeliasParameters(p)
        request.query["text"] = .string(text)
        var arguments = SuggestArguments(request: SuggestRequest(text: text))
        arguments.request.near = request.focus
        arguments.request.extent = request.rect
        // The suggester's own limit is 50; with layers, ask for all it gives and keep `size`.
        arguments.request.maxResults = request.layers == nil ? request.size : 50
        let suggestions = try s.suggest(arguments).suggestions
            .filter { request.wants(Self.layer($0.type)) }
            .prefix(request.size)
        var features: [Feature] = []
        for suggestion in suggestions {
            var lookup = GeocodeArguments(request: GeocodeRequest(.key(suggestion.key)))
            lookup.request.maxResults = 1
            guard let c = try s.geocode(lookup).candidates.first else { continue }
            features.append(feature(c.matchType, c.address, c.components, GeoPoint(x: c.location.x, y: c.location.y),
                                    confidence: c.score / 100, matchType: Self.matchType(c.matchType, fallback: false),
                                    from: request.focus, s))
        }
        return reply(features, request.query)
    }

    // MARK: /v1/reverse

    /// The address at a point, as Pelias's one nearest result; none in reach is an empty
    /// collection, not an error.
    func reverse(_ p: HTTPParameters, _ s: HTTPEngine.Session) throws(HTTPFailure) -> HTTPReply {
        guard let point = try PeliasParameters.point(p, "point", required: true) else {
            throw HTTPFailure(.badRequest, "missing param 'point.lat'", parameter: "point.lat")
        }
        var request = try PeliasParameters(p)
        request.query["point.lat"] = .number(point.y)
        request.query["point.lon"] = .number(point.x)
        var reverse = ReverseRequest(location: point)
        if let metres = try PeliasParameters.radiusMetres(p) {
            reverse.maxDistance = metres
            request.query["boundary.circle.radius"] = .number(metres / 1_000)
        }
        // The reverse geocoder answers addresses only.
        guard request.wants("address") else { return reply([], request.query) }
        let found: ReverseResult?
        do {
            found = try s.reverse(ReverseArguments(request: reverse)).address
        } catch where error.code == .notFound {
            found = nil
        }
        guard let found else { return reply([], request.query) }
        let at = GeoPoint(x: found.location.x, y: found.location.y)
        var f = feature(found.matchType, found.address, found.components, at,
                        confidence: Self.reverseConfidence(metres: found.distanceMetres), matchType: nil, from: nil, s)
        f.properties.distance = found.distanceMetres.rounded() / 1_000
        return reply([f], request.query)
    }

    /// Pelias's confidence in a reverse answer, from its distance alone.
    static func reverseConfidence(metres: Double) -> Double {
        switch metres {
        case ..<0.5: 1.0
        case ..<10: 0.9
        case ..<100: 0.8
        case ..<250: 0.7
        case ..<1_000: 0.6
        default: 0.5
        }
    }

    // MARK: Features

    /// Pelias's layer for a kind of answer. An intersection is in `street`, the layer a client
    /// asking for streets expects it in (Pelias has no intersection layer).
    static func layer(_ type: MatchType) -> String {
        switch type {
        case .pointAddress, .interpolated, .extrapolated: "address"
        case .block, .street, .intersection: "street"
        case .postcode: "postalcode"
        case .neighbourhood: "neighbourhood"
        case .locality: "locality"
        }
    }

    static func layer(_ type: SuggestionType) -> String {
        switch type {
        case .address: "address"
        case .street, .intersection: "street"
        case .postcode: "postalcode"
        case .neighbourhood: "neighbourhood"
        case .locality: "locality"
        }
    }

    /// `exact`, `interpolated` (a number placed along its street) or `fallback` (coarser than
    /// the house asked for).
    static func matchType(_ type: MatchType, fallback: Bool) -> String {
        switch type {
        case .interpolated, .extrapolated: "interpolated"
        default: fallback ? "fallback" : "exact"
        }
    }

    func feature(_ type: MatchType, _ address: String, _ c: AddressComponents, _ at: GeoPoint,
                 confidence: Double, matchType: String?, from focus: GeoPoint?, _ s: HTTPEngine.Session) -> Feature {
        let neighbourhood = HTTPPlace.neighbourhood(type, at: at, s)
        let house = c.number.isEmpty ? c.street : "\(c.number) \(c.street)"
        var name: String
        switch type {
        case .pointAddress, .interpolated, .extrapolated: name = house
        case .street, .intersection: name = c.street
        // "3900 block of SE Hawthorne Blvd": the answer's text before the town.
        case .block: name = String(address.prefix { $0 != "," })
        case .postcode: name = c.postcode
        // The engine's neighbourhood answers carry no street or number: their polygon names them.
        case .neighbourhood: name = neighbourhood ?? ""
        case .locality: name = c.city
        }
        if name.isEmpty { name = address }
        let id = String(HTTPPlace.number(type, address: address, name: name, at: at))
        let layer = Self.layer(type)
        let locality = c.city.isEmpty ? nil : c.city
        // Pelias's US label: the name, the city, the state's code and the country's.
        var label = [name]
        for part in [locality, c.state.isEmpty ? nil : c.state, "USA"].compactMap({ $0 }) where !label.contains(part) {
            label.append(part)
        }
        let properties = Properties(
            id: id, gid: "locus:\(layer):\(id)", layer: layer, sourceID: id, name: name,
            housenumber: c.number.isEmpty ? nil : c.number, street: c.street.isEmpty || type == .intersection ? nil : c.street,
            postalcode: c.postcode.isEmpty ? nil : c.postcode, confidence: confidence, matchType: matchType,
            distance: focus.map { $0.metres(to: at).rounded() / 1_000 },
            accuracy: HTTPPlace.isHouse(type) ? "point" : "centroid",
            region: c.state.isEmpty ? nil : USRegions.name(c.state), regionA: c.state.isEmpty ? nil : c.state,
            locality: locality, neighbourhood: neighbourhood, label: label.filter { !$0.isEmpty }.joined(separator: ", "))
        return Feature(geometry: .init(lon: at.x, lat: at.y), properties: properties)
    }

    func reply(_ features: [Feature], _ query: [String: JSONValue]) -> HTTPReply {
        var bbox: [Double]?
        if !features.isEmpty {
            var extent = Envelope.empty
            for f in features { extent.extend(x: f.geometry.lon, y: f.geometry.lat) }
            bbox = [extent.minX, extent.minY, extent.maxX, extent.maxY]
        }
        return HTTPReply(body: Collection(geocoding: Geocoding(query: query), features: features, bbox: bbox).jsonBytes())
    }

    // MARK: Pelias's JSON (written by PeliasJSON.swift)

    struct Engine: Sendable {
        var name = "Locus"
        var author = "Locus"
        var version = LocusVersion.current
    }

    struct Geocoding: Sendable {
        var version = "0.2"
        var attribution = "Addresses and boundaries from the publishers of this server's index (locus index info names them)"
        var query: [String: JSONValue]
        var errors: [String]?
        var engine = Engine()
        /// Milliseconds since 1970, as Pelias stamps each answer.
        var timestamp = Int64((Date().timeIntervalSince1970 * 1_000).rounded())

        init(query: [String: JSONValue], errors: [String]? = nil) {
            self.query = query
            self.errors = errors
        }
    }

    struct Collection: Sendable {
        var geocoding: Geocoding
        var type = "FeatureCollection"
        var features: [Feature]
        var bbox: [Double]?

        init(geocoding: Geocoding, features: [Feature], bbox: [Double]? = nil) {
            self.geocoding = geocoding
            self.features = features
            self.bbox = bbox
        }
    }

    /// A GeoJSON point: `{"type": "Point", "coordinates": [lon, lat]}`.
    struct Point: Sendable {
        var lon: Double
        var lat: Double

    }

    struct Feature: Sendable {
        var type = "Feature"
        var geometry: Point
        var properties: Properties
    }

    struct Properties: Sendable {
        var id: String
        var gid: String
        var layer: String
        var source = "locus"
        var sourceID: String
        var name: String
        var housenumber: String?
        var street: String?
        var postalcode: String?
        var confidence: Double
        var matchType: String?
        /// Kilometres from the focus point, or from the point of a reverse geocode.
        var distance: Double?
        var accuracy: String
        var country = "United States"
        var countryCode = "US"
        var countryA = "USA"
        var region: String?
        var regionA: String?
        var locality: String?
        var neighbourhood: String?
        var label: String

    }
}
