import LocusProtocol
import LocusWire
import NIOCore

/// Everything `locus serve` can be told. Every field has a default that is safe on a laptop and
/// sane in production.
public struct ServerConfiguration: Sendable {
    /// Addresses to listen on, all at once. Default: `tcp://127.0.0.1:7878`.
    public var listen: [ListenAddress] = [.tcp(host: "127.0.0.1", port: 7878)]
    /// Event-loop threads: each reads and writes its connections and answers their `info`,
    /// `reverse` and `within` (microseconds each). The size of the group `locus serve` gives the
    /// server (a `LocusServer` runs on the group it is given). Default: one per core.
    public var threads: Int = System.coreCount
    /// Worker threads answering `geocode`, `suggest` and `within` with `nearest_within` (up to a
    /// millisecond each on hostile input), so that they never hold up an event loop. Default: one
    /// per core.
    public var workerThreads: Int = System.coreCount
    /// The worker threads' nice value (Linux), 0–19: how far below the event loops they run, so
    /// that a loop gets a core at once when it has a read to answer while the workers keep every
    /// core busy. Default 10. On a machine shared with other busy processes, a lower value gives
    /// geocode more of the CPU against them, at the cost of the loops' latency under load.
    public var workerNice: Int = 10
    /// Longest request line in bytes; a longer one is answered `too_large` and the connection
    /// closed, since the rest of the line cannot be told from the next request. Default 64 KiB.
    public var maximumLineBytes: Int = 65_536
    /// Requests one connection may have read but not yet answered. Beyond it the server stops
    /// reading that connection (TCP backpressure) instead of queueing without bound. Default 128.
    public var maximumInFlightPerConnection: Int = 128
    /// Open connections; one more is answered `overloaded` and closed. Default 1,024.
    public var maximumConnections: Int = 1_024
    /// The event loop's work for one connection in one turn, before the loop polls its other
    /// sockets. A reverse takes a few microseconds, so this is a few hundred of them; the JSON
    /// decode of a 64 KiB line takes a fraction of it. Default 1 ms.
    public var turnBudget: Duration = .milliseconds(1)
    /// A request not started within this many seconds of being read (waiting for its connection's
    /// turn or for a worker) is answered `timeout` instead of run. Default 5 s.
    public var requestTimeout: Double = 5
    /// A connection with nothing read or written for this many seconds is closed: one silent,
    /// and one whose client has taken no reply for that long (it holds a connection slot while it
    /// reads nothing). Default 300 s.
    public var idleTimeout: Double = 300
    /// Seconds a connection has, once a graceful shutdown begins, to be answered and closed; then
    /// it is closed whatever it waits for (a client that reads no replies held SIGTERM off for as
    /// long as it stayed connected). Default 10 s.
    public var shutdownGrace: Double = 10
    /// Shared-secret tokens; when any is set, a connection must send `auth` with one of them
    /// before anything but `ping`. Default: none.
    public var tokens: [String] = []
    /// Lets the server listen beyond loopback without tokens. Default false: a TCP address other
    /// than 127.0.0.0/8 or ::1 without tokens is refused at start.
    public var allowUnauthenticatedRemote: Bool = false
    /// Failed `auth` attempts after which a connection is closed. Default 3.
    public var maximumFailedAuthentications: Int = 3
    /// Reload the index when the process receives SIGHUP. Default true; tests running several
    /// servers in one process turn it off.
    public var reloadOnHangup: Bool = true
    /// Limits on single requests (line length is taken from `maximumLineBytes`).
    public var requestLimits: RequestLimits = RequestLimits()

    public init() {}

    /// The configuration's own contradictions, as messages for the user; empty when usable.
    public func problems() -> [String] {
        var out: [String] = []
        if listen.isEmpty { out.append("give at least one --listen address") }
        if threads < 1 { out.append("threads must be at least 1") }
        if workerThreads < 1 { out.append("worker threads must be at least 1") }
        if !(0...19).contains(workerNice) { out.append("the workers' nice value must be 0 … 19") }
        if maximumLineBytes < 1_024 { out.append("the line limit must be at least 1024 bytes") }
        if maximumInFlightPerConnection < 1 { out.append("in-flight requests per connection must be at least 1") }
        if maximumConnections < 1 { out.append("connections must be at least 1") }
        // Bounded above too: they become whole milliseconds, which a value like 1e300 overflows.
        if !(requestTimeout > 0 && requestTimeout <= 86_400) { out.append("the request timeout must be positive and at most 86400 s") }
        if !(idleTimeout > 0 && idleTimeout <= 604_800) { out.append("the idle timeout must be positive and at most 604800 s") }
        if !(shutdownGrace > 0 && shutdownGrace <= 3_600) { out.append("the shutdown grace must be positive and at most 3600 s") }
        if tokens.contains(where: { $0.isEmpty }) { out.append("a token must not be empty") }
        if tokens.isEmpty, !allowUnauthenticatedRemote, let open = listen.first(where: { !$0.isLocalOnly }) {
            out.append("\(open) is reachable beyond this machine: give a token (--token-file or LOCUS_TOKEN), or say --allow-unauthenticated")
        }
        return out
    }
}
