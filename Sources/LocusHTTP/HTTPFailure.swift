import HTTPTypes
import LocusCore
import LocusWire

/// Why an HTTP request was not answered: the status, a message for the caller and, when one
/// parameter was at fault, its name. Each dialect writes it in its own error shape (Esri's
/// `{"error":{"code","message","details"}}`, Pelias's `geocoding.errors`, Nominatim's
/// `{"error":{"code","message"}}`); a mistake in the request is always a 4xx, never a 500.
struct HTTPFailure: Error, Sendable {
    var status: HTTPResponse.Status
    var message: String
    var parameter: String?
    /// The outcome the metrics count: a wire error code, as the line protocol's requests have.
    var code: WireErrorCode

    init(_ status: HTTPResponse.Status, _ message: String, parameter: String? = nil, code: WireErrorCode? = nil) {
        self.status = status
        self.message = message
        self.parameter = parameter
        self.code = code ?? Self.code(for: status)
    }

    /// An operation's error, with the status that says the same thing.
    init(_ error: WireError) {
        self.init(Self.status(for: error.code), error.message, code: error.code)
    }

    init(_ error: LocusError) { self.init(WireError(error)) }

    static func status(for code: WireErrorCode) -> HTTPResponse.Status {
        switch code {
        case .invalidJSON, .invalidRequest, .invalidArgument, .unknownOp: .badRequest
        case .notFound: .notFound
        case .tooLarge: .contentTooLarge
        case .unauthorized: .unauthorized
        case .overloaded: .serviceUnavailable
        case .timeout: .gatewayTimeout
        case .cancelled: .badRequest
        default: .internalServerError
        }
    }

    private static func code(for status: HTTPResponse.Status) -> WireErrorCode {
        switch status.code {
        case 401, 403: .unauthorized
        case 404: .notFound
        case 413, 414: .tooLarge
        case 503: .overloaded
        case 400..<500: .invalidArgument
        default: .internalError
        }
    }
}
