import Dispatch
import LocusCore
import LocusProtocol
import Logging
import NIOCore
import NIOExtras

/// One connection's requests, from decoded line to reply: authentication, the queue of requests
/// read but not yet answered (which `cancel` reaches into, and which is bounded by not reading
/// more), deadlines, and the replies, written in batches.
///
/// Engine requests are answered on this connection's event loop, each in microseconds; the loop
/// yields after a batch so one busy connection cannot starve the others on its thread. Requests
/// the server answers itself (`ping`, `auth`, `cancel`, `stats`) are answered as soon as read, so
/// replies can overtake earlier requests: clients match them by id.
///
/// Memory is bounded whatever the client reads: every reply counts toward the in-flight limit
/// until the socket has taken it, whether the engine or the handler wrote it. At the limit the
/// handler stops reading, and lines already read wait undecoded (slices of the read buffer, no
/// reply made) until replies drain. A client that sends and never reads is held to the limit's
/// worth of replies plus one read, not to whatever it manages to send.
public final class ConnectionHandler: ChannelDuplexHandler {
    public typealias InboundIn = RequestLine
    public typealias OutboundIn = ByteBuffer
    public typealias OutboundOut = ByteBuffer

    private struct Pending {
        var id: RequestID?
        var request: LocusRequest
        var received: ContinuousClock.Instant
        var cancelled = false
    }

    private let server: ServerContext
    private var pending = CircularBuffer<Pending>(initialCapacity: 16)
    /// Lines read while the connection was at its in-flight limit, in order, not yet decoded.
    private var deferred = CircularBuffer<(line: RequestLine, received: ContinuousClock.Instant)>(initialCapacity: 16)
    /// Replies written to the outbox or the channel whose bytes the socket has not yet taken.
    private var unwrittenReplies = 0
    /// Of those, the ones already handed to the channel (the rest are in `outbox`).
    private var repliesInChannel = 0
    /// Replies not yet written: one write per batch instead of one per reply.
    private var outbox: ByteBuffer
    private var outcomes: [(op: String, outcome: String)] = []
    private var authenticated: Bool
    private var failedAuthentications = 0
    /// A `read` was asked for while the queue was full: issue it once the queue drains.
    private var readHeld = false
    private var drainScheduled = false
    private var reloadsInFlight = 0
    /// Set by a quiesce (graceful shutdown) or the client's half-close: answer what has been
    /// read, then close.
    private var finishing = false
    private var closing = false
    private let timeout: Duration
    private let requestsPerTurn = 256

    public init(server: ServerContext, allocator: ByteBufferAllocator) {
        self.server = server
        authenticated = server.tokens.isOpen
        outbox = allocator.buffer(capacity: 4_096)
        timeout = .milliseconds(Int64(server.configuration.requestTimeout * 1000))
    }

