import ArgumentParser
import Foundation
import LocusCore
import LocusEngine
import LocusEvaluation

extension LocusBench {
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
}
