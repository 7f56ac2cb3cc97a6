import LocusWire

extension Operation {
    /// Answered by the connection as soon as it is read, before authentication too: a client's
    /// and a load balancer's check that the server is alive and reading.
    public static let ping = Operation(
        name: "ping", syntax: #"{"id":1,"op":"ping"}"#,
        summary: "Answers at once: is the server alive.",
        arguments: [],
        beforeAuthentication: true,
        idempotent: true,
        decode: { _ in },
        answer: { _, _ in .result(Pong()) }
    )
}

/// The result of `ping`.
public struct Pong: Codable, Sendable {
    public var pong = true
    public init() {}
}
