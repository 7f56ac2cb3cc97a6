import Foundation
import LocusClient
import LocusServer
import LocusWire
import NIOCore
import NIOPosix

/// One connection, every request written at once, replies counted as they arrive.
enum Pipeline {
    struct Outcome { var seconds: Double; var errors: Int }

    final class Counter: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let expected: Int
        let done: EventLoopPromise<Int>
        var lines = 0
        var errors = 0

        init(expected: Int, done: EventLoopPromise<Int>) {
            self.expected = expected
            self.done = done
        }

        /// Bytes of the current line seen so far, up to the first 32 (enough to tell an error reply).
        /// Replies begin {"id":N,"ok":…; echoed lines never carry "ok".
        var head: [UInt8] = []

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            buffer.withUnsafeReadableBytes { raw in
                guard let base = raw.baseAddress else { return }
                var offset = 0
                while offset < raw.count {
                    let rest = raw.count - offset
                    if head.count < 32 { head.append(contentsOf: raw[offset..<(offset + min(32 - head.count, rest))]) }
                    guard let hit = memchr(base + offset, 0x0A, rest) else { return }
                    let end = base.distance(to: UnsafeRawPointer(hit))
                    lines += 1
                    if Self.isError(head) { errors += 1 }
                    head.removeAll(keepingCapacity: true)
                    offset = end + 1
                }
            }
            if lines >= expected { done.succeed(errors) }
        }

        static func isError(_ head: [UInt8]) -> Bool {
            guard let comma = head.firstIndex(of: UInt8(ascii: ",")) else { return false }
            return head[(comma + 1)...].starts(with: #""ok":false"#.utf8)
        }

        func channelInactive(context: ChannelHandlerContext) {
            done.fail(LocusClientError(description: "closed after \(lines) of \(expected) replies"))
        }
    }

    static func run(port: Int, lines: [String], group: any EventLoopGroup) async throws -> Outcome {
        var payload = ByteBuffer()
        for l in lines {
            payload.writeString(l)
            payload.writeInteger(UInt8(ascii: "\n"))
        }
        let payloadCopy = payload
        let channel = try await ClientBootstrap(group: group)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .connect(host: "127.0.0.1", port: port).get()
        let done = channel.eventLoop.makePromise(of: Int.self)
        let expected = lines.count
        try await channel.eventLoop.submit {
            try channel.pipeline.syncOperations.addHandler(Counter(expected: expected, done: done))
        }.get()
        let clock = ContinuousClock()
        let start = clock.now
        // Written in slices, as a client producing requests would.
        let slice = 64 * 1024
        channel.eventLoop.execute {
            var rest = payloadCopy
            while rest.readableBytes > 0 {
                let chunk = rest.readSlice(length: min(slice, rest.readableBytes))!
                channel.write(chunk, promise: nil)
            }
            channel.flush()
        }
        let errors = try await done.futureResult.get()
        let seconds = (clock.now - start).inSeconds
        try await channel.close()
        return Outcome(seconds: seconds, errors: errors)
    }
}
