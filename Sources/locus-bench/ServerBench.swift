import ArgumentParser
import Foundation
import LocusClient
import LocusCore
import LocusEngine
import LocusEvaluation
import LocusProtocol
import LocusServer
import LocusWire
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

extension LocusBench {
    struct ServerBench: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "server",
            abstract: "Server throughput and latency over loopback TCP, against a plain SwiftNIO line-echo server.",
            discussion: """
            Starts, in this process, a Locus server on the index and a line-echo server (the peer:
            the same framing and socket work with no JSON and no engine), each on its own event
            loop, then measures both from a client on a third:
              1. one connection, --requests pipelined reverse/within requests (half each);
              2. --connections connections, each sending one request at a time, for reverse and
                 for within: latency percentiles.
            """
        )

        @Option(help: "Pipelined requests on one connection.") var requests: Int = 100_000
        @Option(help: "Concurrent connections for the latency run.") var connections: Int = 100
        @Option(help: "Requests each connection sends, one at a time, per op.") var perConnection: Int = 200
        @Option(help: "Event-loop threads of the Locus server. Default: one core fewer than the machine has, leaving one to this load generator (on 2 cores, 1).") var threads: Int = max(1, System.coreCount - 1)
        @Option(help: "Timed repetitions of the pipelined run; the best is reported.") var repeats: Int = 3
        @Option(help: "Seed of the point generator.") var seed: UInt64 = 42
        @OptionGroup var index: IndexOptions

        func validate() throws {
            guard requests > 0, connections > 0, perConnection > 0, threads > 0, repeats > 0 else {
                throw ValidationError("counts must be positive")
            }
        }

        func run() async throws {
            let idx = try index.open(.all)
            let lines = try BenchmarkInputs.requestLines(idx, count: max(requests, connections * perConnection), seed: seed)
            // The peer gets as many event-loop threads as the Locus server; the client has its own.
            let echoGroup = MultiThreadedEventLoopGroup(numberOfThreads: threads)
            let clientGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)

            // The peer: echo every line back.
            let echo = try await ServerBootstrap(group: echoGroup)
                .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(RequestLineDecoder(maximumLineBytes: 65_536)))
                        try channel.pipeline.syncOperations.addHandler(LineEcho())
                    }
                }
                .bind(host: "127.0.0.1", port: 0).get()

            var config = ServerConfiguration()
            config.listen = [.tcp(host: "127.0.0.1", port: 0)]
            config.threads = threads
            config.reloadOnHangup = false
            var logger = Logger(label: "locus-bench")
            logger.logLevel = .warning
            let (boundStream, boundContinuation) = AsyncStream.makeStream(of: [ListenAddress].self)
            let server = LocusServer(configuration: config, index: ServingIndex(index: idx), logger: logger,
                                     group: MultiThreadedEventLoopGroup(numberOfThreads: threads)) { bound in
                boundContinuation.yield(bound)
            }
            let serverTask = Task { try await server.run() }
            var iterator = boundStream.makeAsyncIterator()
            guard case .tcp(_, let locusPort)? = await iterator.next()?.first, let echoPort = echo.localAddress?.port else {
                throw ValidationError("the servers did not start")
            }

            Output.line("## one connection, \(requests) pipelined requests (reverse and within alternating), best of \(repeats)")
            let pipelined = Array(lines.prefix(requests))
            var echoBest = Double.infinity, locusBest = Double.infinity
            var locusErrors = 0
            for _ in 0..<repeats {
                echoBest = min(echoBest, try await Pipeline.run(port: echoPort, lines: pipelined, group: clientGroup).seconds)
                let r = try await Pipeline.run(port: locusPort, lines: pipelined, group: clientGroup)
                locusBest = min(locusBest, r.seconds)
                locusErrors = r.errors
            }
            let echoRate = Double(requests) / echoBest, locusRate = Double(requests) / locusBest
            Output.line(String(format: "echo server:  %.0f lines/s", echoRate))
            Output.line(String(format: "locus server: %.0f requests/s (%d error replies)", locusRate, locusErrors))
            Output.line(String(format: "ratio locus/echo: %.2f", locusRate / echoRate))

            Output.line("## \(connections) connections, one request at a time each, \(perConnection) per connection")
            for (op, selected) in [("reverse", lines.filter { $0.contains("\"reverse\"") }), ("within", lines.filter { $0.contains("\"within\"") })] {
                let latencies = try await Latency.run(port: locusPort, connections: connections, perConnection: perConnection,
                                                      lines: selected, group: clientGroup)
                let sorted = latencies.sorted()
                func pct(_ p: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] * 1e3 }
                Output.line(String(format: "%@: %d requests: p50 %.3f ms, p90 %.3f ms, p99 %.3f ms, max %.3f ms",
                                   op, sorted.count, pct(0.5), pct(0.9), pct(0.99), sorted.last! * 1e3))
            }
            server.shutdown()
            try await serverTask.value
            try await echo.close()
            try await echoGroup.shutdownGracefully()
            try await clientGroup.shutdownGracefully()
        }
    }
}
