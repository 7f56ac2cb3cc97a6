import ArgumentParser

/// The benchmarks behind BENCHMARKS.md, and the synthetic evaluation: development tools, built
/// beside `locus` but not part of it (`swift build -c release --product locus-bench`).
@main
struct LocusBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "locus-bench",
        abstract: "Measure Locus in process, as a server and against its peers (build with -c release).",
        discussion: """
        Points are drawn from a seeded generator, so runs are comparable. `within` points are
        uniform over the layer's extent; `reverse` points are address points moved up to
        60 m in x and y, where a field app's points fall. --write-points saves them as CSV
        (x,y) so a peer can be timed on exactly the same points.
        """,
        subcommands: [WithinBench.self, ReverseBench.self, GEOSWithinBench.self, SuggestBench.self, GeocodeBench.self,
                      ServerBench.self, ProtocolBench.self, StartupBench.self, TypedAddresses.self, WorstCaseBench.self,
                      AttackBench.self, FleetBench.self, SyntheticEvaluation.self, ScaleBench.self]
    )
}
