import ArgumentParser
import Foundation
import LocusCore
import LocusEngine
import LocusEvaluation

extension LocusBench {
    struct SuggestBench: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "suggest",
            abstract: "Suggest latency for every keystroke of sampled addresses, as typed (\"6132 ne 34th ave portland\")."
        )
        @Option(help: "Addresses sampled.") var sample: Int = 2_000
        @Option(help: "Seed.") var seed: UInt64 = 42
        @Option(help: "Suggestions asked for.") var max: Int = 5
        @Option(help: ArgumentHelp("Addresses as people typed them, one per line (the street trees' recorded ones): a sample of --sample of them typed instead of the index's own.", valueName: "path"))
        var typed: String?
        @Option(help: ArgumentHelp("Write every keystroke's text, one per line, for a peer.", valueName: "path")) var writePrefixes: String?
        @OptionGroup var index: IndexOptions

        func run() throws {
            let idx = try index.open(.search)
            guard let a = idx.addresses, let search = idx.search else { throw ValidationError("the index has no addresses") }
            // As `locus serve` does before it answers: else the slowest keystroke is the one that
            // first reaches a table built on first use (hundreds of ms), not a keystroke's cost.
            search.prepare()
            let eval = GeocodeEvaluation(index: idx, sample: sample, seed: seed)
            let texts: [String]
            if let typed {
                var lines = try String(contentsOfFile: typed, encoding: .utf8).split(whereSeparator: \.isNewline)
                    .map { $0.trimmingWhitespace().lowercased() }.filter { !$0.isEmpty }
                var rng = SeededGenerator(seed: seed)
                lines.shuffle(using: &rng)
                texts = Array(lines.prefix(sample))
            } else {
                texts = try BenchmarkInputs.typedAddresses(idx, sample: sample, seed: seed)
            }
            if let path = writePrefixes {
                var all = ""
                for text in texts {
                    for prefix in BenchmarkInputs.keystrokes(of: text) { all += prefix + "\n" }
                }
                try all.write(toFile: path, atomically: true, encoding: .utf8)
            }
            var latencies: [Double] = []
            var found = 0
            var slowest = (micros: 0.0, text: "")
            let clock = ContinuousClock()
            for text in texts {
                for prefix in BenchmarkInputs.keystrokes(of: text) {
                    var r = SuggestRequest(text: prefix)
                    r.maxResults = max
                    let start = clock.now
                    let s = search.suggest(r)
                    let micros = (clock.now - start).inSeconds * 1e6
                    latencies.append(micros)
                    if micros > slowest.micros { slowest = (micros, prefix) }
                    if !s.isEmpty { found += 1 }
                }
            }
            latencies.sort()
            func pct(_ p: Double) -> Double { latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))] }
            Output.line(String(format: "suggest: %d keystrokes of %d addresses: p50 %.0f µs, p90 %.0f µs, p99 %.0f µs, max %.0f µs (\"%@\"); %d with suggestions",
                               latencies.count, texts.count, pct(0.5), pct(0.9), pct(0.99), latencies.last ?? 0, slowest.text, found))
            // How often the address itself is among the suggestions once its number and street are typed.
            guard typed == nil else { return }
            var hits = 0
            for i in eval.sampledAddresses(a, count: sample, seed: seed) {
                let c = a.components(of: i)
                var r = SuggestRequest(text: "\(c.number) \(c.street)".lowercased())
                r.maxResults = max
                if search.suggest(r).contains(where: { $0.key == "a\(i)" }) { hits += 1 }
            }
            Output.line(String(format: "suggest: the address is among the %d suggestions for \"number street\" in %.1f %% of %d", max, Double(hits) * 100 / Double(texts.count), texts.count))
        }
    }
}