    // MARK: reading

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing else { return }
        let line = unwrapInboundIn(data)
        if !deferred.isEmpty || atLimit {
            deferred.append((line, ContinuousClock.now))
            return
        }
        handle(context, line, received: ContinuousClock.now)
    }

    /// Requests read and not yet answered, plus replies the socket has not taken.
    private var inFlight: Int { pending.count + unwrittenReplies }
    private var atLimit: Bool { inFlight >= server.configuration.maximumInFlightPerConnection }

    private func handle(_ context: ChannelHandlerContext, _ line: RequestLine, received: ContinuousClock.Instant) {
        switch line {
        case .tooLong:
            let limit = server.configuration.maximumLineBytes
            fail(id: nil, op: "none", WireError(.tooLarge, "request line is longer than \(limit) bytes; closing the connection"))
            // Nothing after the line can be told from it, but the requests read before it are
            // answered first, as on a half-close: every line gets its reply.
            deferred.removeAll()
            finishing = true
            finishIfDone(context)
        case .line(let buffer):
            let decoded = buffer.withUnsafeReadableBytes { server.decoder.decode($0) }
            switch decoded {
            case .failure(let f):
                fail(id: f.id, op: "none", f.error)
            case .success(let (id, request)):
                accept(context, id: id, request, received: received)
            }
        }
    }

    private func accept(_ context: ChannelHandlerContext, id: RequestID?, _ request: LocusRequest, received: ContinuousClock.Instant) {
        if !authenticated {
            switch request {
            case .ping, .auth: break
            default:
                return fail(id: id, op: request.op, WireError(.unauthorized, #"this server needs a token: send {"op":"auth","token":"…"} first"#))
            }
        }
        switch request {
        case .ping:
            succeed(id: id, op: request.op, Pong(), since: received)
        case .auth(let token):
            if server.tokens.isOpen || server.tokens.accepts(token) {
                authenticated = true
                succeed(id: id, op: request.op, ["authenticated": true], since: received)
            } else {
                failedAuthentications += 1
                fail(id: id, op: request.op, WireError(.unauthorized, "the token is not accepted"))
                if failedAuthentications >= server.configuration.maximumFailedAuthentications {
                    server.logger.notice("closing a connection after failed authentications", metadata: ["attempts": "\(failedAuthentications)"])
                    closeAfterWriting(context)
                }
            }
        case .stats:
            succeed(id: id, op: request.op, server.stats.snapshot(server.index.generation, reloadPath: server.index.reloadPath), since: received)
        case .cancel(let target):
            if let i = pending.firstIndex(where: { !$0.cancelled && $0.id == target }) {
                pending[i].cancelled = true
                fail(id: target, op: pending[i].request.op, WireError(.cancelled, "cancelled by request \(Self.describe(id))"))
                succeed(id: id, op: request.op, CancelReply(cancelled: target), since: received)
            } else {
                fail(id: id, op: request.op, WireError(.notFound, "no pending request with id \(Self.describe(target)) on this connection; it may have been answered already"))
            }
        case .reload(let path):
            guard !server.tokens.isOpen else {
                return fail(id: id, op: request.op, WireError(.unauthorized, "reload over the protocol needs a server started with a token; send the process SIGHUP instead"))
            }
            reload(context, id: id, path: path, received: received)
        case .info, .reverse, .within, .suggest, .geocode:
            pending.append(Pending(id: id, request: request, received: received))
        }
    }

    public func channelReadComplete(context: ChannelHandlerContext) {
        drain(context)
    }

    // MARK: answering

    /// Answers queued requests, up to a turn's worth, then writes them in one go.
    private func drain(_ context: ChannelHandlerContext) {
        var budget = requestsPerTurn
        while !closing, !atLimit, let d = deferred.popFirst() {
            handle(context, d.line, received: d.received)
        }
        if !pending.isEmpty {
            let engine = server.index.handler()
            while budget > 0, context.channel.isWritable, let p = pending.popFirst() {
                if p.cancelled { continue }
                budget -= 1
                let waited = ContinuousClock.now - p.received
                if waited > timeout {
                    fail(id: p.id, op: p.request.op, WireError(.timeout, "not started within \(server.configuration.requestTimeout) s of arriving; the server is busy"))
                    continue
                }
                let answer = engine.answer(id: p.id, p.request, started: p.received)
                outbox.writeBytes(answer.line)
                unwrittenReplies += 1
                outcomes.append((p.request.op, answer.error?.rawValue ?? "ok"))
            }
        }
        flushOutbox(context)
        if !pending.isEmpty || (!deferred.isEmpty && !atLimit), context.channel.isWritable {
            scheduleDrain(context)
        }
        if readHeld, !finishing, deferred.isEmpty, !atLimit {
            readHeld = false
            context.read()
        }
        finishIfDone(context)
    }

    /// Drains on a later turn of the loop: never from inside a write's completion, which can run
    /// while the write that caused it is still on the stack.
    private func scheduleDrain(_ context: ChannelHandlerContext) {
        guard !drainScheduled else { return }
        drainScheduled = true
        context.eventLoop.assumeIsolated().execute {
            self.drainScheduled = false
            guard context.channel.isActive else { return }
            self.drain(context)
        }
    }

    private func flushOutbox(_ context: ChannelHandlerContext) {
        if !outcomes.isEmpty {
            server.stats.record(outcomes)
            outcomes.removeAll(keepingCapacity: true)
        }
        guard outbox.readableBytes > 0 else { return }
        let batch = outbox
        let replies = unwrittenReplies - repliesInChannel
        repliesInChannel += replies
        outbox = context.channel.allocator.buffer(capacity: 4_096)
        context.writeAndFlush(wrapOutboundOut(batch)).assumeIsolated().whenComplete { _ in
            self.unwrittenReplies -= replies
            self.repliesInChannel -= replies
            guard !self.closing, context.channel.isActive else { return }
            if self.readHeld || !self.deferred.isEmpty { self.scheduleDrain(context) }
        }
    }

    private func reload(_ context: ChannelHandlerContext, id: RequestID?, path: String?, received: ContinuousClock.Instant) {
        reloadsInFlight += 1
        server.reload(path: path, on: context.eventLoop, reason: "reload request").assumeIsolated().whenSuccess { result in
            self.reloadsInFlight -= 1
            switch result {
            case .success(let g):
                self.succeed(id: id, op: "reload", ReloadReply(path: g.index.path, generation: g.number, loadSeconds: g.loadSeconds), since: received)
            case .failure(let e):
                let code: WireErrorCode = e.code == .notFound ? .notFound : .invalidArgument
                self.fail(id: id, op: "reload", WireError(code, "the new index was refused and the current one keeps serving: \(e.message)"))
            }
            guard context.channel.isActive else { return }
            self.flushOutbox(context)
            self.finishIfDone(context)
        }
    }

    private func succeed(id: RequestID?, op: String, _ result: some Encodable, since: ContinuousClock.Instant) {
        outbox.writeBytes(ReplyEncoder.success(id: id, result: result, elapsed: .now - since))
        unwrittenReplies += 1
        outcomes.append((op, "ok"))
    }

    private func fail(id: RequestID?, op: String, _ error: WireError) {
        outbox.writeBytes(ReplyEncoder.failure(id: id, error: error, elapsed: .zero))
        unwrittenReplies += 1
        outcomes.append((op, error.code.rawValue))
    }

    static func describe(_ id: RequestID?) -> String {
        switch id {
        case .string(let s)?: "\"\(s.prefix(64))\""
        case .number(let d)? where d.rounded() == d && abs(d) < 1e15: String(Int64(d))
        case .number(let d)?: String(d)
        default: "null"
        }
    }

    // MARK: flow control and closing

    public func read(context: ChannelHandlerContext) {
        if finishing || closing || !deferred.isEmpty || atLimit {
            readHeld = true
            return
        }
        context.read()
    }

    public func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { drain(context) }
        context.fireChannelWritabilityChanged()
    }

    public func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case is ChannelShouldQuiesceEvent:
            finishing = true
            finishIfDone(context)
        case let e as ChannelEvent where e == .inputClosed:
            // The client has sent its last request (half-close): answer, then close.
            finishing = true
            drain(context)
        case let idle as IdleStateHandler.IdleStateEvent where idle == .all:
            if pending.isEmpty, deferred.isEmpty, reloadsInFlight == 0 {
                server.logger.debug("closing an idle connection")
                closeAfterWriting(context)
            }
        default:
            context.fireUserInboundEventTriggered(event)
        }
    }

    private func finishIfDone(_ context: ChannelHandlerContext) {
        guard finishing, !closing, pending.isEmpty, deferred.isEmpty, reloadsInFlight == 0 else { return }
        closeAfterWriting(context)
    }

    private func closeAfterWriting(_ context: ChannelHandlerContext) {
        guard !closing else { return }
        closing = true
        pending.removeAll()
        deferred.removeAll()
        if !outcomes.isEmpty {
            server.stats.record(outcomes)
            outcomes.removeAll()
        }
        let batch = outbox
        outbox.clear()
        context.writeAndFlush(wrapOutboundOut(batch)).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }

    public func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // Connection resets and the like: the client is gone; nothing to answer.
        server.logger.debug("connection error", metadata: ["error": "\(error)"])
        context.close(promise: nil)
    }

    public func channelInactive(context: ChannelHandlerContext) {
        pending.removeAll()
        deferred.removeAll()
        if !outcomes.isEmpty {
            server.stats.record(outcomes)
            outcomes.removeAll()
        }
        context.fireChannelInactive()
    }
}

/// The result of `cancel`: the id of the request cancelled (which is answered `cancelled`).
struct CancelReply: Encodable {
    var cancelled: RequestID
}

/// The result of `reload`.
struct ReloadReply: Encodable {
    var path: String
    var generation: Int
    var loadSeconds: Double

    enum CodingKeys: String, CodingKey {
        case path, generation
        case loadSeconds = "load_seconds"
    }
}
