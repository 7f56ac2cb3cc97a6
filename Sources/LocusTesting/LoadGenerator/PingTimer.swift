import NIOCore
import NIOPosix

/// Sends `ping`s one at a time, `gap` apart, and times each from send to reply on the client's
/// event loop (no Swift concurrency hop in the measure).
public enum PingTimer {
    final class Handler: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let count: Int
        let gap: TimeAmount
        let done: EventLoopPromise<[Double]>
        var sentAt = NIODeadline.now()
        var millis: [Double] = []
        var finished = false

        init(count: Int, gap: TimeAmount, done: EventLoopPromise<[Double]>) {
            self.count = count
            self.gap = gap
            self.done = done
        }

        func ping(_ context: ChannelHandlerContext) {
            sentAt = .now()
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: #"{"id":"p","op":"ping"}"# + "\n")), promise: nil)
        }

        func channelActive(context: ChannelHandlerContext) {
            ping(context)
            context.fireChannelActive()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            // One ping is outstanding at a time: its reply is complete at the newline.
            guard !finished, unwrapInboundIn(data).readableBytesView.contains(0x0A) else { return }
            millis.append(Double((NIODeadline.now() - sentAt).nanoseconds) / 1e6)
            if millis.count >= count { return finish() }
            context.eventLoop.assumeIsolated().scheduleTask(in: gap) { self.ping(context) }
        }

        func finish() {
            guard !finished else { return }
            finished = true
            done.succeed(millis)
        }

        func channelInactive(context: ChannelHandlerContext) {
            finish()
        }
    }

    /// The round-trip times in milliseconds: `count` of them, or those answered by `giveUpAfter`.
    public static func run(_ address: SocketAddress, count: Int, gap: TimeAmount, giveUpAfter: TimeAmount,
                           group: any EventLoopGroup) async throws -> [Double] {
        let loop = group.next()
        let done = loop.makePromise(of: [Double].self)
        let handed = loop.makePromise(of: NIOLoopBound<Handler>.self)
        let channel = try await LoadClient.connect(address, group: loop) { ch in
            let h = Handler(count: count, gap: gap, done: done)
            try ch.pipeline.syncOperations.addHandler(h)
            handed.succeed(NIOLoopBound(h, eventLoop: ch.eventLoop))
        }
        let handler = try await handed.futureResult.get()
        loop.scheduleTask(in: giveUpAfter) { handler.value.finish() }
        let millis = try await done.futureResult.get()
        try? await channel.close()
        return millis
    }
}
