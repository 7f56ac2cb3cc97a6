/// A JSON scalar as found in a polygon layer's attribute table.
public enum AttributeValue: Hashable, Sendable, Codable {
    case string(String)
    case integer(Int64)
    case real(Double)
    case bool(Bool)
    case null

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let i = try? c.decode(Int64.self) { self = .integer(i) }
        else if let d = try? c.decode(Double.self) { self = .real(d) }
        else { self = .string(try c.decode(String.self)) }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .string(let s): try c.encode(s)
        case .integer(let i): try c.encode(i)
        case .real(let d): try c.encode(d)
        case .bool(let b): try c.encode(b)
        case .null: try c.encodeNil()
        }
    }

    /// The value as text, for display and CSV output.
    public var text: String {
        switch self {
        case .string(let s): s
        case .integer(let i): String(i)
        case .real(let d): String(d)
        case .bool(let b): String(b)
        case .null: ""
        }
    }
}

/// A point in a named spatial reference, as it appears in every answer.
public struct Location: Hashable, Sendable, Codable {
    public var x: Double
    public var y: Double
    public var wkid: Int

    public init(x: Double, y: Double, wkid: Int) {
        self.x = x
        self.y = y
        self.wkid = wkid
    }
}

/// How a polygon relates to the query point.
public enum FeatureRelation: String, Sendable, Codable {
    /// The polygon covers the point (interior or boundary).
    case covers
    /// No polygon covers the point; this one is the nearest within the requested distance.
    case nearest
}

/// One polygon of a layer in an answer. The protocol's `within` result object.
public struct FeatureMatch: Hashable, Sendable, Codable {
    public var layer: String
    public var id: String
    public var name: String
    public var attributes: [String: AttributeValue]
    public var relation: FeatureRelation
    /// Metres from the point to the polygon; 0 when it covers the point.
    public var distanceMetres: Double

    public init(layer: String, id: String, name: String, attributes: [String: AttributeValue],
                relation: FeatureRelation, distanceMetres: Double) {
        self.layer = layer
        self.id = id
        self.name = name
        self.attributes = attributes
        self.relation = relation
        self.distanceMetres = distanceMetres
    }

    enum CodingKeys: String, CodingKey {
        case layer, id, name, attributes, relation
        case distanceMetres = "distance_m"
    }
}

/// The answer to "which polygons is this point in".
public struct WithinResult: Hashable, Sendable, Codable {
    public var features: [FeatureMatch]
    public init(features: [FeatureMatch]) { self.features = features }
}

/// How an answer's location was found. Values are stable protocol strings.
public enum MatchType: String, Sendable, Codable {
    /// The location of a published address point.
    case pointAddress = "point_address"
    /// Placed between the address points numbered next below and above it on the same street.
    case interpolated
    /// Placed beyond the last address point of its street (or of a long gap in them), a bounded
    /// distance along the street's line at the rate its numbers run there.
    case extrapolated
    case street
    case intersection
    case postcode
    case neighbourhood
    case locality
}

/// The answer to "what is the address here". The protocol's `reverse` result object.
public struct ReverseResult: Hashable, Sendable, Codable {
    public var address: String
    public var components: AddressComponents
    public var location: Location
    public var distanceMetres: Double
    public var matchType: MatchType

    public init(address: String, components: AddressComponents, location: Location,
                distanceMetres: Double, matchType: MatchType) {
        self.address = address
        self.components = components
        self.location = location
        self.distanceMetres = distanceMetres
        self.matchType = matchType
    }

    enum CodingKeys: String, CodingKey {
        case address, components, location
        case distanceMetres = "distance_m"
        case matchType = "match_type"
    }
}
