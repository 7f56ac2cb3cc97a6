import Foundation
import LocusCore
import LocusEngine

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

/// The result object of `info`: what an Esri client learns from a locator's info.
public struct LocatorInfo: Encodable, Sendable {
    public var name = "Locus"
    public var version = LocusVersion.current
    public var protocolVersion = 1
    public var index: IndexMetadata
    public var operations = Operation.all
    /// Spatial references accepted for input and output.
    public var spatialReferences = [4326, 3857, 102100, 2913]
    public var spatialReferencesNote = "and any other EPSG code the server's PROJ knows offline"

    enum CodingKeys: String, CodingKey {
        case name, version, index, operations
        case protocolVersion = "protocol_version"
        case spatialReferences = "spatial_references"
        case spatialReferencesNote = "spatial_references_note"
    }
}

public struct Pong: Encodable, Sendable {
    public var pong = true
    public init() {}
}

/// Encodes replies: `{"id":…,"ok":true,"result":{…},"elapsed":…}` or
/// `{"id":…,"ok":false,"error":{"code":…,"message":…},"elapsed":…}`, one line each.
public enum ReplyEncoder {
    /// One reply line: `result` on success, `error` on failure, never both.
    struct Line<T: Encodable>: Encodable {
        var id: RequestID?
        var result: T?
        var error: WireError?
        var elapsed: Double

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Keys.self)
            if let id { try c.encode(id, forKey: .id) } else { try c.encodeNil(forKey: .id) }
            try c.encode(error == nil, forKey: .ok)
            if let result { try c.encode(result, forKey: .result) }
            if let error { try c.encode(error, forKey: .error) }
            try c.encode(elapsed, forKey: .elapsed)
        }
    }

    enum Keys: String, CodingKey { case id, ok, result, error, elapsed }

    static func encoder() -> JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return e
    }

    /// Seconds rounded to the microsecond.
    static func seconds(_ d: Duration) -> Double {
        (d.inSeconds * 1e6).rounded() / 1e6
    }

    public static func success(id: RequestID?, result: some Encodable, elapsed: Duration) -> [UInt8] {
        line(Line(id: id, result: result, error: nil, elapsed: seconds(elapsed))) ?? failure(id: id, error: WireError(.internalError, "internal error"), elapsed: elapsed)
    }

    public static func failure(id: RequestID?, error: WireError, elapsed: Duration) -> [UInt8] {
        line(Line<Pong>(id: id, result: nil, error: error, elapsed: seconds(elapsed))) ?? Array(#"{"id":null,"ok":false,"error":{"code":"internal","message":"internal error"}}"#.utf8) + [0x0A]
    }

    static func line(_ value: some Encodable) -> [UInt8]? {
        guard let data = try? encoder().encode(value) else { return nil }
        return Array(data) + [0x0A]
    }
}
