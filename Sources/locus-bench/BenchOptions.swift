import ArgumentParser
import Foundation
import LocusCore
import LocusEngine
import LocusEvaluation

struct BenchOptions: ParsableArguments {
    @Option(help: "How many points.") var points: Int = 1_000_000
    @Option(help: "Seed of the point generator.") var seed: UInt64 = 42
    @Option(help: "Timed repetitions; the best is reported.") var repeats: Int = 3
    @Option(help: ArgumentHelp("Write the points as CSV (x,y) to this file.", valueName: "path")) var writePoints: String?

    func validate() throws {
        guard points > 0, points <= 50_000_000 else { throw ValidationError("--points must be 1 … 50,000,000") }
        guard repeats > 0 else { throw ValidationError("--repeats must be positive") }
    }

    func save(_ pts: [GeoPoint]) throws {
        guard let path = writePoints else { return }
        var text = "x,y\n"
        text.reserveCapacity(pts.count * 26)
        for p in pts { text += "\(p.x),\(p.y)\n" }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// Runs `body` `repeats` times and prints the best rate.
    func time(_ label: String, count: Int, _ body: () throws -> Int) rethrows {
        var best = Duration.seconds(1_000_000)
        var checksum = 0
        for _ in 0..<repeats {
            let clock = ContinuousClock()
            let start = clock.now
            checksum = try body()
            best = min(best, clock.now - start)
        }
        let seconds = best.inSeconds
        Output.line(String(format: "%@: %d points in %.3f s = %.0f points/s (best of %d; checksum %d)",
                           label, count, seconds, Double(count) / seconds, repeats, checksum))
    }
}

/// What both `within` benchmarks share: the layer and the same points, uniform over its extent.
struct WithinBenchSetup: ParsableArguments {
    @OptionGroup var bench: BenchOptions
    @Option(help: "Layer.") var layer: String = "neighborhoods"
    @OptionGroup var index: IndexOptions

    func prepare() throws -> (LocusIndex, BoundaryLayer, [GeoPoint]) {
        let idx = try index.open(.layers)
        guard let l = idx.layers[layer] else { throw ValidationError("no layer \(layer)") }
        return (idx, l, BenchmarkInputs.pointsOver(l, count: bench.points, seed: bench.seed))
    }
}
