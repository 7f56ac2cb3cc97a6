import ArgumentParser
import Foundation
import LocusClient
import LocusCore
import LocusEngine

extension LocusBench {
    /// How Locus grows with its data: Portland's addresses and neighbourhoods repeated as N distinct
    /// synthetic cities, each copy built, started and queried as a user would, one process per step
    /// so that every figure (wall time, peak memory) is that process's own.
    struct ScaleBench: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "scale",
            abstract: "Build and query N× Portland (distinct synthetic cities): build time and memory, file size, cold start, latency.",
            discussion: """
            Copy k of every address and polygon is moved 1.2° east per k (a new row of ten every 0.8° north), its cities \
            renamed ("Portland" → "Portland Alder"), its ZIP codes shifted by k × 1000. Each size is built by \
            `locus index build` (peak RSS from wait4), opened by one-shot `locus reverse|within|suggest|geocode` \
            (process start to exit, median of --starts), then served by `locus serve`: start to first answer, \
            p50/p99 of each op one at a time over one connection, geocode throughput with --in-flight requests \
            pipelined, and the server's RSS after that warm-up. The page cache is warm: every start reads a file \
            that was just written or read.
            """
        )
        @Option(help: ArgumentHelp("Sizes to measure, as multiples of Portland.", valueName: "n,n,…"))
        var copies: String = "1,10,30"
        @Option(help: ArgumentHelp("Folder with portland/addresses.csv.gz and portland/neighborhoods.geojson. Default: $LOCUS_DATA_DIR, else ../shared/data.", valueName: "dir"))
        var dataDir: String?
        @Option(help: ArgumentHelp("Folder for the synthetic sources and indexes (several GB at 30×).", valueName: "dir"))
        var work: String = FileManager.default.temporaryDirectory.appendingPathComponent("locus-scale").path
        @Option(help: ArgumentHelp("Passed to `locus index build --max-memory` (MB) when given.", valueName: "MB"))
        var maxMemory: Int?
        @Option(help: "One-shot starts per op (the median is reported).") var starts: Int = 3
        @Option(help: "Requests per op for the latency percentiles.") var requests: Int = 2000
        @Option(help: "Geocodes for the throughput figure.") var geocodes: Int = 20000
        @Option(help: "Geocodes in flight at once (over two connections) for the throughput figure.") var inFlight: Int = 32
        @Flag(help: "Serve with --map-index (the address tables used where they lie in the file).") var mapIndex = false
        @Flag(help: "Keep the synthetic sources and indexes (they are removed after each size otherwise).") var keep = false
        @Flag(help: "Measure an index a run with --keep left in --work (same copies), without writing or building it again: its build columns are then empty.")
        var reuse = false

        func validate() throws {
            guard !sizes.isEmpty, sizes.allSatisfy({ (1...200).contains($0) }) else {
                throw ValidationError("--copies takes multiples from 1 to 200, e.g. 1,10,30")
            }
            guard starts >= 1, requests >= 10, geocodes >= 100, (1...1024).contains(inFlight) else {
                throw ValidationError("--starts ≥ 1, --requests ≥ 10, --geocodes ≥ 100, --in-flight 1…1024")
            }
        }

        var sizes: [Int] { copies.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) } }

        func run() async throws {
            let data = dataDir ?? ProcessInfo.processInfo.environment["LOCUS_DATA_DIR"]
                ?? IndexOptions.checkout.deletingLastPathComponent().appendingPathComponent("shared/data").path
            let locus = Output.executable.deletingLastPathComponent().appendingPathComponent("locus").path
            try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
            let source = try ScaleSource(dataDir: data)
            Output.line("| copies | addresses | build wall | build peak RSS | index file | one-shot reverse / within / suggest / geocode (wall, peak RSS) | serve: start to first answer | serve RSS after warm-up | p50 / p99 reverse | within | suggest | geocode | geocode/s |")
            Output.line("| ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | --- | --- | --- | --- | ---: |")
            for n in sizes {
                let row = try await measure(copies: n, source: source, locus: locus)
                Output.line(row)
            }
        }

        func measure(copies n: Int, source: ScaleSource, locus: String) async throws -> String {
            let dir = URL(fileURLWithPath: work).appendingPathComponent("x\(n)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { if !keep && !reuse { try? FileManager.default.removeItem(at: dir) } }
            let addresses = dir.appendingPathComponent("addresses.csv").path
            let polygons = dir.appendingPathComponent("neighbourhoods.geojson").path
            let index = dir.appendingPathComponent("x\(n).locus").path
            let queries: ScaleSource.Queries
            let built: ChildProcess.Outcome
            if reuse {
                guard FileManager.default.fileExists(atPath: index) else { throw ValidationError("--reuse: no index at \(index)") }
                queries = try source.write(copies: n, addresses: nil, polygons: nil)
                built = ChildProcess.Outcome(status: 0, seconds: .nan, peakMB: .nan)
            } else {
                Output.note("\(n)×: writing the synthetic sources")
                queries = try source.write(copies: n, addresses: addresses, polygons: polygons)
                Output.note("\(n)×: building")
                var build = ["index", "build", "--addresses", addresses, "--layer", "neighborhoods=\(polygons)", "-o", index]
                if let maxMemory { build += ["--max-memory", String(maxMemory)] }
                built = try ChildProcess.run(locus, build)
                guard built.status == 0 else { throw ValidationError("locus index build failed (exit \(built.status))") }
            }
            let fileSize = (try FileManager.default.attributesOfItem(atPath: index)[.size] as? Int) ?? 0

            Output.note("\(n)×: one-shot starts")
            let p = queries.points[0], a = queries.addresses[0]
            let oneShots: [(String, [String])] = [
                ("reverse", ["reverse", "--index", index, String(p.x), String(p.y)]),
                ("within", ["within", "--index", index, String(p.x), String(p.y)]),
                ("suggest", ["suggest", "--index", index, String(a.prefix(10))]),
                ("geocode", ["geocode", "--index", index, a]),
            ]
            var starts: [String] = []
            for (name, arguments) in oneShots {
                var runs: [ChildProcess.Outcome] = []
                for _ in 0..<self.starts {
                    let r = try ChildProcess.run(locus, arguments)
                    guard r.status == 0 else { throw ValidationError("locus \(name) failed (exit \(r.status))") }
                    runs.append(r)
                }
                let median = runs.sorted { $0.seconds < $1.seconds }[runs.count / 2]
                starts.append(String(format: "%.0f ms / %.0f MB", median.seconds * 1000, median.peakMB))
            }

            Output.note("\(n)×: serving")
            let served = try await ServedIndex.measure(locus: locus, index: index, mapped: mapIndex, dir: dir, queries: queries,
                                                       requests: requests, geocodes: geocodes, inFlight: inFlight)
            func ms(_ l: (Double, Double)) -> String { String(format: "%.2f / %.2f ms", l.0 * 1000, l.1 * 1000) }
            let build = built.seconds.isNaN ? "– | –" : String(format: "%.1f s | %.0f MB", built.seconds, built.peakMB)
            return "| \(n) | \(queries.count.formatted()) | " + build
                + String(format: " | %.0f MB | ", Double(fileSize) / 1_048_576)
                + starts.joined(separator: " · ")
                + String(format: " | %.0f ms | %.0f MB | ", served.firstAnswer * 1000, served.rssMB)
                + [served.reverse, served.within, served.suggest, served.geocode].map(ms).joined(separator: " | ")
                + String(format: " | %.0f |", served.geocodesPerSecond)
        }
    }
}

