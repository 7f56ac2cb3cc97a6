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
    public var attributes: [String: JSONValue]
    public var relation: FeatureRelation
    /// Metres from the point to the polygon; 0 when it covers the point.
    public var distanceMetres: Double

    public init(layer: String, id: String, name: String, attributes: [String: JSONValue],
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
    /// The middle of a block of numbers the query named rather than a house ("3900 block of SE
    /// Hawthorne Blvd", "39XX SE Hawthorne Blvd"): where its middle number is placed.
    case block
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
