import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1

/// The rules of HTTP/1 that hang on the request's version, kept before the HTTP types' codec,
/// which drops the version (Hummingbird's own handlers come after it: `Installer`).
///
/// - A 1.0 request closes its connection after the answer unless it asks `Connection:
///   keep-alive`, and then the answer says `Connection: keep-alive` back. Without this a 1.0
///   request was kept open as a 1.1 one is: a client that reads its answer to the end of the
///   connection (ApacheBench without `-k`, `printf … | nc`) waited out the idle timeout, 300 s,
///   on every request, and one that asked keep-alive (`ab -k`) was not told it was kept and
///   waited the same.
/// - A 1.1 request that says `Expect: 100-continue` holds its body back until the server says go
///   on, or its own timer runs out (curl for a large body or when told, .NET Framework's
///   `HttpWebRequest` for every POST): nothing said it, and each such POST (`geocodeAddresses`)
///   was read only after curl's 1 s. It is told at once, before its answer is known: a request
///   that will be refused then sends its body for nothing, which costs less than a second on
///   every one that will not. A 1.0 client knows no 100: its expectation is ignored (RFC 9110
///   §10.1.1).
///
/// One handler for both, and the installer leaves the pipeline: each handler is a hop for every
/// part of every request (`/health` under wrk: 0.89 of the requests per second with three).
final class HTTP1VersionRules: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// For each request not yet answered, in order (pipelined): whether its answer must say
    /// keep-alive (a 1.0 request that asked for it).
    private var answersKeepAlive = CircularBuffer<Bool>()

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data) else { return context.fireChannelRead(data) }
        guard head.version == .http1_0 else {
            answersKeepAlive.append(false)
            if Self.expectsContinue(head) {
                context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .continue))), promise: nil)
            }
            return context.fireChannelRead(data)
        }
        let kept = head.isKeepAlive
        answersKeepAlive.append(kept)
        // Said as 1.1 says it, which the server after the codec acts on.
        if !kept { head.headers.replaceOrAdd(name: "connection", value: "close") }
        head.headers.remove(name: "expect")
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // A 100 Continue is not the answer: the answer follows it.
        guard case .head(var head) = unwrapOutboundIn(data), !(100..<200).contains(head.status.code) else {
            return context.write(data, promise: promise)
        }
        guard answersKeepAlive.popFirst() == true, !head.headers.contains(name: "connection") else {
            return context.write(data, promise: promise)
        }
        head.headers.add(name: "Connection", value: "keep-alive")
        context.write(wrapOutboundOut(.head(head)), promise: promise)
    }

    /// Whether a 1.1 request waits for a 100 before its body: `Expect` lists `100-continue`, in
    /// any case, and the head does not say the body is empty.
    static func expectsContinue(_ head: HTTPRequestHead) -> Bool {
        let expects = head.headers[canonicalForm: "expect"].contains { $0.lowercased() == "100-continue" }
        return expects && head.headers[canonicalForm: "content-length"].allSatisfy { $0 != "0" }
    }

    /// Puts an `HTTP1VersionRules` before the codec of the pipeline it is added to, where
    /// Hummingbird's extra handlers (after the codec) cannot go, and leaves.
    final class Installer: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = NIOAny

        func handlerAdded(context: ChannelHandlerContext) {
            let pipeline = context.pipeline.syncOperations
            do {
                let codec = try pipeline.handler(type: HTTP1ToHTTPServerCodec.self)
                try pipeline.addHandler(HTTP1VersionRules(), position: .before(codec))
            } catch {
                // Only a pipeline laid out otherwise (a dependency's change) has no codec. Served
                // without the rules, 1.0 clients would wait out the idle timeout on every request:
                // the connection is refused instead, so the change shows on the first request.
                context.fireErrorCaught(error)
                context.close(promise: nil)
                return
            }
            pipeline.removeHandler(context: context, promise: nil)
        }
    }
}