/// Portland's sources, read once, and written out as N distinct cities.
struct ScaleSource {
    /// Names that turn Portland's cities into distinct synthetic ones, one per copy after the first.
    static let names = ["Alder", "Birch", "Cedar", "Dogwood", "Elm", "Fir", "Ginkgo", "Hawthorn", "Ivy", "Juniper",
                        "Kale", "Larch", "Maple", "Nutmeg", "Oak", "Pine", "Quince", "Rowan", "Spruce", "Tamarack",
                        "Umber", "Vine", "Willow", "Xylem", "Yew", "Zelkova", "Aspen", "Beech", "Chestnut", "Damson"]
    var header: String
    var rows: [[Substring]]
    var columns: (number: Int, street: Int, city: Int, postcode: Int, lon: Int, lat: Int)
    var polygons: [String: Any]

    init(dataDir: String) throws {
        let csv = "\(dataDir)/portland/addresses.csv.gz"
        let reader = try CompressedFileReader(path: csv)
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = try buffer.withUnsafeMutableBufferPointer { b in try reader.read(into: b.baseAddress!, count: b.count) }
            if n <= 0 { break }
            bytes += buffer[0..<n]
        }
        let text = String(decoding: bytes, as: UTF8.self)
        // The file's lines end in CRLF, one Character in Swift: split on either end.
        var lines = text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" })
        guard !lines.isEmpty else { throw ValidationError("\(csv) is empty") }
        header = String(lines.removeFirst())
        let names = header.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        func column(_ name: String) throws -> Int {
            guard let i = names.firstIndex(of: name) else { throw ValidationError("\(csv) has no \(name) column") }
            return i
        }
        columns = (try column("number"), try column("street"), try column("city"), try column("postcode"), try column("lon"), try column("lat"))
        // Portland's rows have no quoted commas (checked: every row splits into the header's count).
        rows = lines.map { $0.split(separator: ",", omittingEmptySubsequences: false) }.filter { $0.count == names.count }
        let geojson = try Data(contentsOf: URL(fileURLWithPath: "\(dataDir)/portland/neighborhoods.geojson"))
        guard let object = try JSONSerialization.jsonObject(with: geojson) as? [String: Any] else {
            throw ValidationError("neighborhoods.geojson is not a GeoJSON object")
        }
        polygons = object
    }

    static func suffix(_ k: Int) -> String {
        k == 0 ? "" : " " + names[(k - 1) % names.count] + (k > names.count ? " \((k - 1) / names.count + 1)" : "")
    }
    static func offset(_ k: Int) -> (dx: Double, dy: Double) { (Double(k % 10) * 1.2, Double(k / 10) * 0.8) }

    struct Queries {
        var count = 0
        var points: [GeoPoint] = []
        var addresses: [String] = []
    }

    /// Writes N copies; returns the query set drawn evenly from all of them (seeded). Without
    /// paths, only the query set (the same one).
    func write(copies n: Int, addresses: String?, polygons path: String?) throws -> Queries {
        var out: FileHandle?
        if let addresses {
            FileManager.default.createFile(atPath: addresses, contents: nil)
            guard let handle = FileHandle(forWritingAtPath: addresses) else { throw ValidationError("cannot write \(addresses)") }
            out = handle
        }
        defer { try? out?.close() }
        var queries = Queries()
        var random = SeededGenerator(seed: 20261124)
        let sampleEvery = max(1, rows.count * n / 4000)
        var chunk = header + "\n"
        for k in 0..<n {
            let (dx, dy) = Self.offset(k)
            let suffix = Self.suffix(k)
            for row in rows {
                guard let lon = Double(row[columns.lon]), let lat = Double(row[columns.lat]) else { continue }
                var fields = row.map(String.init)
                let x = lon + dx, y = lat + dy
                fields[columns.lon] = String(format: "%.7f", x)
                fields[columns.lat] = String(format: "%.7f", y)
                if !fields[columns.city].isEmpty { fields[columns.city] += suffix }
                if let zip = Int(fields[columns.postcode]) { fields[columns.postcode] = String(format: "%05d", (zip + 1000 * k) % 100_000) }
                if out != nil { chunk += fields.joined(separator: ",") + "\n" }
                queries.count += 1
                if queries.count % sampleEvery == 0, !fields[columns.number].isEmpty, !fields[columns.street].isEmpty {
                    // Field positions: an address point moved up to 30 m, as a tree beside the lot.
                    let jx = Double.random(in: -30...30, using: &random) / 78_000, jy = Double.random(in: -30...30, using: &random) / 111_000
                    queries.points.append(GeoPoint(x: x + jx, y: y + jy))
                    queries.addresses.append("\(fields[columns.number]) \(fields[columns.street]), \(fields[columns.city])")
                }
                if chunk.utf8.count > 1 << 22 {
                    try out?.write(contentsOf: Data(chunk.utf8))
                    chunk = ""
                }
            }
        }
        try out?.write(contentsOf: Data(chunk.utf8))
        guard !queries.points.isEmpty else { throw ValidationError("no queries drawn") }
        guard let path else { return queries }

        var object = polygons
        let features = (polygons["features"] as? [[String: Any]]) ?? []
        var copied: [[String: Any]] = []
        for k in 0..<n {
            let (dx, dy) = Self.offset(k)
            for var f in features {
                if var properties = f["properties"] as? [String: Any] {
                    for key in ["NAME", "MAPLABEL"] { if let s = properties[key] as? String { properties[key] = s + Self.suffix(k) } }
                    if let id = properties["ID"] as? Int { properties["ID"] = id + 1000 * k }
                    f["properties"] = properties
                }
                if var geometry = f["geometry"] as? [String: Any], let c = geometry["coordinates"] {
                    geometry["coordinates"] = Self.shifted(c, dx, dy)
                    f["geometry"] = geometry
                }
                copied.append(f)
            }
        }
        object["features"] = copied
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: path))
        return queries
    }

    static func shifted(_ value: Any, _ dx: Double, _ dy: Double) -> Any {
        if let pair = value as? [Double], pair.count >= 2, !(value is [[Any]]) { return [pair[0] + dx, pair[1] + dy] + pair.dropFirst(2) }
        if let list = value as? [Any] { return list.map { shifted($0, dx, dy) } }
        return value
    }
}

