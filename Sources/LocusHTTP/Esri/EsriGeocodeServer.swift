import Foundation
import LocusCore
import LocusEngine
import LocusProtocol
import LocusWire

/// An ArcGIS GeocodeServer over the protocol's operations: the service description,
/// `findAddressCandidates` (geocode), `suggest`, `reverseGeocode` (reverse) and
/// `geocodeAddresses` (geocode per record), with Esri's parameter and field names and value
/// types. An ArcGIS Runtime app, ArcGIS Pro or geopy's `ArcGIS` takes its URL as a locator.
struct EsriGeocodeServer: Sendable {
    let configuration: HTTPConfiguration

    /// Esri's largest `maxLocations`; the engine's own limit is higher.
    static let maximumLocations = 50
    static let maximumSuggestions = 15

    // MARK: Service description

    func describe(_ p: HTTPParameters, _ s: HTTPEngine.Session) throws(HTTPFailure) -> HTTPReply {
        let f = try EsriJSON.format(p)
        let field = { (name: String, alias: String, length: Int) in
            Field(name: name, type: "esriFieldTypeString", alias: alias, required: false, length: length)
        }
        let candidates = Self.candidateFieldTypes.map { name, type in
            Field(name: name, type: type, alias: name, required: false, length: type == "esriFieldTypeString" ? 256 : nil)
        }
        let description = ServiceDescription(
            serviceDescription: "Locus locator over \((s.metadata.path as NSString).lastPathComponent) (\(s.metadata.values["address_count"] ?? "0") addresses)",
            addressFields: [field("Address", "Address", 200), field("Neighborhood", "Neighborhood", 100), field("City", "City", 100),
                            field("Region", "State", 50), field("Postal", "ZIP", 10)],
            singleLineAddressField: field("SingleLine", "Single Line Input", 200),
            candidateFields: candidates,
            intersectionCandidateFields: candidates,
            spatialReference: .init(.wgs84),
            locatorProperties: .init(MaxBatchSize: configuration.maximumBatchRecords,
                                     SuggestedBatchSize: min(150, configuration.maximumBatchRecords),
                                     MaxResultSize: Self.maximumLocations),
            categories: Self.categories.map { Category(name: $0.key, categories: $0.value.map { Category(name: $0, categories: nil) }) }
                .sorted { $0.name < $1.name }
        )
        return .json(description, pretty: f == "pjson")
    }

    struct Field: Encodable, Sendable {
        var name: String
        var type: String
        var alias: String
        var required: Bool
        var length: Int?
    }

    struct Category: Encodable, Sendable {
        var name: String
        var categories: [Category]?
    }

    struct LocatorProperties: Encodable, Sendable {
        var UICLSID = "{AE5A3A0E-F756-11D2-9F4F-00C04F8ED1C4}"
        var MaxBatchSize: Int
        var SuggestedBatchSize: Int
        var MaxResultSize: Int
        var MinimumCandidateScore = "60"
        var IntersectionConnectors = "& @ | and"
        var WriteXYCoordFields = "TRUE"
        var LoadBalancerTimeOut = 60
    }

    struct ServiceDescription: Encodable, Sendable {
        var currentVersion = 11.1
        var serviceDescription: String
        var addressFields: [Field]
        var singleLineAddressField: Field
        var candidateFields: [Field]
        var intersectionCandidateFields: [Field]
        var spatialReference: EsriJSON.SpatialReferenceJSON
        var locatorProperties: LocatorProperties
        var categories: [Category]
        var countries = ["US"]
        var capabilities = "Geocode,ReverseGeocode,Suggest"
    }

    /// Esri's categories Locus can answer, by parent: what `category` accepts.
    static let categories: [String: [String]] = [
        "Address": ["Point Address", "Street Address", "Street Name", "Intersection"],
        "Postal": ["Primary Postal"],
        "Populated Place": ["Neighborhood", "City"],
    ]

