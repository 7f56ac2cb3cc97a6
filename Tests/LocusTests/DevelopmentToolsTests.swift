import Testing

/// The benchmarks and the synthetic evaluation are `locus-bench`'s, built beside `locus` but not
/// part of it: `locus` shows its users only what is for them.
@Suite struct DevelopmentToolsTests {
    @Test func locusListsOnlyUserCommands() throws {
        let help = try TestSupport.locus(["--help"])
        #expect(help.status == 0)
        for command in ["index", "serve", "within", "reverse", "suggest", "geocode", "enrich", "assign", "eval"] {
            #expect(help.stdout.contains("  \(command) "), "\(command) missing from: \(help.stdout)")
        }
        #expect(!help.stdout.contains("bench"), "\(help.stdout)")
        #expect(try TestSupport.locus(["bench", "within"]).status == 64)
        let eval = try TestSupport.locus(["eval", "--help"])
        #expect(!eval.stdout.contains("synthetic"), "\(eval.stdout)")
    }

    @Test func locusBenchHasEveryBenchmark() throws {
        let help = try TestSupport.locusBench(["--help"])
        #expect(help.status == 0)
        for command in ["within", "geos-within", "reverse", "suggest", "geocode", "server", "protocol", "startup",
                        "typed-addresses", "worst-case", "attack", "eval"] {
            #expect(help.stdout.contains("  \(command) "), "\(command) missing from: \(help.stdout)")
        }
    }
}
