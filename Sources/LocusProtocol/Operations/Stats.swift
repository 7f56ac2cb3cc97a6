import LocusWire

extension Operation {
    public static let stats = Operation(
        name: "stats", syntax: #"{"id":1,"op":"stats"}"#,
        summary: "Counters: requests by op and outcome, connections, index reloads, uptime.",
        arguments: [],
        idempotent: true,
        decode: { _ in },
        answer: { (_, call) throws(WireError) in .result(try call.connection.statistics()) }
    )
}
