import Foundation
import LocusCore
import LocusEngine
import LocusProtocol
import LocusServer

/// Where a batch job's queries go: the index in this process, or a running server. Jobs are
/// written once against this and behave the same either way.
public protocol QueryBackend {
    func geocode(_ request: GeocodeRequest, outSpatialReference: SpatialReference) async throws -> GeocodeResult
    func within(_ request: WithinRequest) async throws -> WithinResult
    func reverse(_ request: ReverseRequest) async throws -> ReverseResult?
}

/// The index in this process, through a `Locator` of the calling worker's own.
public final class LocatorBackend: QueryBackend {
    let locator: Locator

    public init(index: LocusIndex) { locator = Locator(index: index) }

    public func geocode(_ request: GeocodeRequest, outSpatialReference: SpatialReference) throws -> GeocodeResult {
        try locator.geocode(request, near: .wgs84, outSpatialReference: outSpatialReference)
    }

    public func within(_ request: WithinRequest) throws -> WithinResult { try locator.within(request) }

    public func reverse(_ request: ReverseRequest) throws -> ReverseResult? { try locator.reverse(request) }
}

/// A running server, through one pipelined connection shared by all workers. Errors the server
/// answers with (`WireError`) are the row's; a lost connection (`LocusClientError`) stops the job,
/// which can be resumed.
public struct ServerBackend: QueryBackend, Sendable {
    public let client: LocusClient

    public init(client: LocusClient) { self.client = client }

    public func geocode(_ request: GeocodeRequest, outSpatialReference: SpatialReference) async throws -> GeocodeResult {
        var a: [String: JSONValue] = [
            "max_results": .number(Double(request.maxResults)), "min_score": .number(request.minScore),
            "out_wkid": .number(Double(outSpatialReference.wkid)),
        ]
        switch request.input {
        case .text(let t): a["text"] = .string(t)
        case .key(let k): a["key"] = .string(k)
        case .fields(let number, let street, let city, let postcode):
            var f: [String: JSONValue] = [:]
            for (k, v) in [("number", number), ("street", street), ("city", city), ("postcode", postcode)] {
                if let v { f[k] = .string(v) }
            }
            a["address"] = .object(f)
        }
        return try await client.send(op: "geocode", a).decode(GeocodeResult.self)
    }

    public func within(_ request: WithinRequest) async throws -> WithinResult {
        var a: [String: JSONValue] = [
            "location": Self.location(request.location, request.spatialReference), "layer": .string(request.layer),
        ]
        if let d = request.nearestWithin { a["nearest_within"] = .number(d) }
        return try await client.send(op: "within", a).decode(WithinResult.self)
    }

    public func reverse(_ request: ReverseRequest) async throws -> ReverseResult? {
        var a: [String: JSONValue] = [
            "location": Self.location(request.location, request.spatialReference),
            "max_distance": .number(request.maxDistance), "method": .string(request.method.rawValue),
        ]
        if let o = request.outSpatialReference { a["out_wkid"] = .number(Double(o.wkid)) }
        // Without layers, not_found is the protocol's "no address within reach" (the CLI checks
        // at start that the server's index has addresses).
        do {
            return try await client.send(op: "reverse", a).decode(ReverseResult.self)
        } catch let e as WireError where e.code == .notFound {
            return nil
        }
    }

    static func location(_ p: GeoPoint, _ srs: SpatialReference) -> JSONValue {
        .object(["x": .number(p.x), "y": .number(p.y), "wkid": .number(Double(srs.wkid))])
    }
}
