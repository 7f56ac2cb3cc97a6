import Foundation
#if canImport(Glibc)
import Glibc
#endif
import LocusClient
import LocusCore
import LocusProtocol
import LocusWire
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOExtras
import NIOPosix
import ServiceLifecycle
import UnixSignals

/// The Locus server: protocol v1 over TCP and Unix sockets at once, as a `Service`.
///
/// Graceful shutdown (SIGTERM/SIGINT through a `ServiceGroup`, or `shutdown()`): stop accepting,
/// stop reading new requests, answer every request already read (those with the worker threads
/// too), close, return. SIGHUP reloads the index (see `ServingIndex`).
///
/// The event loops are the caller's, as in NIO's own servers: `locus serve` makes a group of
/// `configuration.threads` loops and shuts it down after the server has stopped; tests and
/// benchmarks can share one. The worker threads are the server's own.
public final class LocusServer: Service, Sendable {
    public let configuration: ServerConfiguration
    public let index: ServingIndex
    /// Every protocol's requests, connections and the index, for Prometheus (`exposition()`);
    /// the HTTP dialects record theirs here too.
    public let metrics: ServerMetrics
    /// The `stats` op's view of `metrics`.
    public let stats: ServerStats
    private let logger: Logger
    private let group: any EventLoopGroup
    private let onRunning: @Sendable ([ListenAddress]) async -> Void
    private let state = NIOLockedValueBox(State())

    private struct State {
        var listeners: [(channel: any Channel, quiesce: ServerQuiescingHelper, done: EventLoopPromise<Void>)] = []
        var shutdownStarted = false
        var bound: [ListenAddress] = []
    }

    /// - Parameter onRunning: called once every listener is bound, with the addresses as bound
    ///   (a TCP port 0 replaced by the port the system chose).
    public init(configuration: ServerConfiguration, index: ServingIndex, logger: Logger, group: any EventLoopGroup,
                onRunning: @escaping @Sendable ([ListenAddress]) async -> Void = { _ in }) {
        self.configuration = configuration
        self.index = index
        metrics = ServerMetrics(index: index)
        stats = ServerStats(metrics: metrics)
        self.logger = logger
        self.group = group
        self.onRunning = onRunning
    }

    /// The addresses listened on, once `run` has bound them.
    public var boundAddresses: [ListenAddress] { state.withLockedValue { $0.bound } }

