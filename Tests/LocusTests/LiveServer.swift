import Foundation
#if canImport(Glibc)
import Glibc
#endif
import LocusClient
import LocusCore
import LocusEngine
import LocusProtocol
import LocusServer
import LocusWire
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A Locus server on loopback TCP (a port the system picks) and a Unix socket in a temporary
/// folder, run in this process for one test.
final class LiveServer: Sendable {
    let server: LocusServer
    let tcp: ListenAddress
    let unix: ListenAddress
    private let task: Task<Void, any Error>
    /// The server's event loops, `config.threads` of them, shut down by `stop`.
    private let group: MultiThreadedEventLoopGroup

    static func start(index: LocusIndex? = nil, _ configure: (inout ServerConfiguration) -> Void = { _ in }) async throws -> LiveServer {
        let dir = TestSupport.temporaryDirectory()
        var config = ServerConfiguration()
        config.listen = [.tcp(host: "127.0.0.1", port: 0), .unix(path: dir.appendingPathComponent("locus.sock").path)]
        config.threads = 2
        config.reloadOnHangup = false
        configure(&config)
        let (stream, continuation) = AsyncStream.makeStream(of: [ListenAddress].self)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, config.threads))
        let server = LocusServer(configuration: config, index: ServingIndex(index: try index ?? TestSupport.portland()),
                                 logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }), group: group) { bound in
            continuation.yield(bound)
            continuation.finish()
        }
        let task = Task { try await server.run() }
        var iterator = stream.makeAsyncIterator()
        guard let bound = await iterator.next() else {
            defer { Task { try? await group.shutdownGracefully() } }
            try await task.value
            throw LocusClientError(description: "the server did not start")
        }
        return LiveServer(server: server, bound: bound, task: task, group: group)
    }

    private init(server: LocusServer, bound: [ListenAddress], task: Task<Void, any Error>, group: MultiThreadedEventLoopGroup) {
        self.server = server
        self.group = group
        tcp = bound.first { if case .tcp = $0 { return true }; return false }!
        unix = bound.first { if case .unix = $0 { return true }; return false } ?? bound[0]
        self.task = task
    }

    var port: Int {
        if case .tcp(_, let port) = tcp { return port }
        return 0
    }

    func client(_ address: ListenAddress? = nil, token: String? = nil) async throws -> LocusClient {
        try await LocusClient.connect(to: address ?? tcp, token: token)
    }

    /// Graceful shutdown; returns when `run` has.
    func stop() async throws {
        server.shutdown()
        try await task.value
        try await group.shutdownGracefully()
    }
}

/// A plain TCP connection that writes raw bytes and collects what comes back, as reply lines or
/// as text (HTTP's heads and bodies): for what a well-behaved client never sends, and what a client
/// library would hide (an interim 100, the status of a refused head, a connection left open).
final class RawConnection: Sendable {
    let channel: any Channel
    private let collector: NIOLoopBound<Collector>

