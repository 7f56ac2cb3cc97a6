import ArgumentParser
import Foundation
import LocusCore
import LocusEngine

extension Locus {
    struct Bench: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Measure in-process query throughput on one core (build with -c release).",
            discussion: """
            Points are drawn from a seeded generator, so runs are comparable. `within` points are
            uniform over the layer's extent; `reverse` points are address points moved up to
            60 m in x and y, where a field app's points fall. --write-points saves them as CSV
            (x,y) so a peer can be timed on exactly the same points.
            """,
            subcommands: [WithinBench.self, ReverseBench.self, GEOSWithinBench.self, SuggestBench.self, GeocodeBench.self, ServerBench.self, ProtocolBench.self, StartupBench.self, TypedAddresses.self, WorstCaseBench.self, AttackBench.self]
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
        let seconds = best.inSeconds
        Output.line(String(format: "%@: %d points in %.3f s = %.0f points/s (best of %d; checksum %d)",
                           label, count, seconds, Double(count) / seconds, repeats, checksum))
    }
}

extension Locus.Bench {
    struct WithinBench: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "within", abstract: "Point-in-polygon throughput of Locus's layer.")
        @OptionGroup var setup: WithinBenchSetup

        func run() throws {
            let (_, layer, points) = try setup.prepare()
            try setup.bench.save(points)
            setup.bench.time("locus within (\(setup.layer))", count: points.count) {
                var hits = 0
                for p in points { hits &+= layer.coveringCount(x: p.x, y: p.y) }
                return hits
            }
        }
    }

    struct GEOSWithinBench: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "geos-within",
            abstract: "The same points through a raw GEOS loop: STRtree + prepared covers (the peer)."
        )
        @OptionGroup var setup: WithinBenchSetup

        func run() throws {
            let (index, _, points) = try setup.prepare()
            let geos = try GEOSReferenceLayer(polygonsWKB: index.layerWKB(setup.layer))
            try setup.bench.time("raw GEOS within (\(setup.layer))", count: points.count) {
                var hits = 0
                for p in points { hits &+= try geos.countCovering(x: p.x, y: p.y) }
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
            var rng = SeededGenerator(seed: bench.seed)
            let pts: [GeoPoint] = (0..<bench.points).map { _ in
                let p = a.points[Int.random(in: 0..<a.count, using: &rng)]
                let s = LocalMetricScale(latitude: p.lat)
                return GeoPoint(x: p.lon + Double.random(in: -60...60, using: &rng) / s.metresPerDegreeX,
                                y: p.lat + Double.random(in: -60...60, using: &rng) / s.metresPerDegreeY)
            }
            try bench.save(pts)
            let locator = Locator(index: idx)
            for method in ReverseMethod.allCases {
                try bench.time("locus reverse, \(method.rawValue) (full answer)", count: pts.count) {
                    var found = 0
                    for p in pts {
                        var r = ReverseRequest(location: p)
                        r.maxDistance = maxDistance
                        r.method = method
                        if let answer = try locator.reverse(r) { found &+= answer.address.utf8.count > 0 ? 1 : 0 }
                    }
                    return found
                }
            }
            bench.time("locus reverse (nearest search only)", count: pts.count) {
                var found = 0
                for p in pts where a.nearest(lon: p.x, lat: p.y, maxDistance: maxDistance) != nil { found &+= 1 }
                return found
            }
        }
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
        var extent = Envelope.empty
        for f in l.features { extent.extend(f.envelope) }
        return (idx, l, extent.randomPoints(count: bench.points, seed: bench.seed))
    }
}