/// A child process run to its end, with its own wall time and peak resident memory. The peak is
/// read by GNU time (Debian `time`), a small process that forks the child itself: a child spawned
/// from this process starts with this process's peak (glibc spawns with vfork, and the peak
/// survives exec), which at 30× is the synthetic data held here.
enum ChildProcess {
    struct Outcome {
        var status: Int32
        var seconds: Double
        var peakMB: Double
    }

    static let time = "/usr/bin/time"

    static func run(_ executable: String, _ arguments: [String]) throws -> Outcome {
        guard FileManager.default.isExecutableFile(atPath: time) else {
            throw ValidationError("\(time) is missing: apt-get install -y time")
        }
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("locus-scale-time-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: report) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: time)
        process.arguments = ["-f", "%e %M", "-o", report, executable] + arguments
        process.standardOutput = FileHandle.nullDevice
        let clock = ContinuousClock()
        let start = clock.now
        try process.run()
        process.waitUntilExit()
        let seconds = (clock.now - start).inSeconds
        // The last line is "<seconds> <peak kB>"; a killed child adds a line before it.
        let fields = ((try? String(contentsOfFile: report, encoding: .utf8)) ?? "")
            .split(separator: "\n").last?.split(separator: " ") ?? []
        let peak = fields.count == 2 ? Double(fields[1]) ?? 0 : 0
        return Outcome(status: process.terminationStatus, seconds: seconds, peakMB: peak / 1024)
    }
}

/// `locus serve` on one index: start to first answer, latency per op, geocode throughput, RSS.
struct ServedIndex {
    var firstAnswer: Double
    var reverse: (Double, Double)
    var within: (Double, Double)
    var suggest: (Double, Double)
    var geocode: (Double, Double)
    var geocodesPerSecond: Double
    var rssMB: Double

