import ArgumentParser
import Foundation
import LocusCore
import LocusEngine
import LocusProtocol
import LocusClient
import LocusServer
import LocusWire
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

extension Locus.Bench {
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
            let lines = try Self.requestLines(idx, count: max(requests, connections * perConnection), seed: seed)
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

        /// Request lines with ids, alternating reverse (address points moved up to 60 m) and
        /// within (uniform over the layer's extent).
        static func requestLines(_ idx: LocusIndex, count: Int, seed: UInt64) throws -> [String] {
            guard let a = idx.addresses, a.count > 0, let layer = idx.layers["neighborhoods"] ?? idx.layers.values.first else {
                throw ValidationError("the index needs addresses and a layer")
            }
            var rng = SeededGenerator(seed: seed)
            var extent = Envelope.empty
            for f in layer.features { extent.extend(f.envelope) }
            return (0..<count).map { i in
                if i % 2 == 0 {
                    let p = a.points[Int.random(in: 0..<a.count, using: &rng)]
                    let s = LocalMetricScale(latitude: p.lat)
                    let x = p.lon + Double.random(in: -60...60, using: &rng) / s.metresPerDegreeX
                    let y = p.lat + Double.random(in: -60...60, using: &rng) / s.metresPerDegreeY
                    return #"{"id":\#(i),"op":"reverse","location":{"x":\#(x),"y":\#(y)}}"#
                }
                let x = Double.random(in: extent.minX...extent.maxX, using: &rng)
                let y = Double.random(in: extent.minY...extent.maxY, using: &rng)
                return #"{"id":\#(i),"op":"within","location":{"x":\#(x),"y":\#(y)},"layer":"\#(layer.name)"}"#
            }
        }
    }
}

/// The peer server: writes every line back, flushing once per read, as the Locus server does.
final class LineEcho: ChannelInboundHandler {
    typealias InboundIn = RequestLine
    typealias OutboundOut = ByteBuffer
    private var out = ByteBuffer()

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .line(var line) = unwrapInboundIn(data) else { return context.close(promise: nil) }
        out.writeBuffer(&line)
        out.writeInteger(UInt8(ascii: "\n"))
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        guard out.readableBytes > 0 else { return }
        context.writeAndFlush(wrapOutboundOut(out), promise: nil)
        out = context.channel.allocator.buffer(capacity: 4_096)
    }
}

/// One connection, every request written at once, replies counted as they arrive.
enum Pipeline {
    struct Outcome { var seconds: Double; var errors: Int }

    final class Counter: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let expected: Int
        let done: EventLoopPromise<Int>
        var lines = 0
        var errors = 0

        init(expected: Int, done: EventLoopPromise<Int>) {
            self.expected = expected
            self.done = done
        }

        /// Bytes of the current line seen so far, up to the first 32 (enough to tell an error reply).
        /// Replies begin {"id":N,"ok":…; echoed lines never carry "ok".
        var head: [UInt8] = []

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            buffer.withUnsafeReadableBytes { raw in
                guard let base = raw.baseAddress else { return }
                var offset = 0
                while offset < raw.count {
                    let rest = raw.count - offset
                    if head.count < 32 { head.append(contentsOf: raw[offset..<(offset + min(32 - head.count, rest))]) }
                    guard let hit = memchr(base + offset, 0x0A, rest) else { return }
                    let end = base.distance(to: UnsafeRawPointer(hit))
                    lines += 1
                    if Self.isError(head) { errors += 1 }
                    head.removeAll(keepingCapacity: true)
                    offset = end + 1
                }
            }
            if lines >= expected { done.succeed(errors) }
        }

        static func isError(_ head: [UInt8]) -> Bool {
            guard let comma = head.firstIndex(of: UInt8(ascii: ",")) else { return false }
            return head[(comma + 1)...].starts(with: #""ok":false"#.utf8)
        }

        func channelInactive(context: ChannelHandlerContext) {
            done.fail(LocusClientError(description: "closed after \(lines) of \(expected) replies"))
        }
    }

    static func run(port: Int, lines: [String], group: any EventLoopGroup) async throws -> Outcome {
        var payload = ByteBuffer()
        for l in lines {
            payload.writeString(l)
            payload.writeInteger(UInt8(ascii: "\n"))
        }
        let payloadCopy = payload
        let channel = try await ClientBootstrap(group: group)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .connect(host: "127.0.0.1", port: port).get()
        let done = channel.eventLoop.makePromise(of: Int.self)
        let expected = lines.count
        try await channel.eventLoop.submit {
            try channel.pipeline.syncOperations.addHandler(Counter(expected: expected, done: done))
        }.get()
        let clock = ContinuousClock()
        let start = clock.now
        // Written in slices, as a client producing requests would.
        let slice = 64 * 1024
        channel.eventLoop.execute {
            var rest = payloadCopy
            while rest.readableBytes > 0 {
                let chunk = rest.readSlice(length: min(slice, rest.readableBytes))!
                channel.write(chunk, promise: nil)
            }
            channel.flush()
        }
        let errors = try await done.futureResult.get()
        let seconds = (clock.now - start).inSeconds
        try await channel.close()
        return Outcome(seconds: seconds, errors: errors)
    }
}

/// Many connections, each with one request outstanding: per-request latency.
enum Latency {
    final class Sender: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let lines: [String]
        let done: EventLoopPromise<[Double]>
        var next = 0
        var sentAt = ContinuousClock.now
        var latencies: [Double] = []

