import ArgumentParser
import Foundation
import LocusClient
import LocusCore
import LocusEngine
import LocusEvaluation
import LocusProtocol
import LocusWire

extension LocusBench {
    struct ProtocolBench: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "protocol",
            abstract: "The server's per-request work without sockets: decode, engine, encode, on one core.",
            discussion: "The same request lines as `locus-bench server`, so the two together show where a request's time goes."
        )
        @Option(help: "Request lines.") var requests: Int = 100_000
        @Option(help: "Seed of the point generator.") var seed: UInt64 = 42
        @OptionGroup var index: IndexOptions

        func run() throws {
            let idx = try index.open(.all)
            let lines = try BenchmarkInputs.requestLines(idx, count: requests, seed: seed).map { Array($0.utf8) }
            let handler = RequestHandler(index: idx)
            let decoder = RequestDecoder()
            let clock = ContinuousClock()
            var decoded: [(RequestID?, LocusRequest)] = []
            decoded.reserveCapacity(lines.count)
            var start = clock.now
            for l in lines { if case .success(let r) = decoder.decode(l) { decoded.append(r) } }
            let decode = (clock.now - start).inSeconds
            start = clock.now
            var bytes = 0
            for (id, r) in decoded { bytes &+= handler.answer(id: id, r).line.count }
            let answer = (clock.now - start).inSeconds
            let locator = Locator(index: idx)
            start = clock.now
            var found = 0
            for (_, r) in decoded {
                if let q = (r.arguments as? ReverseArguments)?.request {
                    if (try? locator.reverse(q)) != nil { found &+= 1 }
                } else if let q = r.arguments as? WithinRequest {
                    found &+= (try? locator.within(q))?.features.count ?? 0
                }
            }
            let engine = (clock.now - start).inSeconds
            let n = Double(decoded.count)
            Output.line(String(format: "decode: %.2f µs/request; engine + encode: %.2f µs/request (engine alone %.2f µs); mean reply %.0f bytes",
                               decode / n * 1e6, answer / n * 1e6, engine / n * 1e6, Double(bytes) / n))
        }
    }
}
