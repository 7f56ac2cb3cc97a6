import Foundation
import LocusCore
import LocusWire
import NIOCore
import NIOConcurrencyHelpers
import NIOPosix

/// Why a client could not get an answer at all (as opposed to an error reply).
public struct LocusClientError: Error, Sendable, CustomStringConvertible {
    public var description: String
    /// The request never left this process (no connection, or one already closed): sending it
    /// again cannot run it twice, whatever the operation.
    var unsent = false

    public init(description: String) { self.description = description }

    init(description: String, unsent: Bool) {
        self.description = description
        self.unsent = unsent
    }
}

/// A protocol v1 client: requests may be sent concurrently; they are pipelined on one connection
/// and each reply is matched to its request by id.
///
/// When the connection is lost (the server killed, restarted, or its load balancer's replica
/// gone), the next request connects again, and requests lost with it are sent again if they are
/// idempotent, as `retry` allows; see `RetryPolicy`. The caller says which requests are: the
/// operation table (`Operation.isIdempotent` in LocusProtocol) knows.
public final class LocusClient: Sendable {
    public let address: ListenAddress
    public let retry: RetryPolicy
    private let token: String?
    private let group: any EventLoopGroup
    private let link = NIOLockedValueBox(Link.idle)
    private let nextID = NIOLockedCounter()
    private let tally = NIOLockedValueBox(Counts())

    /// What the client went through: for load generators and operators' tools.
    public struct Counts: Sendable {
        /// Connections opened (the first, and every reconnection).
        public var connections = 0
        /// Requests sent again after their connection was lost or refused.
        public var retries = 0
    }

    /// The connection in use, or the attempt to open one that requests wait on together.
    private enum Link {
        case idle
        case connecting(EventLoopFuture<Connection>)
        case connected(Connection)
        case closed
    }

    /// One connection to the server and the matcher of its replies.
    final class Connection: Sendable {
        let channel: any Channel
        let matcher: NIOLoopBound<ReplyMatcher>

        init(channel: any Channel, matcher: NIOLoopBound<ReplyMatcher>) {
            self.channel = channel
            self.matcher = matcher
        }

        func send(id: Int, line: [UInt8]) async throws -> ClientReply {
            let promise = channel.eventLoop.makePromise(of: ClientReply.self)
            let matcher = self.matcher
            let channel = self.channel
            channel.eventLoop.execute {
                guard matcher.value.expect(id: id, promise) else { return }
                channel.writeAndFlush(channel.allocator.buffer(bytes: line), promise: nil)
            }
            return try await promise.futureResult.get()
        }
    }

    private init(address: ListenAddress, token: String?, group: any EventLoopGroup, retry: RetryPolicy) {
        self.address = address
        self.token = token
        self.group = group
        self.retry = retry
    }

    /// Why a connection failed, in the system's words ("connection refused", "no such file or
    /// directory"), not NIO's description of its attempts.
    static func reason(_ error: any Error) -> String {
        var underlying: any Error = error
        if let e = error as? NIOConnectionError, let first = e.connectionErrors.first {
            underlying = first.error
        }
        if let io = underlying as? IOError {
            return String(cString: strerror(io.errnoCode)).lowercased()
        }
        if error is NIOConnectionError { return "the host name does not resolve" }
        return "\(underlying)"
    }

    /// Connects (as `retry` allows), and authenticates with `token` when one is given; so does
    /// every reconnection.
    public static func connect(to address: ListenAddress, token: String? = nil,
                               group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
                               retry: RetryPolicy = RetryPolicy()) async throws -> LocusClient {
        let client = LocusClient(address: address, token: token, group: group, retry: retry)
        try await client.attempting(idempotent: true) { _ in }
        return client
    }

    public var counts: Counts { tally.withLockedValue { $0 } }

    /// Sends one request (an `id` is added) and waits for its reply. An `idempotent` request
    /// lost with its connection is sent again on a new one; any request is sent again when it
    /// never left (no connection could be made, or the server turned the connection away).
    public func send(op: String, _ arguments: [String: JSONValue] = [:], idempotent: Bool = false) async throws -> ClientReply {
        let id = nextID.next()
        var object = arguments
        object["id"] = .number(Double(id))
        object["op"] = .string(op)
        var line = JSONValue.object(object).jsonBytes
        line.append(0x0A)
        return try await send(id: id, line: line, idempotent: idempotent)
    }

