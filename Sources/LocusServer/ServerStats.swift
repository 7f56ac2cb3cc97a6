import Foundation
import LocusCore
import LocusProtocol
import LocusWire

/// The `stats` op's view of the server's metrics (`ServerMetrics`): the socket protocol's
/// requests by op and outcome, its connections, the reloads, uptime.
///
/// The counts are the metrics' own, so `stats` and `/metrics` never disagree. Only the line
/// protocol's are shown: the HTTP dialects' ops (`health`, `metrics`, …) are not the protocol's,
/// and their connections have limits of their own; Prometheus has every protocol.
public final class ServerStats: Sendable {
    public let metrics: ServerMetrics
    /// The line protocol's connection and in-flight metrics, looked up once.
    let line: ServerMetrics.ProtocolMetrics
    private let started = ContinuousClock.now

    public init(metrics: ServerMetrics) {
        self.metrics = metrics
        line = metrics.protocolMetrics(ServerMetrics.lineProtocol)
    }

    /// Records a connection's answered requests, a whole read's at once, under one lock.
    func record(_ answered: [ServerMetrics.Answered]) {
        metrics.record(protocol: ServerMetrics.lineProtocol, answered)
    }

    /// A connection's requests read and not yet answered went up (or down) by `change`.
    func requestsInFlightChanged(by change: Int) {
        line.inFlight.increment(by: Double(change))
    }

    /// Counts a new connection unless `limit` are open already; false means refuse it.
    func admitConnection(limit: Int) -> Bool { metrics.admitConnection(protocol: ServerMetrics.lineProtocol, limit: limit) }

    func connectionClosed() { metrics.connectionClosed(protocol: ServerMetrics.lineProtocol) }
    func reloaded(ok: Bool) { metrics.reloaded(ok: ok) }

    /// The `stats` result object.
    public struct Snapshot: Codable, Sendable {
        public var uptimeSeconds: Double
        public var connections: Connections
        public var requests: [String: [String: Int]]
        public var index: IndexState

        public struct Connections: Codable, Sendable {
            public var open: Int
            public var accepted: Int
            public var refused: Int
        }

        public struct IndexState: Codable, Sendable {
            public var path: String
            /// What SIGHUP (or `reload` without a path) loads: `path` unless a reload named another file.
            public var reloadPath: String
            public var generation: Int
            public var loadedAt: String
            public var loadSeconds: Double
            public var reloads: Int
            public var failedReloads: Int

            enum CodingKeys: String, CodingKey {
                case path, generation, reloads
                case reloadPath = "reload_path"
                case loadedAt = "loaded_at"
                case loadSeconds = "load_seconds"
                case failedReloads = "failed_reloads"
            }
        }

        enum CodingKeys: String, CodingKey {
            case connections, requests, index
            case uptimeSeconds = "uptime_s"
        }
    }

    public func snapshot(_ generation: ServingIndex.Generation, reloadPath: String? = nil) -> Snapshot {
        let connections = metrics.connectionCounts(protocol: ServerMetrics.lineProtocol)
        let reloads = metrics.reloadCounts()
        let uptime = ((ContinuousClock.now - started).inSeconds * 1000).rounded() / 1000
        return Snapshot(
            uptimeSeconds: uptime,
            connections: .init(open: connections.open, accepted: connections.accepted, refused: connections.refused),
            requests: metrics.requestCounts(protocol: ServerMetrics.lineProtocol),
            index: .init(path: generation.index.path, reloadPath: reloadPath ?? generation.index.path, generation: generation.number,
                         loadedAt: ISO8601DateFormatter().string(from: generation.loadedAt),
                         loadSeconds: (generation.loadSeconds * 1000).rounded() / 1000,
                         reloads: reloads.ok, failedReloads: reloads.refused))
    }
}
