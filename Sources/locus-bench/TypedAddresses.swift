import ArgumentParser
import Foundation
import LocusCore
import LocusEngine
import LocusEvaluation

extension LocusBench {
    struct TypedAddresses: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "typed-addresses",
            abstract: "Write every address of the index as a person would type it, for `locus enrich` (with the true position).",
            discussion: """
            Columns: id, address, true_lon, true_lat. Rows are in a seeded random order. Most
            addresses are written "6132 NE 34th Ave, Portland OR"; the rest as in `locus eval`:
            with the ZIP code, lower case, spelled out, with a unit, without a city, ZIP only, with
            a one-letter typo.
            """
        )
        @Option(name: [.short, .customLong("output")], help: "CSV to write.") var output: String
        @Option(help: "Seed.") var seed: UInt64 = 7
        @OptionGroup var index: IndexOptions

        func run() throws {
            let idx = try index.open(.addresses)
            guard let a = idx.addresses else { throw ValidationError("the index has no addresses") }
            var rng = SeededGenerator(seed: seed)
            var order = Array(0..<a.count)
            order.shuffle(using: &rng)
            typealias V = GeocodeEvaluation.Variant
            let mix: [(V?, Int)] = [(nil, 45), (.clean, 15), (.lowerCase, 10), (.spelledOut, 10), (.withUnit, 5), (.noCity, 5), (.zipOnly, 5), (.typo1, 5)]
            var text = "id,address,true_lon,true_lat\n"
            text.reserveCapacity(a.count * 70)
            for (n, i) in order.enumerated() {
                let c = a.components(of: i)
                var roll = Int.random(in: 0..<100, using: &rng)
                var variant: V? = nil
                for (v, weight) in mix {
                    if roll < weight { variant = v; break }
                    roll -= weight
                }
                let typed = variant.flatMap { GeocodeEvaluation.write(c, as: $0, using: &rng) } ?? "\(c.number) \(c.street), \(c.city) \(c.state)"
                let quoted = typed.contains(",") || typed.contains("\"") ? "\"" + typed.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : typed
                let p = a.points[i]
                text += "\(n + 1),\(quoted),\(p.lon),\(p.lat)\n"
            }
            try text.write(toFile: output, atomically: true, encoding: .utf8)
            Output.note("wrote \(a.count) typed addresses to \(output)")
        }
    }
}
