import LocusCore
import LocusWire

/// Every operation of protocol v1, one descriptor each, in one table: the request decoder, the
/// request handler, the server's connection handler, `info`'s operation list, the PROTOCOL.md
/// tests and the CLI's `--server` requests all read `Operation.all`, and nothing else lists the
/// operations.
///
/// A descriptor is the operation's name, syntax and summary (what `info` returns), how its
/// arguments are decoded from a request (and, the other way, written into one), who answers it
/// and where, and what answering it does. Adding an operation is a new file in `Operations/` with
/// its descriptor, and its line in `all`. `ping`, from `Operations/Ping.swift`:
///
/// ```swift
/// extension Operation {
///     static let ping = Operation(
///         name: "ping", syntax: #"{"id":1,"op":"ping"}"#,
///         summary: "Answers at once: is the server alive.",
///         arguments: [],
///         beforeAuthentication: true,
///         idempotent: true,
///         decode: { _ in },
///         answer: { _, _ in .result(Pong()) }
///     )
/// }
/// ```
///
/// An operation the engine answers gives `run` (the engine call, on a `RequestHandler`: its
/// `Locator` and index) and `answeredBy` (the event loop for what costs microseconds whatever the
/// input, the worker threads for what can cost a millisecond) instead of `answer`; see
/// `Operations/Within.swift`, whose place depends on its arguments.
public final class Operation: Sendable {
    public let name: String
    /// A request line showing every argument.
    public let syntax: String
    /// The names of the arguments it takes, besides `id` and `op`. A request naming any other is
    /// refused (`invalid_argument`): a client that misnames an option ("maxResults") would
    /// otherwise get an answer without it and no word of why.
    public let arguments: [String]
    public let summary: String
    /// Answered on a connection that has not authenticated yet (the server has tokens).
    public let beforeAuthentication: Bool
    /// Sending it twice does what sending it once does, so a client whose connection was lost
    /// before the reply may send it again on another (`LocusClient`'s retry): every operation
    /// that reads. Not `cancel` (its target lives on the lost connection), `auth` (the client
    /// authenticates every new connection itself) or `reload` (an administrator's act, and
    /// seconds of work).
    public let isIdempotent: Bool
    private let decode: @Sendable (ArgumentReader) throws(WireError) -> (arguments: any Sendable, answeredBy: Answerer)
    private let place: @Sendable (any Sendable) -> Answerer
    private let encode: @Sendable (any Sendable) -> [String: JSONValue]
    private let body: Body

    private enum Body: Sendable {
        /// Runs on the engine and writes the reply line; and the same run giving the result
        /// itself, for the HTTP dialects to write in their own shapes.
        case engine(
            line: @Sendable (any Sendable, RequestHandler, RequestID?, ContinuousClock.Instant) throws -> [UInt8],
            result: @Sendable (any Sendable, RequestHandler) throws -> any Sendable
        )
        case connection(@Sendable (any Sendable, ConnectionCall) throws(WireError) -> ConnectionAnswer)
    }

    /// The table. Its order is `info`'s.
    public static let all: [Operation] = [.ping, .info, .reverse, .within, .suggest, .geocode, .cancel, .stats, .auth, .reload]

