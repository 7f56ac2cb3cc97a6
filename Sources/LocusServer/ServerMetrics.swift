import Foundation
import Metrics
import NIOConcurrencyHelpers
import Prometheus

/// The server's metrics, in Prometheus's text format (`exposition()`), for every protocol it
/// speaks: the line protocol's connections record here, and so do the HTTP dialects. The `stats`
/// op reads its counts from here too (`ServerStats`), so the two never disagree.
///
/// Each server has its own registry, never the process-wide `MetricsSystem`: tests run many
/// servers in one process, and each must count only its own requests.
///
/// Names and labels: `protocol` is `line` (the socket protocol) or an HTTP dialect (`esri`,
/// `pelias`, `nominatim`, `http`); `op` is the operation (`none` for a line that was not a
/// request); `outcome` is `ok` or the wire error code, so a dashboard can tell clients' mistakes
/// (`invalid_*`) from the server's trouble (`timeout`, `overloaded`, `internal`).
///
/// - `locus_requests_total{op,outcome,protocol}`: requests answered.
/// - `locus_request_duration_seconds{op,protocol}`: histogram of the time from a request's
///   arrival to its reply being made (the line protocol: from the read of its line to the reply
///   line being encoded, on whichever thread made it; not until the socket took it).
/// - `locus_requests_in_flight{protocol}`: requests read and not yet answered.
/// - `locus_open_connections{protocol}`, `locus_connections_total{protocol}`,
///   `locus_connections_refused_total{protocol}`.
/// - `locus_index_generation`, `locus_index_build_timestamp_seconds` (the index's `build_time`),
///   `locus_index_loaded_timestamp_seconds`, `locus_index_age_seconds` (now − build time),
///   `locus_index_load_seconds`, `locus_index_reloads_total{outcome="ok|refused"}`.
/// - `locus_process_resident_memory_bytes`, `locus_process_open_fds`,
///   `locus_process_start_time_seconds` (Linux; read from /proc when scraped).
public final class ServerMetrics: Sendable {
    /// The socket protocol's name in the `protocol` label.
    public static let lineProtocol = "line"

