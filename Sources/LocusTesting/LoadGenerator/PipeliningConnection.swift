#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import NIOPosix

/// A connection that keeps `window` requests outstanding, sending the next line as each reply
/// comes, for as long as it is open: the attack of `locus-bench attack` and of
/// `ServerUnderAttackTests`.
public final class PipeliningConnection: Sendable {
    public struct Progress: Sendable {
        public var replies = 0
        public var errors = 0
    }

    final class Handler: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let lines: [ByteBuffer]
        let window: Int
        var next = 0
        var progress = Progress()
        /// The first bytes of the reply being read.
        var head: [UInt8] = []

        init(lines: [String], window: Int) {
            self.lines = lines.map { ByteBuffer(string: $0) }
            self.window = window
        }

        func send(_ context: ChannelHandlerContext, _ n: Int) {
            for _ in 0..<n {
                context.write(wrapOutboundOut(lines[next % lines.count]), promise: nil)
                next += 1
            }
            context.flush()
        }

        func channelActive(context: ChannelHandlerContext) {
            send(context, window)
            context.fireChannelActive()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            // Counted with memchr: replies of 50 suggestions are long, and reading them byte by
            // byte would make this thread a load of its own. Only a reply's first bytes are kept:
            // {"id":N,"ok":false tells an error.
            let (replies, errors) = unwrapInboundIn(data).withUnsafeReadableBytes { raw -> (Int, Int) in
                guard let base = raw.baseAddress else { return (0, 0) }
                var replies = 0, errors = 0
                var start = 0
                while start < raw.count {
                    let end = memchr(base + start, 0x0A, raw.count - start).map { base.distance(to: UnsafeRawPointer($0)) }
                    let segmentEnd = end ?? raw.count
                    if head.count < 24 { head += raw[start..<min(segmentEnd, start + 24 - head.count)] }
                    guard let end else { break }
                    replies += 1
                    if String(decoding: head, as: UTF8.self).contains(#""ok":false"#) { errors += 1 }
                    head.removeAll(keepingCapacity: true)
                    start = end + 1
                }
                return (replies, errors)
            }
            progress.replies += replies
            progress.errors += errors
            if replies > 0 { send(context, replies) }
        }
    }

    let channel: any Channel
    private let handler: NIOLoopBound<Handler>

    private init(channel: any Channel, handler: NIOLoopBound<Handler>) {
        self.channel = channel
        self.handler = handler
    }

    /// `lines` end in a newline each; they are sent in turn, round and round.
    public static func connect(_ address: SocketAddress, lines: [String], window: Int, group: any EventLoopGroup) async throws -> PipeliningConnection {
        let handed = group.next().makePromise(of: NIOLoopBound<Handler>.self)
        let channel = try await LoadClient.connect(address, group: group) { ch in
            let h = Handler(lines: lines, window: window)
            try ch.pipeline.syncOperations.addHandler(h)
            handed.succeed(NIOLoopBound(h, eventLoop: ch.eventLoop))
        }
        return PipeliningConnection(channel: channel, handler: try await handed.futureResult.get())
    }

    public func progress() async throws -> Progress {
        let handler = self.handler
        return try await channel.eventLoop.submit { handler.value.progress }.get()
    }

    public func close() async { try? await channel.close() }
}