    final class Collector: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        var pending = ByteBuffer()
        var lines: [String] = []
        /// Every byte received, lines or not, and how many of them a `text` call has given.
        var received: [UInt8] = []
        var given = 0
        var closed = false
        /// Each waits until `isMet`, then is given the collector; a timeout takes it away by its id.
        var waiters: [(id: Int, isMet: (Collector) -> Bool, settle: (Collector) -> Void)] = []
        var nextID = 0

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var b = unwrapInboundIn(data)
            received += b.readableBytesView
            pending.writeBuffer(&b)
            while let i = pending.readableBytesView.firstIndex(of: 0x0A) {
                let length = i - pending.readerIndex
                lines.append(pending.readString(length: length)!)
                pending.moveReaderIndex(forwardBy: 1)
            }
            settle()
        }

        func channelInactive(context: ChannelHandlerContext) {
            closed = true
            settle()
        }

        func settle() {
            waiters.removeAll { w in
                guard w.isMet(self) else { return false }
                w.settle(self)
                return true
            }
        }

        /// What arrived since the last `text` call.
        var unread: String { String(decoding: received[given...], as: UTF8.self) }

        func take() -> String {
            defer { given = received.count }
            return unread
        }
    }

    init(port: Int) async throws {
        let group = MultiThreadedEventLoopGroup.singleton
        let handed = group.next().makePromise(of: NIOLoopBound<Collector>.self)
        channel = try await ClientBootstrap(group: group)
            .channelInitializer { ch in
                ch.eventLoop.makeCompletedFuture {
                    let c = Collector()
                    try ch.pipeline.syncOperations.addHandler(c)
                    handed.succeed(NIOLoopBound(c, eventLoop: ch.eventLoop))
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        collector = try await handed.futureResult.get()
    }

    /// - Parameter base: `http://127.0.0.1:PORT`.
    convenience init(_ base: String) async throws {
        guard let port = base.split(separator: ":").last.flatMap({ Int($0) }) else { throw LocusError(.invalidArgument, "no port in \(base)") }
        try await self.init(port: port)
    }

    /// Waits until `isMet` holds, then gives `settle`'s value; after `seconds` without it, `timedOut`'s.
    private func wait<T: Sendable>(seconds: Int64?, isMet: @escaping @Sendable (Collector) -> Bool,
                                   settle: @escaping @Sendable (Collector) -> T, timedOut: @escaping @Sendable (Collector) -> T) async throws -> T {
        let collector = self.collector
        let loop = channel.eventLoop
        let promise = loop.makePromise(of: T.self)
        loop.execute {
            let c = collector.value
            let id = c.nextID
            c.nextID += 1
            c.waiters.append((id, isMet, { promise.succeed(settle($0)) }))
            c.settle()
            guard let seconds else { return }
            loop.scheduleTask(in: .seconds(seconds)) {
                let c = collector.value
                guard let i = c.waiters.firstIndex(where: { $0.id == id }) else { return }
                c.waiters.remove(at: i)
                promise.succeed(timedOut(c))
            }
        }
        return try await promise.futureResult.get()
    }

    func send(_ text: String) async throws {
        try await channel.writeAndFlush(ByteBuffer(string: text))
    }

    func send(bytes: [UInt8]) async throws {
        try await channel.writeAndFlush(ByteBuffer(bytes: bytes))
    }

    /// Every line received once `count` have arrived or the server closed the connection.
    func lines(atLeast count: Int) async throws -> [String] {
        try await wait(seconds: nil, isMet: { $0.lines.count >= count || $0.closed }, settle: { $0.lines }, timedOut: { $0.lines })
    }

    /// What arrived since the last call, once it contains `needle`, the server has closed, or
    /// `seconds` passed.
    func text(containing needle: String, seconds: Int64) async throws -> String {
        try await wait(seconds: seconds, isMet: { $0.closed || $0.unread.contains(needle) }, settle: { $0.take() }, timedOut: { $0.take() })
    }

    /// What arrived since the last `text` call, once the server has closed the connection; nil when
    /// it is still open after `seconds`.
    func textAtClose(seconds: Int64) async throws -> String? {
        try await wait(seconds: seconds, isMet: { $0.closed }, settle: { $0.take() }, timedOut: { _ in nil })
    }

    var isClosed: Bool {
        get async { (try? await channel.eventLoop.submit { self.collector.value.closed }.get()) ?? true }
    }

    func close() async { try? await channel.close() }
}

func parseReply(_ line: String) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]) ?? [:]
}

func errorCode(_ reply: [String: Any]) -> String? { (reply["error"] as? [String: Any])?["code"] as? String }