    /// The Esri categories a suggestion or candidate of a match type falls in (and their parents).
    static func categories(of type: MatchType) -> Set<String> {
        switch type {
        case .pointAddress: ["address", "point address"]
        case .interpolated, .extrapolated, .block: ["address", "street address"]
        case .street: ["address", "street name"]
        case .intersection: ["address", "intersection"]
        case .postcode: ["postal", "primary postal"]
        case .neighbourhood: ["populated place", "neighborhood"]
        case .locality: ["populated place", "city"]
        }
    }

    static func categories(of type: SuggestionType) -> Set<String> {
        switch type {
        case .address: ["address", "point address", "street address"]
        case .street: ["address", "street name"]
        case .intersection: ["address", "intersection"]
        case .postcode: ["postal", "primary postal"]
        case .neighbourhood: ["populated place", "neighborhood"]
        case .locality: ["populated place", "city"]
        }
    }

    /// `Addr_type` values, as ArcGIS's World locator names them.
    static func addressType(_ type: MatchType) -> String {
        switch type {
        case .pointAddress: "PointAddress"
        case .interpolated: "StreetAddress"
        case .extrapolated: "StreetAddressExt"
        case .block: "StreetMidBlock"
        case .street: "StreetName"
        case .intersection: "StreetInt"
        case .postcode: "Postal"
        case .neighbourhood: "Neighborhood"
        case .locality: "Locality"
        }
    }

    // MARK: findAddressCandidates

    func findAddressCandidates(_ p: HTTPParameters, _ s: HTTPEngine.Session) throws(HTTPFailure) -> HTTPReply {
        let f = try EsriJSON.format(p)
        let out = try EsriJSON.spatialReference(p, "outSR") ?? .wgs84
        let fields = try OutFields(p.string("outFields"))
        let maxLocations = try p.int("maxLocations", in: 1...10_000).map { min($0, Self.maximumLocations) } ?? Self.maximumLocations
        var arguments = GeocodeArguments(request: GeocodeRequest(.text("")))
        let near = try EsriJSON.point(p, "location", defaultReference: .wgs84)
        if let (point, reference) = near {
            arguments.request.near = point
            arguments.locationReference = reference
        }
        let extent = try EsriJSON.envelope(p, "searchExtent", defaultReference: .wgs84, s)
        let category = p.list("category")?.map { $0.lowercased() }
        // Candidates outside the extent or the categories are dropped after the geocode: ask for
        // enough that the ones kept still fill `maxLocations`.
        arguments.request.maxResults = extent == nil && category == nil ? maxLocations : 100
        let candidates = try geocode(input(p), arguments, s).filter { c in
            if let e = extent, !(e.minX...e.maxX).contains(c.location.x) || !(e.minY...e.maxY).contains(c.location.y) { return false }
            if let category, Self.categories(of: c.matchType).isDisjoint(with: category) { return false }
            return true
        }.prefix(maxLocations)
        let nearLonLat = try near.map { (point, reference) throws(HTTPFailure) in try s.lonLat(point, from: reference) }
        var written: [Candidate] = []
        for c in candidates {
            written.append(try candidate(c, out: out, fields: fields, near: nearLonLat, s))
        }
        return .json(CandidatesReply(spatialReference: .init(out), candidates: written), pretty: f == "pjson")
    }

    /// What was asked: a suggestion's `magicKey`, one line, or the address in fields.
    private func input(_ p: HTTPParameters) throws(HTTPFailure) -> [GeocodeRequest.Input] {
        var inputs: [GeocodeRequest.Input] = []
        if let key = p.string("magicKey") { inputs.append(.key(key)) }
        if let line = p.string("SingleLine") {
            inputs.append(.text(line))
        } else {
            // Esri's multi-field input, written as one line: the text parser reads
            // "number street, city, state ZIP" best of all.
            let street = ["Address", "Address2", "Address3"].compactMap { p.string($0) }.joined(separator: " ")
            let place = ["Neighborhood", "City", "Subregion"].compactMap { p.string($0) }
            let region = [p.string("Region"), [p.string("Postal"), p.string("PostalExt")].compactMap { $0 }.joined(separator: "-")]
                .compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
            let line = ([street] + place + [region]).filter { !$0.isEmpty }.joined(separator: ", ")
            if !line.isEmpty { inputs.append(.text(line)) }
        }
        guard !inputs.isEmpty else {
            throw HTTPFailure(.badRequest, "give SingleLine, magicKey, or the address in Address, City, Region and Postal", parameter: "SingleLine")
        }
        return inputs
    }

