import Foundation
#if canImport(Glibc)
import Glibc
#endif
import LocusClient
import LocusCore
import LocusServer
import LocusWire
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing

/// The server against clients that try to hurt the others: connections pipelining the costliest
/// requests there are, and one sending megabytes without ever reading a reply.
@Suite(.serialized) struct ServerUnderAttackTests {
    /// Some of the costliest lines `locus bench worst-case` knows, each valid and within the
    /// limits (256 bytes, 24 words): suggest and geocode on long misspelt texts, a one-letter
    /// suggest over the world, the nearest polygon 50 km away (0.2–1.5 ms each on one core, the
    /// worker threads' share), and the costliest `reverse` (0.1 ms, answered on the event loop).
    static let costliestLines: [String] = {
        let misspelt = Array(repeating: "killngswrth", count: 21).joined(separator: " ")
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        // 23 words of 10 letters that no street has (`locus bench worst-case`'s scrambled words).
        var words: [String] = []
        for i in 0..<23 {
            var word = ""
            for j in 0..<10 { word.append(letters[(i * 7 + j * 3) % 26]) }
            words.append(word)
        }
        let noStreet = words.joined(separator: " ")
        let accents = "a" + String(repeating: "\u{301}", count: 127)
        let sixteenLayers = "[" + Array(repeating: #""neighborhoods""#, count: 16).joined(separator: ",") + "]"
        let intersection = "killngsworht killngsworht killngsworht killngsworht killngsworht killngsworht killngsworht killngsworht & mlwaukie mlwaukie mlwaukie mlwaukie mlwaukie mlwaukie mlwaukie mlwaukie mlwaukie mlwaukie mlwaukie mlwaukie mlwaukie"
        return [
            #"{"id":1,"op":"suggest","text":"s","max_results":50,"extent":{"xmin":-180,"ymin":-90,"xmax":180,"ymax":90}}"#,
            #"{"id":2,"op":"suggest","text":"\#(misspelt)","max_results":50}"#,
            #"{"id":3,"op":"within","location":{"x":-123.3,"y":45.5},"nearest_within":50000}"#,
            #"{"id":4,"op":"suggest","text":"\#(accents)","max_results":50}"#,
            #"{"id":5,"op":"geocode","text":"\#(noStreet)"}"#,
            #"{"id":6,"op":"suggest","text":"n","max_results":50}"#,
            #"{"id":7,"op":"suggest","text":"\#(intersection) ","location":{"x":-122.63,"y":45.57}}"#,
            #"{"id":8,"op":"geocode","text":"\#(misspelt)"}"#,
            #"{"id":9,"op":"reverse","location":{"x":-123.3,"y":45.5},"max_distance":50000,"layers":["neighborhoods"]}"#,
            #"{"id":10,"op":"reverse","location":{"x":-122.6296,"y":45.5676},"layers":\#(sixteenLayers)}"#,
        ].map { $0 + "\n" }
    }()

    @Test func pingAnswersWithinFiveMillisecondsWhileOtherConnectionsPipelineTheCostliestRequests() async throws {
        // A request waits its turn behind a pipeline of the costliest ones; with the rest of the
        // suite on the same 2 cores, the attack got 7 and 22 error replies in two full-suite runs
        // and none alone or with this long timeout: waits past the default 5 s. The bar here is
        // the ping's, so the attack may wait.
        let live = try await LiveServer.start { $0.requestTimeout = 600 }
        // Every line is a request the server runs in full, not one it refuses at once.
        let check = try await live.client()
        for (i, line) in Self.costliestLines.enumerated() {
            let reply = try await check.send(id: i + 1, line: Array(line.utf8))
            #expect(reply.ok, "\(line.prefix(80)): \(String(describing: reply.error))")
        }
        await check.close()
        // Each client on its own thread, so the measure is the server's, not the load generator's.
        // The load generator stands for clients on other machines: it runs below the server's
        // priority, as the server's workers do, so that it does not take the cores the server's
        // event loops need (on 2 cores its reading of the replies would compete with them).
        let attackGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        try await attackGroup.next().submit { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10) }.get()
        let pingGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        // Four connections, so that both of the server's event loops have two.
        var attackers: [Attacker] = []
        for _ in 0..<4 { attackers.append(try await Attacker.connect(port: live.port, lines: Self.costliestLines, window: 64, group: attackGroup)) }
        // Until every attacker has had replies, the server is not yet under attack (and builds
        // its typo indexes meanwhile).
        let warm = ContinuousClock.now
        while try await attackers.asyncMap({ try await $0.progress().replies }).min() ?? 0 < 200, ContinuousClock.now - warm < .seconds(60) {
            try await Task.sleep(for: .milliseconds(50))
        }

        // The bar holds for a window of 400 pings, 2 ms apart. On a shared machine another
        // process can hold a core for several milliseconds at any moment (an idle server measured
        // the same way, with the suite running beside it, has had windows at p99 14 ms), so a
        // window that misses the bar is measured again, up to five. A server that lets the attack
        // hold its loops does not answer the 400 pings within 10 s at all (the server before
        // worker threads answered 13–79 of them, p50 0.1–0.7 s), and is not measured again.
        var windows: [PingWindow] = []
        for _ in 0..<5 {
            let before = try await attackers.asyncMap { try await $0.progress() }
            let pings = try await Pinger.run(port: live.port, count: 400, gap: .milliseconds(2), giveUpAfter: .seconds(10), group: pingGroup)
            let after = try await attackers.asyncMap { try await $0.progress() }
            windows.append(PingWindow(millis: pings, attackReplies: zip(before, after).map { $1.replies - $0.replies },
                                      attackErrors: after.map(\.errors).reduce(0, +)))
            if windows.last?.meetsTheBar == true || pings.count < 400 { break }
        }
        for a in attackers { await a.close() }
        try await live.stop()
        try await attackGroup.shutdownGracefully()
        try await pingGroup.shutdownGracefully()

        let report = windows.map(\.description).joined(separator: "; ")
        #expect(windows.contains { $0.meetsTheBar }, "ping under attack, by window: \(report)")
        // The attack went on all through the pings, and was answered without errors.
        for w in windows {
            #expect(w.attackReplies.allSatisfy { $0 > 0 }, "attack replies per connection while pinging: \(w.attackReplies)")
            #expect(w.attackErrors == 0, "error replies to the attack: \(w.attackErrors)")
        }
    }