/// A thread of its own for a test's tasks. Swift Testing runs suites in parallel on Swift's
/// cooperative pool, one thread per core, and the suite's long synchronous tests (brute-force
/// comparisons, CLI runs) can hold every one of those threads for tens of seconds: a load that must
/// keep asking, or a loop polling for a condition against a deadline, would not run meanwhile.
/// Tasks that prefer this executor run on its thread instead (a serial queue's, which Dispatch
/// gives a thread even when the pool is busy).
final class OwnThread: TaskExecutor {
    /// For the polling loops of every test: they only ever wait, briefly.
    static let polling = OwnThread("locus.tests.polling")

    private let queue: DispatchQueue

    init(_ label: String) { queue = DispatchQueue(label: label) }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}

/// `locus serve` as a user runs it, in a process of its own: on a Unix socket (a new one in a
/// temporary folder, or a given path, e.g. the one a killed server left) and optionally TCP. Its
/// log goes to a file, readable at any time without blocking.
final class ServeProcess {
    let process = Process()
    let socket: String
    let tcp: ListenAddress?
    let logFile: URL

    init(index: String, socket: String? = nil, tcp: String? = nil, extra: [String] = [], environment: [String: String] = [:]) throws {
        self.tcp = tcp.flatMap(ListenAddress.init)
        let dir = TestSupport.temporaryDirectory()
        self.socket = socket ?? dir.appendingPathComponent("s.sock").path
        logFile = dir.appendingPathComponent("serve.log")
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        process.executableURL = TestSupport.locusBinary
        process.arguments = ["serve", "--index", index, "--listen", "unix:\(self.socket)"] + (tcp.map { ["--listen", $0] } ?? []) + extra
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        process.environment = env
        process.standardError = try FileHandle(forWritingTo: logFile)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
    }

