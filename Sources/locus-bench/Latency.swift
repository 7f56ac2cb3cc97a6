import Foundation
import LocusClient
import LocusServer
import LocusWire
import NIOCore
import NIOPosix

/// Many connections, each with one request outstanding: per-request latency.
enum Latency {
    final class Sender: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let lines: [String]
        let done: EventLoopPromise<[Double]>
        var next = 0
        var sentAt = ContinuousClock.now
        var latencies: [Double] = []

        init(lines: [String], done: EventLoopPromise<[Double]>) {
            self.lines = lines
            self.done = done
        }

        func send(_ context: ChannelHandlerContext) {
            sentAt = .now
            var b = context.channel.allocator.buffer(capacity: 128)
            b.writeString(lines[next])
            b.writeInteger(UInt8(ascii: "\n"))
            next += 1
            context.writeAndFlush(NIOAny(b), promise: nil)
        }

        func channelActive(context: ChannelHandlerContext) {
            send(context)
            context.fireChannelActive()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            // One reply at a time: it is complete when the buffer ends in a newline.
            let buffer = unwrapInboundIn(data)
            guard buffer.readableBytesView.last == 0x0A else { return }
            latencies.append((ContinuousClock.now - sentAt).inSeconds)
            if next < lines.count { send(context) } else { done.succeed(latencies) }
        }

        func channelInactive(context: ChannelHandlerContext) {
            done.fail(LocusClientError(description: "closed early"))
        }
    }

    static func run(port: Int, connections: Int, perConnection: Int, lines: [String], group: any EventLoopGroup) async throws -> [Double] {
        var futures: [EventLoopFuture<[Double]>] = []
        var channels: [any Channel] = []
        for c in 0..<connections {
            let mine = (0..<perConnection).map { lines[(c * perConnection + $0) % lines.count] }
            let promise = group.next().makePromise(of: [Double].self)
            let channel = try await ClientBootstrap(group: group)
                .channelOption(.tcpOption(.tcp_nodelay), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(Sender(lines: mine, done: promise))
                    }
                }
                .connect(host: "127.0.0.1", port: port).get()
            futures.append(promise.futureResult)
            channels.append(channel)
        }
        var all: [Double] = []
        for f in futures { all += try await f.get() }
        for c in channels { try? await c.close() }
        return all
    }
}
