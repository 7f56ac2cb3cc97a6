import Foundation
import LocusClient
import LocusCore
import LocusWire
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A line server whose connections misbehave as told, the way a killed or full server's do,
/// then answer every request with the number of the connection that answered it:
/// `{"id":…,"ok":true,"result":{"connection":n}}`.
final class ScriptedServer: Sendable {
    /// What connection `n` (1, 2, …) does.
    enum Behaviour: Sendable {
        /// Reads `requests` requests, then closes without answering them (a server killed with
        /// requests in flight).
        case dropAfter(requests: Int)
        /// Refuses the connection as a full server does (an `overloaded` reply without id) and closes.
        case refuse
        case answer
    }

    let channel: any Channel
    let address: ListenAddress
    private let opened: NIOLockedValueBox<Int>

    var connections: Int { opened.withLockedValue { $0 } }

    init(at address: ListenAddress, _ script: @escaping @Sendable (Int) -> Behaviour) async throws {
        let opened = NIOLockedValueBox(0)
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                let n = opened.withLockedValue { $0 += 1; return $0 }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(RequestLineDecoder(maximumLineBytes: 65_536)))
                    try channel.pipeline.syncOperations.addHandler(Handler(connection: n, behaviour: script(n)))
                }
            }
        switch address {
        case .tcp(let host, let port): channel = try await bootstrap.bind(host: host, port: port).get()
        case .unix(let path): channel = try await bootstrap.bind(unixDomainSocketPath: path).get()
        }
        if case .tcp(let host, _) = address, let port = channel.localAddress?.port {
            self.address = .tcp(host: host, port: port)
        } else {
            self.address = address
        }
        self.opened = opened
    }

    func stop() async { try? await channel.close() }

    final class Handler: ChannelInboundHandler {
        typealias InboundIn = RequestLine
        typealias OutboundOut = ByteBuffer
        let connection: Int
        let behaviour: Behaviour
        var read = 0

        init(connection: Int, behaviour: Behaviour) {
            self.connection = connection
            self.behaviour = behaviour
        }

        func channelActive(context: ChannelHandlerContext) {
            if case .refuse = behaviour {
                let line = ReplyEncoder.failure(id: nil, error: WireError(.overloaded, "full"), elapsed: .zero)
                let channel = context.channel
                context.writeAndFlush(wrapOutboundOut(channel.allocator.buffer(bytes: line))).whenComplete { _ in channel.close(promise: nil) }
            }
            context.fireChannelActive()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard case .line(let buffer) = unwrapInboundIn(data) else { return }
            read += 1
            switch behaviour {
            case .refuse:
                return
            case .dropAfter(let requests):
                if read >= requests { context.close(promise: nil) }
            case .answer:
                let request = buffer.withUnsafeReadableBytes { try? JSONValue(parsing: $0) }
                guard case .object(let o)? = request else { return }
                let id = o["id"]
                let line = ReplyEncoder.success(id: id, result: ["connection": connection], elapsed: .zero)
                context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: line)), promise: nil)
            }
        }
    }
}