    /// Geocodes the first input that answers: a `magicKey` Locus did not issue (another locator's,
    /// or from before a reload) falls back to the text sent with it, as Esri's locators do.
    private func geocode(_ inputs: [GeocodeRequest.Input], _ arguments: GeocodeArguments, _ s: HTTPEngine.Session) throws(HTTPFailure) -> [GeocodeCandidate] {
        var last: HTTPFailure?
        for input in inputs {
            var a = arguments
            a.request.input = input
            do {
                let candidates = try s.geocode(a).candidates
                if case .key = input, candidates.isEmpty, inputs.count > 1 { continue }
                return candidates
            } catch {
                last = error
                if case .key = input, inputs.count > 1 { continue }
                throw error
            }
        }
        throw last ?? HTTPFailure(.badRequest, "nothing to geocode")
    }

    struct CandidatesReply: Encodable, Sendable {
        var spatialReference: EsriJSON.SpatialReferenceJSON
        var candidates: [Candidate]
    }

    struct Candidate: Encodable, Sendable {
        var address: String
        var location: EsriJSON.Point
        var score: Double
        var attributes: [String: JSONValue]
        var extent: EsriJSON.Extent
    }

    /// A geocode candidate in Esri's shape, its location and extent in `out`.
    func candidate(_ c: GeocodeCandidate, out: SpatialReference, fields: OutFields, near: GeoPoint?,
                   _ s: HTTPEngine.Session) throws(HTTPFailure) -> Candidate {
        let lonLat = GeoPoint(x: c.location.x, y: c.location.y)
        let at = try s.project(lonLat, to: out)
        let extent = try self.extent(around: lonLat, radius: Self.extentRadius(c.matchType), out: out, s)
        var attributes: [String: JSONValue] = [:]
        if !fields.isEmpty {
            let components = c.components
            let shortLabel = components.number.isEmpty ? c.address : "\(components.number) \(components.street)"
            var all: [String: JSONValue] = [
                "Loc_name": .string(configuration.serviceName), "Status": .string("M"), "Score": .number(c.score),
                "Match_addr": .string(c.address), "LongLabel": .string(c.address + ", USA"), "ShortLabel": .string(shortLabel),
                "Addr_type": .string(Self.addressType(c.matchType)), "Type": .string(""), "PlaceName": .string(""),
                "Place_addr": .string(c.address), "AddNum": .string(components.number),
                "StAddr": .string(components.number.isEmpty ? components.street : "\(components.number) \(components.street)"),
                "City": .string(components.city), "Region": .string(USRegions.name(components.state)),
                "RegionAbbr": .string(components.state), "Postal": .string(components.postcode),
                "Country": .string("USA"), "CntryName": .string("United States"), "LangCode": .string("ENG"),
                "X": .number(at.x), "Y": .number(at.y), "DisplayX": .number(at.x), "DisplayY": .number(at.y),
                "Xmin": .number(extent.xmin), "Xmax": .number(extent.xmax), "Ymin": .number(extent.ymin), "Ymax": .number(extent.ymax),
                "Distance": .number(near.map { $0.metres(to: lonLat) } ?? 0),
                "ExInfo": .string(c.unit ?? ""),
            ]
            if fields.wants("Nbrhd") { all["Nbrhd"] = .string(s.neighbourhood(at: lonLat) ?? "") }
            for (name, value) in all where fields.wants(name) { attributes[name] = value }
        }
        return Candidate(address: c.address, location: .init(x: at.x, y: at.y), score: c.score, attributes: attributes, extent: extent)
    }

    /// Half the side of the extent a client zooms to for an answer of this kind, in metres.
    static func extentRadius(_ type: MatchType) -> Double {
        switch type {
        case .pointAddress, .interpolated, .extrapolated, .intersection: 50
        case .block: 100
        case .street: 500
        case .postcode, .neighbourhood: 2_000
        case .locality: 10_000
        }
    }

