#if canImport(Glibc)
import Glibc
#endif
import LocusCore
import LocusProtocol
import LocusWire
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// Geocode and suggest requests (and `within` with `nearest_within`) of one connection, answered
/// together on a worker thread.
///
/// These can take a millisecond each on hostile input (`locus-bench worst-case`); on the event
/// loop, a few hundred of them would hold every other connection of that loop for hundreds of
/// milliseconds (a `ping` waited 0.1–0.7 s, p50, behind four connections pipelining them). A connection hands the workers at most one batch at a time, so the workers'
/// queue holds at most one batch per open connection, and a batch gives its thread back after
/// `timeBudget` even if requests remain: those return to the connection unstarted, still
/// cancellable, and go to the back of the workers' queue with the connection's next batch.
///
/// Sendable: the items are values, and what both threads touch (which items have started, which
/// were cancelled) is behind a lock. The engine's index is shared by all threads already; each
/// worker thread has its own `RequestHandler` (`ServingIndex.handler()`).
final class EngineBatch: Sendable {
    struct Item: Sendable {
        var id: RequestID?
        var request: LocusRequest
        var received: ContinuousClock.Instant
    }

    /// What a run of the batch answered, for the connection to write on its event loop.
    struct Outcome: Sendable {
        /// Reply lines, one per answered item, each with its newline.
        var replies: ByteBuffer
        /// Each answered item's op, outcome and time from its read to its reply made here.
        var answered: [ServerMetrics.Answered]
        /// The first item not started: it and those after it go back to the connection.
        var next: Int
    }

    /// Most requests in one batch: bounds what a cancel searches and what one hand-over carries.
    static let maximumCount = 32
    /// A batch stops starting requests after this long; the rest go back to the connection.
    static let timeBudget: Duration = .milliseconds(2)

    let items: [Item]
    private let progress: NIOLockedValueBox<Progress>

    private struct Progress {
        /// Items before this index have been started (or skipped as cancelled) by the worker.
        var started = 0
        var cancelled: [Bool]
    }

    init(_ items: [Item]) {
        self.items = items
        progress = NIOLockedValueBox(Progress(cancelled: Array(repeating: false, count: items.count)))
    }

    /// Cancels the first item with `id` that has not started; nil when none is left to cancel.
    func cancel(_ id: RequestID) -> Item? {
        progress.withLockedValue { p in
            for i in p.started..<items.count where !p.cancelled[i] && items[i].id?.namesSameRequest(as: id) == true {
                p.cancelled[i] = true
                return items[i]
            }
            return nil
        }
    }

    /// The items from `start` on that were not cancelled: what goes back to the connection once
    /// the worker is done with the batch.
    func remaining(from start: Int) -> [Item] {
        progress.withLockedValue { p in (start..<items.count).filter { !p.cancelled[$0] }.map { items[$0] } }
    }

    /// Answers the items in order, on the calling (worker) thread, until the time budget is spent.
    /// Each request is run on the index generation current when it starts; one that has waited
    /// longer than `timeout` since it was read is answered `timeout` instead of run.
    func run(_ server: ServerContext, timeout: Duration) -> Outcome {
        let clock = ContinuousClock()
        let start = clock.now
        var replies = ByteBufferAllocator().buffer(capacity: 512 * items.count)
        var answered: [ServerMetrics.Answered] = []
        answered.reserveCapacity(items.count)
        var next = 0
        while next < items.count {
            let i = next
            // One request at least, so a batch always makes progress.
            if i > 0, clock.now - start >= Self.timeBudget { break }
            next += 1
            let cancelled = progress.withLockedValue { p -> Bool in
                p.started = i + 1
                return p.cancelled[i]
            }
            // A cancelled item has been answered `cancelled` by the connection already.
            if cancelled { continue }
            let item = items[i]
            let waited = clock.now - item.received
            if waited > timeout {
                replies.writeBytes(ReplyEncoder.failure(id: item.id, error: Self.timedOut(server), elapsed: waited))
                answered.append(.init(op: item.request.op, outcome: WireErrorCode.timeout.rawValue, duration: waited))
                continue
            }
            let answer = server.index.handler().answer(id: item.id, item.request, started: item.received)
            replies.writeBytes(answer.line)
            answered.append(.init(op: item.request.op, outcome: answer.error?.rawValue ?? "ok", duration: clock.now - item.received))
        }
        return Outcome(replies: replies, answered: answered, next: next)
    }

    static func timedOut(_ server: ServerContext) -> WireError {
        WireError(.timeout, "not started within \(server.configuration.requestTimeout) s of arriving; the server is busy")
    }
}

/// The worker threads run at a lower priority than the event loops (`workerNice`, 10 by default).
///
/// When geocodes keep every worker busy, the loops still need a core now and then, for
/// microseconds, to read a `ping` or write a reply. At equal priority the kernel often lets a
/// running worker finish its slice first: on a loaded 2-core machine, with four connections
/// pipelining the costliest suggests, a `ping` took 3–7 ms at p99; at nice 10, 0.2–0.7 ms in four
/// windows of five (3.2 ms in the fifth), same machine, same load. Within
/// the server this costs the workers nothing, as the loops use little CPU; against other busy
/// processes on the same machine, the workers get a smaller share than they would at nice 0.
enum WorkerPriority {
    private final class Lowered: Sendable {}
    private static let lowered = ThreadSpecificVariable<Lowered>()

    /// Sets the calling thread's nice value, once per thread.
    static func lowerOnce(to nice: Int) {
        guard lowered.currentValue == nil else { return }
        lowered.currentValue = Lowered()
        #if os(Linux)
        // On Linux the nice value belongs to a thread, and `who` 0 means the calling thread.
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, Int32(nice))
        #endif
    }
}
