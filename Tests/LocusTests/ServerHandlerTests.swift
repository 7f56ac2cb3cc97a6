import Foundation
import LocusClient
import LocusEngine
import LocusProtocol
import LocusServer
import LocusWire
import Logging
import NIOCore
import NIOEmbedded
import NIOExtras
import Testing

/// The line codec and the connection handler as pipeline stages, driven through `EmbeddedChannel`:
/// no sockets, every event under the test's control.
@Suite struct RequestLineDecoderTests {
    func decode(_ chunks: [String], limit: Int = 64, eof: Bool = false) throws -> [RequestLine] {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(RequestLineDecoder(maximumLineBytes: limit)))
        for c in chunks { try channel.writeInbound(ByteBuffer(string: c)) }
        if eof { _ = try? channel.finish() }
        var out: [RequestLine] = []
        while let l = try channel.readInbound(as: RequestLine.self) { out.append(l) }
        return out
    }

    func text(_ l: RequestLine) -> String? {
        if case .line(let b) = l { return String(buffer: b) }
        return nil
    }

    @Test func linesSplitAcrossReadsAndJoinedInOne() throws {
        let lines = try decode(["{\"a\":", "1}\n{\"b\"", ":2}\r\n{}\n"])
        #expect(lines.compactMap(text) == [#"{"a":1}"#, #"{"b":2}"#, "{}"])
    }

    @Test func aLineOverTheLimitIsReportedOnceAndTheRestDropped() throws {
        let long = String(repeating: "x", count: 100)
        let lines = try decode(["{}\n", long, long + "\n{}\n"], limit: 64)
        #expect(lines.count == 2)
        #expect(text(lines[0]) == "{}")
        #expect(lines[1] == .tooLong)
    }

    @Test func exactlyAtTheLimitIsALine() throws {
        let line = String(repeating: "y", count: 64)
        #expect(try decode([line + "\r\n"], limit: 64).compactMap(text) == [line])
        #expect(try decode([line + "z\n"], limit: 64) == [.tooLong])
    }

    @Test func aLastLineWithoutNewlineIsStillARequest() throws {
        let lines = try decode(["{}\n{\"id\":2}"], eof: true)
        #expect(lines.compactMap(text) == ["{}", #"{"id":2}"#])
    }
}

@Suite(.serialized) struct ConnectionHandlerTests {
    let serving: ServingIndex

    init() throws { serving = ServingIndex(index: try TestSupport.fixture()) }

    func channel(_ configure: (inout ServerConfiguration) -> Void = { _ in }) throws -> (EmbeddedChannel, ServerStats) {
        var config = ServerConfiguration()
        configure(&config)
        let stats = ServerStats(metrics: ServerMetrics(index: serving))
        let context = ServerContext(configuration: config, index: serving, stats: stats, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(RequestLineDecoder(maximumLineBytes: config.maximumLineBytes)))
        try channel.pipeline.syncOperations.addHandler(ConnectionHandler(server: context, allocator: channel.allocator))
        try channel.connect(to: .init(ipAddress: "127.0.0.1", port: 1)).wait()
        return (channel, stats)
    }

    /// Sends lines in one read, runs what the handler scheduled, and returns every reply written.
    func exchange(_ channel: EmbeddedChannel, _ lines: [String]) throws -> [[String: Any]] {
        try channel.writeInbound(ByteBuffer(string: lines.map { $0 + "\n" }.joined()))
        settle(channel)
        return try replies(channel)
    }

    /// Runs everything the handler scheduled, including batches for the workers (which, without
    /// worker threads, run on this loop).
    func settle(_ channel: EmbeddedChannel) {
        channel.embeddedEventLoop.run()
    }

