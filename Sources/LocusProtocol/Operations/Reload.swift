import LocusWire

extension Operation {
    /// Loading an index takes about a second: the connection answers when it is done.
    public static let reload = Operation(
        name: "reload", syntax: #"{"id":1,"op":"reload","path":"/optional/other.locus"}"#,
        summary: "Admin: switches to a new index file (default: the same path, rebuilt); refused unless the server has tokens and the connection authenticated.",
        arguments: ["path"],
        idempotent: false,
        decode: { (a) throws(WireError) in ReloadArguments(path: try a.string("path")) },
        encode: { a in a.path.map { ["path": .string($0)] } ?? [:] },
        answer: { (a, call) throws(WireError) in
            try call.connection.reload(path: a.path, id: call.id, received: call.received)
            return .later
        }
    )
}

/// The arguments of `reload`: the index file to switch to; nil for the one SIGHUP loads.
public struct ReloadArguments: Sendable {
    public var path: String?
}

/// The result of `reload`.
public struct ReloadReply: Codable, Sendable {
    public var path: String
    public var generation: Int
    public var loadSeconds: Double

    public init(path: String, generation: Int, loadSeconds: Double) {
        self.path = path
        self.generation = generation
        self.loadSeconds = loadSeconds
    }

    enum CodingKeys: String, CodingKey {
        case path, generation
        case loadSeconds = "load_seconds"
    }
}