    /// A test that fails before it stops its server must not leave it running.
    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    var url: String { "unix:\(socket)" }
    var log: String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }

    /// Waits until the socket, and the TCP port if any, accept a ping (the server answers on the
    /// first listener it binds before it binds the next); returns the seconds that took.
    func waitUntilServing() async throws -> Double {
        try await withTaskExecutorPreference(OwnThread.polling) { try await pollUntilServing() }
    }

    private func pollUntilServing() async throws -> Double {
        let start = ContinuousClock.now
        var waiting: [ListenAddress] = [.unix(path: socket)] + (tcp.map { [$0] } ?? [])
        while ContinuousClock.now - start < .seconds(30) {
            while let address = waiting.first, let c = try? await LocusClient.connect(to: address, retry: .none) {
                let ok = (try? await c.send(op: "ping").ok) ?? false
                await c.close()
                guard ok else { break }
                waiting.removeFirst()
            }
            if waiting.isEmpty { return (ContinuousClock.now - start).inSeconds }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        // Its last words are in the log once it has exited.
        if !process.isRunning { process.waitUntilExit() }
        throw LocusClientError(description: "locus serve did not start: \(log)")
    }

    /// What SIGKILL leaves: no shutdown, the socket file still there, connections cut.
    func kill9() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    func stop() -> Int32 {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// A loopback TCP address free now, below the ephemeral port range: a client reconnecting to
    /// an ephemeral port nobody listens on can be given that very port as its own end (a TCP
    /// self-connection), which would then hold the port against the restarted server.
    static func freeTCPAddress(seed: UInt64) -> String {
        var rng = SeededGenerator(seed: seed)
        for _ in 0..<200 {
            let port = UInt16.random(in: 20_000..<32_000, using: &rng)
            let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(fd) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            if bound == 0 { return "tcp://127.0.0.1:\(port)" }
        }
        return "tcp://127.0.0.1:0"
    }
}

/// Clients that ask without pause until stopped, each on a connection of its own, reconnecting
/// whenever theirs is lost, and count what they got: answers right and wrong, error replies, lost
/// connections. Every question has a known answer (reverse, geocode and within at 6132 NE 34th Ave).
final class LoadClients: Sendable {
    struct Counts: Sendable {
        var ok = 0
        /// A reply that was `ok` but not the known answer.
        var wrong = 0
        /// Error replies by code: a request the server answered but failed.
        var errors: [String: Int] = [:]
        /// Requests whose connection was lost before the reply (`LocusClientError`).
        var lost = 0
        /// Why, each time.
        var lostBecause: [String] = []
        var connections = 0
    }

    private let counts: NIOLockedValueBox<[Counts]>
    private let stopped = NIOLockedValueBox(false)
    private let tasks: [Task<Void, Never>]
    private let thread = OwnThread("locus.tests.load")

    init(_ addresses: [ListenAddress], token: String? = nil) {
        let counts = NIOLockedValueBox([Counts](repeating: Counts(), count: addresses.count))
        let stopped = self.stopped
        self.counts = counts
        tasks = addresses.enumerated().map { [thread] k, address in
            Task(executorPreference: thread) {
                let point: JSONValue = .object(["x": .number(-122.6296), "y": .number(45.5676)])
                var client: LocusClient?
                var i = 0
                while !stopped.withLockedValue({ $0 }) {
                    guard let c = client else {
                        if let c = try? await LocusClient.connect(to: address, token: token, retry: .none) {
                            client = c
                            counts.withLockedValue { $0[k].connections += 1 }
                        } else {
                            // Nobody listens (the server is down): retry, as a real client would.
                            try? await Task.sleep(for: .milliseconds(20))
                        }
                        continue
                    }
                    i += 1
                    do {
                        let reply: ClientReply
                        let right: Bool
                        if i % 3 == 0 {
                            reply = try await c.send(op: "reverse", ["location": point])
                            right = (try? reply.decode(ReverseReply.self))?.address?.address == "6132 NE 34th Ave, Portland, OR 97211"
                        } else if i % 3 == 1 {
                            // Answered on the worker threads, not the event loop: it too must take
                            // the index current when it starts.
                            reply = try await c.send(op: "geocode", ["text": .string("6132 NE 34th Ave")])
                            right = (try? reply.decode(GeocodeResult.self))?.candidates.first?.address == "6132 NE 34th Ave, Portland, OR 97211"
                        } else {
                            reply = try await c.send(op: "within", ["location": point])
                            right = (try? reply.decode(WithinResult.self))?.features.first?.name == "Concordia"
                        }
                        counts.withLockedValue {
                            if let e = reply.error { $0[k].errors[e.code.rawValue, default: 0] += 1 } else if right { $0[k].ok += 1 } else { $0[k].wrong += 1 }
                        }
                    } catch {
                        counts.withLockedValue {
                            $0[k].lost += 1
                            $0[k].lostBecause.append("\(error)")
                        }
                        await c.close()
                        client = nil
                    }
                }
                await client?.close()
            }
        }
    }

    var snapshot: [Counts] { counts.withLockedValue { $0 } }

    /// Waits until `done` holds for every client's counts; false if it did not within `seconds`.
    func wait(seconds: Double = 60, until done: @Sendable (Counts) -> Bool) async throws -> Bool {
        try await poll(seconds: seconds) { $0.allSatisfy(done) }
    }

    /// Waits until every client has had `count` more right answers than in `earlier`.
    func waitForAnswers(beyond earlier: [Counts], count: Int, seconds: Double = 60) async throws -> Bool {
        try await poll(seconds: seconds) { zip($0, earlier).allSatisfy { $0.ok >= $1.ok + count } }
    }

    private func poll(seconds: Double, _ done: @Sendable ([Counts]) -> Bool) async throws -> Bool {
        try await withTaskExecutorPreference(OwnThread.polling) {
            let deadline = ContinuousClock.now + .seconds(seconds)
            while ContinuousClock.now < deadline {
                if done(snapshot) { return true }
                try await Task.sleep(for: .milliseconds(10))
            }
            return done(snapshot)
        }
    }

    /// Stops asking; returns every client's counts once each has had its last reply.
    func stop() async -> [Counts] {
        stopped.withLockedValue { $0 = true }
        for t in tasks { await t.value }
        return snapshot
    }
}
