/// How a `LocusClient` gets over a lost connection: it connects again and sends the requests
/// that were lost with it once more, if they are idempotent, a bounded number of times with a
/// growing wait between attempts.
///
/// A server killed or restarted, or taken out of a load balancer, loses the requests in flight on
/// its connections; a client behind HAProxy reaches another replica on its next connection. The
/// waits let a restarting server come back and a load balancer notice a dead one (its health
/// check), and their jitter keeps many clients from reconnecting in step.
public struct RetryPolicy: Sendable, Equatable {
    /// Attempts in all, the first included; 1 never retries. Default 5.
    public var attempts: Int = 5
    /// The wait before the first retry, doubled for each one after. Default 100 ms.
    public var initialDelay: Duration = .milliseconds(100)
    /// The longest wait between attempts. Default 1 s (the default's waits add up to 1.5 s at most).
    public var maximumDelay: Duration = .seconds(1)

    public init(attempts: Int = 5, initialDelay: Duration = .milliseconds(100), maximumDelay: Duration = .seconds(1)) {
        self.attempts = attempts
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
    }

    /// One attempt: what fails, fails at once (a health check, a test of the server's own behaviour).
    public static let none = RetryPolicy(attempts: 1)

    /// The wait before attempt `attempt` (2 for the first retry): the doubled delay, capped, of
    /// which a random half is taken off.
    func delay(before attempt: Int) -> Duration {
        let doublings = min(max(0, attempt - 2), 30)
        let full = min(maximumDelay, initialDelay * (1 << doublings))
        return full / 2 + full / 2 * Double.random(in: 0...1)
    }
}
