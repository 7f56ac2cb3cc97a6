import Foundation
import Hummingbird
import LocusCore
@testable import LocusHTTP
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypes
import Testing
#if canImport(Glibc)
import Glibc
#endif

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

/// A client that says `Expect: 100-continue` sends its body only when told to go on (or when its
/// timer runs out: curl's 1 s, on every such POST): it is told at once.
@Suite struct HTTPExpectContinueTests {
    func head(_ headers: HTTPHeaders, version: HTTPVersion = .http1_1) -> HTTPServerRequestPart {
        .head(HTTPRequestHead(version: version, method: .POST, uri: "/arcgis/rest/services/World/GeocodeServer/geocodeAddresses",
                              headers: headers))
    }

    @Test(arguments: ["100-continue", "100-Continue", "foo, 100-continue"])
    func aClientThatWaitsToSendItsBodyIsToldToGoOn(_ expect: String) throws {
        let channel = EmbeddedChannel(handler: HTTP1VersionRules())
        try channel.writeInbound(head(["Expect": expect, "Content-Length": "4099"]))
        let sent = try channel.readOutbound(as: HTTPServerResponsePart.self)
        guard case .head(let response) = sent else { Issue.record("no 100 Continue: \(String(describing: sent))"); return }
        #expect(response.status == .continue)
        // The request goes on to the application as it came.
        guard case .head(let request) = try channel.readInbound(as: HTTPServerRequestPart.self) else { Issue.record("the head was not passed on"); return }
        #expect(request.headers["content-length"] == ["4099"])
        #expect(try channel.finish().isClean)
    }

    @Test func aRequestThatDoesNotWaitOrHasNoBodyOrIsOldIsNotTold() throws {
        let channel = EmbeddedChannel(handler: HTTP1VersionRules())
        try channel.writeInbound(head(["Content-Length": "4099"]))
        try channel.writeInbound(head(["Expect": "100-continue", "Content-Length": "0"]))
        try channel.writeInbound(head(["Expect": "100-continue", "Content-Length": "4099"], version: .http1_0))
        #expect(try channel.readOutbound(as: HTTPServerResponsePart.self) == nil)
        for _ in 0..<3 { #expect(try channel.readInbound(as: HTTPServerRequestPart.self) != nil) }
    }
}

extension HTTPExpectContinueTests {
    /// Through `locus serve --http`'s own pipeline (NIO's parser, its pipelining handler, the
    /// types' codec): the 100 reaches the client before its body is sent, and the answer follows.
    @Test func aLiveServerSaysGoOnBeforeTheBody() throws {
        let serve = try HTTPServeProcess()
        let connection = try RawHTTPConnection(serve.httpBase)
        let body = "SingleLine=6132+NE+34th+Ave&f=json"
        connection.send("POST /arcgis/rest/services/World/GeocodeServer/findAddressCandidates HTTP/1.1\r\nHost: localhost\r\n"
            + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.utf8.count)\r\nExpect: 100-continue\r\n\r\n")
        // curl waits 1 s for it before sending the body anyway.
        let interim = connection.receive(until: "\r\n\r\n", seconds: 2)
        #expect(interim.hasPrefix("HTTP/1.1 100 Continue\r\n"), "\(interim.prefix(200))")
        connection.send(body)
        let answer = connection.receive(until: "6132 NE 34th Ave", seconds: 10)
        #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(answer.prefix(200))")
        #expect(answer.contains("6132 NE 34th Ave"))
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

    @Test func aLiveServerAnswersAHugeHeader431() throws {
        let serve = try HTTPServeProcess()
        let connection = try RawHTTPConnection(serve.httpBase)
        connection.send("GET /health HTTP/1.1\r\nHost: localhost\r\nX-Padding: \(String(repeating: "a", count: 200_000))\r\n\r\n")
        let answer = connection.receive(until: "\r\n\r\n", seconds: 5)
        #expect(answer.hasPrefix("HTTP/1.1 431 Request Header Fields Too Large\r\n"), "\(answer.prefix(200))")
    }
}

/// One TCP connection to a live server, written and read as bytes: what a test needs to see that
/// an HTTP client library would hide (an interim 100, the status of a refused head).
final class RawHTTPConnection {
    let fd: Int32

