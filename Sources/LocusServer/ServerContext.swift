import Dispatch
import Foundation
import LocusCore
import LocusProtocol
import LocusWire
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// What every connection of one server shares.
public final class ServerContext: Sendable {
    let configuration: ServerConfiguration
    let index: ServingIndex
    let stats: ServerStats
    let tokens: AccessTokens
    let logger: Logger
    let decoder: RequestDecoder
    /// Reloads block for about a second; they run here, one at a time, never on an event loop.
    let reloadQueue = DispatchQueue(label: "locus.reload")
    /// The threads that answer geocode and suggest (see `ConnectionHandler`). Nil: each
    /// connection's own event loop answers them, on a later turn — for `EmbeddedChannel` tests,
    /// whose loop no other thread may wake.
    let workers: NIOThreadPool?
    private let loopTurns = NIOLockedValueBox<[ObjectIdentifier: LoopTurns]>([:])

    public init(configuration: ServerConfiguration, index: ServingIndex, stats: ServerStats, logger: Logger, workers: NIOThreadPool? = nil) {
        self.configuration = configuration
        self.index = index
        self.stats = stats
        self.logger = logger
        self.workers = workers
        tokens = AccessTokens(configuration.tokens)
        var limits = configuration.requestLimits
        limits.maximumLineBytes = configuration.maximumLineBytes
        decoder = RequestDecoder(limits: limits)
    }

    /// The rounds of `loop`'s connections that have used up their slice.
    func turns(on loop: any EventLoop) -> LoopTurns {
        loopTurns.withLockedValue { all in
            if let t = all[ObjectIdentifier(loop)] { return t }
            let t = LoopTurns(eventLoop: loop)
            all[ObjectIdentifier(loop)] = t
            return t
        }
    }

    /// Reloads off the event loops and logs the outcome; the old index serves until it succeeds.
    func reload(path: String?, on eventLoop: any EventLoop, reason: String) -> EventLoopFuture<Result<ServingIndex.Generation, LocusError>> {
        let promise = eventLoop.makePromise(of: Result<ServingIndex.Generation, LocusError>.self)
        reloadQueue.async { [self] in
            let before = index.reloadPath
            let result = index.reload(path: path)
            switch result {
            case .success(let g):
                stats.reloaded(ok: true)
                logger.info("reloaded the index", metadata: [
                    "reason": "\(reason)", "path": "\(g.index.path)", "generation": "\(g.number)",
                    "seconds": "\(String(format: "%.2f", g.loadSeconds))",
                ])
                if index.reloadPath != before {
                    logger.notice("SIGHUP and reloads without a path now load this file, not the one before", metadata: [
                        "reload_path": "\(index.reloadPath)", "was": "\(before)",
                    ])
                }
            case .failure(let e):
                stats.reloaded(ok: false)
                logger.error("refused the new index; the current one keeps serving", metadata: [
                    "reason": "\(reason)", "error": "\(e.message)", "generation": "\(index.generation.number)",
                ])
            }
            promise.succeed(result)
        }
        return promise.futureResult
    }
}
