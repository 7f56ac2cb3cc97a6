import ArgumentParser
import Foundation
import LocusCore
import LocusEngine
import LocusEvaluation

extension LocusBench {
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
