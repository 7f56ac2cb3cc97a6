import LocusCore

/// The result object of `reverse`: the address (null when none is within reach but layers were
/// asked for) and, with `layers`, the polygons covering the point.
public struct ReverseReply: Codable, Sendable {
    public var address: ReverseResult?
    public var features: [FeatureMatch]?

    public init(address: ReverseResult?, features: [FeatureMatch]?) {
        self.address = address
        self.features = features
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        address = try c.decodeNil(forKey: .address) ? nil : ReverseResult(from: decoder)
        features = try c.decodeIfPresent([FeatureMatch].self, forKey: .features)
    }

    public func encode(to encoder: any Encoder) throws {
        if let address {
            try address.encode(to: encoder)
        } else {
            var c = encoder.container(keyedBy: Keys.self)
            try c.encodeNil(forKey: .address)
        }
        if let features {
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(features, forKey: .features)
        }
    }

    enum Keys: String, CodingKey { case address, features }
}
