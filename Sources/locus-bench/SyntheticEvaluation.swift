import ArgumentParser
import Foundation
import LocusCore
import LocusEngine
import LocusEvaluation

extension LocusBench {
    /// The check on queries written from the index's own addresses. A development tool, not an
    /// accuracy figure for users: the queries come from the very data that answers them
    /// (`locus eval --truth FILE` measures against records of the user's own).
    struct SyntheticEvaluation: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "eval",
            abstract: "The synthetic evaluation: query variants written from the index's own addresses, reverse points placed in front of them.",
            discussion: "Example: locus-bench eval --sample 2000 --held-out 500"
        )
        @Option(help: "Addresses sampled.") var sample: Int = 2_000
        @Option(help: "Addresses held out to test interpolation.") var heldOut: Int = 500
        @Option(help: "Seed.") var seed: UInt64 = 1
        @Flag(help: "List failed queries.") var failures = false
        @OptionGroup var index: IndexOptions

        func validate() throws {
            guard sample > 0, heldOut >= 0 else { throw ValidationError("--sample must be positive, --held-out ≥ 0") }
        }

        func run() throws {
            let idx = try index.open(.all)
            let report = try GeocodeEvaluation(index: idx, sample: sample, seed: seed).run(heldOut: heldOut)
            Output.line("synthetic evaluation: queries written from \(sample) of the index's own addresses (seed \(seed))")
            Output.line("")
            Output.line("| variant | queries | top-1 correct | no answer |")
            Output.line("| --- | ---: | ---: | ---: |")
            for r in report.rows + [report.interpolation] {
                Output.line("| \(r.variant) | \(r.queries) | \(String(format: "%.2f", r.accuracy * 100)) % | \(r.noAnswer) |")
            }
            let e = report.interpolationErrors
            if let worst = e.last {
                Output.line("")
                Output.line(String(format: "interpolation error over %d interpolated answers: median %.1f m, p90 %.1f m, max %.1f m",
                                   e.count, e[e.count / 2], e[(e.count - 1) * 9 / 10], worst))
            }
            let reverse = try ReverseEvaluation(index: idx, sample: sample, seed: seed).run()
            Output.line("")
            Output.line("| reverse geocoding (synthetic), \(reverse.points) points in front of a lot | right lot |")
            Output.line("| --- | ---: |")
            for m in ReverseMethod.allCases {
                let n = reverse.correct[m] ?? 0
                Output.line("| \(m.rawValue) | \(String(format: "%.2f", Double(n) * 100 / Double(max(reverse.points, 1)))) % (\(n)) |")
            }
            if failures {
                Output.line("")
                for f in report.examplesOfFailures { Output.line("- \(f)") }
            }
        }
    }
}
