import LocusCore
import LocusEngine
import LocusWire

/// Runs decoded requests against an index and writes their replies: the stages after decoding
/// (engine → format), for every operation the engine answers, through its descriptor.
///
/// Owns a `Locator` (PROJ transformations), so it belongs to one thread at a time; the index it
/// reads is shared. In process (tests, fuzzers) it answers `ping` too; the other operations a
/// connection answers itself are refused, as there is no connection.
public final class RequestHandler {
    public let index: LocusIndex
    /// The handler's own coordinate transformations (for adapters that give answers in other
    /// shapes: an extent around a candidate, a polygon's rings in the caller's reference).
    public let locator: Locator
    private let decoder: RequestDecoder
    let clock = ContinuousClock()

    public init(index: LocusIndex, limits: RequestLimits = RequestLimits()) {
        self.index = index
        locator = Locator(index: index)
        decoder = RequestDecoder(limits: limits)
    }

    /// One request line in, one reply line (with its newline) out.
    public func reply(to line: some Collection<UInt8>) -> [UInt8] {
        let start = clock.now
        switch decoder.decode(line) {
        case .failure(let f):
            return ReplyEncoder.failure(id: f.id, error: f.error, elapsed: clock.now - start)
        case .success(let (id, request)):
            return answer(id: id, request, started: start).line
        }
    }

    /// A reply line and its outcome: nil when it succeeded, else the error code it carries.
    public struct Answer: Sendable {
        public var line: [UInt8]
        public var error: WireErrorCode?
    }

    /// The reply to an already decoded request, with its outcome for the server's counters.
    public func answer(id: RequestID?, _ request: LocusRequest, started: ContinuousClock.Instant? = nil) -> Answer {
        let start = started ?? clock.now
        do {
            if let line = try request.operation.run(request, on: self, id: id, started: start) {
                return Answer(line: line, error: nil)
            }
            switch try request.operation.answer(request, ConnectionCall(connection: self, id: id, received: start)) {
            case .result(let result):
                return Answer(line: ReplyEncoder.success(id: id, result: result, elapsed: clock.now - start), error: nil)
            case .later:
                throw WireError(.internalError, "internal error")
            }
        } catch let error as WireError {
            return failure(id: id, error, since: start)
        } catch let error as LocusError {
            return failure(id: id, WireError(error), since: start)
        } catch {
            return failure(id: id, WireError(.internalError, "internal error"), since: start)
        }
    }

    /// The result of an engine operation's request, as the operation's `run` returns it, for the
    /// HTTP dialects: the same answer as the reply line carries. Throws the request's error as a
    /// `WireError`.
    public func result<T>(_ request: LocusRequest, as type: T.Type) throws(WireError) -> T {
        let value: (any Sendable)?
        do {
            value = try request.operation.result(request, on: self)
        } catch let error as WireError {
            throw error
        } catch let error as LocusError {
            throw WireError(error)
        } catch {
            throw WireError(.internalError, "internal error")
        }
        guard let typed = value as? T else { throw WireError(.internalError, "internal error") }
        return typed
    }

    private func failure(id: RequestID?, _ error: WireError, since start: ContinuousClock.Instant) -> Answer {
        Answer(line: ReplyEncoder.failure(id: id, error: error, elapsed: clock.now - start), error: error.code)
    }
}

/// In process there is no connection to authenticate, cancel on, count or reload.
extension RequestHandler: ConnectionContext {
    private static func connectionOnly(_ op: String) -> WireError {
        WireError(.invalidRequest, "\(op) is answered by the server, not the engine")
    }

    public func authenticate(token: String) throws(WireError) -> Bool { throw Self.connectionOnly("auth") }
    public func cancel(_ target: RequestID, by id: RequestID?) throws(WireError) -> Bool { throw Self.connectionOnly("cancel") }
    public func statistics() throws(WireError) -> any Encodable & Sendable { throw Self.connectionOnly("stats") }
    public func reload(path: String?, id: RequestID?, received: ContinuousClock.Instant) throws(WireError) {
        throw Self.connectionOnly("reload")
    }
}
