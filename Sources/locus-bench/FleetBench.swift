import ArgumentParser
import Foundation
import LocusClient
import LocusCore
import LocusEvaluation
import LocusWire
import NIOConcurrencyHelpers
import NIOPosix

extension LocusBench {
    struct FleetBench: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "fleet",
            abstract: "Continuous pipelined load on a server or a load balancer in front of replicas, through LocusClient and its retries.",
            discussion: """
            --clients LocusClients (one connection each, as a load balancer sees them) keep --window
            requests in flight each, alternating reverse with the neighbourhoods layer and within,
            for --seconds or until standard input closes (--until-stdin-closes: the fleet test
            stops it so). Every request is idempotent, so a lost connection is reconnected and its
            requests sent again (--attempts). Prints, every second, the requests answered, failed
            (after the retries), sent again, and with --marker which index answered each: a reply
            whose names all carry the marker is the new index's, none the old one's, some a mix
            (which must never happen: one request is answered from one index).
            """
        )

        @Option(help: ArgumentHelp("Where to send the load: tcp://HOST:PORT or unix:/path.", valueName: "url")) var server: String
        @Option(help: "Client connections.") var clients: Int = 6
        @Option(help: "Requests each client keeps in flight.") var window: Int = 16
        @Option(help: "Seconds to run at most.") var seconds: Double = 60
        @Flag(help: "Stop when standard input closes.") var untilStdinCloses = false
        @Option(help: ArgumentHelp("Text that the new index's names carry and the old one's do not.", valueName: "text")) var marker: String?
        @Option(help: "Attempts per request (LocusClient's RetryPolicy), the first included.") var attempts: Int = RetryPolicy().attempts
        @Option(help: ArgumentHelp("Write the summary here as JSON.", valueName: "path")) var report: String?
        @Option(help: "Seed of the point generator.") var seed: UInt64 = 42
        @OptionGroup var index: IndexOptions

        func validate() throws {
            guard ListenAddress(server) != nil else { throw ValidationError("--server must be tcp://HOST:PORT or unix:/path") }
            guard clients > 0, window > 0, seconds > 0, attempts > 0 else { throw ValidationError("counts must be positive") }
        }

        func run() async throws {
            let idx = try index.open([.addresses, .layers])
            guard let addresses = idx.addresses, let layer = idx.layers["neighborhoods"] ?? idx.layers.values.first else {
                throw ValidationError("the index needs addresses and a layer")
            }
            // The rest of each request line, after its id.
            let near = BenchmarkInputs.pointsNearAddresses(addresses, count: 5_000, seed: seed)
            let over = BenchmarkInputs.pointsOver(layer, count: 5_000, seed: seed + 1)
            let bodies: [[UInt8]] = (0..<10_000).map { i in
                let p = i % 2 == 0 ? near[i / 2] : over[i / 2]
                let text = i % 2 == 0
                    ? #","op":"reverse","location":{"x":\#(p.x),"y":\#(p.y)},"layers":["\#(layer.name)"]}"#
                    : #","op":"within","location":{"x":\#(p.x),"y":\#(p.y)},"layer":"\#(layer.name)"}"#
                return Array((text + "\n").utf8)
            }
            guard let address = ListenAddress(server) else { return }
            let policy = RetryPolicy(attempts: attempts)
            let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            var connected: [LocusClient] = []
            for _ in 0..<clients { connected.append(try await LocusClient.connect(to: address, group: group, retry: policy)) }
            let pool = connected

            let tally = NIOLockedValueBox(FleetTally())
            let stop = NIOLockedValueBox(false)
            if untilStdinCloses {
                Thread.detachNewThread {
                    while readLine() != nil {}
                    stop.withLockedValue { $0 = true }
                }
            }
            let clock = ContinuousClock()
            let start = clock.now
            let deadline = start + .seconds(seconds)
            let marker = self.marker
            let window = self.window

            let ticker = Task {
                var last = FleetTally.Second()
                var second = 0
                while !stop.withLockedValue({ $0 }) {
                    second += 1
                    try? await Task.sleep(until: start + .seconds(second))
                    if clock.now >= deadline { stop.withLockedValue { $0 = true } }
                    let retries = pool.reduce(0) { $0 + $1.counts.retries }
                    let now = tally.withLockedValue { t -> FleetTally.Second in
                        t.retries = retries
                        return t.second(second)
                    }
                    let delta = now.minus(last)
                    tally.withLockedValue { $0.seconds.append(delta) }
                    Output.line(delta.line)
                    last = now
                }
            }

            await withTaskGroup(of: Void.self) { tasks in
                for (c, client) in pool.enumerated() {
                    for slot in 0..<window {
                        tasks.addTask {
                            // Ids unique on the client: each slot takes every window-th.
                            var id = slot + 1
                            var k = (c * window + slot) * 7
                            while !stop.withLockedValue({ $0 }) {
                                let line = Array(#"{"id":\#(id)"#.utf8) + bodies[k % bodies.count]
                                let isReverse = k % 2 == 0
                                id += window
                                k += 1
                                do {
                                    let reply = try await client.send(id: id - window, line: line, idempotent: true)
                                    let answer = reply.error == nil ? FleetTally.Answer(reply.result, marker: marker, reverse: isReverse) : .error
                                    tally.withLockedValue { $0.count(answer) }
                                } catch {
                                    tally.withLockedValue { $0.fail("\(error)") }
                                }
                            }
                        }
                    }
                }
            }
            await ticker.value
            let elapsed = (clock.now - start).inSeconds
            var summary = tally.withLockedValue { $0 }
            summary.retries = pool.reduce(0) { $0 + $1.counts.retries }
            summary.connections = pool.reduce(0) { $0 + $1.counts.connections }
            summary.elapsedSeconds = elapsed
            for client in pool { await client.close() }
            try await group.shutdownGracefully()
            Output.line(String(format: "%d answered in %.1f s: %.0f requests/s; %d failed after retries, %d sent again, %d connections; error replies %d; old %d, new %d, mixed %d",
                               summary.ok, elapsed, Double(summary.ok) / elapsed, summary.failed, summary.retries, summary.connections,
                               summary.errorReplies, summary.old, summary.new, summary.mixed))
            if let report {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                try encoder.encode(summary).write(to: URL(fileURLWithPath: report))
            }
        }
    }
}