    func extent(around lonLat: GeoPoint, radius: Double, out: SpatialReference, _ s: HTTPEngine.Session) throws(HTTPFailure) -> EsriJSON.Extent {
        let scale = LocalMetricScale(latitude: lonLat.y)
        let dx = radius / scale.metresPerDegreeX, dy = radius / scale.metresPerDegreeY
        let low = try s.project(GeoPoint(x: lonLat.x - dx, y: lonLat.y - dy), to: out)
        let high = try s.project(GeoPoint(x: lonLat.x + dx, y: lonLat.y + dy), to: out)
        return EsriJSON.Extent(xmin: min(low.x, high.x), ymin: min(low.y, high.y), xmax: max(low.x, high.x), ymax: max(low.y, high.y))
    }

    /// Every candidate field, with its Esri type: the service description lists them and
    /// `outFields=*` returns them.
    static let candidateFieldTypes: [(String, String)] = [
        ("Loc_name", "esriFieldTypeString"), ("Status", "esriFieldTypeString"), ("Score", "esriFieldTypeDouble"),
        ("Match_addr", "esriFieldTypeString"), ("LongLabel", "esriFieldTypeString"), ("ShortLabel", "esriFieldTypeString"),
        ("Addr_type", "esriFieldTypeString"), ("Type", "esriFieldTypeString"), ("PlaceName", "esriFieldTypeString"),
        ("Place_addr", "esriFieldTypeString"), ("AddNum", "esriFieldTypeString"), ("StAddr", "esriFieldTypeString"),
        ("Nbrhd", "esriFieldTypeString"), ("City", "esriFieldTypeString"), ("Region", "esriFieldTypeString"),
        ("RegionAbbr", "esriFieldTypeString"), ("Postal", "esriFieldTypeString"), ("Country", "esriFieldTypeString"),
        ("CntryName", "esriFieldTypeString"), ("LangCode", "esriFieldTypeString"), ("Distance", "esriFieldTypeDouble"),
        ("X", "esriFieldTypeDouble"), ("Y", "esriFieldTypeDouble"), ("DisplayX", "esriFieldTypeDouble"),
        ("DisplayY", "esriFieldTypeDouble"), ("Xmin", "esriFieldTypeDouble"), ("Xmax", "esriFieldTypeDouble"),
        ("Ymin", "esriFieldTypeDouble"), ("Ymax", "esriFieldTypeDouble"), ("ExInfo", "esriFieldTypeString"),
    ]

    /// `outFields`: `*` for every candidate field, or a comma-separated list (any case; names
    /// the locator does not have are ignored, as Esri's are). Absent: no attributes.
    struct OutFields: Sendable {
        private var all = false
        private var names: Set<String> = []

        init(_ text: String?) throws(HTTPFailure) {
            guard let text else { return }
            for name in text.split(separator: ",").map({ $0.trimmingWhitespace().lowercased() }) where !name.isEmpty {
                if name == "*" { all = true } else { names.insert(name) }
            }
        }

        var isEmpty: Bool { !all && names.isEmpty }
        func wants(_ field: String) -> Bool { all || names.contains(field.lowercased()) }
    }

    // MARK: suggest

    func suggest(_ p: HTTPParameters, _ s: HTTPEngine.Session) throws(HTTPFailure) -> HTTPReply {
        let f = try EsriJSON.format(p)
        guard let text = p.string("text") else { throw HTTPFailure(.badRequest, "suggest needs text", parameter: "text") }
        let maxSuggestions = try p.int("maxSuggestions", in: 1...10_000).map { min($0, Self.maximumSuggestions) } ?? 5
        var arguments = SuggestArguments(request: SuggestRequest(text: text))
        if let (point, reference) = try EsriJSON.point(p, "location", defaultReference: .wgs84) {
            arguments.request.near = point
            arguments.locationReference = reference
        }
        arguments.request.extent = try EsriJSON.envelope(p, "searchExtent", defaultReference: .wgs84, s)
        let category = p.list("category")?.map { $0.lowercased() }
        arguments.request.maxResults = category == nil ? maxSuggestions : 50
        let suggestions = try s.suggest(arguments).suggestions
            .filter { category == nil || !Self.categories(of: $0.type).isDisjoint(with: category ?? []) }
            .prefix(maxSuggestions)
            .map { Suggestion(text: $0.text, magicKey: $0.key, isCollection: false) }
        return .json(SuggestReply(suggestions: Array(suggestions)), pretty: f == "pjson")
    }