extension Locus.Bench {
    struct SuggestBench: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "suggest",
            abstract: "Suggest latency for every keystroke of sampled addresses, as typed (\"6132 ne 34th ave portland\")."
        )
        @Option(help: "Addresses sampled.") var sample: Int = 2_000
        @Option(help: "Seed.") var seed: UInt64 = 42
        @Option(help: "Suggestions asked for.") var max: Int = 5
        @Option(help: ArgumentHelp("Write every keystroke's text, one per line, for a peer.", valueName: "path")) var writePrefixes: String?
        @OptionGroup var index: IndexOptions

        func run() throws {
            let idx = try index.open(.search)
            guard let a = idx.addresses, let search = idx.search else { throw ValidationError("the index has no addresses") }
            let eval = GeocodeEvaluation(index: idx, sample: sample, seed: seed)
            var texts: [String] = []
            for i in eval.sampledAddresses(a, count: sample, seed: seed) {
                let c = a.components(of: i)
                texts.append("\(c.number) \(c.street) \(c.city)".lowercased())
            }
            if let path = writePrefixes {
                var all = ""
                for text in texts {
                    for end in text.indices.dropFirst().map({ $0 }) + [text.endIndex] { all += String(text[..<end]) + "\n" }
                }
                try all.write(toFile: path, atomically: true, encoding: .utf8)
            }
            var latencies: [Double] = []
            var found = 0
            let clock = ContinuousClock()
            for text in texts {
                for end in text.indices.dropFirst().map({ $0 }) + [text.endIndex] {
                    var r = SuggestRequest(text: String(text[..<end]))
                    r.maxResults = max
                    let start = clock.now
                    let s = search.suggest(r)
                    let d = clock.now - start
                    latencies.append(d.inSeconds * 1e6)
                    if !s.isEmpty { found += 1 }
                }
            }
            latencies.sort()
            func pct(_ p: Double) -> Double { latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))] }
            Output.line(String(format: "suggest: %d keystrokes of %d addresses: p50 %.0f µs, p90 %.0f µs, p99 %.0f µs, max %.0f µs; %d with suggestions",
                               latencies.count, texts.count, pct(0.5), pct(0.9), pct(0.99), latencies.last ?? 0, found))
            // How often the address itself is among the suggestions once its number and street are typed.
            var hits = 0
            for (k, i) in eval.sampledAddresses(a, count: sample, seed: seed).enumerated() {
                let c = a.components(of: i)
                var r = SuggestRequest(text: "\(c.number) \(c.street)".lowercased())
                r.maxResults = max
                if search.suggest(r).contains(where: { $0.key == "a\(i)" }) { hits += 1 }
                _ = k
            }
            Output.line(String(format: "suggest: the address is among the %d suggestions for \"number street\" in %.1f %% of %d", max, Double(hits) * 100 / Double(texts.count), texts.count))
        }
    }

    struct GeocodeBench: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "geocode",
            abstract: "Geocode throughput over the evaluation's query variants, on every core."
        )
        @Option(help: "Addresses sampled (each gives up to 10 variants).") var sample: Int = 2_000
        @Option(help: "Seed.") var seed: UInt64 = 1
        @Option(help: "Threads.") var threads: Int = ProcessInfo.processInfo.activeProcessorCount
        @Option(help: "Passes over the queries.") var passes: Int = 3
        @OptionGroup var index: IndexOptions

        func run() throws {
            let idx = try index.open(.search)
            guard let search = idx.search else { throw ValidationError("the index has no addresses") }
            let queries = try GeocodeEvaluation(index: idx, sample: sample, seed: seed).queries().map(\.text)
            let total = queries.count * passes
            let clock = ContinuousClock()
            let start = clock.now
            DispatchQueue.concurrentPerform(iterations: threads) { t in
                for pass in 0..<passes {
                    var i = (t + pass) % threads
                    while i < queries.count {
                        _ = search.geocode(GeocodeRequest(.text(queries[i])))
                        i += threads
                    }
                }
            }
            let d = clock.now - start
            let seconds = d.inSeconds
            Output.line(String(format: "geocode: %d queries on %d threads in %.2f s = %.0f queries/s", total, threads, seconds, Double(total) / seconds))
        }
    }
}
