import Foundation
import LocusCore
import LocusEngine
import LocusProtocol
import LocusWire
import NIOConcurrencyHelpers
import NIOPosix

/// The index the server answers from, and the switch to a new one on reload.
///
/// A request takes the index current when it starts and keeps it to the end, so a reload never
/// changes an answer half-way: requests in flight finish on the old index, later ones use the new.
/// The old index is freed when its last request and its last per-thread handler let go of it.
public final class ServingIndex: Sendable {
    /// One loaded index and its place in the sequence of reloads.
    public struct Generation: Sendable {
        public var number: Int
        public var index: LocusIndex
        public var loadedAt: Date
        public var loadSeconds: Double
    }

    private let current: NIOLockedValueBox<Generation>
    /// A reload in progress (reloads take about a second and are serialised: a second SIGHUP
    /// waits rather than loading the file twice at once).
    private let reloadLock = NIOLock()
    /// Where `reload(path: nil)` reads from: the path given at start, or the last one loaded.
    private let defaultPath: NIOLockedValueBox<String>
    private let loadParts: LocusIndex.Parts
    /// Each event-loop thread's request handler (it owns PROJ transformations, which belong to one
    /// thread), made again when the generation changes.
    private let handlers = ThreadSpecificVariable<ThreadHandler>()
    private let limits: RequestLimits

    // Unchecked: a value is only ever read and written by the thread it belongs to.
    final class ThreadHandler: @unchecked Sendable {
        let generation: Int
        let handler: RequestHandler
        init(generation: Int, handler: RequestHandler) {
            self.generation = generation
            self.handler = handler
        }
    }

    /// Whether reloaded indexes map their address tables (see `LocusIndex.init(path:loading:synonyms:mapped:)`).
    private let mapped: Bool

    public init(index: LocusIndex, loadSeconds: Double = 0, parts: LocusIndex.Parts = .all, limits: RequestLimits = RequestLimits(),
                mapped: Bool = false) {
        self.mapped = mapped
        current = NIOLockedValueBox(Generation(number: 1, index: index, loadedAt: Date(), loadSeconds: loadSeconds))
        defaultPath = NIOLockedValueBox(index.path)
        loadParts = parts
        self.limits = limits
        // Read the known spatial references now (about 15 ms), not on some request's time.
        _ = SpatialReferenceCatalog.shared
    }

    public var generation: Generation { current.withLockedValue { $0 } }

    /// The file SIGHUP and a `reload` without a path load: the one given at start, until a
    /// `reload` with a path switches to another (then that one, as it is the one served).
    public var reloadPath: String { defaultPath.withLockedValue { $0 } }

    /// The handler for the calling thread, answering from the current index.
    package func handler() -> RequestHandler {
        let g = current.withLockedValue { ($0.number, $0.index) }
        if let h = handlers.currentValue, h.generation == g.0 { return h.handler }
        let h = ThreadHandler(generation: g.0, handler: RequestHandler(index: g.1, limits: limits))
        handlers.currentValue = h
        return h.handler
    }

    /// Loads `path` (default: the current index's path, typically rebuilt and renamed into place)
    /// and switches to it. A missing, corrupt or wrong-version file is refused with the reason and
    /// the current index keeps serving. Blocking: call it off the event loops.
    public func reload(path: String? = nil) -> Result<Generation, LocusError> {
        reloadLock.withLock {
            let target = path ?? defaultPath.withLockedValue { $0 }
            let clock = ContinuousClock()
            let start = clock.now
            let index: LocusIndex
            do {
                index = try LocusIndex(path: target, loading: loadParts, mapped: mapped)
                if loadParts.contains(.search) { index.search?.prepare() }
            } catch let error as LocusError {
                return .failure(error)
            } catch {
                return .failure(LocusError(.internalError, "internal error"))
            }
            let seconds = (clock.now - start).inSeconds
            let g = current.withLockedValue { g -> Generation in
                g = Generation(number: g.number + 1, index: index, loadedAt: Date(), loadSeconds: seconds)
                return g
            }
            defaultPath.withLockedValue { $0 = target }
            return .success(g)
        }
    }
}
