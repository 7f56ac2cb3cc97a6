import LocusCore

/// The error codes a protocol reply can carry. Stable: clients switch on them.
///
/// A struct over a private enum, as `ErrorCode` is, so that a new code is not a breaking change
/// to clients' exhaustive switches; a code a client does not know (a newer server's) still reads.
public struct WireErrorCode: Hashable, Sendable, Codable, CustomStringConvertible {
    private enum Base: String, Sendable, CaseIterable {
        case invalidJSON = "invalid_json"
        case invalidRequest = "invalid_request"
        case unknownOp = "unknown_op"
        case invalidArgument = "invalid_argument"
        case notFound = "not_found"
        case tooLarge = "too_large"
        case timeout
        case cancelled
        case overloaded
        case unauthorized
        case internalError = "internal"
    }

    private let base: Base
    private init(base: Base) { self.base = base }

    /// The code as the reply carries it.
    public var rawValue: String { base.rawValue }
    public var description: String { base.rawValue }

    /// The code for `rawValue`; nil for a code this build does not know.
    public init?(rawValue: String) {
        guard let base = Base(rawValue: rawValue) else { return nil }
        self.base = base
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let base = Base(rawValue: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "unknown error code \(text)"))
        }
        self.base = base
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }

    /// Every code, for checks that a reply carries one of them.
    public static let allCases = Base.allCases.map { WireErrorCode(base: $0) }

    /// The line is not valid UTF-8 JSON.
    public static let invalidJSON = WireErrorCode(base: .invalidJSON)
    /// Valid JSON, but not a request object (an array, no `op`, a bad `id`).
    public static let invalidRequest = WireErrorCode(base: .invalidRequest)
    /// `op` names no operation.
    public static let unknownOp = WireErrorCode(base: .unknownOp)
    /// An argument is missing, of the wrong type or out of range.
    public static let invalidArgument = WireErrorCode(base: .invalidArgument)
    /// The thing asked for does not exist (a layer, a key, an address within reach).
    public static let notFound = WireErrorCode(base: .notFound)
    /// A line, text or list longer than the limits.
    public static let tooLarge = WireErrorCode(base: .tooLarge)
    /// The request had not started within the deadline of being read.
    public static let timeout = WireErrorCode(base: .timeout)
    /// A `cancel` reached the request before it started.
    public static let cancelled = WireErrorCode(base: .cancelled)
    /// The server has its maximum of connections open.
    public static let overloaded = WireErrorCode(base: .overloaded)
    /// The connection has not authenticated, or the operation is not allowed to it.
    public static let unauthorized = WireErrorCode(base: .unauthorized)
    /// A fault inside Locus; the message never carries library or Swift error text.
    public static let internalError = WireErrorCode(base: .internalError)

    /// The wire code for an engine error: the engine's codes about the request keep their name,
    /// the rest (a damaged index, a failed import) are internal faults to a client.
    public init(_ code: ErrorCode) {
        switch code {
        case .invalidArgument: self = .invalidArgument
        case .notFound: self = .notFound
        case .tooLarge: self = .tooLarge
        default: self = .internalError
        }
    }
}

/// An error as a reply carries it.
public struct WireError: Error, Sendable, Equatable, Codable {
    public var code: WireErrorCode
    public var message: String

    public init(_ code: WireErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    /// Engine errors keep their message when it is about the request; internal faults do not.
    public init(_ error: LocusError) {
        code = WireErrorCode(error.code)
        message = code == .internalError ? "internal error" : error.message
    }
}
