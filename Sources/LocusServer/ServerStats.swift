import Foundation
import LocusCore
import LocusProtocol
import LocusWire
import NIOConcurrencyHelpers

/// Counters for the `stats` op: requests by op and outcome, connections, reloads, uptime.
///
/// Outcomes are `ok` or an error code, so a dashboard can tell clients' mistakes (`invalid_*`)
/// from the server's trouble (`timeout`, `overloaded`, `internal`) without reading logs.
public final class ServerStats: Sendable {
    struct Counts {
        var requests: [String: [String: Int]] = [:]
        var openConnections = 0
        var acceptedConnections = 0
        var refusedConnections = 0
        var reloads = 0
        var failedReloads = 0
    }

    private let counts = NIOLockedValueBox(Counts())
    private let started = ContinuousClock.now

    public init() {}

    /// Records a batch of outcomes under one lock: a connection counts a whole read's requests at once.
    func record(_ batch: [(op: String, outcome: String)]) {
        guard !batch.isEmpty else { return }
        counts.withLockedValue { c in
            for (op, outcome) in batch { c.requests[op, default: [:]][outcome, default: 0] += 1 }
        }
    }

    /// Counts a new connection unless `limit` are open already; false means refuse it.
    func admitConnection(limit: Int) -> Bool {
        counts.withLockedValue { c in
            guard c.openConnections < limit else {
                c.refusedConnections += 1
                return false
            }
            c.openConnections += 1
            c.acceptedConnections += 1
            return true
        }
    }

    func connectionClosed() { counts.withLockedValue { $0.openConnections -= 1 } }
    func reloaded(ok: Bool) { counts.withLockedValue { if ok { $0.reloads += 1 } else { $0.failedReloads += 1 } } }

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
        let c = counts.withLockedValue { $0 }
        let uptime = ((ContinuousClock.now - started).inSeconds * 1000).rounded() / 1000
        return Snapshot(
            uptimeSeconds: uptime,
            connections: .init(open: c.openConnections, accepted: c.acceptedConnections, refused: c.refusedConnections),
            requests: c.requests,
            index: .init(path: generation.index.path, reloadPath: reloadPath ?? generation.index.path, generation: generation.number,
                         loadedAt: ISO8601DateFormatter().string(from: generation.loadedAt),
                         loadSeconds: (generation.loadSeconds * 1000).rounded() / 1000,
                         reloads: c.reloads, failedReloads: c.failedReloads))
    }
}
