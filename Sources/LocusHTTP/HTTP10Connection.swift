import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1

/// HTTP/1.0's connection rule, which the HTTP types' codec loses with the request's version: a
/// 1.0 request closes its connection after the answer unless it asks `Connection: keep-alive`,
/// and then the answer says `Connection: keep-alive` back.
///
/// Without it a 1.0 request was kept open as a 1.1 one is: a 1.0 client that reads its answer to
/// the end of the connection (ApacheBench without `-k`, a shell's `printf … | nc`) waited out the
/// idle timeout, 300 s, for each request; one that asked keep-alive was not told it was kept, so
/// it waited the same. Sits before the codec, where the version still is (`Installer`).
final class HTTP10Connection: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// For each request not yet answered, in order (pipelined): whether its answer must say
    /// keep-alive (a 1.0 request that asked for it).
    private var answersKeepAlive = CircularBuffer<Bool>()

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        guard case .head(var head) = part, head.version == .http1_0 else {
            if case .head = part { answersKeepAlive.append(false) }
            return context.fireChannelRead(data)
        }
        let kept = head.isKeepAlive
        answersKeepAlive.append(kept)
        // Said as 1.1 says it, which the server after the codec acts on.
        if !kept { head.headers.replaceOrAdd(name: "connection", value: "close") }
        // A 1.0 client knows no 100 Continue: its expectation is ignored (RFC 9110 §10.1.1).
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

    /// Puts an `HTTP10Connection` before the codec of the pipeline it is added to, where
    /// Hummingbird's extra handlers (after the codec) cannot go, and stays, passing all by (a
    /// pipeline's handler must take one direction).
    final class Installer: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = NIOAny

        func handlerAdded(context: ChannelHandlerContext) {
            let pipeline = context.pipeline.syncOperations
            guard let codec = try? pipeline.handler(type: HTTP1ToHTTPServerCodec.self) else { return }
            try? pipeline.addHandler(HTTP10Connection(), position: .before(codec))
        }
    }
}