    struct Suggestion: Encodable, Sendable {
        var text: String
        var magicKey: String
        var isCollection: Bool
    }

    struct SuggestReply: Encodable, Sendable {
        var suggestions: [Suggestion]
    }

    // MARK: reverseGeocode

    /// Esri's `featureTypes`, lower case: another word is a mistake to say so (it was "Unable to
    /// find address", as for a type Locus does not answer).
    static let featureTypes: Set<String> = ["pointaddress", "streetaddress", "streetint", "streetname", "distancemarker", "poi",
                                            "subaddress", "postal", "locality", "streetmidblock", "streetbetween", "parcel"]
    /// The ones a reverse answer can be.
    static let answerableFeatureTypes: Set<String> = ["pointaddress", "streetaddress"]

    func reverseGeocode(_ p: HTTPParameters, _ s: HTTPEngine.Session) throws(HTTPFailure) -> HTTPReply {
        let f = try EsriJSON.format(p)
        guard let (point, reference) = try EsriJSON.point(p, "location", defaultReference: .wgs84) else {
            throw HTTPFailure(.badRequest, "reverseGeocode needs location: x,y or a point object", parameter: "location")
        }
        if let types = p.list("featureTypes"), !types.isEmpty {
            if let unknown = types.first(where: { !Self.featureTypes.contains($0.lowercased()) }) {
                throw HTTPFailure(.badRequest, "featureTypes: \"\(unknown.prefix(40))\" is no feature type (PointAddress, StreetAddress, StreetInt, StreetName, POI, Postal, Locality …)", parameter: "featureTypes")
            }
            guard types.contains(where: { Self.answerableFeatureTypes.contains($0.lowercased()) }) else {
                throw HTTPFailure(.notFound, "Unable to find address for the specified location.", code: .notFound)
            }
        }
        let out = try EsriJSON.spatialReference(p, "outSR") ?? reference
        var request = ReverseRequest(location: point)
        request.spatialReference = reference
        request.maxDistance = try p.double("distance") ?? 100
        // In lon/lat, for the neighbourhood; written in `out` below.
        request.outSpatialReference = .wgs84
        if let method = p.string("method") {
            guard let m = ReverseMethod(rawValue: method.lowercased()) else {
                throw HTTPFailure(.badRequest, "method must be frontage or nearest", parameter: "method")
            }
            request.method = m
        }
        let reply: ReverseReply
        do {
            reply = try s.reverse(ReverseArguments(request: request))
        } catch where error.code == .notFound {
            // Esri's words for it: geopy and ArcGIS clients look for them to mean "no address".
            throw HTTPFailure(.notFound, "Unable to find address for the specified location.", code: .notFound)
        }
        guard let found = reply.address else {
            throw HTTPFailure(.notFound, "Unable to find address for the specified location.", code: .notFound)
        }
        let lonLat = GeoPoint(x: found.location.x, y: found.location.y)
        let at = try s.project(lonLat, to: out)
        let c = found.components
        let address = ReverseAddress(
            Match_addr: found.address, LongLabel: found.address + ", USA",
            ShortLabel: c.number.isEmpty ? c.street : "\(c.number) \(c.street)",
            Addr_type: Self.addressType(found.matchType), AddNum: c.number,
            Address: c.number.isEmpty ? c.street : "\(c.number) \(c.street)",
            Neighborhood: s.neighbourhood(at: lonLat) ?? "", City: c.city,
            Region: USRegions.name(c.state), RegionAbbr: c.state, Postal: c.postcode,
            Distance: found.distanceMetres)
        let answer = ReverseReplyJSON(address: address, location: .init(x: at.x, y: at.y, spatialReference: .init(out)))
        return f == "pjson" ? .json(answer, pretty: true) : HTTPReply(body: answer.jsonBytes())
    }

