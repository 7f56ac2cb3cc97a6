import Foundation
import LocusCore
import LocusEngine

/// The default index: the Portland dataset defined in `Data/portland/dataset.json`, built from the
/// data folder into `Index/portland.locus` beside the checkout the first time a command needs it.
struct DefaultDataset {
    let environment = ProcessInfo.processInfo.environment
    let dataDirectoryOption: String?

    init(dataDirectory: String?) {
        dataDirectoryOption = dataDirectory
    }

    /// The folder holding `Data/` and `Index/`: the checkout (found from the working directory or
    /// the executable's location), or $LOCUS_HOME as installed by the Dockerfile.
    var home: String {
        if let h = environment["LOCUS_HOME"] { return h }
        let starts = [FileManager.default.currentDirectoryPath,
                      URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().path]
        for start in starts {
            var dir = URL(fileURLWithPath: start)
            for _ in 0..<8 {
                if FileManager.default.fileExists(atPath: dir.appendingPathComponent("Data/portland/dataset.json").path) { return dir.path }
                dir.deleteLastPathComponent()
            }
        }
        return FileManager.default.currentDirectoryPath
    }

    var datasetPath: String {
        environment["LOCUS_DATASET"] ?? URL(fileURLWithPath: home).appendingPathComponent("Data/portland/dataset.json").path
    }

    var dataDirectory: String {
        dataDirectoryOption ?? environment["LOCUS_DATA_DIR"] ?? URL(fileURLWithPath: home).appendingPathComponent("../shared/data").standardized.path
    }

    var indexPath: String {
        environment["LOCUS_INDEX"] ?? URL(fileURLWithPath: home).appendingPathComponent("Index/portland.locus").path
    }

    /// The index a command reads: the one named (`--index`, `index info PATH`), else the default
    /// one, built first when it is missing or of an older schema. Missing either way is an
    /// unusable index to the CLI (exit 65), not "nothing found".
    func indexPath(named explicit: String?) throws -> String {
        if let explicit { return explicit }
        try unusableIfMissing { try ensureIndex() }
        return indexPath
    }

    /// Builds the default index when it is missing or of an older schema.
    func ensureIndex() throws {
        if FileManager.default.fileExists(atPath: indexPath) {
            switch Result(catching: { () throws(LocusError) in try LocusIndex.metadata(path: indexPath) }) {
            case .success:
                return
            case .failure(let error):
                guard error.code == .invalidIndex else { throw error }
                Output.note("locus: the default index is unusable (\(error.message)); rebuilding it")
            }
        }
        Output.note("locus: building the default index at \(indexPath) from \(dataDirectory) (once)…")
        let report = try build()
        Output.note("locus: indexed \(report.addresses) addresses and \(report.layers.map { "\($0.features) \($0.name)" }.joined(separator: ", ")) in \(String(format: "%.1f", report.seconds)) s")
    }

    func build() throws(LocusError) -> IndexBuildReport {
        let definition = try DatasetDefinition.load(path: datasetPath)
        var config = try definition.buildConfiguration(dataDirectory: dataDirectory, output: indexPath, definitionPath: datasetPath)
        config.buildDate = BuildClock.now
        config.progress = BuildProgressDisplay.make()
        defer { BuildProgressDisplay.finish() }
        return try IndexBuilder.build(config)
    }
}

/// The build time to record: SOURCE_DATE_EPOCH when set, so that builds are reproducible.
enum BuildClock {
    static var now: Date {
        if let s = ProcessInfo.processInfo.environment["SOURCE_DATE_EPOCH"], let t = TimeInterval(s) {
            return Date(timeIntervalSince1970: t)
        }
        return Date()
    }
}
