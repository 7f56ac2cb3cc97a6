import Dispatch
import LocusClient
import LocusCore
import LocusProtocol
import LocusWire
import Logging
import NIOCore
import NIOExtras

/// One connection's requests, from decoded line to reply: authentication, the queues of requests
/// read but not yet answered (which `cancel` reaches into, and which are bounded by not reading
/// more), deadlines, and the replies, written in batches.
///
/// Where a request runs is its operation's word (`Operation`, `Answerer`). What takes
/// microseconds whatever the input (`info`, `reverse`, `within`) is answered on this connection's
/// event loop. What can take a millisecond on hostile text (`geocode`, `suggest`, `within` with
/// `nearest_within`) goes to the server's worker threads, one `EngineBatch` at a time per
/// connection, and the replies come back to this loop to be written: a connection pipelining the
/// costliest texts never holds the event loop that other connections' pings are waiting on.
/// Operations the connection answers itself (`ping`, `auth`, `cancel`, `stats`, `reload`) are
/// answered as soon as read, through `ConnectionContext`. Replies therefore overtake each other:
/// clients match them by id.
///
/// The event loop's own work is time-sliced: a connection's turn of decoding and answering stops
/// after the configuration's `turnBudget` (or `requestsPerTurn` requests), and what is left
/// continues in the loop's next round (`LoopTurns`), after the loop has polled its sockets, so one
/// busy connection cannot starve the others on its thread.
///
/// Memory is bounded whatever the client reads: every reply counts toward the in-flight limit
/// until the socket has taken it, whether the engine, a worker or the handler wrote it, and so
/// does every request queued or with the workers. At the limit the handler stops reading, and
/// lines already read wait undecoded (slices of the read buffer, no reply made) until replies
/// drain. A client that sends and never reads is held to the limit's worth of replies plus one
/// read, not to whatever it manages to send.
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
    /// Answered by the engine on this loop, in order.
    private var pending = CircularBuffer<Pending>(initialCapacity: 16)
    /// Waiting for the worker threads, in order.
    private var offloaded = CircularBuffer<Pending>(initialCapacity: 16)
    /// The one batch of this connection the workers have, until its replies are back.
    private var batch: EngineBatch?
    /// Lines read while the connection was at its in-flight limit or out of time for this turn,
    /// in order, not yet decoded.
    private var deferred = CircularBuffer<(line: RequestLine, received: ContinuousClock.Instant)>(initialCapacity: 16)
    /// When this connection's current time slice on the loop ends.
    private var sliceEnd = ContinuousClock.now
    /// Inside a read burst (from its first line to `channelReadComplete`), which is one slice.
    private var reading = false
    /// Replies written to the outbox or the channel whose bytes the socket has not yet taken.
    private var unwrittenReplies = 0
    /// Of those, the ones already handed to the channel (the rest are in `outbox`).
    private var repliesInChannel = 0
    /// Replies not yet written: one write per batch instead of one per reply.
    private var outbox: ByteBuffer
    /// Requests answered and not yet counted: the metrics take a read's worth at a time, under
    /// one lock, not one per request.
    private var unrecorded: [ServerMetrics.Answered] = []
    /// What this connection has added to the in-flight gauge: its requests read and not yet
    /// answered, as of its last flush.
    private var reportedInFlight = 0
    private var authenticated: Bool
    private var failedAuthentications = 0
    /// Too many failed `auth`: close once the answer is written.
    private var closeAfterAnswer = false
    /// A `read` was asked for while the queue was full: issue it once the queue drains.
    private var readHeld = false
    private var drainScheduled = false
    private var reloadsInFlight = 0
    /// Set by a quiesce (graceful shutdown) or the client's half-close: answer what has been
    /// read, then close.
    private var finishing = false
    private var closing = false
    /// Answered and half-closed at shutdown: what the client still sends is read and dropped until
    /// it closes (closing with its requests unread would reset the connection, and the client's
    /// kernel would drop replies it had not read yet).
    private var draining = false
    /// Set by a graceful shutdown, as against the client's own half-close.
    private var quiescing = false
    private let timeout: Duration
    private let requestsPerTurn = 256
    /// The event loop's work for one connection in one turn. A reverse takes a few microseconds,
    /// so this is a few hundred of them; the JSON decode of a 64 KiB line takes a fraction of it.


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
        let now = ContinuousClock.now
        if !reading {
            reading = true
            sliceEnd = now + self.server.configuration.turnBudget
        }
        // Past the slice, lines wait undecoded like lines past the in-flight limit (and reading
        // stops until they are decoded): a read of many costly lines is decoded over several turns.
        if !deferred.isEmpty || atLimit || now >= sliceEnd {
            deferred.append((line, now))
            return
        }
        handle(context, line, received: now)
    }

    /// Requests read and not yet answered (queued here or with the workers), plus replies the
    /// socket has not taken.
    private var inFlight: Int { pending.count + offloaded.count + (batch?.items.count ?? 0) + unwrittenReplies }
    private var atLimit: Bool { inFlight >= server.configuration.maximumInFlightPerConnection }

    private func handle(_ context: ChannelHandlerContext, _ line: RequestLine, received: ContinuousClock.Instant) {
        switch line {
        case .tooLong:
            let limit = server.configuration.maximumLineBytes
            fail(id: nil, op: "none", WireError(.tooLarge, "request line is longer than \(limit) bytes; closing the connection"), since: received)
            // Nothing after the line can be told from it, but the requests read before it are
            // answered first, as on a half-close: every line gets its reply.
            deferred.removeAll()
            finishing = true
            finishIfDone(context)
        case .line(let buffer):
            let decoded = buffer.withUnsafeReadableBytes { server.decoder.decode($0) }
            switch decoded {
            case .failure(let f):
                fail(id: f.id, op: "none", f.error, since: received)
            case .success(let (id, request)):
                accept(context, id: id, request, received: received)
            }
        }
    }

    private func accept(_ context: ChannelHandlerContext, id: RequestID?, _ request: LocusRequest, received: ContinuousClock.Instant) {
        if !authenticated, !request.operation.beforeAuthentication {
            return fail(id: id, op: request.op, WireError(.unauthorized, #"this server needs a token: send {"op":"auth","token":"…"} first"#), since: received)
        }
        switch request.answeredBy {
        case .connection:
            do {
                let call = ConnectionCall(connection: Connection(handler: self, context: context), id: id, received: received)
                if case .result(let result) = try request.operation.answer(request, call) {
                    succeed(id: id, op: request.op, result, since: received)
                }
            } catch {
                fail(id: id, op: request.op, error, since: received)
            }
            if closeAfterAnswer { closeAfterWriting(context) }
        case .eventLoop:
            pending.append(Pending(id: id, request: request, received: received))
        case .workers:
            offloaded.append(Pending(id: id, request: request, received: received))
        }
    }

    /// What the operations this connection answers itself ask of it (`ConnectionContext`).
    private struct Connection: ConnectionContext {
        let handler: ConnectionHandler
        let context: ChannelHandlerContext

        func authenticate(token: String) throws(WireError) -> Bool { handler.authenticate(token: token) }

        func cancel(_ target: RequestID, by id: RequestID?) throws(WireError) -> Bool { handler.cancel(target, by: id) }

        func statistics() throws(WireError) -> any Encodable & Sendable {
            handler.server.stats.snapshot(handler.server.index.generation, reloadPath: handler.server.index.reloadPath)
        }

        func reload(path: String?, id: RequestID?, received: ContinuousClock.Instant) throws(WireError) {
            guard !handler.server.tokens.isOpen else {
                throw WireError(.unauthorized, "reload over the protocol needs a server started with a token; send the process SIGHUP instead")
            }
            handler.reload(context, id: id, path: path, received: received)
        }
    }

    private func authenticate(token: String) -> Bool {
        if server.tokens.isOpen || server.tokens.accepts(token) {
            authenticated = true
            return true
        }
        failedAuthentications += 1
        if failedAuthentications >= server.configuration.maximumFailedAuthentications {
            server.logger.notice("closing a connection after failed authentications", metadata: ["attempts": "\(failedAuthentications)"])
            closeAfterAnswer = true
        }
        return false
    }

    /// Cancels the first request with id `target` not yet started, wherever it waits: with the
    /// workers (a batch hands over requests it has not started), then the queues. The request is
    /// answered `cancelled`; false when there is none.
    private func cancel(_ target: RequestID, by id: RequestID?) -> Bool {
        let found: (id: RequestID?, op: String, received: ContinuousClock.Instant)?
        if let item = batch?.cancel(target) {
            found = (item.id, item.request.op, item.received)
        } else if let i = offloaded.firstIndex(where: { !$0.cancelled && $0.id?.namesSameRequest(as: target) == true }) {
            offloaded[i].cancelled = true
            found = (offloaded[i].id, offloaded[i].request.op, offloaded[i].received)
        } else if let i = pending.firstIndex(where: { !$0.cancelled && $0.id?.namesSameRequest(as: target) == true }) {
            pending[i].cancelled = true
            found = (pending[i].id, pending[i].request.op, pending[i].received)
        } else {
            found = nil
        }
        guard let found else { return false }
        // Answered with its own id as it was sent ("id":5), whichever way the cancel wrote it.
        fail(id: found.id, op: found.op, WireError(.cancelled, "cancelled by request \((id ?? .null).idDescription)"), since: found.received)
        return true
    }

    public func channelReadComplete(context: ChannelHandlerContext) {
        drain(context, until: sliceEnd)
    }

    // MARK: answering

    /// Decodes lines held back and answers queued requests until `deadline` (the end of the
    /// connection's slice), hands the workers a batch, then writes the replies in one go.
    private func drain(_ context: ChannelHandlerContext, until deadline: ContinuousClock.Instant) {
        reading = false
        while !closing, !atLimit, ContinuousClock.now < deadline, let d = deferred.popFirst() {
            handle(context, d.line, received: d.received)
        }
        submitBatch(context)
        if !pending.isEmpty {
            let engine = server.index.handler()
            var budget = requestsPerTurn
            // Read once per request: the time a reply was made is the next one's start.
            var now = ContinuousClock.now
            while budget > 0, context.channel.isWritable {
                guard now < deadline, let p = pending.popFirst() else { break }
                if p.cancelled { continue }
                budget -= 1
                if now - p.received > timeout {
                    fail(id: p.id, op: p.request.op, EngineBatch.timedOut(server), since: p.received)
                    continue
                }
                let answer = engine.answer(id: p.id, p.request, started: p.received)
                outbox.writeBytes(answer.line)
                unwrittenReplies += 1
                now = ContinuousClock.now
                unrecorded.append(.init(op: p.request.op, outcome: answer.error?.rawValue ?? "ok", duration: now - p.received))
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

    /// Hands the workers the next geocode/suggest requests, unless they already have this
    /// connection's batch. Replies are only made while the socket takes them, as on the loop.
    private func submitBatch(_ context: ChannelHandlerContext) {
        guard batch == nil, !closing, !offloaded.isEmpty, context.channel.isWritable else { return }
        var items: [EngineBatch.Item] = []
        while items.count < EngineBatch.maximumCount, let p = offloaded.popFirst() {
            if !p.cancelled { items.append(EngineBatch.Item(id: p.id, request: p.request, received: p.received)) }
        }
        guard !items.isEmpty else { return }
        let b = EngineBatch(items)
        batch = b
        let server = self.server, timeout = self.timeout, nice = server.configuration.workerNice
        let done: EventLoopFuture<EngineBatch.Outcome>
        if let workers = server.workers {
            done = workers.runIfActive(eventLoop: context.eventLoop) {
                WorkerPriority.lowerOnce(to: nice)
                return b.run(server, timeout: timeout)
            }
        } else {
            // No workers (an `EmbeddedChannel` in tests): this loop, on a later turn.
            done = context.eventLoop.submit { b.run(server, timeout: timeout) }
        }
        done.assumeIsolated().whenComplete { result in
            switch result {
            case .success(let outcome):
                self.batchDone(context, b, outcome)
            case .failure:
                // The workers are shutting down (the server is stopping): answer here instead.
                self.batchDone(context, b, b.run(server, timeout: timeout))
            }
        }
    }

    private func batchDone(_ context: ChannelHandlerContext, _ b: EngineBatch, _ outcome: EngineBatch.Outcome) {
        batch = nil
        unrecorded += outcome.answered
        guard !closing, context.channel.isActive else {
            server.stats.record(unrecorded)
            unrecorded.removeAll()
            return
        }
        var replies = outcome.replies
        outbox.writeBuffer(&replies)
        unwrittenReplies += outcome.answered.count
        // What the batch left unstarted goes back to the front, in order.
        for item in b.remaining(from: outcome.next).reversed() {
            offloaded.prepend(Pending(id: item.id, request: item.request, received: item.received))
        }
        // Writes the replies and hands over the next batch; a batch coming back is not a new
        // slice, so queued work on this loop waits for the connection's turn.
        drain(context, until: sliceEnd)
    }

    /// Drains later: never from inside a write's completion, which can run while the write that
    /// caused it is still on the stack. Within the connection's slice, later in this tick of the
    /// loop; past it, in the loop's next round, after other connections' reads.
    private func scheduleDrain(_ context: ChannelHandlerContext) {
        guard !drainScheduled else { return }
        drainScheduled = true
        if ContinuousClock.now < sliceEnd {
            context.eventLoop.assumeIsolated().execute {
                self.drainScheduled = false
                guard context.channel.isActive else { return }
                self.drain(context, until: self.sliceEnd)
            }
        } else {
            server.turns(on: context.eventLoop).later {
                self.drainScheduled = false
                guard context.channel.isActive else { return }
                self.sliceEnd = ContinuousClock.now + self.server.configuration.turnBudget
                self.drain(context, until: self.sliceEnd)
            }
        }
    }

    /// Drains with a new slice: for the events that are this connection's turn (its socket became
    /// writable, the client half-closed).
    private func drainInNewSlice(_ context: ChannelHandlerContext) {
        sliceEnd = ContinuousClock.now + self.server.configuration.turnBudget
        drain(context, until: sliceEnd)
    }

    private func flushOutbox(_ context: ChannelHandlerContext) {
        if !unrecorded.isEmpty {
            server.stats.record(unrecorded)
            unrecorded.removeAll(keepingCapacity: true)
        }
        reportInFlight(open: context.channel.isActive)
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
                self.fail(id: id, op: "reload", WireError(code, "the new index was refused and the current one keeps serving: \(e.message)"), since: received)
            }
            guard context.channel.isActive else { return }
            self.flushOutbox(context)
            self.finishIfDone(context)
        }
    }

    private func succeed(id: RequestID?, op: String, _ result: some Encodable, since: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - since
        outbox.writeBytes(ReplyEncoder.success(id: id, result: result, elapsed: elapsed))
        unwrittenReplies += 1
        unrecorded.append(.init(op: op, outcome: "ok", duration: elapsed))
    }

    private func fail(id: RequestID?, op: String, _ error: WireError, since: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - since
        outbox.writeBytes(ReplyEncoder.failure(id: id, error: error, elapsed: elapsed))
        unwrittenReplies += 1
        unrecorded.append(.init(op: op, outcome: error.code.rawValue, duration: elapsed))
    }

    /// Brings the in-flight gauge to this connection's requests read and not yet answered: the
    /// lines held back, the queues and the batch with the workers (a cancelled request still
    /// queued counts until it is reached). Once a flush, not once a request: the gauge is shared
    /// by every connection. A closed connection has none: what it had will never be answered.
    private func reportInFlight(open: Bool) {
        let now = open ? deferred.count + pending.count + offloaded.count + (batch?.items.count ?? 0) : 0
        guard now != reportedInFlight else { return }
        server.stats.requestsInFlightChanged(by: now - reportedInFlight)
        reportedInFlight = now
    }

    // MARK: flow control and closing

    public func read(context: ChannelHandlerContext) {
        if draining {
            context.read()
            return
        }
        if finishing || closing || !deferred.isEmpty || atLimit {
            readHeld = true
            return
        }
        context.read()
    }

    public func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { drainInNewSlice(context) }
        context.fireChannelWritabilityChanged()
    }

    public func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case is ChannelShouldQuiesceEvent:
            finishing = true
            quiescing = true
            let grace = TimeAmount.milliseconds(Int64(server.configuration.shutdownGrace * 1000))
            context.eventLoop.assumeIsolated().scheduleTask(in: grace) { [self] in
                guard context.channel.isActive else { return }
                server.logger.debug("closing a connection still open when the shutdown grace ran out")
                closeNow(context)
            }
            finishIfDone(context)
        case let e as ChannelEvent where e == .inputClosed && draining:
            context.close(promise: nil)
        case let e as ChannelEvent where e == .inputClosed:
            // The client has sent its last request (half-close): answer, then close.
            finishing = true
            drainInNewSlice(context)
        case let idle as IdleStateHandler.IdleStateEvent where idle == .all:
            if isIdle {
                server.logger.debug("closing an idle connection")
                closeAfterWriting(context)
            } else if unwrittenReplies > 0 {
                // Nothing read or written for the idle timeout with replies waiting: the client
                // reads none (it held its slot for ever, and SIGTERM off while it stayed).
                server.logger.debug("closing a connection whose client reads no replies")
                closeNow(context)
            }
        default:
            context.fireUserInboundEventTriggered(event)
        }
    }

    /// Nothing read is waiting for an answer, here or with the workers.
    private var isIdle: Bool { pending.isEmpty && offloaded.isEmpty && batch == nil && deferred.isEmpty && reloadsInFlight == 0 }

    private func finishIfDone(_ context: ChannelHandlerContext) {
        guard finishing, !closing, isIdle else { return }
        closeAfterWriting(context)
    }

    /// Writes what is answered, then closes; at shutdown only the way out, reading and dropping
    /// what the client still sends until it closes (or the shutdown grace ends): closed with
    /// requests unread, the connection was reset (12 of 12 pipelining clients got ECONNRESET, one
    /// lost half a reply).
    private func closeAfterWriting(_ context: ChannelHandlerContext) {
        guard !closing else { return }
        closing = true
        dropQueuedWork()
        let batch = outbox
        outbox.clear()
        let halfClose = quiescing
        context.writeAndFlush(wrapOutboundOut(batch)).assumeIsolated().whenComplete { [self] result in
            guard halfClose, case .success = result, context.channel.isActive else { return context.close(promise: nil) }
            draining = true
            context.close(mode: .output).assumeIsolated().whenComplete { closed in
                if case .failure = closed { context.close(promise: nil) } else { context.read() }
            }
        }
    }

    /// Closes at once, dropping what is unanswered or unwritten.
    private func closeNow(_ context: ChannelHandlerContext) {
        closing = true
        dropQueuedWork()
        outbox.clear()
        context.close(promise: nil)
    }

    /// Forgets what is queued and not yet answered (the connection is going; no reply will be
    /// written for it), keeping the counts of what was answered.
    private func dropQueuedWork() {
        pending.removeAll()
        offloaded.removeAll()
        deferred.removeAll()
        if !unrecorded.isEmpty {
            server.stats.record(unrecorded)
            unrecorded.removeAll()
        }
    }

    public func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // Connection resets and the like: the client is gone; nothing to answer.
        server.logger.debug("connection error", metadata: ["error": "\(error)"])
        context.close(promise: nil)
    }

    public func channelInactive(context: ChannelHandlerContext) {
        dropQueuedWork()
        reportInFlight(open: false)
        context.fireChannelInactive()
    }
}
