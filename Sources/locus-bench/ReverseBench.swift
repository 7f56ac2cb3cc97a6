import ArgumentParser
import Foundation
import LocusCore
import LocusEngine
import LocusEvaluation

extension LocusBench {
    struct ReverseBench: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "reverse", abstract: "Reverse geocoding throughput, full answers included.")
        @OptionGroup var bench: BenchOptions
        @Option(help: "Search radius in metres.") var maxDistance: Double = 100
        @Option(help: "Only this method (frontage or nearest), for a profiler or `perf stat`. Default: both, and the nearest search alone.")
        var method: String?

        func validate() throws {
            if let method, ReverseMethod(rawValue: method) == nil {
                throw ValidationError("--method: frontage or nearest, not \(method)")
            }
        }
        @OptionGroup var index: IndexOptions

        func run() throws {
            let idx = try index.open(.addresses)
            guard let a = idx.addresses, a.count > 0 else { throw ValidationError("the index has no addresses") }
            let pts = BenchmarkInputs.pointsNearAddresses(a, count: bench.points, seed: bench.seed)
            try bench.save(pts)
            let locator = Locator(index: idx)
            // Read once: an option's getter in the loop cost ~6 % of the frontage pass (perf).
            let maxDistance = self.maxDistance
            for method in ReverseMethod.allCases where self.method.map({ $0 == method.rawValue }) ?? true {
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
            guard self.method == nil else { return }
            bench.time("locus reverse (nearest search only)", count: pts.count) {
                var found = 0
                for p in pts where a.nearest(lon: p.x, lat: p.y, maxDistance: maxDistance) != nil { found &+= 1 }
                return found
            }
        }
    }
}
