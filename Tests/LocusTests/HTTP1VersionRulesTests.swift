import Hummingbird
@testable import LocusHTTP
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import Testing

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
    @Test func aLiveServerSaysGoOnBeforeTheBody() async throws {
        let serve = try HTTPServeProcess()
        // The connection's awaits resume on a thread of their own: on the cooperative pool, held by
        // other suites' long synchronous tests, the request was sent after the server's 30 s head
        // timeout had closed the connection (the whole run, not this suite alone). The closure
        // holds `serve` (the server process) until it returns.
        try await withTaskExecutorPreference(OwnThread("locus.tests.raw-http")) {
            let connection = try await RawConnection(serve.httpBase)
            let body = "SingleLine=6132+NE+34th+Ave&f=json"
            try await connection.send("POST /arcgis/rest/services/World/GeocodeServer/findAddressCandidates HTTP/1.1\r\nHost: localhost\r\n"
                + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.utf8.count)\r\nExpect: 100-continue\r\n\r\n")
            // curl waits 1 s for it before sending the body anyway.
            let interim = try await connection.text(containing: "\r\n\r\n", seconds: 2)
            #expect(interim.hasPrefix("HTTP/1.1 100 Continue\r\n"), "\(interim.prefix(200))")
            try await connection.send(body)
            let answer = try await connection.text(containing: "6132 NE 34th Ave", seconds: 10)
            #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(answer.prefix(200))")
            #expect(answer.contains("6132 NE 34th Ave"))
        }
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

    @Test func aLiveServerClosesAPlainOldRequestAndKeepsAKeptOne() async throws {
        let serve = try HTTPServeProcess()
        // The connection's awaits resume on a thread of their own: on the cooperative pool, held by
        // other suites' long synchronous tests, the request was sent after the server's 30 s head
        // timeout had closed the connection (the whole run, not this suite alone). The closure
        // holds `serve` (the server process) until it returns.
        try await withTaskExecutorPreference(OwnThread("locus.tests.raw-http")) {
            let plain = try await RawConnection(serve.httpBase)
            try await plain.send("GET /health HTTP/1.0\r\n\r\n")
            // Read to the end of the connection, as a 1.0 client does: closed, not held 300 s.
            let closed = try await plain.textAtClose(seconds: 5)
            #expect(closed?.hasPrefix("HTTP/1.1 200 OK\r\n") == true && closed?.hasSuffix(#"{"status":"ok"}"#) == true,
                    "\(closed?.prefix(300) ?? "not closed in 5 s")")
            let kept = try await RawConnection(serve.httpBase)
            for _ in 0..<2 {
                try await kept.send("GET /health HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
                let answer = try await kept.text(containing: #"{"status":"ok"}"#, seconds: 5)
                #expect(answer.lowercased().contains("\r\nconnection: keep-alive\r\n"), "\(answer.prefix(300))")
            }
        }
    }
}

/// The rules are put before the HTTP types' codec by an installer that then leaves; a pipeline
/// without that codec (a dependency laid out otherwise) must not be served without them.
@Suite struct HTTP1VersionRulesInstallerTests {
    @Test func theRulesGoBeforeTheCodecAndTheInstallerLeaves() throws {
        let channel = EmbeddedChannel()
        let pipeline = channel.pipeline.syncOperations
        try pipeline.addHandler(HTTP1ToHTTPServerCodec(secure: false))
        try pipeline.addHandler(HTTP1VersionRules.Installer())
        #expect(throws: Never.self) { try pipeline.handler(type: HTTP1VersionRules.self) }
        #expect(throws: (any Error).self) { try pipeline.handler(type: HTTP1VersionRules.Installer.self) }
        // Before the codec, the rules still see the version: a 1.0 request reaches the application closing.
        try channel.writeInbound(HTTPServerRequestPart.head(HTTPRequestHead(version: .http1_0, method: .GET, uri: "/health")))
        guard case .head(let request) = try channel.readInbound(as: HTTPRequestPart.self) else { Issue.record("no head"); return }
        #expect(request.headerFields[.connection] == "close")
    }

    @Test func aPipelineWithoutTheCodecIsClosed() throws {
        let channel = EmbeddedChannel()
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 80)).wait()
        #expect(channel.isActive)
        try channel.pipeline.syncOperations.addHandler(HTTP1VersionRules.Installer())
        #expect(!channel.isActive)
        #expect(throws: (any Error).self) { try channel.throwIfErrorCaught() }
    }
}
