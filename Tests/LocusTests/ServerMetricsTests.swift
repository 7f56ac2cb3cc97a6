import Foundation
import LocusClient
import LocusEngine
import LocusProtocol
import LocusServer
import LocusWire
import Logging
import NIOCore
import NIOEmbedded
import Testing

/// The Prometheus text a server serves: what it counts over a connection, and that the text is
/// the exposition format a scraper reads.
@Suite(.serialized) struct ServerMetricsTests {
    let serving: ServingIndex

    init() throws { serving = ServingIndex(index: try TestSupport.fixture()) }

    func channel(_ metrics: ServerMetrics) throws -> (EmbeddedChannel, ServerStats) {
        let stats = ServerStats(metrics: metrics)
        let context = ServerContext(configuration: ServerConfiguration(), index: serving, stats: stats,
                                    logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(RequestLineDecoder(maximumLineBytes: 65_536)))
        try channel.pipeline.syncOperations.addHandler(ConnectionHandler(server: context, allocator: channel.allocator))
        try channel.connect(to: .init(ipAddress: "127.0.0.1", port: 1)).wait()
        return (channel, stats)
    }

    func replyCount(_ channel: EmbeddedChannel) throws -> Int {
        var n = 0
        while var b = try channel.readOutbound(as: ByteBuffer.self) {
            n += (b.readString(length: b.readableBytes) ?? "").split(separator: "\n").count
        }
        return n
    }

    static let reverse = #"{"id":1,"op":"reverse","location":{"x":-122.65,"y":45.55}}"#
    static let within = #"{"id":2,"op":"within","location":{"x":-122.62,"y":45.57},"layer":"areas"}"#
    /// Decoded, then refused by the engine: counted under its op.
    static let badReverse = #"{"id":3,"op":"reverse","location":{"x":-122.65,"y":45.55},"layers":["nope"]}"#
    /// Not decoded: counted under `none`, like a line that is not a request.
    static let undecodable = #"{"id":6,"op":"reverse","location":{"x":"-122.6","y":45.5}}"#
    static let unknownOp = #"{"id":4,"op":"fly"}"#
    static let geocode = #"{"id":5,"op":"geocode","text":"100 ne alpha st"}"#