    static func measure(locus: String, index: String, mapped: Bool, dir: URL, queries: ScaleSource.Queries,
                        requests: Int, geocodes: Int, inFlight: Int) async throws -> ServedIndex {
        let socket = dir.appendingPathComponent("s.sock").path
        try? FileManager.default.removeItem(atPath: socket)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: locus)
        process.arguments = ["serve", "--index", index, "--listen", "unix:\(socket)", "--log-level", "warning"] + (mapped ? ["--map-index"] : [])
        process.standardOutput = FileHandle.nullDevice
        let clock = ContinuousClock()
        let start = clock.now
        try process.run()
        defer { process.terminate(); process.waitUntilExit() }
        func location(_ p: GeoPoint) -> JSONValue { .object(["x": .number(p.x), "y": .number(p.y), "wkid": .number(4326)]) }
        var client: LocusClient?
        while client == nil, clock.now - start < .seconds(600), process.isRunning {
            if let c = try? await LocusClient.connect(to: .unix(path: socket)),
               (try? await c.send(op: "reverse", ["location": location(queries.points[0])]))?.ok == true {
                client = c
            } else {
                try await Task.sleep(for: .milliseconds(5))
            }
        }
        guard let client else { throw ValidationError("locus serve did not answer") }
        let firstAnswer = (clock.now - start).inSeconds

        func percentiles(_ op: String, _ arguments: (Int) -> [String: JSONValue]) async throws -> (Double, Double) {
            var times: [Double] = []
            for i in 0..<requests {
                let t = clock.now
                let reply = try await client.send(op: op, arguments(i))
                guard reply.ok else { throw ValidationError("\(op) failed: \(reply)") }
                times.append((clock.now - t).inSeconds)
            }
            times.sort()
            return (times[times.count / 2], times[min(times.count - 1, times.count * 99 / 100)])
        }
        let points = queries.points, addresses = queries.addresses
        let reverse = try await percentiles("reverse") { ["location": location(points[$0 % points.count])] }
        let within = try await percentiles("within") { ["location": location(points[$0 % points.count])] }
        let suggest = try await percentiles("suggest") { i in
            let a = addresses[(i / 8) % addresses.count]
            return ["text": .string(String(a.prefix(3 + i % 8 * 2)))]
        }
        let geocode = try await percentiles("geocode") { ["text": .string(addresses[$0 % addresses.count])] }

        let second = try await LocusClient.connect(to: .unix(path: socket))
        let clients = [client, second]
        let t = clock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<inFlight {
                group.addTask {
                    var i = lane
                    while i < geocodes {
                        _ = try await clients[lane % 2].send(op: "geocode", ["text": .string(addresses[i % addresses.count])])
                        i += inFlight
                    }
                }
            }
            try await group.waitForAll()
        }
        let rate = Double(geocodes) / (clock.now - t).inSeconds
        await client.close()
        await second.close()
        let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
        let rss = status.split(separator: "\n").first { $0.hasPrefix("VmRSS") }
            .flatMap { Double($0.split(whereSeparator: \.isWhitespace).dropFirst().first ?? "") } ?? 0
        return ServedIndex(firstAnswer: firstAnswer, reverse: reverse, within: within, suggest: suggest, geocode: geocode,
                           geocodesPerSecond: rate, rssMB: rss / 1024)
    }
}
