import NIOCore

/// The connections of one event loop that have used up their time slice with work left over:
/// they continue together, in a round, after the loop has polled its sockets again.
///
/// SwiftNIO runs every task that is due before it polls for I/O again, so work continued with
/// `execute` (or a task scheduled for now) never lets another connection's read in, however
/// small the pieces. A round is started instead by an I/O event of its own: a byte written to a
/// pipe the loop watches (`LoopWake`). The loop finishes its tasks, polls, and finds the pipe
/// readable together with every socket that became readable meanwhile, so a `ping` that arrived
/// during the slice is read in the same poll that starts the round. The loop never sleeps for
/// it. (A timer a few microseconds ahead does not do: a round that is due by the time the loop
/// next looks at its tasks runs in the same tick, without a poll, and when nothing else is ready
/// the loop sleeps until the timer; it measured 0.93 of the old server's pipelined `reverse`
/// throughput, the pipe 0.94–0.98, `locus-bench server`.)
///
/// Without a pipe (an `EmbeddedChannel` in tests, whose loop polls nothing, or in the moment
/// before the pipe is watched at start) a round is a later task of the loop's current tick.
///
/// Unchecked Sendable: it is made by `ServerContext` (shared) but only ever used on its loop.
final class LoopTurns: @unchecked Sendable {
    private let eventLoop: any EventLoop
    private var waiting: [() -> Void] = []
    private var scheduled = false
    private var inRound = false
    private var wake: (any Channel)?
    private let wakeByte = ByteBuffer(integer: UInt8(1))

    init(eventLoop: any EventLoop) { self.eventLoop = eventLoop }

    /// Runs `body` in the next round.
    func later(_ body: @escaping () -> Void) {
        eventLoop.assertInEventLoop()
        waiting.append(body)
        scheduleRound()
    }

    /// Rounds are started by writing to `channel`, whose reads call `woken()`.
    func attach(wake channel: any Channel) {
        eventLoop.assertInEventLoop()
        wake = channel
    }

    func detach() {
        wake = nil
        // A round announced on the pipe just closed would never start.
        if scheduled {
            scheduled = false
            scheduleRound()
        }
    }

    /// The wake pipe had something to read.
    func woken() {
        guard scheduled else { return }
        runRound()
    }

    private func scheduleRound() {
        // During a round, the next one is announced when it ends, not from its first piece.
        guard !scheduled, !inRound, !waiting.isEmpty else { return }
        scheduled = true
        if let wake {
            wake.writeAndFlush(wakeByte, promise: nil)
        } else {
            eventLoop.assumeIsolatedUnsafeUnchecked().execute { self.runRound() }
        }
    }

    private func runRound() {
        scheduled = false
        inRound = true
        let round = waiting
        waiting.removeAll(keepingCapacity: true)
        for body in round { body() }
        inRound = false
        scheduleRound()
    }
}

/// Reads an event loop's wake pipe and starts its `LoopTurns` round.
final class LoopWake: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    private let turns: LoopTurns

    init(_ turns: LoopTurns) { self.turns = turns }

    func channelActive(context: ChannelHandlerContext) {
        turns.attach(wake: context.channel)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // The bytes say nothing but "wake up".
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        turns.woken()
    }

    func channelInactive(context: ChannelHandlerContext) {
        turns.detach()
        context.fireChannelInactive()
    }
}