    @Test func requestsAreCountedAndTimedByProtocolOpAndOutcome() throws {
        let metrics = ServerMetrics(index: serving)
        let (ch, stats) = try channel(metrics)
        let lines = [Self.reverse, Self.within, Self.reverse, Self.badReverse, Self.within, Self.unknownOp, Self.reverse, Self.geocode, Self.undecodable]
        try ch.writeInbound(ByteBuffer(string: lines.map { $0 + "\n" }.joined()))
        ch.embeddedEventLoop.run()
        #expect(try replyCount(ch) == lines.count)

        let text = metrics.exposition()
        let e = try Exposition(text)
        #expect(e["locus_requests_total", ["op": "reverse", "outcome": "ok", "protocol": "line"]] == 3)
        #expect(e["locus_requests_total", ["op": "reverse", "outcome": "not_found", "protocol": "line"]] == 1)
        #expect(e["locus_requests_total", ["op": "none", "outcome": "invalid_argument", "protocol": "line"]] == 1)
        #expect(e["locus_requests_total", ["op": "within", "outcome": "ok", "protocol": "line"]] == 2)
        #expect(e["locus_requests_total", ["op": "none", "outcome": "unknown_op", "protocol": "line"]] == 1)
        #expect(e["locus_requests_total", ["op": "geocode", "outcome": "ok", "protocol": "line"]] == 1)
        #expect(e.type["locus_requests_total"] == "counter")
        // One histogram per op, whatever the outcome.
        #expect(e["locus_request_duration_seconds_count", ["op": "reverse", "protocol": "line"]] == 4)
        #expect(e["locus_request_duration_seconds_bucket", ["op": "reverse", "protocol": "line", "le": "+Inf"]] == 4)
        #expect(e["locus_request_duration_seconds_count", ["op": "within", "protocol": "line"]] == 2)
        #expect(e["locus_request_duration_seconds_count", ["op": "geocode", "protocol": "line"]] == 1)
        let sum = try #require(e["locus_request_duration_seconds_sum", ["op": "reverse", "protocol": "line"]])
        #expect(sum > 0 && sum < 60)
        #expect(e.type["locus_request_duration_seconds"] == "histogram")
        #expect(e["locus_requests_in_flight", ["protocol": "line"]] == 0)

        // The `stats` op shows the same counts, in its own shape.
        let snapshot = stats.snapshot(serving.generation)
        #expect(snapshot.requests == [
            "reverse": ["ok": 3, "not_found": 1], "within": ["ok": 2], "none": ["unknown_op": 1, "invalid_argument": 1], "geocode": ["ok": 1],
        ])
        // Counted once: a second scrape shows the same.
        #expect(try Exposition(metrics.exposition())["locus_requests_total", ["op": "reverse", "outcome": "ok", "protocol": "line"]] == 3)
        _ = try? ch.finish()
    }

    @Test func theIndexAndTheProcessAreReadWhenScraped() throws {
        let metrics = ServerMetrics(index: serving)
        let e = try Exposition(metrics.exposition())
        #expect(e["locus_index_generation"] == 1)
        let builtText = try #require(serving.generation.index.metadata.values["build_time"])
        let built = try #require(ISO8601DateFormatter().date(from: builtText))
        #expect(e["locus_index_build_timestamp_seconds"] == built.timeIntervalSince1970)
        let age = try #require(e["locus_index_age_seconds"])
        #expect(abs(age - Date().timeIntervalSince(built)) < 60)
        let loaded = try #require(e["locus_index_loaded_timestamp_seconds"])
        #expect(abs(loaded - serving.generation.loadedAt.timeIntervalSince1970) < 0.001)
        #expect(e["locus_index_reloads_total", ["outcome": "ok"]] == 0)
        #expect(e["locus_index_reloads_total", ["outcome": "refused"]] == 0)
        #if os(Linux)
        #expect(try #require(e["locus_process_resident_memory_bytes"]) > 1_000_000)
        #expect(try #require(e["locus_process_open_fds"]) > 2)
        let start = try #require(e["locus_process_start_time_seconds"])
        #expect(start <= Date().timeIntervalSince1970 + 1)
        #expect(start > Date().timeIntervalSince1970 - 86_400 * 30)
        #endif
        // Every family says what it is.
        for name in e.type.keys { #expect(e.help[name] != nil, "\(name) has no HELP") }
    }

    /// Requests read and not yet answered: a geocode waiting for the workers counts until its
    /// reply is made, and a connection closed with requests waiting takes them off the gauge.
    @Test func requestsInFlightRiseAndFallAndCloseToZero() throws {
        let metrics = ServerMetrics(index: serving)
        func inFlight() throws -> Double? { try Exposition(metrics.exposition())["locus_requests_in_flight", ["protocol": "line"]] }

        let (ch, _) = try channel(metrics)
        // Without worker threads the batch runs on the loop's next turn, which this test holds.
        try ch.writeInbound(ByteBuffer(string: Array(repeating: Self.geocode + "\n", count: 3).joined()))
        #expect(try inFlight() == 3)
        ch.embeddedEventLoop.run()
        #expect(try replyCount(ch) == 3)
        #expect(try inFlight() == 0)

        try ch.writeInbound(ByteBuffer(string: Array(repeating: Self.geocode + "\n", count: 2).joined()))
        #expect(try inFlight() == 2)
        _ = try? ch.finish()
        #expect(try inFlight() == 0)
    }

    @Test func connectionsOpenCloseAndAreRefusedOverRealSockets() async throws {
        let live = try await LiveServer.start(index: try TestSupport.fixture()) { $0.maximumConnections = 1 }
        let metrics = live.server.metrics
        func scrape() throws -> Exposition { try Exposition(metrics.exposition()) }
        let open: [String: String] = ["protocol": "line"]

        let c = try await live.client()
        for _ in 0..<2 {
            #expect(try await c.send(op: "reverse", ["location": .object(["x": .number(-122.65), "y": .number(45.55)])]).ok)
        }
        #expect(try scrape()["locus_open_connections", open] == 1)
        // Over the limit: answered `overloaded` and closed.
        let refused = try await RawConnection(port: live.port)
        let line = try await refused.lines(atLeast: 1).first
        #expect(line?.contains("overloaded") == true)
        await refused.close()
        await c.close()

        var e = try scrape()
        for _ in 0..<100 where e["locus_open_connections", open] != 0 {
            try await Task.sleep(for: .milliseconds(20))
            e = try scrape()
        }
        #expect(e["locus_open_connections", open] == 0)
        #expect(e["locus_connections_total", open] == 1)
        #expect(e["locus_connections_refused_total", open] == 1)
        #expect(e["locus_requests_total", ["op": "reverse", "outcome": "ok", "protocol": "line"]] == 2)
        #expect(e["locus_request_duration_seconds_count", ["op": "reverse", "protocol": "line"]] == 2)
        #expect(e["locus_requests_in_flight", open] == 0)
        let snapshot = live.server.stats.snapshot(live.server.index.generation)
        #expect(snapshot.connections.open == 0)
        #expect(snapshot.connections.accepted == 1)
        #expect(snapshot.connections.refused == 1)
        #expect(snapshot.requests == ["reverse": ["ok": 2]])
        try await live.stop()
    }

    @Test func reloadsAreCountedAndTheNewGenerationShown() async throws {
        let index = try TestSupport.fixture()
        let live = try await LiveServer.start(index: index) { $0.tokens = ["admin"] }
        let admin = try await live.client(token: "admin")
        #expect(try await admin.send(op: "reload").ok)
        let missing = TestSupport.temporaryDirectory().appendingPathComponent("missing.locus").path
        #expect(try await admin.send(op: "reload", ["path": .string(missing)]).error?.code == .notFound)
        let e = try Exposition(live.server.metrics.exposition())
        #expect(e["locus_index_generation"] == 2)
        #expect(e["locus_index_reloads_total", ["outcome": "ok"]] == 1)
        #expect(e["locus_index_reloads_total", ["outcome": "refused"]] == 1)
        #expect(e["locus_requests_total", ["op": "reload", "outcome": "ok", "protocol": "line"]] == 1)
        #expect(e["locus_requests_total", ["op": "reload", "outcome": "not_found", "protocol": "line"]] == 1)
        let snapshot = try await admin.send(op: "stats").decode(ServerStats.Snapshot.self)
        #expect(snapshot.index.generation == 2)
        #expect(snapshot.index.reloads == 1)
        #expect(snapshot.index.failedReloads == 1)
        await admin.close()
        try await live.stop()
    }

    /// What other dialects record through the public API lands beside the line protocol's.
    @Test func otherProtocolsRecordThroughThePublicAPI() throws {
        let metrics = ServerMetrics(index: serving)
        metrics.connectionOpened(protocol: "esri")
        metrics.requestStarted(protocol: "esri")
        metrics.requestStarted(protocol: "esri")
        metrics.requestFinished(protocol: "esri")
        metrics.record(protocol: "esri", op: "geocode", outcome: "ok", duration: .microseconds(300))
        metrics.record(protocol: "esri", op: "geocode", outcome: "invalid_argument", duration: .milliseconds(3))
        let e = try Exposition(metrics.exposition())
        let esri = ["protocol": "esri"]
        #expect(e["locus_open_connections", esri] == 1)
        #expect(e["locus_requests_in_flight", esri] == 1)
        #expect(e["locus_requests_total", ["op": "geocode", "outcome": "ok", "protocol": "esri"]] == 1)
        #expect(e["locus_request_duration_seconds_count", ["op": "geocode", "protocol": "esri"]] == 2)
        // 300 µs is in the 0.5 ms bucket and those above it, not in the 0.25 ms one; 3 ms from 5 ms on.
        #expect(e["locus_request_duration_seconds_bucket", ["op": "geocode", "protocol": "esri", "le": "0.00025"]] == 0)
        #expect(e["locus_request_duration_seconds_bucket", ["op": "geocode", "protocol": "esri", "le": "0.0005"]] == 1)
        #expect(e["locus_request_duration_seconds_bucket", ["op": "geocode", "protocol": "esri", "le": "0.005"]] == 2)
        let sum = try #require(e["locus_request_duration_seconds_sum", ["op": "geocode", "protocol": "esri"]])
        #expect(abs(sum - 0.0033) < 1e-9)
        metrics.connectionClosed(protocol: "esri")
        #expect(try Exposition(metrics.exposition())["locus_open_connections", esri] == 0)
        // The `stats` op shows the line protocol only.
        #expect(ServerStats(metrics: metrics).snapshot(serving.generation).requests.isEmpty)
    }

    /// The checker itself: it refuses what a scraper would.
    @Test(arguments: [
        "locus_x 1\n",  // no TYPE
        "# TYPE locus_x counter\nlocus_x{a=\"1\" 1\n",  // unclosed labels
        "# TYPE locus_x counter\nlocus_x{a=1} 1\n",  // unquoted value
        "# TYPE locus_x counter\nlocus_x one\n",  // not a number
        "# TYPE locus_x counter\nlocus_x 1",  // no final newline
        "# TYPE locus_x counter\n# TYPE locus_x counter\nlocus_x 1\n",  // TYPE twice
        "# TYPE locus_x histogram\nlocus_x_bucket{le=\"1\"} 2\nlocus_x_bucket{le=\"+Inf\"} 1\nlocus_x_count 1\nlocus_x_sum 1\n",  // decreasing
    ])
    func theCheckerRefusesMalformedText(_ text: String) {
        #expect(throws: Exposition.Malformed.self) { try Exposition(text) }
    }
}

