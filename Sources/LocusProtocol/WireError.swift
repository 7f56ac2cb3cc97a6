import LocusCore

/// The error codes a protocol reply can carry. Stable: clients switch on them.
public enum WireErrorCode: String, Sendable, CaseIterable, Codable {
    /// The line is not valid UTF-8 JSON.
    case invalidJSON = "invalid_json"
    /// Valid JSON, but not a request object (an array, no `op`, a bad `id`).
    case invalidRequest = "invalid_request"
    /// `op` names no operation.
    case unknownOp = "unknown_op"
    /// An argument is missing, of the wrong type or out of range.
    case invalidArgument = "invalid_argument"
    /// The thing asked for does not exist (a layer, a key, an address within reach).
    case notFound = "not_found"
    /// A line, text or list longer than the limits.
    case tooLarge = "too_large"
    case timeout
    case cancelled
    case overloaded
    case unauthorized
    /// A fault inside Locus; the message never carries library or Swift error text.
    case internalError = "internal"

    /// The wire code for an engine error.
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