/// What the fleet load got: answers by the index that gave them, failures, per second.
struct FleetTally: Codable, Sendable {
    var ok = 0
    /// Requests that failed after the client's retries.
    var failed = 0
    var failures: [String: Int] = [:]
    /// Error replies (the server answered, with an error).
    var errorReplies = 0
    /// Answers whose names all carry the marker (the new index), none (the old one), or some (a mix).
    var old = 0
    var new = 0
    var mixed = 0
    var retries = 0
    var connections = 0
    var elapsedSeconds = 0.0
    var seconds: [Second] = []

    struct Second: Codable, Sendable {
        var second = 0
        var ok = 0
        var failed = 0
        var retries = 0
        var old = 0
        var new = 0
        var mixed = 0

        func minus(_ o: Second) -> Second {
            Second(second: second, ok: ok - o.ok, failed: failed - o.failed, retries: retries - o.retries,
                   old: old - o.old, new: new - o.new, mixed: mixed - o.mixed)
        }

        var line: String {
            String(format: "%4d s  %7d answered  %4d failed  %4d sent again  old %7d  new %7d  mixed %d",
                   second, ok, failed, retries, old, new, mixed)
        }
    }

    /// Which index an answer came from, told by its names.
    enum Answer {
        case old, new, mixed, unnamed, error

        /// `reverse` answers carry the address and the neighbourhoods, `within` the neighbourhoods.
        init(_ result: JSONValue?, marker: String?, reverse: Bool) {
            guard let marker, case .object(let o)? = result else { self = .unnamed; return }
            var names: [String] = []
            if reverse, case .string(let a)? = o["address"] { names.append(a) }
            if case .array(let features)? = o["features"] {
                for case .object(let f) in features {
                    if case .string(let n)? = f["name"] { names.append(n) }
                }
            }
            let marked = names.filter { $0.contains(marker) }.count
            self = names.isEmpty ? .unnamed : marked == 0 ? .old : marked == names.count ? .new : .mixed
        }
    }

    mutating func count(_ answer: Answer) {
        switch answer {
        case .error: errorReplies += 1
        case .old: ok += 1; old += 1
        case .new: ok += 1; new += 1
        case .mixed: ok += 1; mixed += 1
        case .unnamed: ok += 1
        }
    }

    mutating func fail(_ reason: String) {
        failed += 1
        if failures.count < 20 || failures[reason] != nil { failures[reason, default: 0] += 1 }
    }

    func second(_ n: Int) -> Second {
        Second(second: n, ok: ok, failed: failed, retries: retries, old: old, new: new, mixed: mixed)
    }
}
