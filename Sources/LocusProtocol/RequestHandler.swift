import LocusCore
import LocusEngine

/// Runs decoded requests against an index and encodes their replies: the three stages after
/// decoding (validate into a typed request → engine → format), in one place.
///
/// Owns a `Locator` (PROJ transformations), so it belongs to one thread at a time; the index it
/// reads is shared.
public final class RequestHandler {
    public let index: LocusIndex
    private let locator: Locator
    private let decoder: RequestDecoder
    private let clock = ContinuousClock()

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
            return reply(id: id, request, started: start)
        }
    }

    /// The reply to an already decoded request.
    public func reply(id: RequestID?, _ request: LocusRequest, started: ContinuousClock.Instant? = nil) -> [UInt8] {
        answer(id: id, request, started: started).line
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
            return Answer(line: try run(id: id, request, start: start), error: nil)
        } catch let error as WireError {
            return Answer(line: ReplyEncoder.failure(id: id, error: error, elapsed: clock.now - start), error: error.code)
        } catch let error as LocusError {
            let wire = WireError(error)
            return Answer(line: ReplyEncoder.failure(id: id, error: wire, elapsed: clock.now - start), error: wire.code)
        } catch {
            return Answer(line: ReplyEncoder.failure(id: id, error: WireError(.internalError, "internal error"), elapsed: clock.now - start), error: .internalError)
        }
    }

    private func run(id: RequestID?, _ request: LocusRequest, start: ContinuousClock.Instant) throws -> [UInt8] {
        switch request {
        case .ping:
            return ReplyEncoder.success(id: id, result: Pong(), elapsed: clock.now - start)
        case .info:
            return ReplyEncoder.success(id: id, result: LocatorInfo(index: index.metadata), elapsed: clock.now - start)
        case .stats, .cancel, .auth, .reload:
            // Connection-level operations: the server answers these itself.
            throw WireError(.invalidRequest, "\(request.op) is answered by the server, not the engine")
        case .reverse(let r, let layers):
            return ReplyEncoder.success(id: id, result: try ReverseReply(r, layers: layers, locator: locator), elapsed: clock.now - start)
        case .within(let w):
            return ReplyEncoder.success(id: id, result: try locator.within(w), elapsed: clock.now - start)
        case .suggest(let s, let reference):
            return ReplyEncoder.success(id: id, result: try locator.suggest(s, near: reference), elapsed: clock.now - start)
        case .geocode(let g, let reference, let out):
            return ReplyEncoder.success(id: id, result: try locator.geocode(g, near: reference, outSpatialReference: out), elapsed: clock.now - start)
        }
    }
}