        init(lines: [String], done: EventLoopPromise<[Double]>) {
            self.lines = lines
            self.done = done
        }

        func send(_ context: ChannelHandlerContext) {
            sentAt = .now
            var b = context.channel.allocator.buffer(capacity: 128)
            b.writeString(lines[next])
            b.writeInteger(UInt8(ascii: "\n"))
            next += 1
            context.writeAndFlush(NIOAny(b), promise: nil)
        }

        func channelActive(context: ChannelHandlerContext) {
            send(context)
            context.fireChannelActive()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            // One reply at a time: it is complete when the buffer ends in a newline.
            let buffer = unwrapInboundIn(data)
            guard buffer.readableBytesView.last == 0x0A else { return }
            latencies.append((ContinuousClock.now - sentAt).inSeconds)
            if next < lines.count { send(context) } else { done.succeed(latencies) }
        }

        func channelInactive(context: ChannelHandlerContext) {
            done.fail(LocusClientError(description: "closed early"))
        }
    }

    static func run(port: Int, connections: Int, perConnection: Int, lines: [String], group: any EventLoopGroup) async throws -> [Double] {
        var futures: [EventLoopFuture<[Double]>] = []
        var channels: [any Channel] = []
        for c in 0..<connections {
            let mine = (0..<perConnection).map { lines[(c * perConnection + $0) % lines.count] }
            let promise = group.next().makePromise(of: [Double].self)
            let channel = try await ClientBootstrap(group: group)
                .channelOption(.tcpOption(.tcp_nodelay), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(Sender(lines: mine, done: promise))
                    }
                }
                .connect(host: "127.0.0.1", port: port).get()
            futures.append(promise.futureResult)
            channels.append(channel)
        }
        var all: [Double] = []
        for f in futures { all += try await f.get() }
        for c in channels { try? await c.close() }
        return all
    }
}

extension Locus.Bench {
    struct ProtocolBench: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "protocol",
            abstract: "The server's per-request work without sockets: decode, engine, encode, on one core.",
            discussion: "The same request lines as `bench server`, so the two together show where a request's time goes."
        )
        @Option(help: "Request lines.") var requests: Int = 100_000
        @Option(help: "Seed of the point generator.") var seed: UInt64 = 42
        @OptionGroup var index: IndexOptions

        func run() throws {
            let idx = try index.open(.all)
            let lines = try Locus.Bench.ServerBench.requestLines(idx, count: requests, seed: seed).map { Array($0.utf8) }
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

extension Locus.Bench {
    struct StartupBench: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "startup",
            abstract: "Start `locus serve` as a process: time from start to the first answer, and its memory with the full index.",
            discussion: "Runs the server --runs times; reports each start-to-first-reverse-answer time, then resident memory after every op has been used."
        )
        @Option(help: "Starts to time.") var runs: Int = 5
        @OptionGroup var index: IndexOptions

        func run() async throws {
            let path: String
            if let i = index.index { path = i } else {
                let defaults = DefaultDataset(dataDirectory: index.dataDir)
                try defaults.ensureIndex()
                path = defaults.indexPath
            }
            let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("locus-startup-\(getpid())")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            let socket = dir.appendingPathComponent("s.sock").path
            var times: [Double] = []
            for run in 0..<runs {
                let process = Process()
                process.executableURL = executable
                process.arguments = ["serve", "--index", path, "--listen", "unix:\(socket)", "--log-level", "warning"]
                process.standardOutput = FileHandle.nullDevice
                let clock = ContinuousClock()
                let start = clock.now
                try process.run()
                var answered = false
                while !answered, clock.now - start < .seconds(30), process.isRunning {
                    if let c = try? await LocusClient.connect(to: .unix(path: socket)) {
                        let r = try? await c.send(op: "reverse", ["location": .location(GeoPoint(x: -122.6296, y: 45.5676), wkid: 4326)])
                        answered = r?.ok == true
                        await c.close()
                    }
                    if !answered { try await Task.sleep(for: .milliseconds(5)) }
                }
                let seconds = (clock.now - start).inSeconds
                guard answered else { throw ValidationError("locus serve did not answer") }
                times.append(seconds)
                if run == runs - 1 {
                    // Every op once, so every lazily built part is in memory, then read the RSS.
                    let c = try await LocusClient.connect(to: .unix(path: socket))
                    let here: JSONValue = .location(GeoPoint(x: -122.6296, y: 45.5676), wkid: 4326)
                    _ = try await c.send(op: "within", ["location": here])
                    _ = try await c.send(op: "suggest", ["text": .string("6132 ne 34")])
                    _ = try await c.send(op: "geocode", ["text": .string("6132 ne 43rd avenu portlnd")])
                    _ = try await c.send(op: "info")
                    try await Task.sleep(for: .seconds(2))  // the typo indexes are built in the background at start
                    _ = try await c.send(op: "geocode", ["text": .string("6123 ne 34th av")])
                    await c.close()
                    let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
                    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS") || line.hasPrefix("VmHWM") {
                        Output.line("locus serve \(line.replacingOccurrences(of: "\t", with: " ").replacingOccurrences(of: "  ", with: ""))")
                    }
                }
                process.terminate()
                process.waitUntilExit()
            }
            Output.line("start to first reverse answer: " + times.map { String(format: "%.0f ms", $0 * 1000) }.joined(separator: ", ")
                        + String(format: " (median %.0f ms)", times.sorted()[times.count / 2] * 1000))
        }
    }
}
