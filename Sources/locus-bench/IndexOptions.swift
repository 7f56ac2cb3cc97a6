import ArgumentParser
import Foundation
import LocusCore
import LocusEngine

/// The index a benchmark reads. Unlike `locus`, the benchmarks never build the default index:
/// a figure must not include a build nobody asked for.
struct IndexOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Index file. Default: $LOCUS_INDEX, else Index/portland.locus in the checkout.", valueName: "path"))
    var index: String?

    var path: String {
        if let index { return index }
        if let path = ProcessInfo.processInfo.environment["LOCUS_INDEX"] { return path }
        return Self.checkout.appendingPathComponent("Index/portland.locus").path
    }

    func open(_ parts: LocusIndex.Parts) throws -> LocusIndex {
        guard FileManager.default.fileExists(atPath: path) else {
            throw ValidationError("no index at \(path): build it with `locus index build`, or give --index")
        }
        return try LocusIndex(path: path, loading: parts)
    }

    /// The checkout holding `Data/portland/dataset.json`, found from the working directory or from
    /// the executable (in `.build/release` inside it); $LOCUS_HOME as the Dockerfile installs it.
    static var checkout: URL {
        if let home = ProcessInfo.processInfo.environment["LOCUS_HOME"] { return URL(fileURLWithPath: home) }
        let starts = [URL(fileURLWithPath: FileManager.default.currentDirectoryPath), Output.executable.deletingLastPathComponent()]
        for start in starts {
            var dir = start
            for _ in 0..<8 {
                if FileManager.default.fileExists(atPath: dir.appendingPathComponent("Data/portland/dataset.json").path) { return dir }
                dir.deleteLastPathComponent()
            }
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    }
}
