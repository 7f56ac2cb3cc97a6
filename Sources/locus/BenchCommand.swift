import ArgumentParser
import Foundation
import LocusCore
import LocusEngine

extension Locus {
    struct Bench: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Measure in-process query throughput on one core (build with -c release).",
            discussion: """
            Points are drawn from a seeded generator, so runs are comparable. `within` points are
            uniform over the layer's extent; `reverse` points are address points moved up to
            60 m in x and y, where a field app's points fall. --write-points saves them as CSV
            (x,y) so a peer can be timed on exactly the same points.
            """,
            subcommands: [WithinBench.self, ReverseBench.self, GEOSWithinBench.self]
        )
    }
}

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
        let seconds = Double(best.components.seconds) + Double(best.components.attoseconds) / 1e18
        Output.line(String(format: "%@: %d points in %.3f s = %.0f points/s (best of %d; checksum %d)",
                           label, count, seconds, Double(count) / seconds, repeats, checksum))
    }
}

/// SplitMix64: small, fast, and the same sequence on every platform.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

func uniformPoints(in e: Envelope, count: Int, seed: UInt64) -> [GeoPoint] {
    var rng = SeededGenerator(state: seed)
    return (0..<count).map { _ in
        GeoPoint(x: Double.random(in: e.minX...e.maxX, using: &rng), y: Double.random(in: e.minY...e.maxY, using: &rng))
    }
}

extension Locus.Bench {
    struct WithinBench: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "within", abstract: "Point-in-polygon throughput of Locus's layer.")
        @OptionGroup var bench: BenchOptions
        @Option(help: "Layer.") var layer: String = "neighborhoods"
        @OptionGroup var index: IndexOptions

        func run() throws {
            let idx = try index.open(.layers)
            guard let l = idx.layers[layer] else { throw ValidationError("no layer \(layer)") }
            var extent = Envelope.empty
            for f in l.features { extent.extend(f.envelope) }
            let pts = uniformPoints(in: extent, count: bench.points, seed: bench.seed)
            try bench.save(pts)
            bench.time("locus within (\(layer))", count: pts.count) {
                var hits = 0
                for p in pts { hits &+= l.coveringCount(x: p.x, y: p.y) }
                return hits
            }
        }
    }

    struct GEOSWithinBench: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "geos-within",
            abstract: "The same points through a raw GEOS loop: STRtree + prepared covers (the peer)."
        )
        @OptionGroup var bench: BenchOptions
        @Option(help: "Layer.") var layer: String = "neighborhoods"
        @OptionGroup var index: IndexOptions

        func run() throws {
            let idx = try index.open(.layers)
            guard let l = idx.layers[layer] else { throw ValidationError("no layer \(layer)") }
            var extent = Envelope.empty
            for f in l.features { extent.extend(f.envelope) }
            let pts = uniformPoints(in: extent, count: bench.points, seed: bench.seed)
            let geos = try GEOSReferenceLayer(polygonsWKB: idx.layerWKB(layer))
            try bench.time("raw GEOS within (\(layer))", count: pts.count) {
                var hits = 0
                for p in pts { hits &+= try geos.countCovering(x: p.x, y: p.y) }
                return hits
            }
        }
    }

    struct ReverseBench: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "reverse", abstract: "Reverse geocoding throughput, full answers included.")
        @OptionGroup var bench: BenchOptions
        @Option(help: "Search radius in metres.") var maxDistance: Double = 100
        @OptionGroup var index: IndexOptions

        func run() throws {
            let idx = try index.open(.addresses)
            guard let a = idx.addresses, a.count > 0 else { throw ValidationError("the index has no addresses") }
            var rng = SeededGenerator(state: bench.seed)
            let pts: [GeoPoint] = (0..<bench.points).map { _ in
                let p = a.points[Int.random(in: 0..<a.count, using: &rng)]
                let s = LocalMetricScale(latitude: p.lat)
                return GeoPoint(x: p.lon + Double.random(in: -60...60, using: &rng) / s.metresPerDegreeX,
                                y: p.lat + Double.random(in: -60...60, using: &rng) / s.metresPerDegreeY)
            }
            try bench.save(pts)
            let locator = Locator(index: idx)
            try bench.time("locus reverse (nearest address + answer)", count: pts.count) {
                var found = 0
                for p in pts {
                    var r = ReverseRequest(location: p)
                    r.maxDistance = maxDistance
                    if let answer = try locator.reverse(r) { found &+= answer.address.utf8.count > 0 ? 1 : 0 }
                }
                return found
            }
            bench.time("locus reverse (nearest search only)", count: pts.count) {
                var found = 0
                for p in pts where a.nearest(lon: p.x, lat: p.y, maxDistance: maxDistance) != nil { found &+= 1 }
                return found
            }
        }
    }
}