    /// Sends one request line, which must carry `"id": id`, and waits for its reply.
    public func send(id: Int, line: [UInt8], idempotent: Bool = false) async throws -> ClientReply {
        try await attempting(idempotent: idempotent) { connection in try await connection.send(id: id, line: line) }
    }

    /// Runs `body` on the connection, connecting first when there is none, and again as `retry`
    /// allows when it fails in a way another attempt can mend.
    private func attempting<T>(idempotent: Bool, _ body: (Connection) async throws -> T) async throws -> T {
        let clock = ContinuousClock()
        let start = clock.now
        var attempt = 1
        // What went wrong first, when the last attempt failed otherwise: "the server closed the
        // connection; then no Locus server at …: connection refused".
        var first: String?
        while true {
            var connection: Connection?
            do {
                let c = try await self.connection()
                connection = c
                let result = try await body(c)
                // The server turned the connection away (its connection limit) before reading
                // anything: nothing ran, and another attempt may find room (or another replica).
                guard let reply = result as? ClientReply, reply.isConnectionRefusal, attempt < retry.attempts else { return result }
                drop(c)
            } catch let error as LocusClientError {
                if let connection { drop(connection) }
                guard idempotent || error.unsent || connection == nil, attempt < retry.attempts, !isClosed else {
                    guard attempt > 1 else { throw error }
                    let story = first.map { $0 == error.description ? $0 : "\($0); then \(error.description)" } ?? error.description
                    throw LocusClientError(description: "\(story) (\(attempt) attempts in \(Self.seconds(clock.now - start)) s)")
                }
                if first == nil { first = error.description }
            } catch let error as WireError where error.code == .overloaded {
                if let connection { drop(connection) }
                guard attempt < retry.attempts else { throw error }
            }
            attempt += 1
            if connection != nil { tally.withLockedValue { $0.retries += 1 } }
            try await Task.sleep(for: retry.delay(before: attempt))
        }
    }

    private var isClosed: Bool {
        link.withLockedValue { if case .closed = $0 { true } else { false } }
    }

    private static func seconds(_ d: Duration) -> String {
        String(format: "%.1f", Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18)
    }

    /// The open connection, or a new one: requests that find none wait on one attempt together.
    private func connection() async throws -> Connection {
        enum Next { case ready(Connection), wait(EventLoopFuture<Connection>), open(EventLoopPromise<Connection>) }
        let next = try link.withLockedValue { link -> Next in
            switch link {
            case .closed:
                throw LocusClientError(description: "the client is closed", unsent: true)
            case .connected(let c) where c.channel.isActive:
                return .ready(c)
            case .connecting(let f):
                return .wait(f)
            case .idle, .connected:
                let promise = group.next().makePromise(of: Connection.self)
                link = .connecting(promise.futureResult)
                return .open(promise)
            }
        }
        switch next {
        case .ready(let c):
            return c
        case .wait(let f):
            return try await f.get()
        case .open(let promise):
            do {
                let c = try await open()
                let kept = link.withLockedValue { link -> Bool in
                    guard case .connecting(let f) = link, f === promise.futureResult else { return false }
                    link = .connected(c)
                    return true
                }
                // Closed meanwhile: the connection is not kept, and the requests waiting learn so
                // (below).
                guard kept else {
                    try? await c.channel.close()
                    throw LocusClientError(description: "the client is closed", unsent: true)
                }
                tally.withLockedValue { $0.connections += 1 }
                promise.succeed(c)
                return c
            } catch {
                link.withLockedValue { link in
                    if case .connecting(let f) = link, f === promise.futureResult { link = .idle }
                }
                promise.fail(error)
                throw error
            }
        }
    }

    /// Forgets `connection` (lost or refused), so that the next request opens another.
    private func drop(_ connection: Connection) {
        let forgotten = link.withLockedValue { link -> Bool in
            guard case .connected(let c) = link, c === connection else { return false }
            link = .idle
            return true
        }
        if forgotten { connection.channel.close(promise: nil) }
    }

