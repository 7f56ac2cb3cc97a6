import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import LocusCore
import LocusEngine
import LocusClient
import LocusServer
import LocusWire
import NIOCore
import NIOPosix

extension Locus.Bench {
    struct AttackBench: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "attack",
            abstract: "A server's ping latency while other connections pipeline the costliest requests, against the same server idle.",
            discussion: """
            Against a running server (--server), from this process: first --pings pings on one
            connection, one at a time, --gap-ms apart, with nothing else going on (the peer: what the
            machine and the sockets cost); then --connections connections start pipelining the
            costliest requests `bench worst-case` knows (long misspelt texts for suggest and
            geocode, a one-letter suggest over the world, the nearest polygon 50 km away, the
            costliest reverse), each keeping --window requests outstanding, and the pings are timed
            again. The load generator's thread runs at nice 10, standing for clients on other
            machines, so that it does not compete with the server's event loops for the cores.
            """
        )

        @Option(help: ArgumentHelp("The server: tcp://HOST:PORT or unix:/path.", valueName: "url")) var server: String
        @Option(help: "Connections pipelining the costliest requests.") var connections: Int = 4
        @Option(help: "Requests each of them keeps outstanding.") var window: Int = 64
        @Option(help: "Pings timed, idle and under attack.") var pings: Int = 400
        @Option(help: "Milliseconds between pings.") var gapMs: Int = 2

        func validate() throws {
            guard ListenAddress(server) != nil else { throw ValidationError("--server must be tcp://HOST:PORT or unix:/path") }
            guard connections > 0, window > 0, pings > 0, gapMs >= 0 else { throw ValidationError("counts must be positive") }
        }

        func run() async throws {
            guard let address = ListenAddress(server) else { throw ValidationError("bad --server") }
            let attackGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            try await attackGroup.next().submit { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10) }.get()
            let pingGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            let lines = Self.costliestLines()

            let idle = try await PingTimer.run(address, count: pings, gap: .milliseconds(Int64(gapMs)), group: pingGroup)
            Output.line("idle server:  " + Self.describe(idle))

            var attackers: [AttackConnection] = []
            for _ in 0..<connections {
                attackers.append(try await AttackConnection.connect(address, lines: lines, window: window, group: attackGroup))
            }
            let clock = ContinuousClock()
            let warm = clock.now
            while try await attackers.asyncMap({ try await $0.progress().replies }).min() ?? 0 < 200, clock.now - warm < .seconds(60) {
                try await Task.sleep(for: .milliseconds(50))
            }
            let before = try await attackers.asyncMap { try await $0.progress() }
            let start = clock.now
            let attacked = try await PingTimer.run(address, count: pings, gap: .milliseconds(Int64(gapMs)), group: pingGroup)
            let seconds = (clock.now - start).inSeconds
            let after = try await attackers.asyncMap { try await $0.progress() }
            for a in attackers { await a.close() }
            let replies = zip(before, after).map { $1.replies - $0.replies }.reduce(0, +)
            let errors = after.map(\.errors).reduce(0, +)
            Output.line("under attack: " + Self.describe(attacked))
            Output.line(String(format: "attack: %d connections, %d requests answered meanwhile (%.0f/s), %d error replies",
                               connections, replies, Double(replies) / seconds, errors))
            try await attackGroup.shutdownGracefully()
            try await pingGroup.shutdownGracefully()
        }

        static func describe(_ millis: [Double]) -> String {
            let s = millis.sorted()
            guard !s.isEmpty else { return "no ping answered" }
            func pct(_ p: Double) -> Double { s[min(s.count - 1, Int(Double(s.count) * p))] }
            return String(format: "%d pings: p50 %.3f ms, p90 %.3f ms, p99 %.3f ms, max %.3f ms", s.count, pct(0.5), pct(0.9), pct(0.99), s[s.count - 1])
        }

        /// Valid requests within every limit, each among the costliest of its op
        /// (`bench worst-case`).
        static func costliestLines() -> [String] {
            typealias W = WorstCaseBench
            let limit = QueryLimits.maximumTextBytes, words = QueryLimits.maximumTextWords
            let misspelt = W.fit(Array(repeating: "killngswrth", count: words).joined(separator: " "), bytes: limit, words: words)
            let intersection = W.fit(W.repeated("killngsworht ", toBytes: limit / 2 - 2) + "& " + W.repeated("mlwaukie ", toBytes: limit / 2 - 2), bytes: limit - 1, words: words)
            let sixteenLayers = "[" + Array(repeating: #""neighborhoods""#, count: 16).joined(separator: ",") + "]"
            return [
                #"{"id":1,"op":"suggest","text":"s","max_results":50,"extent":{"xmin":-180,"ymin":-90,"xmax":180,"ymax":90}}"#,
                #"{"id":2,"op":"suggest","text":\#(W.q(misspelt)),"max_results":50}"#,
                #"{"id":3,"op":"within","location":{"x":-123.3,"y":45.5},"nearest_within":50000}"#,
                #"{"id":4,"op":"suggest","text":\#(W.q("a" + String(repeating: "\u{301}", count: limit / 2 - 1))),"max_results":50}"#,
                #"{"id":5,"op":"geocode","text":\#(W.q(W.fit(W.scrambled(words: words), bytes: limit, words: words)))}"#,
                #"{"id":6,"op":"suggest","text":"n","max_results":50}"#,
                #"{"id":7,"op":"suggest","text":\#(W.q(intersection + " ")),"location":{"x":-122.63,"y":45.57}}"#,
                #"{"id":8,"op":"geocode","text":\#(W.q(misspelt))}"#,
                #"{"id":9,"op":"reverse","location":{"x":-123.3,"y":45.5},"max_distance":50000,"layers":["neighborhoods"]}"#,
                #"{"id":0,"op":"reverse","location":{"x":-122.6296,"y":45.5676},"layers":\#(sixteenLayers)}"#,
            ].map { $0 + "\n" }
        }
    }
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var out: [T] = []
        out.reserveCapacity(count)
        for e in self { out.append(try await transform(e)) }
        return out
    }
}

