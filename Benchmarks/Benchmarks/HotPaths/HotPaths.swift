import Benchmark
import Foundation
import LocusCore
import LocusEngine
import LocusEvaluation
import LocusProtocol

// Each benchmark answers one request per (scaled) iteration, cycling through seeded inputs
// (`BenchmarkInputs`, the same as `locus-bench`'s), on the Portland index: $LOCUS_INDEX, else
// Index/portland.locus in the checkout (`locus index build`, or any `locus` query, makes it).
//
// Thresholds: a run is compared with a stored baseline (`benchmark baseline check`); it fails
// when p99 time or median throughput is 10 % worse, or when requests allocate more often (p99 of
// the counts). The machine the figures in BENCHMARKS.md come from is shared and noisy (20–40 %
// between runs), so a baseline is only comparable with a run on the same machine, one after the
// other; the allocation counts are comparable anywhere.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        timeUnits: .nanoseconds,
        scalingFactor: .kilo,
        // A fixed number of iterations, reached well within the time limit, so that every run reads
        // the same inputs and the allocation counts compare exactly.
        maxDuration: .seconds(20),
        maxIterations: 500,
        thresholds: [
            .wallClock: .init(relative: [.p99: 10]),
            .throughput: .init(relative: [.p50: 10]),
            .mallocCountTotal: .init(relative: [.p99: 0], absolute: [.p99: 0]),
        ]
    )

    let index: LocusIndex
    do {
        index = try LocusIndex(path: HotPathInputs.indexPath, loading: .all)
    } catch {
        FileHandle.standardError.write(Data("HotPaths: cannot open \(HotPathInputs.indexPath): \(error)\n".utf8))
        return
    }
    guard let addresses = index.addresses, let search = index.search, let layer = index.layers["neighborhoods"] else {
        FileHandle.standardError.write(Data("HotPaths: the index needs addresses, the search structures and the neighborhoods layer\n".utf8))
        return
    }
    search.prepare()
    let count = 100_000
    let within = BenchmarkInputs.pointsOver(layer, count: count, seed: 42)
    let near = BenchmarkInputs.pointsNearAddresses(addresses, count: count, seed: 42)
    let keystrokes = ((try? BenchmarkInputs.typedAddresses(index, sample: 2_000, seed: 42)) ?? []).flatMap(BenchmarkInputs.keystrokes(of:))
    let queries = ((try? GeocodeEvaluation(index: index, sample: 2_000, seed: 1).queries()) ?? []).map(\.text)
    let lines = ((try? BenchmarkInputs.requestLines(index, count: count, seed: 42)) ?? []).map { Array($0.utf8) }

    Benchmark("within (BoundaryLayer)") { benchmark in
        for i in benchmark.scaledIterations {
            let at = benchmark.position(i)
            let p = within[at % within.count]
            blackHole(layer.coveringCount(x: p.x, y: p.y))
        }
    }

    for method in ReverseMethod.allCases {
        Benchmark("reverse, \(method.rawValue), full answer") { benchmark in
            let locator = Locator(index: index)
            for i in benchmark.scaledIterations {
                let at = benchmark.position(i)
                var r = ReverseRequest(location: near[at % near.count])
                r.method = method
                blackHole(try? locator.reverse(r))
            }
        }
    }

    // Suggest and geocode take tens of microseconds: one request per iteration, so that p99 is a
    // request's (BENCHMARKS.md's suggest p99 is per keystroke), not a thousand's.
    let perRequest = Benchmark.Configuration(scalingFactor: .one, maxIterations: 20_000)

    Benchmark("suggest, one keystroke", configuration: perRequest) { benchmark in
        for i in benchmark.scaledIterations {
            let at = benchmark.position(i)
            var r = SuggestRequest(text: keystrokes[at % keystrokes.count])
            r.maxResults = 5
            blackHole(search.suggest(r))
        }
    }

    Benchmark("geocode, one query variant", configuration: perRequest) { benchmark in
        for i in benchmark.scaledIterations {
            let at = benchmark.position(i)
            blackHole(search.geocode(GeocodeRequest(.text(queries[at % queries.count]))))
        }
    }

    Benchmark("protocol, decode a request line") { benchmark in
        let decoder = RequestDecoder()
        for i in benchmark.scaledIterations {
            let at = benchmark.position(i)
            blackHole(decoder.decode(lines[at % lines.count]))
        }
    }

    Benchmark("protocol, request line to reply (decode, engine, encode)") { benchmark in
        let handler = RequestHandler(index: index)
        for i in benchmark.scaledIterations {
            let at = benchmark.position(i)
            blackHole(handler.reply(to: lines[at % lines.count]))
        }
    }
}

enum HotPathInputs {
    static var indexPath: String {
        if let path = ProcessInfo.processInfo.environment["LOCUS_INDEX"] { return path }
        // Benchmarks/Benchmarks/HotPaths/HotPaths.swift → the checkout.
        var checkout = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { checkout.deleteLastPathComponent() }
        return checkout.appendingPathComponent("Index/portland.locus").path
    }
}

extension Benchmark {
    /// Where in the inputs a request of this iteration is: every iteration goes on where the last
    /// stopped, so that a run reads the inputs through rather than the first thousand again and
    /// again (from the caches).
    func position(_ request: Int) -> Int {
        currentIteration &* scaledIterations.count &+ request
    }
}
