/// A stable, machine-readable error code. Clients switch on `code`; the message is for people.
///
/// A struct over a private enum so new codes can be added without breaking exhaustive switches
/// in client code, as swift-nio does for its error types.
public struct ErrorCode: Hashable, Sendable, CustomStringConvertible {
    private enum Base: String, Sendable {
        case invalidArgument = "invalid_argument"
        case notFound = "not_found"
        case tooLarge = "too_large"
        case invalidIndex = "invalid_index"
        case importFailed = "import_failed"
        case internalError = "internal"
    }

    private let base: Base
    private init(_ base: Base) { self.base = base }

    public var description: String { base.rawValue }

    /// The caller gave a value Locus cannot use: a coordinate out of range, an unknown wkid.
    public static let invalidArgument = ErrorCode(.invalidArgument)
    /// A named thing (layer, file, index) does not exist.
    public static let notFound = ErrorCode(.notFound)
    /// A request exceeds a configured limit.
    public static let tooLarge = ErrorCode(.tooLarge)
    /// The index file is unreadable, corrupt or of another schema version.
    public static let invalidIndex = ErrorCode(.invalidIndex)
    /// Source data could not be imported at all (not a single bad row: those are counted).
    public static let importFailed = ErrorCode(.importFailed)
    /// A fault inside Locus. Never carries library text to clients.
    public static let internalError = ErrorCode(.internalError)
}

/// The one error type that crosses the engine's boundary. Messages are written for the user and
/// never contain raw text from a C library unless it explains the user's own input.
public struct LocusError: Error, Sendable, CustomStringConvertible, Equatable {
    public let code: ErrorCode
    public let message: String

    public init(_ code: ErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
