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

    /// The answer to `reverse` with `layers` (the CLI's `reverse --layer`): the address and the
    /// covering polygons; not found only when there is neither an address nor a layer asked for.
    public init(_ request: ReverseRequest, layers: [String], locator: Locator) throws(LocusError) {
        if !layers.isEmpty {
            var all: [FeatureMatch] = []
            for layer in layers {
                var w = WithinRequest(location: request.location)
                w.spatialReference = request.spatialReference
                w.layer = layer
                all += try locator.within(w).features
            }
            features = all
        }
        address = try locator.reverse(request)
        if address == nil, features == nil {
            throw LocusError(.notFound, "no address within \(request.maxDistance) m of this point")
        }
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

    public init(index: IndexMetadata) { self.index = index }

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

/// Encodes replies, one line each: `{"id":…,"ok":true,"result":{…},"elapsed":…}` or
/// `{"id":…,"ok":false,"error":{"code":…,"message":…},"elapsed":…}`.
public enum ReplyEncoder {
    /// Seconds rounded to the microsecond.
    static func seconds(_ d: Duration) -> Double {
        (d.inSeconds * 1e6).rounded() / 1e6
    }

    public static func success(id: RequestID?, result: some Encodable, elapsed: Duration) -> [UInt8] {
        var out = JSONBytes(bytes: [])
        out.bytes.reserveCapacity(512)
        head(id, ok: true, &out)
        out.append(#","result":"#)
        if let w = result as? any JSONLineWritable {
            w.writeJSON(&out)
        } else {
            let sink = ByteSink(out: JSONBytes(bytes: []))
            swap(&sink.out, &out)
            do {
                try sink.write(result, codingPath: [])
            } catch {
                return failure(id: id, error: WireError(.internalError, "internal error"), elapsed: elapsed)
            }
            swap(&sink.out, &out)
        }
        tail(elapsed, &out)
        return out.bytes
    }

    public static func failure(id: RequestID?, error: WireError, elapsed: Duration) -> [UInt8] {
        var out = JSONBytes(bytes: [])
        out.bytes.reserveCapacity(160)
        head(id, ok: false, &out)
        out.append(#","error":{"code":"#)
        out.writeString(error.code.rawValue)
        out.append(#","message":"#)
        out.writeString(error.message)
        out.append("}")
        tail(elapsed, &out)
        return out.bytes
    }

    private static func head(_ id: RequestID?, ok: Bool, _ out: inout JSONBytes) {
        out.append(#"{"id":"#)
        if let id { id.writeJSON(&out) } else { out.append("null") }
        out.append(ok ? #","ok":true"# : #","ok":false"#)
    }

    private static func tail(_ elapsed: Duration, _ out: inout JSONBytes) {
        out.append(#","elapsed":"#)
        out.writeDouble(seconds(elapsed))
        out.append("}\n")
    }
}

extension JSONValue: JSONLineWritable {
    func writeJSON(_ out: inout JSONBytes) {
        switch self {
        case .null: out.append("null")
        case .bool(let b): out.append(b ? "true" : "false")
        case .number(let d): out.writeDouble(d)
        case .string(let s): out.writeString(s)
        case .array(let a): a.writeJSON(&out)
        case .object(let o): o.writeJSON(&out)
        }
    }
}