    /// Every reply line written so far.
    func replies(_ channel: EmbeddedChannel) throws -> [[String: Any]] {
        var replies: [[String: Any]] = []
        while var b = try channel.readOutbound(as: ByteBuffer.self) {
            let text = b.readString(length: b.readableBytes) ?? ""
            for line in text.split(separator: "\n") {
                replies.append(try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]))
            }
        }
        return replies
    }

    static func code(_ r: [String: Any]) -> String? { (r["error"] as? [String: Any])?["code"] as? String }

    @Test func pipelinedRequestsAreEachAnsweredOnceWithTheirIds() throws {
        let (ch, stats) = try channel()
        let lines = (0..<300).map { i in
            i % 2 == 0 ? #"{"id":\#(i),"op":"reverse","location":{"x":-122.65,"y":45.55}}"#
                : #"{"id":"w\#(i)","op":"within","location":{"x":-122.62,"y":45.57},"layer":"areas"}"#
        }
        let replies = try exchange(ch, lines)
        #expect(replies.count == 300)
        let ids = replies.map { r -> String in
            if let n = r["id"] as? Int { return String(n) }
            return r["id"] as? String ?? "?"
        }
        #expect(Set(ids).count == 300)
        #expect(replies.allSatisfy { $0["ok"] as? Bool == true })
        let first = try #require(replies.first { $0["id"] as? Int == 0 })
        #expect((first["result"] as? [String: Any])?["address"] as? String == "100 NE Alpha St, Portland, OR 97211")
        let snapshot = stats.snapshot(serving.generation)
        #expect(snapshot.requests["reverse"]?["ok"] == 150)
        #expect(snapshot.requests["within"]?["ok"] == 150)
    }

    @Test func badLinesGetTheirCodesAndTheConnectionKeepsWorking() throws {
        let (ch, _) = try channel()
        var bytes = ByteBuffer(string: "[1,2]\n")
        bytes.writeBytes([0x7B, 0xFF, 0x7D, 0x0A])
        bytes.writeString(#"{"id":1,"op":"suggest","text":5}"# + "\n")
        bytes.writeString(#"{"id":2,"op":"fly"}"# + "\n")
        bytes.writeString(String(repeating: "[", count: 200) + "\n")
        bytes.writeString(#"{"id":3,"op":"ping"}"# + "\n")
        try ch.writeInbound(bytes)
        settle(ch)
        var text = ""
        while var b = try ch.readOutbound(as: ByteBuffer.self) { text += b.readString(length: b.readableBytes) ?? "" }
        let replies = try text.split(separator: "\n").map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect(replies.map(Self.code) == ["invalid_request", "invalid_json", "invalid_argument", "unknown_op", "invalid_json", nil])
        #expect(ch.isActive)
    }

    @Test func cancelReachesARequestStillQueued() throws {
        // One turn for the three lines whatever the machine's load: the geocode is still queued
        // when the cancel is read (with a 1 ms turn, a busy machine ran it first).
        let (ch, _) = try channel { $0.turnBudget = .seconds(10) }
        let replies = try exchange(ch, [
            #"{"id":1,"op":"geocode","text":"100 ne alpha st"}"#,
            #"{"id":2,"op":"cancel","request":1}"#,
            #"{"id":3,"op":"cancel","request":99}"#,
        ])
        #expect(replies.count == 3)
        let one = try #require(replies.first { $0["id"] as? Int == 1 })
        #expect(Self.code(one) == "cancelled")
        let two = try #require(replies.first { $0["id"] as? Int == 2 })
        #expect((two["result"] as? [String: Any])?["cancelled"] as? Int == 1)
        #expect(Self.code(try #require(replies.first { $0["id"] as? Int == 3 })) == "not_found")
    }

    /// A whole number written with a fraction names the same request: `"request":1.0` cancels the
    /// request sent as `"id":1` (it found nothing once whole ids were read as integers), and the
    /// cancelled request is answered with its id as sent.
    @Test func cancelByAWholeNumberWrittenOtherwise() throws {
        let (ch, _) = try channel { $0.turnBudget = .seconds(10) }
        try ch.writeInbound(ByteBuffer(string: #"{"id":1,"op":"geocode","text":"100 ne alpha st"}"# + "\n" + #"{"id":2,"op":"cancel","request":1.0}"# + "\n"))
        settle(ch)
        var text = ""
        while var b = try ch.readOutbound(as: ByteBuffer.self) { text += b.readString(length: b.readableBytes) ?? "" }
        let lines = text.split(separator: "\n")
        #expect(lines.count == 2, "\(text)")
        #expect(lines.contains { $0.contains(#""id":1,"#) && $0.contains("cancelled") }, "\(text)")
        #expect(!text.contains(#""id":1.0"#), "\(text)")
    }

    @Test func cancelReachesARequestHandedToTheWorkersButNotYetStarted() throws {
        let (ch, stats) = try channel()
        // One read: the three geocodes go to the workers as one batch, which has not run yet.
        try ch.writeInbound(ByteBuffer(string: (1...3).map { #"{"id":\#($0),"op":"geocode","text":"100 ne alpha st"}"# + "\n" }.joined()))
        try ch.writeInbound(ByteBuffer(string: #"{"id":"c","op":"cancel","request":2}"# + "\n"))
        settle(ch)
        let replies = try replies(ch)
        #expect(replies.count == 4)
        for id in [1, 3] {
            #expect(try #require(replies.first { $0["id"] as? Int == id })["ok"] as? Bool == true)
        }
        #expect(replies.filter { $0["id"] as? Int == 2 }.map(Self.code) == ["cancelled"])
        #expect((try #require(replies.first { $0["id"] as? String == "c" })["result"] as? [String: Any])?["cancelled"] as? Int == 2)
        // The worker skipped it: two geocodes ran.
        #expect(stats.snapshot(serving.generation).requests["geocode"] == ["ok": 2, "cancelled": 1])
    }

    @Test func manyGeocodesAndSuggestionsAreEachAnsweredOnceThroughTheWorkers() throws {
        let (ch, _) = try channel()
        // More than a batch holds, mixed with requests answered on the loop.
        let lines = (0..<100).map { i in
            switch i % 4 {
            case 0: #"{"id":\#(i),"op":"geocode","text":"100 ne alpha st"}"#
            case 1: #"{"id":\#(i),"op":"suggest","text":"alph"}"#
            case 2: #"{"id":\#(i),"op":"within","location":{"x":-122.45,"y":45.55},"layer":"areas","nearest_within":3000}"#
            default: #"{"id":\#(i),"op":"reverse","location":{"x":-122.65,"y":45.55}}"#
            }
        }
        let replies = try exchange(ch, lines)
        #expect(replies.count == 100)
        #expect(Set(replies.compactMap { $0["id"] as? Int }) == Set(0..<100))
        #expect(replies.allSatisfy { $0["ok"] as? Bool == true })
    }

    @Test func aGeocodeThatWaitedPastTheDeadlineForAWorkerIsAnsweredTimeout() throws {
        let (ch, stats) = try channel { $0.requestTimeout = 0.000_000_1 }
        let replies = try exchange(ch, [#"{"id":1,"op":"geocode","text":"100 ne alpha st"}"#, #"{"id":2,"op":"suggest","text":"100 ne"}"#])
        #expect(replies.map(Self.code) == ["timeout", "timeout"])
        #expect(stats.snapshot(serving.generation).requests["geocode"]?["timeout"] == 1)
    }

    @Test func quiescingWaitsForTheWorkersThenCloses() throws {
        let (ch, _) = try channel()
        try ch.writeInbound(ByteBuffer(string: (0..<5).map { #"{"id":\#($0),"op":"geocode","text":"100 ne alpha st"}"# + "\n" }.joined()))
        ch.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        // The batch is with the workers: the connection stays open for its replies.
        #expect(ch.isActive)
        settle(ch)
        #expect(try replies(ch).filter { $0["ok"] as? Bool == true }.count == 5)
        #expect(!ch.isActive)
    }

    @Test func tokensGateEverythingButPingAndAuth() throws {
        let (ch, _) = try channel { $0.tokens = ["s3cret"] }
        var replies = try exchange(ch, [#"{"id":1,"op":"ping"}"#, #"{"id":2,"op":"within","location":{"x":-122.63,"y":45.57},"layer":"areas"}"#, #"{"id":3,"op":"stats"}"#])
        #expect(replies.map(Self.code) == [nil, "unauthorized", "unauthorized"])
        replies = try exchange(ch, [#"{"id":4,"op":"auth","token":"s3cret"}"#, #"{"id":5,"op":"within","location":{"x":-122.63,"y":45.57},"layer":"areas"}"#])
        #expect(replies.map(Self.code) == [nil, nil])
    }

    @Test func repeatedWrongTokensCloseTheConnection() throws {
        let (ch, _) = try channel { $0.tokens = ["s3cret"]; $0.maximumFailedAuthentications = 2 }
        let replies = try exchange(ch, [#"{"id":1,"op":"auth","token":"guess"}"#, #"{"id":2,"op":"auth","token":"s3cre"}"#, #"{"id":3,"op":"ping"}"#])
        #expect(replies.map(Self.code) == ["unauthorized", "unauthorized"])
        #expect(!ch.isActive)
    }

    @Test func reloadOverTheProtocolNeedsATokenedServer() throws {
        let (ch, _) = try channel()
        let replies = try exchange(ch, [#"{"id":1,"op":"reload"}"#])
        #expect(replies.map(Self.code) == ["unauthorized"])
    }

    @Test func anOversizedLineIsAnsweredAndTheConnectionClosed() throws {
        let (ch, _) = try channel { $0.maximumLineBytes = 1_024 }
        let replies = try exchange(ch, [#"{"id":1,"op":"ping"}"#, String(repeating: "a", count: 5_000), #"{"id":2,"op":"ping"}"#])
        #expect(replies.map(Self.code) == [nil, "too_large"])
        #expect(replies.last?["id"] is NSNull)
        #expect(!ch.isActive)
    }

    @Test func requestsThatWaitedPastTheDeadlineAreAnsweredTimeout() throws {
        let (ch, stats) = try channel { $0.requestTimeout = 0.000_000_1 }
        let replies = try exchange(ch, [#"{"id":1,"op":"reverse","location":{"x":-122.65,"y":45.55}}"#, #"{"id":2,"op":"ping"}"#])
        #expect(Set(replies.map(Self.code)) == [nil, "timeout"])
        #expect(stats.snapshot(serving.generation).requests["reverse"]?["timeout"] == 1)
    }

    @Test func quiescingAnswersWhatWasReadThenCloses() throws {
        let (ch, _) = try channel()
        try ch.writeInbound(ByteBuffer(string: (0..<10).map { #"{"id":\#($0),"op":"within","location":{"x":-122.63,"y":45.57},"layer":"areas"}"# + "\n" }.joined()))
        ch.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        settle(ch)
        var count = 0
        while var b = try ch.readOutbound(as: ByteBuffer.self) { count += (b.readString(length: b.readableBytes) ?? "").split(separator: "\n").count }
        #expect(count == 10)
        #expect(!ch.isActive)
    }

    @Test func anIdleConnectionIsClosed() throws {
        let (ch, _) = try channel()
        _ = try exchange(ch, [#"{"id":1,"op":"ping"}"#])
        ch.pipeline.fireUserInboundEventTriggered(IdleStateHandler.IdleStateEvent.all)
        settle(ch)
        #expect(!ch.isActive)
    }

    @Test func aHalfClosedConnectionIsAnsweredThenClosed() throws {
        let (ch, _) = try channel()
        try ch.writeInbound(ByteBuffer(string: #"{"id":1,"op":"within","location":{"x":-122.63,"y":45.57},"layer":"areas"}"# + "\n"))
        ch.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        settle(ch)
        var text = ""
        while var b = try ch.readOutbound(as: ByteBuffer.self) { text += b.readString(length: b.readableBytes) ?? "" }
        #expect(text.contains(#""id":1,"ok":true"#))
        #expect(!ch.isActive)
    }

    @Test func aFullQueueStopsReading() throws {
        let (ch, _) = try channel { $0.maximumInFlightPerConnection = 4 }
        let reads = ReadCounter()
        try ch.pipeline.syncOperations.addHandler(reads, position: .first)
        // Not writable: nothing can be answered, so the queue fills and reads must stop.
        ch.isWritable = false
        try ch.writeInbound(ByteBuffer(string: (0..<6).map { #"{"id":\#($0),"op":"ping"}"# + "\n" }.joined()
            + (0..<6).map { #"{"id":\#($0 + 10),"op":"within","location":{"x":-122.63,"y":45.57},"layer":"areas"}"# + "\n" }.joined()))
        let readsBefore = reads.count
        ch.read()
        #expect(reads.count == readsBefore, "a read was let through with a full queue")
        ch.isWritable = true
        ch.pipeline.fireChannelWritabilityChanged()
        settle(ch)
        #expect(reads.count > readsBefore, "the held read was not issued once the queue drained")
    }
}

/// Counts outbound `read` events at the head of the pipeline.
final class ReadCounter: ChannelOutboundHandler {
    typealias OutboundIn = Any
    var count = 0
    func read(context: ChannelHandlerContext) {
        count += 1
        context.read()
    }
}
