import Foundation
#if canImport(Glibc)
import Glibc
#endif
import LocusCore
import LocusEngine
import LocusProtocol
import LocusServer
import LocusWire
import Logging
import NIOConcurrencyHelpers
import NIOPosix
import Testing

/// The server on real sockets: every op on both transports, every error code a client can cause,
/// pipelining, disconnects, limits, reload under load, graceful shutdown.
@Suite(.serialized) struct ServerLiveTests {
    @Test func everyOpAnswersOverTCPAndUnixSockets() async throws {
        let live = try await LiveServer.start()
        for address in [live.tcp, live.unix] {
            let c = try await live.client(address)
            #expect(try await c.send(op: "ping").ok)
            let info = try await c.send(op: "info").decode(JSONValue.self)
            guard case .object(let o) = info else { Issue.record("info is not an object"); continue }
            // Decoded as `JSONValue(from:)` reads it: a whole number is an integer.
            #expect(o["protocol_version"] == .integer(1))
            let point: JSONValue = .object(["x": .number(-122.6296), "y": .number(45.5676)])
            let r = try await c.send(op: "reverse", ["location": point, "layers": .array([.string("neighborhoods")])]).decode(ReverseReply.self)
            #expect(r.address?.address == "6132 NE 34th Ave, Portland, OR 97211")
            #expect(r.features?.first?.name == "Concordia")
            let w = try await c.send(op: "within", ["location": .object(["x": .number(-13651064), "y": .number(5711325), "wkid": .number(102100)])]).decode(WithinResult.self)
            #expect(w.features.first?.name == "Concordia")
            let s = try await c.send(op: "suggest", ["text": .string("6132 ne 34"), "location": .object(["x": .number(-122.63), "y": .number(45.57)])]).decode(SuggestResult.self)
            let first = try #require(s.suggestions.first)
            #expect(first.text == "6132 NE 34th Ave, Portland, OR 97211")
            let byKey = try await c.send(op: "geocode", ["key": .string(first.key)]).decode(GeocodeResult.self)
            #expect(byKey.candidates.first?.address == first.text)
            let byText = try await c.send(op: "geocode", ["text": .string("6132 ne 34th ave apt 3, portland")]).decode(GeocodeResult.self)
            #expect(byText.candidates.first?.score == 100)
            #expect(byText.candidates.first?.unit == "apt 3")
            let byFields = try await c.send(op: "geocode", ["address": .object(["number": .number(6132), "street": .string("NE 34th Ave")]), "out_wkid": .number(2913)]).decode(GeocodeResult.self)
            #expect(byFields.candidates.first?.location.wkid == 2913)
            let stats = try await c.send(op: "stats").decode(ServerStats.Snapshot.self)
            #expect(stats.requests["reverse"]?["ok"] ?? 0 >= 1)
            #expect(stats.connections.open >= 1)
            let cancel = try await c.send(op: "cancel", ["request": .number(12345)])
            #expect(cancel.error?.code == .notFound)
            await c.close()
        }
        try await live.stop()
    }

