/// One answer to a geocode: the protocol's candidate object.
public struct GeocodeCandidate: Hashable, Sendable, Codable {
    public var address: String
    public var components: AddressComponents
    public var location: Location
    /// 0–100: 100 is an exact match of everything the query said.
    public var score: Double
    public var matchType: MatchType
    /// Geocoding this key returns this candidate again.
    public var key: String
    /// Why the candidate scored what it did (with `--explain` / `"explain": true`).
    public var explain: [String]?
    /// The unit the query named, kept though the index has no units.
    public var unit: String?

    public init(address: String, components: AddressComponents, location: Location, score: Double,
                matchType: MatchType, key: String, explain: [String]? = nil, unit: String? = nil) {
        self.address = address
        self.components = components
        self.location = location
        self.score = score
        self.matchType = matchType
        self.key = key
        self.explain = explain
        self.unit = unit
    }

    enum CodingKeys: String, CodingKey {
        case address, components, location, score, key, explain, unit
        case matchType = "match_type"
    }
}

public struct GeocodeResult: Hashable, Sendable, Codable {
    public var candidates: [GeocodeCandidate]
    public init(candidates: [GeocodeCandidate]) { self.candidates = candidates }
}

/// What a suggestion stands for.
public enum SuggestionType: String, Sendable, Codable {
    case address, street, intersection, postcode, neighbourhood, locality
}

/// One suggestion for a search box: the protocol's suggestion object.
public struct Suggestion: Hashable, Sendable, Codable {
    public var text: String
    public var type: SuggestionType
    /// Pass to geocode (`--key`) to get exactly this place.
    public var key: String

    public init(text: String, type: SuggestionType, key: String) {
        self.text = text
        self.type = type
        self.key = key
    }
}

public struct SuggestResult: Hashable, Sendable, Codable {
    public var suggestions: [Suggestion]
    public init(suggestions: [Suggestion]) { self.suggestions = suggestions }
}