/// A Prometheus text exposition (format 0.0.4), parsed and checked as a scraper would: every
/// line a comment or `name{label="value",…} value`, every family typed once before its samples,
/// histogram buckets cumulative up to `+Inf`, which equals `_count`.
struct Exposition {
    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    /// Values by metric name and labels, the labels in a canonical (sorted) order.
    private(set) var samples: [String: Double] = [:]
    private(set) var type: [String: String] = [:]
    private(set) var help: [String: String] = [:]

    subscript(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples[Self.key(name, labels)]
    }

    static func key(_ name: String, _ labels: [String: String]) -> String {
        labels.isEmpty ? name : name + "{" + labels.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",") + "}"
    }

    init(_ text: String) throws {
        guard text.isEmpty || text.hasSuffix("\n") else { throw Malformed(description: "the text does not end with a newline") }
        let name = "[a-zA-Z_:][a-zA-Z0-9_:]*"
        let label = #"[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*""#
        let sample = try Regex("(\(name))(?:\\{((?:\(label))(?:,\(label))*)?,?\\})? ([^ ]+)(?: -?[0-9]+)?")
        let comment = try Regex("# (HELP|TYPE) (\(name)) (.*)")
        let pair = try Regex(#"([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)""#)
        var sampled = Set<String>()
        var buckets: [String: [(le: Double, count: Double)]] = [:]
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            if line.hasPrefix("#") {
                guard let m = try comment.wholeMatch(in: line) else {
                    // Other comments are allowed by the format.
                    continue
                }
                let kind = String(m.output[1].substring ?? ""), family = String(m.output[2].substring ?? "")
                let rest = String(m.output[3].substring ?? "")
                if kind == "TYPE" {
                    guard ["counter", "gauge", "histogram", "summary", "untyped"].contains(rest) else {
                        throw Malformed(description: "unknown type: \(line)")
                    }
                    guard type[family] == nil, !sampled.contains(family) else {
                        throw Malformed(description: "TYPE again or after the samples: \(line)")
                    }
                    type[family] = rest
                } else {
                    guard help[family] == nil else { throw Malformed(description: "HELP twice: \(line)") }
                    help[family] = rest
                }
                continue
            }
            guard let m = try sample.wholeMatch(in: line) else { throw Malformed(description: "not a sample: \(line)") }
            let metric = String(m.output[1].substring ?? "")
            var labels: [String: String] = [:]
            if let text = m.output[2].substring {
                for p in text.matches(of: pair) {
                    let key = String(p.output[1].substring ?? "")
                    guard labels[key] == nil else { throw Malformed(description: "label \(key) twice: \(line)") }
                    labels[key] = String(p.output[2].substring ?? "")
                }
            }
            let valueText = String(m.output[3].substring ?? "")
            let value: Double
            switch valueText {
            case "+Inf": value = .infinity
            case "-Inf": value = -.infinity
            case "NaN": value = .nan
            default:
                guard let v = Double(valueText), valueText.allSatisfy({ "0123456789.eE+-".contains($0) }) else {
                    throw Malformed(description: "not a value: \(line)")
                }
                value = v
            }
            let family: String
            if let t = type[metric] {
                guard t != "histogram" else { throw Malformed(description: "a histogram's sample without a suffix: \(line)") }
                family = metric
            } else if let base = ["_bucket", "_sum", "_count"].lazy.compactMap({ metric.hasSuffix($0) ? String(metric.dropLast($0.count)) : nil }).first,
                      type[base] == "histogram" || type[base] == "summary" {
                family = base
            } else {
                throw Malformed(description: "no TYPE for \(metric)")
            }
            sampled.insert(family)
            let key = Self.key(metric, labels)
            guard samples[key] == nil else { throw Malformed(description: "a sample twice: \(line)") }
            samples[key] = value
            if metric == family + "_bucket" {
                guard let le = labels["le"], let bound = le == "+Inf" ? .infinity : Double(le) else {
                    throw Malformed(description: "a bucket without le: \(line)")
                }
                buckets[Self.key(family, labels.filter { $0.key != "le" }), default: []].append((bound, value))
            }
        }
        for (series, list) in buckets {
            let sorted = list.sorted { $0.le < $1.le }
            guard zip(sorted, sorted.dropFirst()).allSatisfy({ $0.count <= $1.count }) else {
                throw Malformed(description: "\(series): buckets are not cumulative")
            }
            guard sorted.last?.le == .infinity else { throw Malformed(description: "\(series): no +Inf bucket") }
            let countKey = series.replacingOccurrences(of: "{", with: "_count{", options: [], range: series.range(of: "{"))
            let count = samples[series.contains("{") ? countKey : series + "_count"]
            guard count == sorted.last?.count else { throw Malformed(description: "\(series): +Inf bucket is not _count") }
            let sumKey = series.contains("{") ? series.replacingOccurrences(of: "{", with: "_sum{", options: [], range: series.range(of: "{")) : series + "_sum"
            guard samples[sumKey] != nil else { throw Malformed(description: "\(series): no _sum") }
        }
    }
}