    /// - Parameter base: `http://127.0.0.1:PORT`.
    init(_ base: String) throws {
        guard let port = UInt16(base.split(separator: ":").last ?? "") else { throw LocusError(.invalidArgument, "no port in \(base)") }
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard fd >= 0, connected == 0 else { throw LocusError(.internalError, "cannot connect to \(base)") }
    }

    deinit { close(fd) }

    func send(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { return }
            bytes = bytes.dropFirst(n)
        }
    }

    /// What arrives within `seconds` of each read, until `until` is in it (or the server closes).
    func receive(until: String, seconds: Int32) -> String {
        var got: [UInt8] = []
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while !String(decoding: got, as: UTF8.self).contains(until), poll(&poller, 1, seconds * 1_000) == 1 {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            let n = recv(fd, &buffer, buffer.count, 0)
            guard n > 0 else { break }
            got += buffer.prefix(n)
        }
        return String(decoding: got, as: UTF8.self)
    }

    /// What arrives until the server closes the connection; nil when it is still open after
    /// `seconds` of silence.
    func receiveToTheEnd(seconds: Int32) -> String? {
        var got: [UInt8] = []
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while poll(&poller, 1, seconds * 1_000) == 1 {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            let n = recv(fd, &buffer, buffer.count, 0)
            guard n > 0 else { return String(decoding: got, as: UTF8.self) }
            got += buffer.prefix(n)
        }
        return nil
    }
}

/// An HTTP/1.0 request closes its connection after the answer unless it asks keep-alive, and
/// then is told it was kept: both were kept open unsaid, and a 1.0 client that reads to the end
/// of the connection (ApacheBench) waited out the idle timeout on every request.
@Suite struct HTTP10ConnectionTests {
    func head(_ version: HTTPVersion, _ headers: HTTPHeaders = [:]) -> HTTPServerRequestPart {
        .head(HTTPRequestHead(version: version, method: .GET, uri: "/health", headers: headers))
    }

    func answer(_ channel: EmbeddedChannel) throws -> HTTPResponseHead? {
        try channel.writeOutbound(HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: .ok)))
        guard case .head(let response) = try channel.readOutbound(as: HTTPServerResponsePart.self) else { return nil }
        return response
    }

    @Test func aPlainOldRequestIsClosedAndAKeptOneIsToldSo() throws {
        let channel = EmbeddedChannel(handler: HTTP1VersionRules())
        try channel.writeInbound(head(.http1_0))
        try channel.writeInbound(head(.http1_0, ["Connection": "Keep-Alive", "Expect": "100-continue"]))
        try channel.writeInbound(head(.http1_1))
        let heads = try (0..<3).map { _ -> HTTPRequestHead? in
            guard case .head(let h) = try channel.readInbound(as: HTTPServerRequestPart.self) else { return nil }
            return h
        }
        #expect(heads[0]?.headers["connection"] == ["close"])
        #expect(heads[1]?.headers["connection"] == ["Keep-Alive"])
        #expect(heads[1]?.headers["expect"] == [])
        #expect(heads[2]?.headers["connection"] == [])
        // Answered in order: only the kept 1.0 request's answer says so.
        #expect(try answer(channel)?.headers["connection"] == [])
        #expect(try answer(channel)?.headers["connection"] == ["keep-alive"])
        #expect(try answer(channel)?.headers["connection"] == [])
    }

    @Test func aLiveServerClosesAPlainOldRequestAndKeepsAKeptOne() throws {
        let serve = try HTTPServeProcess()
        let plain = try RawHTTPConnection(serve.httpBase)
        plain.send("GET /health HTTP/1.0\r\n\r\n")
        // Read to the end of the connection, as a 1.0 client does: closed, not held 300 s.
        let closed = plain.receiveToTheEnd(seconds: 5)
        #expect(closed?.hasPrefix("HTTP/1.1 200 OK\r\n") == true && closed?.hasSuffix(#"{"status":"ok"}"#) == true,
                "\(closed?.prefix(300) ?? "not closed in 5 s")")
        let kept = try RawHTTPConnection(serve.httpBase)
        for _ in 0..<2 {
            kept.send("GET /health HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            let answer = kept.receive(until: #"{"status":"ok"}"#, seconds: 5)
            #expect(answer.lowercased().contains("\r\nconnection: keep-alive\r\n"), "\(answer.prefix(300))")
        }
    }
}
