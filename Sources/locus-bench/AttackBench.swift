import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import LocusClient
import LocusCore
import LocusEngine
import LocusServer
import LocusTesting
import LocusWire
import NIOCore
import NIOPosix

extension LocusBench {
    struct AttackBench: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "attack",
            abstract: "A server's ping latency while other connections pipeline the costliest requests, against the same server idle.",
            discussion: """
            Against a running server (--server), from this process: first --pings pings on one
            connection, one at a time, --gap-ms apart, with nothing else going on (the peer: what the
            machine and the sockets cost); then --connections connections start pipelining the
            costliest requests `locus-bench worst-case` knows (long misspelt texts for suggest and
            geocode, a one-letter suggest over the world, the nearest polygon 50 km away, the
            costliest reverse), each keeping --window requests outstanding, and the pings are timed
            again. The load generator's thread runs at nice 10, standing for clients on other
            machines, so that it does not compete with the server's event loops for the cores.
            """
        )

        @Option(help: ArgumentHelp("The server: tcp://HOST:PORT or unix:/path.", valueName: "url")) var server: String
        @Option(help: "Connections pipelining the costliest requests.") var connections: Int = 4
        @Option(help: "Requests each of them keeps outstanding.") var window: Int = 64
        @Option(help: "Pings timed, idle and under attack.") var pings: Int = 400
        @Option(help: "Milliseconds between pings.") var gapMs: Int = 2

        func validate() throws {
            guard ListenAddress(server) != nil else { throw ValidationError("--server must be tcp://HOST:PORT or unix:/path") }
            guard connections > 0, window > 0, pings > 0, gapMs >= 0 else { throw ValidationError("counts must be positive") }
        }

        func run() async throws {
            guard let listen = ListenAddress(server) else { throw ValidationError("bad --server") }
            let address: SocketAddress
            switch listen {
            case .tcp(let host, let port): address = try SocketAddress.makeAddressResolvingHost(host, port: port)
            case .unix(let path): address = try SocketAddress(unixDomainSocketPath: path)
            }
            let attackGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            try await attackGroup.next().submit { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10) }.get()
            let pingGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            let lines = Self.costliestLines()

            let idle = try await PingTimer.run(address, count: pings, gap: .milliseconds(Int64(gapMs)), giveUpAfter: .seconds(60), group: pingGroup)
            Output.line("idle server:  " + Self.describe(idle))

            var attackers: [PipeliningConnection] = []
            for _ in 0..<connections {
                attackers.append(try await PipeliningConnection.connect(address, lines: lines, window: window, group: attackGroup))
            }
            let clock = ContinuousClock()
            let warm = clock.now
            while try await attackers.asyncMap({ try await $0.progress().replies }).min() ?? 0 < 200, clock.now - warm < .seconds(60) {
                try await Task.sleep(for: .milliseconds(50))
            }
            let before = try await attackers.asyncMap { try await $0.progress() }
            let start = clock.now
            let attacked = try await PingTimer.run(address, count: pings, gap: .milliseconds(Int64(gapMs)), giveUpAfter: .seconds(60), group: pingGroup)
            let seconds = (clock.now - start).inSeconds
            let after = try await attackers.asyncMap { try await $0.progress() }
            for a in attackers { await a.close() }
            let replies = zip(before, after).map { $1.replies - $0.replies }.reduce(0, +)
            let errors = after.map(\.errors).reduce(0, +)
            Output.line("under attack: " + Self.describe(attacked))
            Output.line(String(format: "attack: %d connections, %d requests answered meanwhile (%.0f/s), %d error replies",
                               connections, replies, Double(replies) / seconds, errors))
            try await attackGroup.shutdownGracefully()
            try await pingGroup.shutdownGracefully()
        }

        static func describe(_ millis: [Double]) -> String {
            let s = millis.sorted()
            guard !s.isEmpty else { return "no ping answered" }
            func pct(_ p: Double) -> Double { s[min(s.count - 1, Int(Double(s.count) * p))] }
            return String(format: "%d pings: p50 %.3f ms, p90 %.3f ms, p99 %.3f ms, max %.3f ms", s.count, pct(0.5), pct(0.9), pct(0.99), s[s.count - 1])
        }

        /// Valid requests within every limit, each among the costliest of its op
        /// (`locus-bench worst-case`).
        static func costliestLines() -> [String] {
            typealias W = WorstCaseBench
            let limit = QueryLimits.maximumTextBytes, words = QueryLimits.maximumTextWords
            let misspelt = W.fit(Array(repeating: "killngswrth", count: words).joined(separator: " "), bytes: limit, words: words)
            let intersection = W.fit(W.repeated("killngsworht ", toBytes: limit / 2 - 2) + "& " + W.repeated("mlwaukie ", toBytes: limit / 2 - 2), bytes: limit - 1, words: words)
            let sixteenLayers = "[" + Array(repeating: #""neighborhoods""#, count: 16).joined(separator: ",") + "]"
            return [
                #"{"id":1,"op":"suggest","text":"s","max_results":50,"extent":{"xmin":-180,"ymin":-90,"xmax":180,"ymax":90}}"#,
                #"{"id":2,"op":"suggest","text":\#(W.q(misspelt)),"max_results":50}"#,
                #"{"id":3,"op":"within","location":{"x":-123.3,"y":45.5},"nearest_within":50000}"#,
                #"{"id":4,"op":"suggest","text":\#(W.q("a" + String(repeating: "\u{301}", count: limit / 2 - 1))),"max_results":50}"#,
                #"{"id":5,"op":"geocode","text":\#(W.q(W.fit(W.scrambled(words: words), bytes: limit, words: words)))}"#,
                #"{"id":6,"op":"suggest","text":"n","max_results":50}"#,
                #"{"id":7,"op":"suggest","text":\#(W.q(intersection + " ")),"location":{"x":-122.63,"y":45.57}}"#,
                #"{"id":8,"op":"geocode","text":\#(W.q(misspelt))}"#,
                #"{"id":9,"op":"reverse","location":{"x":-123.3,"y":45.5},"max_distance":50000,"layers":["neighborhoods"]}"#,
                #"{"id":0,"op":"reverse","location":{"x":-122.6296,"y":45.5676},"layers":\#(sixteenLayers)}"#,
            ].map { $0 + "\n" }
        }
    }
}