    private func open() async throws -> Connection {
        // The matcher is handed out by the initializer itself: looking it up in the pipeline
        // afterwards fails if the server has already closed the connection (overloaded).
        let handed = group.next().makePromise(of: NIOLoopBound<ReplyMatcher>.self)
        let bootstrap = ClientBootstrap(group: group)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    // Replies can be long (info, many candidates): allow far more than a request.
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(RequestLineDecoder(maximumLineBytes: 64 << 20)))
                    let matcher = ReplyMatcher()
                    try channel.pipeline.syncOperations.addHandler(matcher)
                    handed.succeed(NIOLoopBound(matcher, eventLoop: channel.eventLoop))
                }
            }
        let channel: any Channel
        do {
            switch address {
            case .tcp(let host, let port):
                channel = try await bootstrap.channelOption(.tcpOption(.tcp_nodelay), value: 1).connect(host: host, port: port).get()
            case .unix(let path):
                channel = try await bootstrap.connect(unixDomainSocketPath: path).get()
            }
        } catch {
            handed.fail(error)
            throw LocusClientError(description: "no Locus server at \(address): \(Self.reason(error))", unsent: true)
        }
        let connection = Connection(channel: channel, matcher: try await handed.futureResult.get())
        if let token {
            let reply = try await connection.send(id: 0, line: JSONValue.object(["id": .number(0), "op": .string("auth"), "token": .string(token)]).jsonBytes + [0x0A])
            if let error = reply.error {
                try? await channel.close()
                throw error
            }
        }
        return connection
    }

    /// Closes the connection; the client sends nothing after this.
    public func close() async {
        let open = link.withLockedValue { link -> Connection? in
            defer { link = .closed }
            if case .connected(let c) = link { return c }
            return nil
        }
        try? await open?.channel.close()
    }
}

extension ClientReply {
    /// The server's refusal of the whole connection (its connection limit), sent before it read
    /// any request: it carries no id.
    var isConnectionRefusal: Bool { (id == nil || id == .null) && error?.code == .overloaded }
}

/// A thread-safe counter for request ids.
final class NIOLockedCounter: Sendable {
    private let value = NIOLockedValueBox(0)
    func next() -> Int { value.withLockedValue { $0 += 1; return $0 } }
}

/// Matches reply lines to waiting requests by id.
final class ReplyMatcher: ChannelInboundHandler {
    typealias InboundIn = RequestLine
    private var waiting: [Int: EventLoopPromise<ClientReply>] = [:]
    /// Why later requests fail at once: the connection's end, or the server's error about the
    /// whole connection (`overloaded`, `too_large`), kept as the server's code so that a client
    /// refused for overload hears "busy", not "no server".
    private var closedError: (any Error)?

    /// Waits for reply `id`; false (and the promise failed) when the connection is already
    /// over, so the request is not to be written.
    func expect(id: Int, _ promise: EventLoopPromise<ClientReply>) -> Bool {
        if let closedError {
            // The request never left: say so, so that any request may be sent again elsewhere.
            if let e = closedError as? LocusClientError {
                promise.fail(LocusClientError(description: e.description, unsent: true))
            } else {
                promise.fail(closedError)
            }
            return false
        }
        waiting[id] = promise
        return true
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .line(let buffer) = unwrapInboundIn(data) else { return }
        guard let reply = buffer.withUnsafeReadableBytes({ ClientReply(line: $0) }) else {
            return failAll(LocusClientError(description: "the server sent a line that is not a protocol reply"))
        }
        // The id is the server's word: a number no request was given must not trap.
        if let d = reply.id?.numericValue, let key = Int(exactly: d), let promise = waiting.removeValue(forKey: key) {
            promise.succeed(reply)
        } else if reply.id == nil || reply.id == .null, let error = reply.error {
            // An error about the connection (too large, overloaded): it answers everything waiting.
            for (_, p) in waiting { p.succeed(reply) }
            waiting.removeAll()
            closedError = error
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        failAll(LocusClientError(description: "the server closed the connection"))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A server killed with requests on the way resets the connection: say so in the system's
        // words ("Connection reset by peer"), not in NIO's description of the failed read call.
        let reason = (error as? IOError).map { String(cString: strerror($0.errnoCode)) } ?? "\(error)"
        failAll(LocusClientError(description: "lost the connection to the server: \(reason)"))
        context.close(promise: nil)
    }

    private func failAll(_ error: LocusClientError) {
        if closedError == nil { closedError = error }
        for (_, p) in waiting { p.fail(error) }
        waiting.removeAll()
    }
}
