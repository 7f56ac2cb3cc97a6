import LocusProtocol
import LocusWire
import NIOCore

/// Answers a connection beyond the limit with `overloaded` and closes it.
final class RefusedConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    let limit: Int

    init(limit: Int) { self.limit = limit }

    func channelActive(context: ChannelHandlerContext) {
        let line = ReplyEncoder.failure(id: nil, error: WireError(.overloaded, "the server has \(limit) connections open, its limit; try again shortly"), elapsed: .zero)
        context.writeAndFlush(NIOAny(context.channel.allocator.buffer(bytes: line))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}
}
