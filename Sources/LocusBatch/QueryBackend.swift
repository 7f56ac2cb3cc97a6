import Foundation
import LocusCore
import LocusEngine
import LocusProtocol
import LocusWire
import LocusClient

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
/// answers with (`WireError`) are the row's. A lost connection is connected again and the rows'
/// requests sent again (every query is idempotent; `RetryPolicy`); one that stays lost past the
/// client's attempts (`LocusClientError`) stops the job, which can be resumed.
public struct ServerBackend: QueryBackend, Sendable {
    public let client: LocusClient

    public init(client: LocusClient) { self.client = client }

    public func geocode(_ request: GeocodeRequest, outSpatialReference: SpatialReference) async throws -> GeocodeResult {
        try await send(LocusRequest(.geocode, GeocodeArguments(request: request, out: outSpatialReference))).decode(GeocodeResult.self)
    }

    public func within(_ request: WithinRequest) async throws -> WithinResult {
        try await send(LocusRequest(.within, request)).decode(WithinResult.self)
    }

    public func reverse(_ request: ReverseRequest) async throws -> ReverseResult? {
        // Without layers, not_found is the protocol's "no address within reach" (the CLI checks
        // at start that the server's index has addresses).
        do {
            return try await send(LocusRequest(.reverse, ReverseArguments(request: request))).decode(ReverseResult.self)
        } catch let e as WireError where e.code == .notFound {
            return nil
        }
    }

    private func send(_ request: LocusRequest) async throws -> ClientReply {
        try await client.send(op: request.op, request.wireArguments, idempotent: request.isIdempotent)
    }
}