    /// Histogram buckets of `locus_request_duration_seconds`: a `reverse` answered at once takes
    /// tens of microseconds from read to reply, one behind a pipelined burst or a geocode on a
    /// worker up to milliseconds; what waits for seconds is answered `timeout`, counted as such.
    /// Few of them: recording a duration compares it with every bucket, on the event loop.
    public static let durationBuckets: [Duration] = [
        .microseconds(25), .microseconds(50), .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1),
        .microseconds(2_500), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(100), .milliseconds(250),
        .seconds(1),
    ]

    /// One answered request, as a connection hands over a read's worth of them.
    struct Answered: Sendable {
        var op: String
        var outcome: String
        /// From arrival to the reply being made.
        var duration: Duration
    }

    /// A protocol's connection and in-flight metrics, made once per protocol, so that a
    /// connection holds them instead of looking them up.
    final class ProtocolMetrics: Sendable {
        let openConnections: Meter
        let connections: Metrics.Counter
        let refusedConnections: Metrics.Counter
        let inFlight: Meter

        init(_ name: String, _ factory: any MetricsFactory) {
            let dimensions = [("protocol", name)]
            openConnections = Meter(label: "locus_open_connections", dimensions: dimensions, factory: factory)
            connections = Metrics.Counter(label: "locus_connections_total", dimensions: dimensions, factory: factory)
            refusedConnections = Metrics.Counter(label: "locus_connections_refused_total", dimensions: dimensions, factory: factory)
            inFlight = Meter(label: "locus_requests_in_flight", dimensions: dimensions, factory: factory)
        }
    }

    /// What the `stats` op shows of one protocol's connections.
    struct ConnectionCounts {
        var open = 0
        var accepted = 0
        var refused = 0
    }

    private struct RequestKey: Hashable {
        var op: String
        var outcome: String
    }

    /// One `(protocol, op, outcome)`'s counter and its `(protocol, op)` timer, and the count the
    /// `stats` op reads (a Prometheus counter cannot be read back).
    private struct RequestSeries {
        let counter: Metrics.Counter
        let timer: Metrics.Timer
        var count = 0
    }

    /// One kind of request in a batch being recorded, and how many of it.
    private struct BatchKind {
        let key: RequestKey
        let series: RequestSeries
        var count = 0
    }

    private struct State {
        var protocols: [String: ProtocolMetrics] = [:]
        var connections: [String: ConnectionCounts] = [:]
        /// By protocol, then by op and outcome.
        var requests: [String: [RequestKey: RequestSeries]] = [:]
        /// By protocol, then by op: shared by the op's outcomes.
        var timers: [String: [String: Metrics.Timer]] = [:]
        var reloads = 0
        var refusedReloads = 0
    }

    /// The registry `exposition()` writes out: a component of the server may add metrics of its
    /// own to it, named `locus_…` but none of the names above (the registry traps on a name
    /// registered twice with another type).
    public let registry: PrometheusCollectorRegistry
    private let factory: PrometheusMetricsFactory
    private let index: ServingIndex
    private let state = NIOLockedValueBox(State())

    private let reloadsOK: Metrics.Counter
    private let reloadsRefused: Metrics.Counter
    private let indexGeneration: Metrics.Gauge
    private let indexBuilt: Metrics.Gauge
    private let indexLoaded: Metrics.Gauge
    private let indexAge: Metrics.Gauge
    private let indexLoadSeconds: Metrics.Gauge
    private let process: ProcessMetrics?

    /// - Parameter index: the index served, whose generation and times are read when scraped.
    public init(index: ServingIndex) {
        self.index = index
        registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = Self.durationBuckets
        self.factory = factory
        reloadsOK = Metrics.Counter(label: "locus_index_reloads_total", dimensions: [("outcome", "ok")], factory: factory)
        reloadsRefused = Metrics.Counter(label: "locus_index_reloads_total", dimensions: [("outcome", "refused")], factory: factory)
        indexGeneration = Metrics.Gauge(label: "locus_index_generation", factory: factory)
        indexBuilt = Metrics.Gauge(label: "locus_index_build_timestamp_seconds", factory: factory)
        indexLoaded = Metrics.Gauge(label: "locus_index_loaded_timestamp_seconds", factory: factory)
        indexAge = Metrics.Gauge(label: "locus_index_age_seconds", factory: factory)
        indexLoadSeconds = Metrics.Gauge(label: "locus_index_load_seconds", factory: factory)
        process = ProcessMetrics(factory)
    }

    // MARK: requests

    /// Counts one answered request and records how long it took.
    public func record(protocol name: String, op: String, outcome: String, duration: Duration) {
        record(protocol: name, CollectionOfOne(Answered(op: op, outcome: outcome, duration: duration)))
    }

    /// Counts a connection's answered requests under one lock. Each kind (op and outcome) in the
    /// batch is looked up and counted once: a read's requests are of a few kinds, found by
    /// comparing their strings, not hashing them. Only the durations go one by one, into their
    /// histogram.
    func record(protocol name: String, _ answered: some Collection<Answered>) {
        guard !answered.isEmpty else { return }
        let factory = self.factory
        state.withLockedValue { s in
            // Out of the table while it changes, so that it is changed in place, not copied.
            var table = s.requests.removeValue(forKey: name) ?? [:]
            defer { s.requests[name] = table }
            var kinds: [BatchKind] = []
            for a in answered {
                let k: Int
                if let found = kinds.firstIndex(where: { $0.key.op == a.op && $0.key.outcome == a.outcome }) {
                    k = found
                } else {
                    let key = RequestKey(op: a.op, outcome: a.outcome)
                    kinds.append(BatchKind(key: key, series: table[key] ?? Self.newSeries(&s, protocol: name, key, factory)))
                    k = kinds.count - 1
                }
                kinds[k].count += 1
                kinds[k].series.timer.record(duration: a.duration)
            }
            for kind in kinds {
                kind.series.counter.increment(by: kind.count)
                table[kind.key, default: kind.series].count += kind.count
            }
        }
    }

    private static func newSeries(_ s: inout State, protocol name: String, _ key: RequestKey, _ factory: PrometheusMetricsFactory) -> RequestSeries {
        let timer = s.timers[name]?[key.op] ?? Metrics.Timer(
            label: "locus_request_duration_seconds", dimensions: [("op", key.op), ("protocol", name)], factory: factory)
        s.timers[name, default: [:]][key.op] = timer
        let counter = Metrics.Counter(
            label: "locus_requests_total", dimensions: [("op", key.op), ("outcome", key.outcome), ("protocol", name)], factory: factory)
        return RequestSeries(counter: counter, timer: timer)
    }

    /// A request of `protocol` has been read; `requestFinished` when it has been answered.
    public func requestStarted(protocol name: String) {
        protocolMetrics(name).inFlight.increment()
    }

    public func requestFinished(protocol name: String) {
        protocolMetrics(name).inFlight.decrement()
    }

    /// Requests of `protocol`, by op and outcome, as the `stats` op shows them.
    func requestCounts(protocol name: String) -> [String: [String: Int]] {
        state.withLockedValue { s in
            var out: [String: [String: Int]] = [:]
            for (key, series) in s.requests[name] ?? [:] { out[key.op, default: [:]][key.outcome] = series.count }
            return out
        }
    }

    // MARK: connections

    /// The metrics of `protocol`, made on first use.
    func protocolMetrics(_ name: String) -> ProtocolMetrics {
        let factory = self.factory
        return state.withLockedValue { s in
            if let p = s.protocols[name] { return p }
            let p = ProtocolMetrics(name, factory)
            s.protocols[name] = p
            return p
        }
    }

    /// Counts a new connection of `protocol` unless `limit` are open already; false means
    /// refuse it (counted as refused).
    func admitConnection(protocol name: String, limit: Int) -> Bool {
        let p = protocolMetrics(name)
        let admitted = state.withLockedValue { s in
            guard s.connections[name, default: ConnectionCounts()].open < limit else {
                s.connections[name, default: ConnectionCounts()].refused += 1
                return false
            }
            s.connections[name, default: ConnectionCounts()].open += 1
            s.connections[name, default: ConnectionCounts()].accepted += 1
            return true
        }
        if admitted {
            p.connections.increment()
            p.openConnections.increment()
        } else {
            p.refusedConnections.increment()
        }
        return admitted
    }

    /// Counts a connection of `protocol` opened (one with no limit of its own to check).
    public func connectionOpened(protocol name: String) {
        _ = admitConnection(protocol: name, limit: .max)
    }

    /// Counts a connection of `protocol` refused before it was opened (over a limit).
    public func connectionRefused(protocol name: String) {
        _ = admitConnection(protocol: name, limit: 0)
    }

    public func connectionClosed(protocol name: String) {
        let p = protocolMetrics(name)
        state.withLockedValue { $0.connections[name, default: ConnectionCounts()].open -= 1 }
        p.openConnections.decrement()
    }

    func connectionCounts(protocol name: String) -> ConnectionCounts {
        state.withLockedValue { $0.connections[name] ?? ConnectionCounts() }
    }

    // MARK: the index

    /// Counts a reload: `ok` when the new index serves, else refused (the old one keeps serving).
    func reloaded(ok: Bool) {
        state.withLockedValue { if ok { $0.reloads += 1 } else { $0.refusedReloads += 1 } }
        (ok ? reloadsOK : reloadsRefused).increment()
    }

    func reloadCounts() -> (ok: Int, refused: Int) {
        state.withLockedValue { ($0.reloads, $0.refusedReloads) }
    }

    // MARK: scraping

    /// Every metric in Prometheus's text exposition format (version 0.0.4), the index's and the
    /// process's gauges read now.
    public func exposition() -> String {
        refreshIndexGauges()
        process?.refresh()
        return Self.withHelp(registry.emitToString())
    }

    private func refreshIndexGauges() {
        let g = index.generation
        let now = Date()
        indexGeneration.record(g.number)
        indexLoaded.record(g.loadedAt.timeIntervalSince1970)
        indexLoadSeconds.record(g.loadSeconds)
        // Every index Locus builds records its build time; should one not, the gauges say "not
        // known" (NaN) rather than a made-up age.
        let built = g.index.metadata.values["build_time"].flatMap { ISO8601DateFormatter().date(from: $0) }
        indexBuilt.record(built?.timeIntervalSince1970 ?? .nan)
        indexAge.record(built.map { now.timeIntervalSince($0) } ?? .nan)
    }

    /// What each metric is, as `# HELP` lines: the swift-metrics API has no place for it, so the
    /// lines are added to the registry's text before each family's `# TYPE` line.
    static let help: [String: String] = [
        "locus_requests_total": "Requests answered, by protocol, op and outcome (ok or the error code).",
        "locus_request_duration_seconds": "Time from a request's arrival to its reply being made.",
        "locus_requests_in_flight": "Requests read and not yet answered.",
        "locus_open_connections": "Connections open now.",
        "locus_connections_total": "Connections accepted.",
        "locus_connections_refused_total": "Connections refused at the connection limit.",
        "locus_index_generation": "The served index's generation: 1 at start, one more per successful reload.",
        "locus_index_build_timestamp_seconds": "When the served index was built (its build_time), Unix time.",
        "locus_index_loaded_timestamp_seconds": "When the served index was loaded, Unix time.",
        "locus_index_age_seconds": "Seconds since the served index was built.",
        "locus_index_load_seconds": "Seconds the served index took to load.",
        "locus_index_reloads_total": "Index reloads: ok, or refused (the index before keeps serving).",
        "locus_process_resident_memory_bytes": "Resident memory of the server process.",
        "locus_process_open_fds": "File descriptors the server process has open.",
        "locus_process_start_time_seconds": "When the server process started, Unix time.",
    ]

    static func withHelp(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count + 2_048)
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("# TYPE "), let name = line.dropFirst("# TYPE ".count).split(separator: " ").first,
               let help = help[String(name)] {
                out += "# HELP \(name) \(help)\n"
            }
            out += line
            out += "\n"
        }
        // The registry's text ends with a newline, which the split turned into a last empty line.
        if out.hasSuffix("\n\n") { out.removeLast() }
        return out
    }
}