    @Test func everyClientCausedErrorCodeOverTheSocket() async throws {
        let live = try await LiveServer.start { $0.maximumLineBytes = 4_096 }
        let raw = try await RawConnection(port: live.port)
        var bytes = Array("not json\n[1]\n".utf8) + [0xC3, 0x28, 0x0A]
        bytes += Array(#"{"id":1,"op":"fly"}"#.utf8) + [0x0A]
        bytes += Array(#"{"id":2,"op":"reverse","location":{"x":"-122.6","y":45.5}}"#.utf8) + [0x0A]
        bytes += Array(#"{"id":3,"op":"within","location":{"x":-122.6,"y":45.5},"layer":"zoning"}"#.utf8) + [0x0A]
        bytes += Array(#"{"id":4,"op":"ping"}"#.utf8) + [0x0A]
        try await raw.send(bytes: bytes)
        let first = try await raw.lines(atLeast: 7).map(parseReply)
        // Replies may overtake each other (ping is answered at once); compare them as a set.
        #expect(first.map { errorCode($0) ?? "ok" }.sorted() == ["invalid_argument", "invalid_json", "invalid_json", "invalid_request", "not_found", "ok", "unknown_op"])
        // An oversized line: answered too_large with a null id, then the connection closes.
        try await raw.send(String(repeating: "x", count: 10_000) + "\n")
        let all = try await raw.lines(atLeast: 8)
        #expect(errorCode(parseReply(all[7])) == "too_large")
        _ = try await raw.lines(atLeast: 9)  // returns once closed
        #expect(await raw.isClosed)
        try await live.stop()

        // timeout: a server whose deadline no request can meet.
        let slow = try await LiveServer.start { $0.requestTimeout = 0.000_000_1 }
        let c = try await slow.client()
        let r = try await c.send(op: "reverse", ["location": .object(["x": .number(-122.63), "y": .number(45.57)])])
        #expect(r.error?.code == .timeout)
        try await slow.stop()

        // overloaded and unauthorized.
        let small = try await LiveServer.start { $0.maximumConnections = 1; $0.tokens = ["tok"] }
        let one = try await small.client(token: "tok")
        let two = try await RawConnection(port: small.port)
        let refused = try await two.lines(atLeast: 1)
        #expect(errorCode(parseReply(refused[0])) == "overloaded")
        await one.close()
        try await Task.sleep(for: .milliseconds(100))
        let three = try await small.client()
        #expect(try await three.send(op: "within", ["location": .object(["x": .number(-122.63), "y": .number(45.57)])]).error?.code == .unauthorized)
        #expect(try await three.send(op: "auth", ["token": .string("nope")]).error?.code == .unauthorized)
        #expect(try await three.send(op: "auth", ["token": .string("tok")]).ok)
        #expect(try await three.send(op: "within", ["location": .object(["x": .number(-122.63), "y": .number(45.57)])]).ok)
        try await small.stop()
    }

    @Test func aThousandPipelinedRequestsAreEachAnsweredExactlyOnce() async throws {
        let live = try await LiveServer.start(index: try TestSupport.fixture())
        let raw = try await RawConnection(port: live.port)
        var text = ""
        for i in 0..<1_000 {
            switch i % 4 {
            case 0: text += #"{"id":\#(i),"op":"reverse","location":{"x":\#(-122.65 + Double(i % 20) * 1e-5),"y":45.55}}"# + "\n"
            case 1: text += #"{"id":\#(i),"op":"within","location":{"x":-122.62,"y":45.57},"layer":"areas"}"# + "\n"
            case 2: text += #"{"id":\#(i),"op":"suggest","text":"alph"}"# + "\n"
            default: text += #"{"id":\#(i),"op":"geocode","text":"100 ne alpha st"}"# + "\n"
            }
        }
        try await raw.send(text)
        let replies = try await raw.lines(atLeast: 1_000).map(parseReply)
        #expect(replies.count == 1_000)
        #expect(Set(replies.compactMap { $0["id"] as? Int }) == Set(0..<1_000))
        #expect(replies.allSatisfy { $0["ok"] as? Bool == true })
        // Nothing more comes: a ping is the very next line.
        try await raw.send(#"{"id":"last","op":"ping"}"# + "\n")
        let after = try await raw.lines(atLeast: 1_001)
        #expect(after.count == 1_001)
        #expect(parseReply(after[1_000])["id"] as? String == "last")
        await raw.close()

        // Through the client, concurrently from many tasks: each gets its own reply.
        let c = try await live.client(live.unix)
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for i in 0..<200 {
                group.addTask {
                    let lon = -122.68 + Double(i % 50) * 0.002
                    let r = try await c.send(op: "within", ["location": .object(["x": .number(lon), "y": .number(45.52)]), "layer": .string("areas")])
                    return r.ok
                }
            }
            for try await ok in group { #expect(ok) }
        }
        try await live.stop()
    }

    @Test func aClientThatDisconnectsMidStreamHarmsNoOne() async throws {
        let live = try await LiveServer.start()
        for _ in 0..<5 {
            let raw = try await RawConnection(port: live.port)
            let line = #"{"id":1,"op":"geocode","text":"6132 ne 34th ave"}"# + "\n"
            try await raw.send(String(repeating: line, count: 3_000))
            await raw.close()
        }
        let c = try await live.client()
        #expect(try await c.send(op: "ping").ok)
        // Every abandoned connection is closed and counted as such.
        var open = Int.max
        for _ in 0..<50 where open > 1 {
            try await Task.sleep(for: .milliseconds(50))
            open = try await c.send(op: "stats").decode(ServerStats.Snapshot.self).connections.open
        }
        #expect(open == 1)
        let stats = try await c.send(op: "stats").decode(ServerStats.Snapshot.self)
        #expect(stats.requests.values.allSatisfy { $0["internal"] == nil })
        try await live.stop()
    }

    @Test func cancelOverTheSocketAnswersTheTargetExactlyOnce() async throws {
        let live = try await LiveServer.start()
        let raw = try await RawConnection(port: live.port)
        var text = ""
        for i in 0..<300 { text += #"{"id":\#(i),"op":"geocode","text":"6132 ne 34th ave"}"# + "\n" }
        text += #"{"id":"c","op":"cancel","request":299}"# + "\n"
        try await raw.send(text)
        let replies = try await raw.lines(atLeast: 301).map(parseReply)
        #expect(replies.count == 301)
        let target = replies.filter { $0["id"] as? Int == 299 }
        #expect(target.count == 1)
        let cancel = try #require(replies.first { $0["id"] as? String == "c" })
        if cancel["ok"] as? Bool == true {
            #expect(errorCode(target[0]) == "cancelled")
        } else {
            // The request had been answered before the cancel was read.
            #expect(errorCode(cancel) == "not_found")
            #expect(target[0]["ok"] as? Bool == true)
        }
        try await live.stop()
    }

    /// Catches: a request failed or answered from a half-loaded index while a reload runs; a bad
    /// file (any kind in `DamagedIndex`) accepted, or refused without its code, or refused only
    /// after replacing what is served; a refused `path` becoming what later reloads load.
    @Test func reloadUnderLoadFailsNoRequestAndRefusesBadFiles() async throws {
        let dir = TestSupport.temporaryDirectory()
        let good = try TestSupport.portlandIndexPath()
        let path = dir.appendingPathComponent("serving.locus").path
        try FileManager.default.copyItem(atPath: good, toPath: path)
        var bad: [(DamagedIndex, String)] = []
        for damage in DamagedIndex.allCases {
            let file = dir.appendingPathComponent("\(damage).locus").path
            try damage.place(at: file, from: good, inPlace: false)
            bad.append((damage, file))
        }
        let live = try await LiveServer.start(index: try LocusIndex(path: path)) { $0.tokens = ["admin"] }
        let admin = try await live.client(token: "admin")
        let load = LoadClients([live.tcp, live.unix, live.tcp, live.unix], token: "admin")
        #expect(try await load.wait { $0.ok >= 20 })

        for _ in 0..<2 {
            let r = try await admin.send(op: "reload")
            #expect(r.ok, "reload failed: \(String(describing: r.error))")
        }
        for (damage, file) in bad {
            let asked = load.snapshot
            let r = try await admin.send(op: "reload", ["path": .string(file)])
            #expect(r.error?.code == damage.expectedCode, "\(damage): \(String(describing: r.error))")
            #expect(r.error?.message.contains(damage.expectedMessage) == true, "\(damage): \(String(describing: r.error))")
            #expect(r.error?.message.contains("keeps serving") == true)
            #expect(try await load.waitForAnswers(beyond: asked, count: 1), "\(damage)")
        }
        // Without a path, the file served is loaded again: no refused path took its place.
        let again = try await admin.send(op: "reload")
        #expect(again.ok, "reload failed: \(String(describing: again.error))")
        let counts = await load.stop()
        for c in counts { #expect(c.wrong == 0 && c.errors.isEmpty && c.lost == 0 && c.connections == 1, "\(c)") }
        #expect(counts.allSatisfy { $0.ok >= 20 })
        let stats = try await admin.send(op: "stats").decode(ServerStats.Snapshot.self)
        #expect(stats.index.generation == 4)
        #expect(stats.index.reloads == 3)
        #expect(stats.index.failedReloads == DamagedIndex.allCases.count)
        #expect(stats.index.path == path)
        #expect(stats.index.reloadPath == path)
        // The refused files changed nothing: the server still answers from the good index.
        let r = try await admin.send(op: "reverse", ["location": .object(["x": .number(-122.6296), "y": .number(45.5676)])]).decode(ReverseReply.self)
        #expect(r.address?.address == "6132 NE 34th Ave, Portland, OR 97211")
        try await live.stop()
    }

    @Test func gracefulShutdownAnswersWhatWasReadThenStops() async throws {
        let live = try await LiveServer.start()
        let raw = try await RawConnection(port: live.port)
        try await raw.send(#"{"id":"hello","op":"ping"}"# + "\n")
        _ = try await raw.lines(atLeast: 1)
        var text = ""
        for i in 0..<100 { text += #"{"id":\#(i),"op":"geocode","text":"6132 ne 34th ave"}"# + "\n" }
        try await raw.send(text)
        try await Task.sleep(for: .milliseconds(20))
        try await live.stop()
        let lines = try await raw.lines(atLeast: 101)
        #expect(lines.count == 101)
        #expect(await raw.isClosed)
    }

    /// A client pipelining thousands of requests when the shutdown comes gets every reply the
    /// server wrote and then the end of the stream. Was: the server closed with requests unread,
    /// the connection was reset (ECONNRESET in 12 of 12 runs) and a written reply could be lost.
    @Test func aShutdownWhileAClientPipelinesEndsItsStreamCleanly() async throws {
        let live = try await LiveServer.start()
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #expect(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(live.port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        #expect(connected == 0)
        // As much of 20,000 requests as the socket takes without the test reading.
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        let requests = Array((0..<20_000).map { #"{"id":\#($0),"op":"info"}"# + "\n" }.joined().utf8)
        var sent = 0
        while sent < requests.count {
            let n = requests[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { break }
            sent += n
        }
        try await Task.sleep(for: .milliseconds(200))
        let stopping = Task { try await live.stop() }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var end = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 { received += buffer[0..<n]; continue }
            end = n == 0 ? 0 : Int(errno)
            break
        }
        try await stopping.value
        #expect(end == 0, "the stream ended with errno \(end) (\(end == Int(ECONNRESET) ? "reset" : "error")), not its end")
        #expect(received.last == UInt8(ascii: "\n"), "a reply was cut short")
        let lines = received.split(separator: UInt8(ascii: "\n"))
        #expect(lines.count > 0 && lines.allSatisfy { $0.starts(with: Array(#"{"id":"#.utf8)) })
    }

    /// A client that pipelines requests and reads no reply: closed after the idle timeout (it was
    /// never idle while replies waited, held its connection slot for ever), and no shutdown waits
    /// for it past the shutdown grace (SIGTERM waited for as long as it stayed connected).
    @Test(.timeLimit(.minutes(1)))
    func aClientThatReadsNoRepliesHoldsNothing() async throws {
        func nonReader(_ port: Int) throws -> Int32 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var small: Int32 = 4_096
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            #expect(connected == 0)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            let requests = Array(String(repeating: #"{"id":1,"op":"info"}"# + "\n", count: 4_000).utf8)
            var sent = 0
            while sent < requests.count {
                let n = requests[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if n <= 0 { break }
                sent += n
            }
            return fd
        }
        let live = try await LiveServer.start { $0.idleTimeout = 1; $0.shutdownGrace = 1 }
        let first = try nonReader(live.port)
        defer { close(first) }
        try await Task.sleep(for: .seconds(3))
        let client = try await live.client()
        let stats = try await client.send(op: "stats").decode(ServerStats.Snapshot.self)
        #expect(stats.connections.open == 1, "only the asking client is open: \(stats.connections.open)")
        await client.close()
        let second = try nonReader(live.port)
        defer { close(second) }
        try await Task.sleep(for: .milliseconds(300))
        let start = ContinuousClock.now
        try await live.stop()
        #expect(ContinuousClock.now - start < .seconds(5), "the shutdown waited \(ContinuousClock.now - start)")
    }

    /// A shutdown asked for before the server is up (SIGTERM at start, a service group that stops
    /// at once) stops it once it is: `run` returns. Was: each listener bound after the shutdown
    /// was never quiesced, and `run` waited for it for ever (one test run hung so, a stop racing
    /// the start of a server whose socket already answered).
    @Test func aShutdownBeforeTheServerIsUpStopsIt() async throws {
        var config = ServerConfiguration()
        config.listen = [.tcp(host: "127.0.0.1", port: 0), .unix(path: TestSupport.temporaryDirectory().appendingPathComponent("early.sock").path)]
        config.reloadOnHangup = false
        let server = LocusServer(configuration: config, index: ServingIndex(index: try TestSupport.fixture()),
                                 logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }), group: MultiThreadedEventLoopGroup.singleton)
        server.shutdown()
        let returned = NIOLockedValueBox(false)
        let run = Task {
            try await server.run()
            returned.withLockedValue { $0 = true }
        }
        for _ in 0..<200 where !returned.withLockedValue({ $0 }) { try await Task.sleep(for: .milliseconds(50)) }
        // Left running (a test that hangs stops the whole run) when it did not return.
        #expect(returned.withLockedValue { $0 }, "run() has not returned 10 s after a shutdown asked for before it")
        if returned.withLockedValue({ $0 }) { try await run.value }
    }

    @Test func listeningBeyondLoopbackNeedsATokenOrAnExplicitFlag() {
        var c = ServerConfiguration()
        c.listen = [.tcp(host: "0.0.0.0", port: 7878)]
        #expect(c.problems().contains { $0.contains("reachable beyond this machine") })
        c.tokens = ["t"]
        #expect(c.problems().isEmpty)
        c.tokens = []
        c.allowUnauthenticatedRemote = true
        #expect(c.problems().isEmpty)
        c.listen = [.unix(path: "/tmp/x.sock"), .tcp(host: "127.0.0.1", port: 1), .tcp(host: "::1", port: 2)]
        c.allowUnauthenticatedRemote = false
        #expect(c.problems().isEmpty)
    }

    @Test(arguments: [
        ("tcp://127.0.0.1:7878", ListenAddress.tcp(host: "127.0.0.1", port: 7878)),
        ("tcp://[::1]:80", .tcp(host: "::1", port: 80)),
        ("unix:/run/locus.sock", .unix(path: "/run/locus.sock")),
        ("unix:///run/locus.sock", .unix(path: "/run/locus.sock")),
    ])
    func listenAddressesParse(_ text: String, _ expected: ListenAddress) {
        #expect(ListenAddress(text) == expected)
    }

    @Test(arguments: ["tcp://host", "tcp://:80", "http://x:1", "unix:", "tcp://x:99999"])
    func badListenAddressesAreRefused(_ text: String) {
        #expect(ListenAddress(text) == nil)
    }
}
