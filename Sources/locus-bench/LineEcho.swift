import LocusClient
import LocusServer
import LocusWire
import NIOCore

/// The peer server: writes every line back, flushing once per read, as the Locus server does.
final class LineEcho: ChannelInboundHandler {
    typealias InboundIn = RequestLine
    typealias OutboundOut = ByteBuffer
    private var out = ByteBuffer()

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .line(var line) = unwrapInboundIn(data) else { return context.close(promise: nil) }
        out.writeBuffer(&line)
        out.writeInteger(UInt8(ascii: "\n"))
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        guard out.readableBytes > 0 else { return }
        context.writeAndFlush(wrapOutboundOut(out), promise: nil)
        out = context.channel.allocator.buffer(capacity: 4_096)
    }
}
