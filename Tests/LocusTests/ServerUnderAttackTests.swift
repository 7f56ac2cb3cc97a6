import Foundation
#if canImport(Glibc)
import Glibc
#endif
import LocusClient
import LocusCore
import LocusServer
import LocusTesting
import LocusWire
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing

/// The server against clients that try to hurt the others: connections pipelining the costliest
/// requests there are, and one sending megabytes without ever reading a reply.
@Suite(.serialized) struct ServerUnderAttackTests {
    /// Some of the costliest lines `locus-bench worst-case` knows, each valid and within the
    /// limits (256 bytes, 24 words): suggest and geocode on long misspelt texts, a one-letter
    /// suggest over the world, the nearest polygon 50 km away (0.2–1.5 ms each on one core, the
    /// worker threads' share), and the costliest `reverse` (0.1 ms, answered on the event loop).
    static let costliestLines: [String] = {
        let misspelt = Array(repeating: "killngswrth", count: 21).joined(separator: " ")
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        // 23 words of 10 letters that no street has (`locus-bench worst-case`'s scrambled words).
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
        var attackers: [PipeliningConnection] = []
        let address = try SocketAddress(ipAddress: "127.0.0.1", port: live.port)
        for _ in 0..<4 { attackers.append(try await PipeliningConnection.connect(address, lines: Self.costliestLines, window: 64, group: attackGroup)) }
        // Until every attacker has had replies, the server is not yet under attack (and builds
        // its typo indexes meanwhile).
        let warm = ContinuousClock.now
        while try await attackers.asyncMap({ try await $0.progress().replies }).min() ?? 0 < 200, ContinuousClock.now - warm < .seconds(60) {
            try await Task.sleep(for: .milliseconds(50))
        }

        // The bar holds for a window of 400 pings, 2 ms apart. On a shared machine another
        // process can hold a core for several milliseconds at any moment (an idle server measured
        // the same way, with the suite running beside it, has had windows at p99 14 ms), so a
        // window that misses the bar is measured again, up to ten (one fresh-clone CI run of five
        // windows missed in all five, at p99 5.3–9.9 ms, on a commit whose runs before and after
        // passed). A server that lets the attack hold its loops does not answer the 400 pings
        // within 10 s at all (the server before worker threads answered 13–79 of them, p50
        // 0.1–0.7 s), and is not measured again.
        var windows: [PingWindow] = []
        for _ in 0..<10 {
            let before = try await attackers.asyncMap { try await $0.progress() }
            let pings = try await PingTimer.run(address, count: 400, gap: .milliseconds(2), giveUpAfter: .seconds(10), group: pingGroup)
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
        // Five seconds and at least ten rounds: on a loaded machine (the rest of the suite shares
        // two cores) a round can take half a second, and fewer rounds prove less, not a fault.
        let end = clock.now + .seconds(5), cap = clock.now + .seconds(60)
        while (clock.now < end || asked < 20) && clock.now < cap {
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
        #expect(asked >= 20, "the other client had \(asked) requests answered in a minute")
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