/// A connection that keeps `window` requests outstanding, sending the next line as each reply
/// comes, for as long as it is open.
final class AttackConnection: Sendable {
    struct Progress: Sendable {
        var replies = 0
        var errors = 0
    }

    final class Handler: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let lines: [ByteBuffer]
        let window: Int
        var next = 0
        var progress = Progress()
        /// The first bytes of the reply being read.
        var head: [UInt8] = []

        init(lines: [String], window: Int) {
            self.lines = lines.map { ByteBuffer(string: $0) }
            self.window = window
        }

        func send(_ context: ChannelHandlerContext, _ n: Int) {
            for _ in 0..<n {
                context.write(wrapOutboundOut(lines[next % lines.count]), promise: nil)
                next += 1
            }
            context.flush()
        }

        func channelActive(context: ChannelHandlerContext) {
            send(context, window)
            context.fireChannelActive()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            // Replies of 50 suggestions are long: find their ends with memchr, and keep only their
            // first bytes ({"id":N,"ok":false tells an error).
            let (replies, errors) = unwrapInboundIn(data).withUnsafeReadableBytes { raw -> (Int, Int) in
                guard let base = raw.baseAddress else { return (0, 0) }
                var replies = 0, errors = 0
                var start = 0
                while start < raw.count {
                    let end = memchr(base + start, 0x0A, raw.count - start).map { base.distance(to: UnsafeRawPointer($0)) }
                    let segmentEnd = end ?? raw.count
                    if head.count < 24 { head += raw[start..<min(segmentEnd, start + 24 - head.count)] }
                    guard let end else { break }
                    replies += 1
                    if String(decoding: head, as: UTF8.self).contains(#""ok":false"#) { errors += 1 }
                    head.removeAll(keepingCapacity: true)
                    start = end + 1
                }
                return (replies, errors)
            }
            progress.replies += replies
            progress.errors += errors
            if replies > 0 { send(context, replies) }
        }
    }