    struct ReverseAddress: Encodable, Sendable {
        var Match_addr: String
        var LongLabel: String
        var ShortLabel: String
        var Addr_type: String
        var `Type` = ""
        var PlaceName = ""
        var AddNum: String
        var Address: String
        var Block = ""
        var Sector = ""
        var Neighborhood: String
        var District = ""
        var City: String
        var MetroArea = ""
        var Subregion = ""
        var Region: String
        var RegionAbbr: String
        var Territory = ""
        var Postal: String
        var PostalExt = ""
        var CntryName = "United States"
        var CountryCode = "USA"
        /// Metres from the point asked about to the address's point (Locus's addition).
        var Distance: Double
    }

    struct ReverseReplyJSON: Encodable, Sendable {
        var address: ReverseAddress
        var location: EsriJSON.Point
    }

    // MARK: geocodeAddresses

    func geocodeAddresses(_ p: HTTPParameters, _ s: HTTPEngine.Session) throws(HTTPFailure) -> HTTPReply {
        let f = try EsriJSON.format(p)
        let out = try EsriJSON.spatialReference(p, "outSR") ?? .wgs84
        guard case .object(let body)? = try p.json("addresses"), case .array(let records)? = body["records"] else {
            throw HTTPFailure(.badRequest, "addresses must be {\"records\": [{\"attributes\": {\"OBJECTID\": 1, \"SingleLine\": …}}]}", parameter: "addresses")
        }
        guard records.count <= configuration.maximumBatchRecords else {
            throw HTTPFailure(.contentTooLarge, "at most \(configuration.maximumBatchRecords) records per request (MaxBatchSize)", parameter: "addresses")
        }
        var locations: [BatchLocation] = []
        locations.reserveCapacity(records.count)
        for (i, record) in records.enumerated() {
            guard case .object(let r) = record, case .object(let attributes)? = r["attributes"] else {
                throw HTTPFailure(.badRequest, "record \(i + 1) has no attributes object", parameter: "addresses")
            }
            let id = attributes.first { $0.key.lowercased() == "objectid" }?.value ?? .number(Double(i + 1))
            var fields = HTTPParameters()
            for (name, value) in attributes {
                if case .string(let v) = value { fields.set(name, v) }
            }
            var arguments = GeocodeArguments(request: GeocodeRequest(.text("")))
            arguments.request.maxResults = 1
            // One bad record is that record's "U", not the whole batch's failure.
            let best = try? input(fields).first.flatMap { input -> GeocodeCandidate? in
                arguments.request.input = input
                return try? s.geocode(arguments).candidates.first
            }
            if let best {
                let c = try candidate(best, out: out, fields: OutFields("*"), near: nil, s)
                var a = c.attributes
                a["ResultID"] = id
                locations.append(BatchLocation(address: c.address, location: .init(x: .number(c.location.x), y: .number(c.location.y)), score: c.score, attributes: a))
            } else {
                locations.append(BatchLocation(
                    address: "", location: .init(x: .string("NaN"), y: .string("NaN")), score: 0,
                    attributes: ["ResultID": id, "Status": .string("U"), "Score": .number(0), "Match_addr": .string(""), "Addr_type": .string("")]))
            }
        }
        return .json(BatchReply(spatialReference: .init(out), locations: locations), pretty: f == "pjson")
    }

    struct BatchLocation: Encodable, Sendable {
        /// Esri writes an unmatched record's coordinates as the string "NaN".
        struct Position: Encodable, Sendable {
            var x: JSONValue
            var y: JSONValue
        }
        var address: String
        var location: Position
        var score: Double
        var attributes: [String: JSONValue]
    }

    struct BatchReply: Encodable, Sendable {
        var spatialReference: EsriJSON.SpatialReferenceJSON
        var locations: [BatchLocation]
    }
}
