import LocusCore
import LocusWire

/// A request line, decoded and validated: its operation, and the arguments that operation's
/// descriptor decoded (of the type its `decode` returns).
public struct LocusRequest: Sendable {
    public let operation: Operation
    public let arguments: any Sendable
    /// Who answers it and where, decided once, as it was decoded.
    public let answeredBy: Answerer

    public var op: String { operation.name }
    /// May be sent again when its connection is lost before the reply (see `Operation.isIdempotent`).
    public var isIdempotent: Bool { operation.isIdempotent }

    init(_ operation: Operation, _ arguments: any Sendable, answeredBy: Answerer) {
        self.operation = operation
        self.arguments = arguments
        self.answeredBy = answeredBy
    }

    /// A request built in code, to run in process or send to a server (`wireArguments`):
    /// `arguments` are of the type the operation's `decode` returns (`GeocodeArguments` for
    /// `.geocode`, and so on).
    public init(_ operation: Operation, _ arguments: any Sendable) {
        self.init(operation, arguments, answeredBy: operation.answeredBy(arguments))
    }

    /// The request's arguments as a request line carries them, without `id` and `op`: what the
    /// operation's decoding reads back into the same arguments.
    public var wireArguments: [String: JSONValue] { operation.wireArguments(arguments) }
}
