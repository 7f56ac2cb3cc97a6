import Hummingbird
@testable import LocusHTTP
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypes
import Testing

/// An HTTP connection must send each request's head within the head timeout of opening or of its
/// last answer: 1,100 clients trickling header lines held every connection, `/ready` timing out
/// for minutes. Each connection is counted for `/metrics` (HTTP connections never were).
@Suite struct HTTPConnectionWatchTests {
    final class Counts: Sendable {
        let box = NIOLockedValueBox((opened: 0, closed: 0))
        var observer: HTTPObserver {
            HTTPObserver(connectionOpened: { self.box.withLockedValue { $0.opened += 1 } },
                         connectionClosed: { self.box.withLockedValue { $0.closed += 1 } })
        }
    }

    func watched(_ counts: Counts) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(HTTPConnectionWatch(headTimeout: .seconds(30), observer: counts.observer))
        try channel.connect(to: .init(ipAddress: "127.0.0.1", port: 1)).wait()
        return channel
    }

    @Test func aHeadThatNeverEndsIsClosed() throws {
        let counts = Counts()
        let channel = try watched(counts)
        channel.embeddedEventLoop.advanceTime(by: .seconds(29))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .seconds(2))
        #expect(!channel.isActive)
        #expect(counts.box.withLockedValue { $0 } == (1, 1))
    }

    @Test func aRequestInTimeAndItsAnswerRestartTheClock() throws {
        let counts = Counts()
        let channel = try watched(counts)
        channel.embeddedEventLoop.advanceTime(by: .seconds(20))
        try channel.writeInbound(HTTPRequestPart.head(HTTPRequest(method: .get, scheme: "http", authority: "x", path: "/health")))
        // A long answer is not the client's delay.
        channel.embeddedEventLoop.advanceTime(by: .seconds(40))
        #expect(channel.isActive)
        try channel.writeOutbound(HTTPResponsePart.end(nil))
        channel.embeddedEventLoop.advanceTime(by: .seconds(29))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .seconds(2))
        #expect(!channel.isActive)
        #expect(counts.box.withLockedValue { $0.opened } == 1)
    }
}

extension HTTPConnectionWatchTests {
    /// A head NIO's parser refuses (over 80 KB) got its 400, but the connection stayed open until
    /// the head timeout, the client's 10 MB header unread: it is closed after a short linger.
    @Test func aHeadTheParserRefusesClosesItsConnection() throws {
        let counts = Counts()
        let channel = try watched(counts)
        channel.pipeline.fireErrorCaught(HTTPParserError.headerOverflow)
        channel.embeddedEventLoop.advanceTime(by: HTTPConnectionWatch.linger + .milliseconds(1))
        #expect(!channel.isActive)
        #expect(counts.box.withLockedValue { $0 } == (1, 1))
    }
}

extension HTTPConnectionWatchTests {
    /// A head refused for its size was answered 400, which does not say what to change.
    @Test func aHeadTooLargeIsAnswered431() throws {
        let channel = try watched(Counts())
        channel.pipeline.fireErrorCaught(HTTPParserError.headerOverflow)
        try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .badRequest, headerFields: [.connection: "close"])))
        guard case .head(let response) = try channel.readOutbound(as: HTTPResponsePart.self) else { Issue.record("no head"); return }
        #expect(response.status == .requestHeaderFieldsTooLarge)
        #expect(response.headerFields[.connection] == "close")
        // Other refusals stay 400.
        channel.pipeline.fireErrorCaught(HTTPParserError.invalidVersion)
        try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .badRequest)))
        guard case .head(let other) = try channel.readOutbound(as: HTTPResponsePart.self) else { Issue.record("no head"); return }
        #expect(other.status == .badRequest)
    }

    @Test func aLiveServerAnswersAHugeHeader431() async throws {
        let serve = try HTTPServeProcess()
        // The connection's awaits resume on a thread of their own: on the cooperative pool, held by
        // other suites' long synchronous tests, the request was sent after the server's 30 s head
        // timeout had closed the connection (the whole run, not this suite alone). The closure
        // holds `serve` (the server process) until it returns.
        try await withTaskExecutorPreference(OwnThread("locus.tests.raw-http")) {
            let connection = try await RawConnection(serve.httpBase)
            // The server may answer and close before it has read the whole head: the write may fail.
            try? await connection.send("GET /health HTTP/1.1\r\nHost: localhost\r\nX-Padding: \(String(repeating: "a", count: 200_000))\r\n\r\n")
            let answer = try await connection.text(containing: "\r\n\r\n", seconds: 5)
            #expect(answer.hasPrefix("HTTP/1.1 431 Request Header Fields Too Large\r\n"), "\(answer.prefix(200))")
        }
    }
}
