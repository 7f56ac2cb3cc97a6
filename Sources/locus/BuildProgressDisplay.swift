import Foundation
import LocusBatch
import LocusEngine

/// The progress of an index build on standard error: one line redrawn on a terminal, a line per
/// stage (not per 50,000 rows) in a log.
enum BuildProgressDisplay {
    static func make() -> @Sendable (IndexBuildProgress) -> Void {
        let started = ContinuousClock.now
        return { stage in
            let seconds = String(format: "%.1f s", (ContinuousClock.now - started) / .seconds(1))
            switch stage {
            case .addresses(let rows):
                guard Output.standardErrorIsTerminal else { return }
                FileHandle.standardError.write(Data("\r\u{1B}[K  addresses: \(BatchProgress.grouped(rows)) rows read (\(seconds))".utf8))
            case .layer(let name):
                show("  layer \(name) (\(seconds))")
            case .lots(let layer):
                show("  linking addresses to the lots of \(layer) (\(seconds))")
            case .searchTables:
                show("  search tables (\(seconds))")
            case .writing:
                show("  writing the index (\(seconds))")
            }
        }
    }

    private static func show(_ line: String) {
        FileHandle.standardError.write(Data(((Output.standardErrorIsTerminal ? "\r\u{1B}[K" : "") + line + (Output.standardErrorIsTerminal ? "" : "\n")).utf8))
    }

    static func finish() {
        if Output.standardErrorIsTerminal { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }
}
