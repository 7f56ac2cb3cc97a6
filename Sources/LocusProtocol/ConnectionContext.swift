import LocusCore
import LocusWire

/// What an operation the connection answers itself (`Answerer.connection`) may ask of the
/// connection: the server's `ConnectionHandler` is one; `RequestHandler`, which answers requests
/// in process where there is no connection, is another, and refuses all of it.
public protocol ConnectionContext {
    /// Authenticates the connection with `token`; false when the token is refused.
    func authenticate(token: String) throws(WireError) -> Bool
    /// Cancels the first request with id `target` not yet started (it is answered `cancelled`);
    /// false when none is waiting.
    func cancel(_ target: RequestID, by id: RequestID?) throws(WireError) -> Bool
    /// The `stats` result object.
    func statistics() throws(WireError) -> any Encodable & Sendable
    /// Starts switching to another index; the connection answers request `id` when it is done.
    func reload(path: String?, id: RequestID?, received: ContinuousClock.Instant) throws(WireError)
}

/// One request of an operation the connection answers: the connection, and the request's id
/// and arrival (for the replies it makes later).
public struct ConnectionCall {
    public let connection: any ConnectionContext
    public let id: RequestID?
    public let received: ContinuousClock.Instant

    public init(connection: any ConnectionContext, id: RequestID?, received: ContinuousClock.Instant) {
        self.connection = connection
        self.id = id
        self.received = received
    }
}

/// How a connection answers such a request.
public enum ConnectionAnswer: Sendable {
    /// Now, with this result object.
    case result(any Encodable & Sendable)
    /// Later: the connection writes the reply when the work it started is done (`reload`).
    case later
}
