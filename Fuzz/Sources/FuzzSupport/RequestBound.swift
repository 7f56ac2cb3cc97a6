import Foundation

/// The per-request time bound, checked the way a fuzzer can without false alarms.
///
/// Time is the calling thread's CPU time, not the wall clock: the machines this runs on are shared,
/// and time spent waiting for a core says nothing about the request. A request over the bound is
/// run twice more and fails only when even the fastest of the three is over, so one run that met a
/// cold cache or a page fault is not reported.
public struct RequestBound: Sendable {
    public let limit: Duration

    /// `LOCUS_FUZZ_BOUND_MS`, default 10 (PROTOCOL.md: every request within the limits in ≤ 10 ms).
    public init() {
        let ms = ProcessInfo.processInfo.environment["LOCUS_FUZZ_BOUND_MS"].flatMap(Double.init) ?? 10
        limit = .microseconds(Int64(ms * 1000))
    }

    public static func cpuTime() -> Duration {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return .seconds(t.tv_sec) + .nanoseconds(t.tv_nsec)
    }

    /// CPU time of one run of `body`.
    public static func measure<E: Error>(_ body: () throws(E) -> Void) throws(E) -> Duration {
        let start = cpuTime()
        try body()
        return cpuTime() - start
    }

    /// Fails the run when `body` is over the bound three times out of three.
    /// - Parameter first: the time of a run already made, if any.
    public func check<E: Error>(_ what: @autoclosure () -> String, first: Duration? = nil, input: UnsafeRawBufferPointer? = nil,
                                _ body: () throws(E) -> Void) throws(E) {
        var fastest: Duration
        if let first { fastest = first } else { fastest = try Self.measure(body) }
        var runs = 1
        while fastest > limit, runs < 3 {
            fastest = min(fastest, try Self.measure(body))
            runs += 1
        }
        if fastest > limit {
            Fuzzer.fail("\(what()) took \(fastest) of CPU at best of \(runs) runs; the bound is \(limit)", input: input)
        }
    }
}