    public func run() async throws {
        let problems = configuration.problems()
        guard problems.isEmpty else { throw LocusError(.invalidArgument, problems.joined(separator: "; ")) }
        let workers = NIOThreadPool(numberOfThreads: configuration.workerThreads)
        workers.start()
        let context = ServerContext(configuration: configuration, index: index, stats: stats, logger: logger, workers: workers)
        var wakes: [any Channel] = []
        do {
            for loop in group.makeIterator() {
                wakes.append(try await Self.wakePipe(context.turns(on: loop), on: loop))
            }
            for address in configuration.listen {
                try await listen(on: address, context)
            }
        } catch {
            shutdown()
            try? await waitForListenersToClose()
            state.withLockedValue { $0.listeners.removeAll() }
            for w in wakes { try? await w.close() }
            try? await workers.shutdownGracefully()
            throw error
        }
        let bound = boundAddresses
        logger.info("listening", metadata: [
            "addresses": "\(bound.map(\.description).joined(separator: " "))",
            "index": "\(index.generation.index.path)", "generation": "\(index.generation.number)",
            "auth": "\(configuration.tokens.isEmpty ? "none" : "token")",
        ])
        // Typo indexes are otherwise built by the first misspelt query; build them now, while
        // the server already answers everything else.
        let search = index.generation.index.search
        DispatchQueue.global().async { search?.prepare() }
        await onRunning(bound)

        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await withTaskGroup(of: Void.self) { tasks in
                    if configuration.reloadOnHangup {
                        tasks.addTask { await self.reloadOnHangup(context) }
                    }
                    try? await self.waitForListenersToClose()
                    tasks.cancelAll()
                }
            } onGracefulShutdown: {
                self.shutdown()
            }
        } onCancel: {
            self.shutdown()
        }
        for case .unix(let path) in bound { try? FileManager.default.removeItem(atPath: path) }
        // The quiescing helpers complete a promise on the event loops when freed: free them while
        // the loops still run.
        state.withLockedValue { $0.listeners.removeAll() }
        // Every connection has closed, and a connection closes gracefully only once its batch is
        // back from the workers; a batch of one that was dropped can still be running, and hands
        // its replies to a loop: stop the workers while the loops still run.
        for w in wakes { try? await w.close() }
        try await workers.shutdownGracefully()
        logger.info("stopped")
    }

    /// Starts a graceful shutdown: no new connections, no new requests; what has been read is
    /// answered; `run` returns when every connection has closed.
    public func shutdown() {
        let listeners = state.withLockedValue { s -> [(any Channel, ServerQuiescingHelper, EventLoopPromise<Void>)] in
            guard !s.shutdownStarted else { return [] }
            s.shutdownStarted = true
            return s.listeners.map { ($0.channel, $0.quiesce, $0.done) }
        }
        if !listeners.isEmpty { logger.info("shutting down: answering requests in flight") }
        for (_, quiesce, done) in listeners { quiesce.initiateShutdown(promise: done) }
    }

    private func waitForListenersToClose() async throws {
        let done = state.withLockedValue { $0.listeners.map(\.done.futureResult) }
        for f in done { try await f.get() }
    }

    private func reloadOnHangup(_ context: ServerContext) async {
        for await _ in await UnixSignalsSequence(trapping: .sighup) {
            logger.info("SIGHUP: reloading the index")
            _ = try? await context.reload(path: nil, on: group.next(), reason: "SIGHUP").get()
        }
    }

    /// A pipe `loop` watches, which its `LoopTurns` writes to in order to start a round after the
    /// loop's next poll.
    private static func wakePipe(_ turns: LoopTurns, on loop: any EventLoop) async throws -> any Channel {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw LocusError(.internalError, "cannot create the event loop's wake pipe") }
        do {
            return try await NIOPipeBootstrap(group: loop)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(LoopWake(turns)) }
                }
                .takingOwnershipOfDescriptors(input: fds[0], output: fds[1]).get()
        } catch {
            close(fds[0])
            close(fds[1])
            throw LocusError(.internalError, "cannot watch the event loop's wake pipe: \(error)")
        }
    }

    /// Refuses a Unix socket path another process is listening on, as a TCP port in use is
    /// refused: binding would silently take it over (and remove it on exit). A socket file nobody
    /// answers on is what a killed server leaves behind, and may be replaced.
    static func checkUnixSocketIsFree(_ path: String) throws(LocusError) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard info.st_mode & S_IFMT == S_IFSOCK else {
            throw LocusError(.invalidArgument, "cannot listen on unix:\(path): a file that is not a socket is there")
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if connected == 0 {
            throw LocusError(.invalidArgument, "cannot listen on unix:\(path): another server is listening there")
        }
    }

    private func listen(on address: ListenAddress, _ context: ServerContext) async throws {
        let quiesce = ServerQuiescingHelper(group: group)
        let configuration = self.configuration
        let stats = self.stats
        var bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(quiesce.makeServerChannelHandler(channel: channel))
                }
            }
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelOption(.maxMessagesPerRead, value: 16)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    guard stats.admitConnection(limit: configuration.maximumConnections) else {
                        try pipeline.addHandler(RefusedConnectionHandler(limit: configuration.maximumConnections))
                        return
                    }
                    channel.closeFuture.whenComplete { _ in stats.connectionClosed() }
                    try pipeline.addHandler(IdleStateHandler(allTimeout: .milliseconds(Int64(configuration.idleTimeout * 1000))))
                    try pipeline.addHandler(ByteToMessageHandler(RequestLineDecoder(maximumLineBytes: configuration.maximumLineBytes)))
                    try pipeline.addHandler(ConnectionHandler(server: context, allocator: channel.allocator))
                }
            }
        let channel: any Channel
        do {
            switch address {
            case .tcp(let host, let port):
                // Replies are written a batch at a time; Nagle would only hold them back.
                bootstrap = bootstrap.childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
                channel = try await bootstrap.bind(host: host, port: port).get()
            case .unix(let path):
                try Self.checkUnixSocketIsFree(path)
                channel = try await bootstrap.bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true).get()
            }
        } catch let error as LocusError {
            throw error
        } catch {
            throw LocusError(.invalidArgument, "cannot listen on \(address): \(error)")
        }
        var bound = address
        if case .tcp(let host, _) = address, let port = channel.localAddress?.port { bound = .tcp(host: host, port: port) }
        let done = group.next().makePromise(of: Void.self)
        let stopping = state.withLockedValue { s -> Bool in
            s.listeners.append((channel, quiesce, done))
            s.bound.append(bound)
            return s.shutdownStarted
        }
        // A shutdown asked for while this listener was being bound (SIGTERM at start, a service
        // group stopping at once; the socket answers as soon as it is bound) found no listener to
        // quiesce, and `run` would wait for this one for ever.
        if stopping { quiesce.initiateShutdown(promise: done) }
    }
}
