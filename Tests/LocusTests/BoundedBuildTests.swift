import Foundation
import LocusCore
import LocusEngine
import Testing

/// Issue 13, point 2: a build's memory is bounded by `--max-memory`, not by its input. The rows go
/// through SQLite's sorter (which spills to temporary files) in one pass per order the index
/// needs; these tests hold the passes to what the index must contain.
@Suite struct BoundedBuildTests {
    /// Portland as the shared test index is built, with the given memory setting.
    static func buildPortland(_ out: String, maxMemory: Int? = nil) throws {
        var config = IndexBuildConfiguration(output: out)
        config.addresses = TestSupport.portlandAddresses
        config.layers = [LayerSource(name: "neighborhoods", path: TestSupport.portlandNeighbourhoods)]
        config.synonyms = [TestSupport.packageRoot.appendingPathComponent("Data/portland/synonyms.csv").path]
        if let maxMemory { config.maxMemory = maxMemory }
        _ = try IndexBuilder.build(config)
    }

    /// The bytes of every table after the database, by name.
    static func tables(_ path: String) throws -> [String: Data] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return try IndexTablesTests.sections(path).mapValues { data.subdata(in: $0.offset..<($0.offset + $0.length)) }
    }

    static func metadata(_ path: String, _ key: String) throws -> String? {
        try LocusIndex.metadata(path: path).values[key]
    }

    @Test func theLeastMemoryGivesTheSameTablesAndContent() throws {
        let small = TestSupport.temporaryDirectory().appendingPathComponent("small.locus").path
        // 64 MiB: SQLite's sorter gets 8 MiB, a tenth of what the sort of Portland's rows needs.
        try Self.buildPortland(small, maxMemory: 64 << 20)
        let reference = try TestSupport.portlandIndexPath()
        let a = try Self.tables(small), b = try Self.tables(reference)
        #expect(a.keys.sorted() == b.keys.sorted())
        for (name, bytes) in b { #expect(a[name] == bytes, "table \(name)") }
        #expect(try Self.metadata(small, "content_sha256") == Self.metadata(reference, "content_sha256"))
        #expect(try Self.metadata(small, "address_count") == "435177")
    }

    /// Each address's same-side neighbours, by the rule written out plainly here over the stored
    /// points: same street, same city, same parity, next by number (then suffix, then index),
    /// and no further than 150 m.
    @Test func sameSideNeighboursFollowTheRule() throws {
        let addresses = try #require(try TestSupport.portland().addresses)
        let points = addresses.points
        var groups: [String: [Int]] = [:]
        for i in 0..<points.count {
            let p = points[i]
            groups["\(p.street)|\(addresses.places[Int(p.place)].city)|\(p.number & 1)", default: []].append(i)
        }
        var previous = [Int32](repeating: -1, count: points.count), next = previous
        for members in groups.values {
            let sorted = members.sorted { (points[$0].number, points[$0].suffix, $0) < (points[$1].number, points[$1].suffix, $1) }
            for (a, b) in zip(sorted, sorted.dropFirst()) {
                let s = LocalMetricScale(latitude: points[a].lat)
                let dx = (points[a].lon - points[b].lon) * s.metresPerDegreeX, dy = (points[a].lat - points[b].lat) * s.metresPerDegreeY
                guard dx * dx + dy * dy <= 150 * 150 else { continue }
                next[a] = Int32(b)
                previous[b] = Int32(a)
            }
        }
        var wrong = 0, linked = 0
        for i in 0..<points.count {
            if points[i].previous != previous[i] || points[i].next != next[i] { wrong += 1 }
            if next[i] >= 0 { linked += 1 }
        }
        #expect(wrong == 0)
        #expect(linked > 300_000, "most Portland addresses have a neighbour on their side")
    }

    /// The search tables the build streams answer exactly as those derived from the points in
    /// memory (as the evaluation derives them).
    @Test func storedSearchTablesAnswerAsDerivedOnes() throws {
        let index = try TestSupport.portland()
        let addresses = try #require(index.addresses)
        let stored = try #require(index.search)
        let synonyms = try StreetSynonyms(parsing: try #require(index.metadata.values["synonyms"]))
        let derived = AddressSearch(addresses: addresses, layers: index.layers.keys.sorted().compactMap { index.layers[$0] }, synonyms: synonyms)
        var random = SeededGenerator(seed: 2)
        var compared = 0
        for _ in 0..<400 {
            let i = Int.random(in: 0..<addresses.count, using: &random)
            let c = addresses.components(of: i)
            for text in ["\(c.number) \(c.street)", "\(c.number) \(c.street.lowercased().dropLast(2)) \(c.postcode)", String(c.street.prefix(6))] {
                #expect(stored.geocode(GeocodeRequest(.text(text))) == derived.geocode(GeocodeRequest(.text(text))), "\(text)")
                #expect(stored.suggest(SuggestRequest(text: text)) == derived.suggest(SuggestRequest(text: text)), "\(text)")
                compared += 1
            }
        }
        #expect(compared == 1_200)
    }

    /// The same rows in another order give the same tables: every order the build sorts by is total.
    @Test func rowOrderDoesNotChangeTheTables() throws {
        let dir = TestSupport.temporaryDirectory()
        let head = try TestSupport.run(URL(fileURLWithPath: "/bin/sh"), ["-c", "gzip -dc '\(TestSupport.portlandAddresses)' | head -n 30001"])
        var lines = head.stdout.split(whereSeparator: \.isNewline).map(String.init)
        #expect(lines.count == 30_001)
        let header = lines.removeFirst()
        var random = SeededGenerator(seed: 7)
        // Every row twice, the copies shuffled in: the duplicates must go whichever comes first.
        let shuffled = (lines + lines).shuffled(using: &random)
        var paths: [String] = []
        for (name, rows) in [("inOrder", lines), ("shuffled", shuffled)] {
            let csv = dir.appendingPathComponent("\(name).csv")
            try ([header] + rows).joined(separator: "\n").write(to: csv, atomically: true, encoding: .utf8)
            var config = IndexBuildConfiguration(output: dir.appendingPathComponent("\(name).locus").path)
            config.addresses = csv.path
            config.maximumRejectedShare = 0.6
            let report = try IndexBuilder.build(config)
            #expect(report.addresses > 25_000)
            if name == "shuffled" { #expect(report.rejectedAddresses["duplicate"] ?? 0 >= 30_000) }
            paths.append(config.output)
        }
        let a = try Self.tables(paths[0]), b = try Self.tables(paths[1])
        #expect(a.count >= 13 && a.keys.sorted() == b.keys.sorted())
        for (name, bytes) in a { #expect(b[name] == bytes, "table \(name)") }
    }

    /// A column of distinct values mapped as the street (an id, here) would grow the names held
    /// past any setting: the build stops with a coded error naming the likely cause, and leaves no file.
    @Test func distinctNamesPastTheSettingAreACodedError() throws {
        let dir = TestSupport.temporaryDirectory()
        let csv = dir.appendingPathComponent("ids.csv")
        var text = "number,street,lon,lat\n"
        for i in 0..<150_000 {
            text += "\(i + 1),parcel-\(String(repeating: "x", count: 80))-\(i),\(-122.6 + Double(i % 1000) * 1e-5),\(45.5 + Double(i / 1000) * 1e-5)\n"
        }
        try text.write(to: csv, atomically: true, encoding: .utf8)
        var config = IndexBuildConfiguration(output: dir.appendingPathComponent("ids.locus").path)
        config.addresses = csv.path
        config.maxMemory = 64 << 20
        #expect { try IndexBuilder.build(config) } throws: { error in
            guard let e = error as? LocusError else { return false }
            return e.code == .importFailed && e.message.contains("16 MiB") && e.message.contains("is the street column right?")
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0 != "ids.csv" }
        #expect(left.isEmpty, "left behind: \(left)")
    }

    /// Rows geocoded to one spot (a file's failures at a city's centroid) are not lots along a
    /// street: each frontage search scanned all of them (100,000 took 37 s, growing with the
    /// square). 300,000 now build within a limit the quadratic work would pass several times.
    @Test func rowsAtOneSpotDoNotTakeTheSquareOfTheirTime() throws {
        let dir = TestSupport.temporaryDirectory()
        let csv = dir.appendingPathComponent("one-spot.csv")
        var text = "number,street,lon,lat\n"
        for i in 0..<300_000 { text += "\(i + 1),\(i % 2 == 0 ? "Main St" : "Oak St"),-122.6,45.5\n" }
        try text.write(to: csv, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("one-spot.locus").path
        let run = try TestSupport.locus(["index", "build", "--addresses", csv.path, "-o", out], timeout: 120)
        #expect(run.status == 0, "killed after 120 s or failed: \(run.stderr)")
        let index = try LocusIndex(path: out)
        let addresses = try #require(index.addresses)
        #expect(addresses.count == 300_000)
        #expect(!addresses.frontage[0].hasDirection, "no frontage where no lots can be told apart")
        let answer = try #require(try Locator(index: index).reverse(ReverseRequest(location: GeoPoint(x: -122.6, y: 45.5001))))
        #expect(answer.distanceMetres < 20)
    }

    /// A build killed part way leaves its partial file and scratch files (together the index's
    /// size); the next build of the same index removes those of processes that are gone, and
    /// only those.
    @Test func aKilledBuildsLeftoversGoWithTheNextBuild() throws {
        let dir = TestSupport.temporaryDirectory()
        let out = dir.appendingPathComponent("x.locus")
        // A pid that no process has: past the kernel's largest.
        let gone = ".x.locus.4194399.partial", alive = ".x.locus.\(getppid()).partial"
        for name in [gone, gone + ".scratch-points", gone + ".scratch-staging", alive, ".y.locus.4194399.partial"] {
            try Data("left".utf8).write(to: dir.appendingPathComponent(name))
        }
        var config = IndexBuildConfiguration(output: out.path)
        config.addresses = TestSupport.fixtures.appendingPathComponent("addresses_messy.csv").path
        config.maximumRejectedShare = 1
        _ = try IndexBuilder.build(config)
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: dir.path))
        #expect(left == ["x.locus", alive, ".y.locus.4194399.partial"])
    }

    /// Peak memory of `locus index build` (GNU time, installed by scripts/setup) on Portland with
    /// the least setting: the build that held every row peaked at 315 MB here.
    @Test func portlandBuildsWithinItsMemorySetting() throws {
        let time = URL(fileURLWithPath: "/usr/bin/time")
        try #require(FileManager.default.isExecutableFile(atPath: time.path), "GNU time (Debian `time`, scripts/setup installs it)")
        let out = TestSupport.temporaryDirectory().appendingPathComponent("p.locus").path
        let run = try TestSupport.run(time, ["-f", "peak %M", TestSupport.locusBinary.path, "index", "build", "--max-memory", "64",
                                             "--addresses", TestSupport.portlandAddresses, "-o", out], timeout: 300)
        #expect(run.status == 0, "\(run.stderr)")
        let peak = run.stderr.split(separator: "\n").last { $0.hasPrefix("peak ") }.flatMap { Int($0.dropFirst(5)) }
        let kib = try #require(peak)
        print("locus index build --max-memory 64, Portland: peak RSS \(kib / 1024) MiB")
        #expect(kib < 160 * 1024)
    }
}
