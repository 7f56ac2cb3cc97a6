import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Watches one HTTP connection: counts it (opened, closed) and closes it when a request's head
/// does not arrive within `headTimeout` of the connection opening or of its last answer.
///
/// A client that sends a header line every few seconds and never ends the head is not idle to
/// the idle timeout, and 1,100 of them held every connection the server takes (`/ready` and the
/// map page timed out for as long as they stayed): nginx's `client_header_timeout`, here. An
/// idle keep-alive connection is closed at the same bound, as proxies close theirs.
final class HTTPConnectionWatch: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let headTimeout: TimeAmount
    private let observer: HTTPObserver
    private var deadline: Scheduled<Void>?
    private var counted = false
    /// The parser refused the head for its size: the refusal Hummingbird writes (400, for any
    /// parser error) goes out as 431, which says what to change (RFC 6585 §5).
    private var headTooLarge = false

    init(headTimeout: TimeAmount, observer: HTTPObserver) {
        self.headTimeout = headTimeout
        self.observer = observer
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { opened(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        opened(context)
        context.fireChannelActive()
    }

    private func opened(_ context: ChannelHandlerContext) {
        guard !counted else { return }
        counted = true
        observer.connectionOpened()
        arm(context)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) {
            deadline?.cancel()
            deadline = nil
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var response) where headTooLarge && response.status == .badRequest:
            headTooLarge = false
            response.status = .requestHeaderFieldsTooLarge
            context.write(wrapOutboundOut(.head(response)), promise: promise)
            return
        case .end: arm(context)
        default: break
        }
        context.write(data, promise: promise)
    }

    /// A request NIO's parser refuses (a head over 80 KB, a bad chunk size) gets its 400 (431 for
    /// the head's size) with `Connection: close`, but nothing closed the connection: the parser
    /// stopped reading and a client sending a 10 MB header held it until the head timeout. It is
    /// closed `linger` after the refusal: closed (or its output shut) at once, it was never sent.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let refused = error as? HTTPParserError {
            if refused == .headerOverflow { headTooLarge = true }
            context.eventLoop.assumeIsolated().scheduleTask(in: Self.linger) { context.close(promise: nil) }
        }
        context.fireErrorCaught(error)
    }

    static let linger = TimeAmount.seconds(1)

    func channelInactive(context: ChannelHandlerContext) {
        closed()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) { closed() }

    private func closed() {
        deadline?.cancel()
        deadline = nil
        if counted {
            counted = false
            observer.connectionClosed()
        }
    }

    private func arm(_ context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: headTimeout) {
            context.close(promise: nil)
        }
    }
}
