import Foundation
import LocusCore
import LocusWire
import NIOCore
import NIOConcurrencyHelpers
import NIOPosix

/// Why a client could not get an answer at all (as opposed to an error reply).
public struct LocusClientError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(description: String) { self.description = description }
}

/// A protocol v1 client on one connection: requests may be sent concurrently; they are pipelined
/// and each reply is matched to its request by id.
public final class LocusClient: Sendable {
    private let channel: any Channel
    private let handler: NIOLoopBound<ReplyMatcher>
    private let nextID = NIOLockedCounter()

    private init(channel: any Channel, handler: NIOLoopBound<ReplyMatcher>) {
        self.channel = channel
        self.handler = handler
    }

    /// Connects, and authenticates with `token` when one is given.
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

    public static func connect(to address: ListenAddress, token: String? = nil,
                               group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) async throws -> LocusClient {
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
            throw LocusClientError(description: "no Locus server at \(address): \(Self.reason(error))")
        }
        let matcher = try await handed.futureResult.get()
        let client = LocusClient(channel: channel, handler: matcher)
        if let token {
            let reply = try await client.send(op: "auth", ["token": .string(token)])
            if let error = reply.error { throw error }
        }
        return client
    }

    /// Sends one request (an `id` is added) and waits for its reply.
    public func send(op: String, _ arguments: [String: JSONValue] = [:]) async throws -> ClientReply {
        let id = nextID.next()
        var object = arguments
        object["id"] = .number(Double(id))
        object["op"] = .string(op)
        var line = JSONValue.object(object).jsonBytes
        line.append(0x0A)
        return try await send(id: id, line: line)
    }

    /// Sends one request line, which must carry `"id": id`, and waits for its reply.
    public func send(id: Int, line: [UInt8]) async throws -> ClientReply {
        let promise = channel.eventLoop.makePromise(of: ClientReply.self)
        let handler = self.handler
        let channel = self.channel
        channel.eventLoop.execute {
            handler.value.expect(id: id, promise)
            channel.writeAndFlush(channel.allocator.buffer(bytes: line), promise: nil)
        }
        return try await promise.futureResult.get()
    }

    public func close() async {
        try? await channel.close()
    }
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

    func expect(id: Int, _ promise: EventLoopPromise<ClientReply>) {
        if let closedError { return promise.fail(closedError) }
        waiting[id] = promise
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