    let channel: any Channel
    private let handler: NIOLoopBound<Handler>

    private init(channel: any Channel, handler: NIOLoopBound<Handler>) {
        self.channel = channel
        self.handler = handler
    }

    static func connect(_ address: ListenAddress, lines: [String], window: Int, group: any EventLoopGroup) async throws -> AttackConnection {
        let handed = group.next().makePromise(of: NIOLoopBound<Handler>.self)
        let channel = try await LocusServerBench.connect(address, group: group) { ch in
            let h = Handler(lines: lines, window: window)
            try ch.pipeline.syncOperations.addHandler(h)
            handed.succeed(NIOLoopBound(h, eventLoop: ch.eventLoop))
        }
        return AttackConnection(channel: channel, handler: try await handed.futureResult.get())
    }

    func progress() async throws -> Progress {
        let handler = self.handler
        return try await channel.eventLoop.submit { handler.value.progress }.get()
    }

    func close() async { try? await channel.close() }
}

/// Sends `ping`s one at a time, `gap` apart, and times each from send to reply on the client's
/// event loop.
enum PingTimer {
    final class Handler: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let count: Int
        let gap: TimeAmount
        let done: EventLoopPromise<[Double]>
        var sentAt = NIODeadline.now()
        var millis: [Double] = []
        var finished = false

        init(count: Int, gap: TimeAmount, done: EventLoopPromise<[Double]>) {
            self.count = count
            self.gap = gap
            self.done = done
        }

        func ping(_ context: ChannelHandlerContext) {
            sentAt = .now()
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: #"{"id":"p","op":"ping"}"# + "\n")), promise: nil)
        }

        func channelActive(context: ChannelHandlerContext) {
            ping(context)
            context.fireChannelActive()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            // One ping is outstanding at a time: its reply is complete at the newline.
            guard !finished, unwrapInboundIn(data).readableBytesView.contains(0x0A) else { return }
            millis.append(Double((NIODeadline.now() - sentAt).nanoseconds) / 1e6)
            if millis.count >= count { return finish() }
            context.eventLoop.assumeIsolated().scheduleTask(in: gap) { self.ping(context) }
        }

        func finish() {
            guard !finished else { return }
            finished = true
            done.succeed(millis)
        }

        func channelInactive(context: ChannelHandlerContext) {
            finish()
        }
    }

    /// Round-trip times in milliseconds: `count` of them, or those answered within 60 s.
    static func run(_ address: ListenAddress, count: Int, gap: TimeAmount, group: any EventLoopGroup) async throws -> [Double] {
        let loop = group.next()
        let done = loop.makePromise(of: [Double].self)
        let handed = loop.makePromise(of: NIOLoopBound<Handler>.self)
        let channel = try await LocusServerBench.connect(address, group: loop) { ch in
            let h = Handler(count: count, gap: gap, done: done)
            try ch.pipeline.syncOperations.addHandler(h)
            handed.succeed(NIOLoopBound(h, eventLoop: ch.eventLoop))
        }
        let handler = try await handed.futureResult.get()
        loop.scheduleTask(in: .seconds(60)) { handler.value.finish() }
        let millis = try await done.futureResult.get()
        try? await channel.close()
        return millis
    }
}

/// Connection set-up shared by the attack bench's clients.
enum LocusServerBench {
    static func connect(_ address: ListenAddress, group: any EventLoopGroup, _ initialize: @escaping @Sendable (any Channel) throws -> Void) async throws -> any Channel {
        let bootstrap = ClientBootstrap(group: group).channelInitializer { channel in
            channel.eventLoop.makeCompletedFuture { try initialize(channel) }
        }
        switch address {
        case .tcp(let host, let port):
            return try await bootstrap.channelOption(.tcpOption(.tcp_nodelay), value: 1).connect(host: host, port: port).get()
        case .unix(let path):
            return try await bootstrap.connect(unixDomainSocketPath: path).get()
        }
    }
}
