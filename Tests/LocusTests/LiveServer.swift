import Foundation
import LocusEngine
import LocusServer
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

    static func start(index: LocusIndex? = nil, _ configure: (inout ServerConfiguration) -> Void = { _ in }) async throws -> LiveServer {
        let dir = TestSupport.temporaryDirectory()
        var config = ServerConfiguration()
        config.listen = [.tcp(host: "127.0.0.1", port: 0), .unix(path: dir.appendingPathComponent("locus.sock").path)]
        config.threads = 2
        config.reloadOnHangup = false
        configure(&config)
        let (stream, continuation) = AsyncStream.makeStream(of: [ListenAddress].self)
        let server = LocusServer(configuration: config, index: ServingIndex(index: try index ?? TestSupport.portland()),
                                 logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })) { bound in
            continuation.yield(bound)
            continuation.finish()
        }
        let task = Task { try await server.run() }
        var iterator = stream.makeAsyncIterator()
        guard let bound = await iterator.next() else {
            try await task.value
            throw LocusClientError(description: "the server did not start")
        }
        return LiveServer(server: server, bound: bound, task: task)
    }

    private init(server: LocusServer, bound: [ListenAddress], task: Task<Void, any Error>) {
        self.server = server
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
    }
}

/// A plain TCP connection that writes raw bytes and collects reply lines: for what a well-behaved
/// client never sends.
final class RawConnection: Sendable {
    let channel: any Channel
    private let collector: NIOLoopBound<LineCollector>

    final class LineCollector: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        var pending = ByteBuffer()
        var lines: [String] = []
        var closed = false
        var waiters: [(Int, EventLoopPromise<[String]>)] = []

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var b = unwrapInboundIn(data)
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
            waiters.removeAll { n, p in
                guard lines.count >= n || closed else { return false }
                p.succeed(lines)
                return true
            }
        }
    }

    init(port: Int) async throws {
        let group = MultiThreadedEventLoopGroup.singleton
        let handed = group.next().makePromise(of: NIOLoopBound<LineCollector>.self)
        channel = try await ClientBootstrap(group: group)
            .channelInitializer { ch in
                ch.eventLoop.makeCompletedFuture {
                    let c = LineCollector()
                    try ch.pipeline.syncOperations.addHandler(c)
                    handed.succeed(NIOLoopBound(c, eventLoop: ch.eventLoop))
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        collector = try await handed.futureResult.get()
    }

    func send(_ text: String) async throws {
        try await channel.writeAndFlush(ByteBuffer(string: text))
    }

    func send(bytes: [UInt8]) async throws {
        try await channel.writeAndFlush(ByteBuffer(bytes: bytes))
    }

    /// Every line received once `count` have arrived or the server closed the connection.
    func lines(atLeast count: Int) async throws -> [String] {
        let collector = self.collector
        let promise = channel.eventLoop.makePromise(of: [String].self)
        channel.eventLoop.execute {
            collector.value.waiters.append((count, promise))
            collector.value.settle()
        }
        return try await promise.futureResult.get()
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