    struct PingWindow: CustomStringConvertible {
        var millis: [Double]
        var attackReplies: [Int]
        var attackErrors: Int

        var sorted: [Double] { millis.sorted() }
        var p99: Double { millis.isEmpty ? .infinity : sorted[min(millis.count - 1, millis.count * 99 / 100)] }
        var meetsTheBar: Bool { millis.count == 400 && p99 <= 5 }

        var description: String {
            let s = sorted
            guard !s.isEmpty else { return "no ping answered in 10 s" }
            return String(format: "%d pings answered, p50 %.2f ms, p99 %.2f ms, max %.2f ms, attack replies meanwhile %@",
                          s.count, s[s.count / 2], p99, s[s.count - 1], attackReplies.description)
        }
    }

    /// Every reply counts toward the in-flight limit, those the server writes itself (errors,
    /// `ping`, `stats`, `cancel`) too: a client that sends and never reads stops being read once
    /// the limit's worth of replies waits for it, so the server holds no more than that for it.
    /// When the server's own replies did not count (issue 10), 3.9 MB of such lines took a
    /// server from 165 to 430 MB in 10 s.
    @Test func aClientThatSendsMegabytesAndNeverReadsLeavesTheServersMemoryFlat() async throws {
        let serve = try ServeProcess(index: try TestSupport.portlandIndexPath())
        _ = try await serve.waitUntilServing()
        let pid = serve.process.processIdentifier
        let other = try await LocusClient.connect(to: .unix(path: serve.socket))
        // A misspelt street waits for the typo indexes the server builds after start: what the
        // server holds for good is in memory before the baseline is read.
        #expect(try await other.send(op: "geocode", ["text": .string("6132 ne 43rd avenu portlnd")]).ok)

        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        // Never reads: the server's replies stay in the socket until the server stops writing.
        let flood = try await ClientBootstrap(group: group)
            .channelOption(.autoRead, value: false)
            .connect(unixDomainSocketPath: serve.socket).get()
        // Mostly lines of a byte or two, each answered with an error of about 130 bytes; `stats`
        // with a few hundred.
        let lines = ["x", "{}", "x", "[]", "x", "not json", #"{"op":"fly"}"#, #"{"id":1,"op":"ping"}"#, #"{"op":"stats"}"#,
                     #"{"id":2,"op":"cancel","request":9}"#, #"{"id":3,"op":"reverse","location":{"x":"a","y":1}}"#]
        var chunk = ByteBuffer()
        while chunk.readableBytes < 256 * 1024 { for l in lines { chunk.writeString(l + "\n") } }
        let taken = NIOLockedValueBox(0)
        func send(_ chunks: Int) {
            for _ in 0..<chunks {
                flood.writeAndFlush(chunk).whenSuccess { taken.withLockedValue { $0 += 256 * 1024 } }
            }
        }

        // Warm-up: the server's buffers and the allocator's arenas reach their working size, and
        // whatever the server still builds after start is built.
        send(2)
        var baseline = try Self.residentKB(pid)
        for _ in 0..<20 {
            try await Task.sleep(for: .milliseconds(250))
            let now = try Self.residentKB(pid)
            let settled = abs(now - baseline) < 256
            baseline = now
            if settled { break }
        }
        // 8 MB more, about 600,000 lines that the server answers itself.
        send(32)
        var peak = baseline
        var asked = 0, answered = 0
        let clock = ContinuousClock()
        let end = clock.now + .seconds(5)
        while clock.now < end {
            asked += 2
            if try await other.send(op: "ping").ok { answered += 1 }
            if try await other.send(op: "reverse", ["location": .object(["x": .number(-122.6296), "y": .number(45.5676)])]).ok { answered += 1 }
            peak = max(peak, try Self.residentKB(pid))
            try await Task.sleep(for: .milliseconds(100))
        }
        let sent = taken.withLockedValue { $0 }
        await other.close()
        try? await flood.close()
        try await group.shutdownGracefully()
        #expect(serve.process.isRunning)
        #expect(serve.stop() == 0)

        #expect(peak - baseline < 20 * 1024, "resident memory grew by \((peak - baseline) / 1024) MB (from \(baseline / 1024) MB) while a client sent \(sent / 1024) KB and read nothing")
        // It grew so little because the server stopped reading: most of what the client wrote
        // never left it (a server that went on reading took 4.7 MB in the same 5 s, and grew 54 MB).
        #expect(sent <= 2 << 20, "the server went on reading a client that reads nothing: its socket took \(sent / 1024) KB")
        // The other client was answered all along.
        #expect(answered == asked)
        #expect(asked >= 20)
    }

    /// VmRSS of a process, in kB.
    static func residentKB(_ pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        // "VmRSS:\t  153560 kB"
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kb = Int(line.filter(\.isNumber)) else {
            throw LocusClientError(description: "no VmRSS for process \(pid)")
        }
        return kb
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
final class Attacker: Sendable {
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
            // Counted with memchr: replies of 50 suggestions are long, and reading them byte by
            // byte would make this thread a load of its own. Only a reply's first bytes are kept:
            // {"id":N,"ok":false tells an error.
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

    static func connect(port: Int, lines: [String], window: Int, group: any EventLoopGroup) async throws -> Attacker {
        let handed = group.next().makePromise(of: NIOLoopBound<Handler>.self)
        let channel = try await ClientBootstrap(group: group)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .channelInitializer { ch in
                ch.eventLoop.makeCompletedFuture {
                    let h = Handler(lines: lines, window: window)
                    try ch.pipeline.syncOperations.addHandler(h)
                    handed.succeed(NIOLoopBound(h, eventLoop: ch.eventLoop))
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        return Attacker(channel: channel, handler: try await handed.futureResult.get())
    }

    func progress() async throws -> Progress {
        let handler = self.handler
        return try await channel.eventLoop.submit { handler.value.progress }.get()
    }

    func close() async { try? await channel.close() }
}

/// Sends `ping`s one at a time, `gap` apart, and times each from send to reply on the client's
/// event loop (no Swift concurrency hop in the measure).
enum Pinger {
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
            guard unwrapInboundIn(data).readableBytesView.contains(0x0A) else { return }
            guard !finished else { return }
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

    /// The round-trip times in milliseconds: `count` of them, or those answered by `giveUpAfter`.
    static func run(port: Int, count: Int, gap: TimeAmount, giveUpAfter: Duration, group: any EventLoopGroup) async throws -> [Double] {
        let loop = group.next()
        let done = loop.makePromise(of: [Double].self)
        let handed = loop.makePromise(of: NIOLoopBound<Handler>.self)
        let channel = try await ClientBootstrap(group: loop)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .channelInitializer { ch in
                ch.eventLoop.makeCompletedFuture {
                    let h = Handler(count: count, gap: gap, done: done)
                    try ch.pipeline.syncOperations.addHandler(h)
                    handed.succeed(NIOLoopBound(h, eventLoop: ch.eventLoop))
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        let handler = try await handed.futureResult.get()
        loop.scheduleTask(in: .seconds(giveUpAfter.components.seconds)) { handler.value.finish() }
        let millis = try await done.futureResult.get()
        try? await channel.close()
        return millis
    }
}