    public static let named: [String: Operation] = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })
    public static let names = Set(all.map(\.name))
    /// What every request line may carry besides its operation's arguments.
    static let everyRequestsKeys = ["id", "op"]

    /// An operation the engine answers: `run` is the engine call, `answeredBy` where it runs.
    init<Arguments: Sendable, Result: Encodable & Sendable>(
        name: String, syntax: String, summary: String, arguments: [String],
        decode: @escaping @Sendable (ArgumentReader) throws(WireError) -> Arguments,
        encode: @escaping @Sendable (Arguments) -> [String: JSONValue],
        answeredBy: @escaping @Sendable (Arguments) -> Answerer,
        run: @escaping @Sendable (Arguments, RequestHandler) throws -> Result
    ) {
        self.name = name
        self.syntax = syntax
        self.summary = summary
        self.arguments = arguments
        beforeAuthentication = false
        // The engine only reads the index.
        isIdempotent = true
        self.decode = { (reader) throws(WireError) in
            let arguments = try decode(reader)
            return (arguments, answeredBy(arguments))
        }
        place = { ($0 as? Arguments).map(answeredBy) ?? .eventLoop }
        self.encode = { ($0 as? Arguments).map(encode) ?? [:] }
        // Two closures over the same `run`: the line protocol's stays specialised for its
        // result type (no existential on the hot path).
        body = .engine(
            line: { arguments, handler, id, start in
                guard let arguments = arguments as? Arguments else { throw WireError(.internalError, "internal error") }
                let result = try run(arguments, handler)
                return ReplyEncoder.success(id: id, result: result, elapsed: handler.clock.now - start)
            },
            result: { arguments, handler in
                guard let arguments = arguments as? Arguments else { throw WireError(.internalError, "internal error") }
                return try run(arguments, handler)
            }
        )
    }

    /// An operation the connection answers itself, as soon as it is read.
    init<Arguments: Sendable>(
        name: String, syntax: String, summary: String, arguments: [String], beforeAuthentication: Bool = false, idempotent: Bool,
        decode: @escaping @Sendable (ArgumentReader) throws(WireError) -> Arguments,
        encode: @escaping @Sendable (Arguments) -> [String: JSONValue] = { _ in [:] },
        answer: @escaping @Sendable (Arguments, ConnectionCall) throws(WireError) -> ConnectionAnswer
    ) {
        self.name = name
        self.syntax = syntax
        self.summary = summary
        self.arguments = arguments
        self.beforeAuthentication = beforeAuthentication
        isIdempotent = idempotent
        self.decode = { (reader) throws(WireError) in (try decode(reader), Answerer.connection) }
        place = { _ in .connection }
        self.encode = { ($0 as? Arguments).map(encode) ?? [:] }
        body = .connection { (arguments, call) throws(WireError) in
            guard let arguments = arguments as? Arguments else { throw WireError(.internalError, "internal error") }
            return try answer(arguments, call)
        }
    }

    /// Answered by the connection itself rather than the engine.
    public var isAnsweredByConnection: Bool {
        if case .connection = body { return true }
        return false
    }

    func request(_ reader: ArgumentReader) throws(WireError) -> LocusRequest {
        try reader.refuseUnknown(besides: Self.everyRequestsKeys, known: self.arguments, of: name, kind: "argument")
        let (arguments, answeredBy) = try decode(reader)
        return LocusRequest(self, arguments, answeredBy: answeredBy)
    }

    func answeredBy(_ arguments: any Sendable) -> Answerer { place(arguments) }

    func wireArguments(_ arguments: any Sendable) -> [String: JSONValue] { encode(arguments) }

    /// Runs an engine operation's request and writes its reply; nil for one the connection answers.
    func run(_ request: LocusRequest, on handler: RequestHandler, id: RequestID?, started: ContinuousClock.Instant) throws -> [UInt8]? {
        guard case .engine(let run, _) = body else { return nil }
        return try run(request.arguments, handler, id, started)
    }

    /// Runs an engine operation's request and returns its result (`ReverseReply` for `reverse`,
    /// `GeocodeResult` for `geocode`, and so on); nil for one the connection answers.
    func result(_ request: LocusRequest, on handler: RequestHandler) throws -> (any Sendable)? {
        guard case .engine(_, let run) = body else { return nil }
        return try run(request.arguments, handler)
    }

    /// Answers a request of an operation the connection answers itself.
    package func answer(_ request: LocusRequest, _ call: ConnectionCall) throws(WireError) -> ConnectionAnswer {
        guard case .connection(let answer) = body else {
            throw WireError(.internalError, "internal error")
        }
        return try answer(request.arguments, call)
    }
}

extension Operation: Encodable {
    enum CodingKeys: String, CodingKey { case name, syntax, summary, arguments }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encode(syntax, forKey: .syntax)
        try c.encode(summary, forKey: .summary)
        try c.encode(arguments, forKey: .arguments)
    }
}

/// Who answers a request, and on which threads.
public enum Answerer: Sendable {
    /// The connection itself, as soon as the request is read, before requests queued for the
    /// engine: `ping`, `auth`, `cancel`, `stats`, `reload`.
    case connection
    /// The engine, on the connection's event loop, in order: what costs microseconds whatever
    /// the input.
    case eventLoop
    /// The engine, on the server's worker threads (`EngineBatch`): what can cost a millisecond on
    /// hostile input, which would hold up every other connection of the event loop.
    case workers
}
