import Foundation
import LocusCore
import LocusEngine
import LocusServer
import Testing

/// `locus enrich` and `locus assign` as users run them, on real Portland data and on hostile CSVs.
@Suite(.serialized) struct BatchTests {
    let index: String
    let dir: URL

    init() throws {
        index = try TestSupport.portlandIndexPath()
        dir = TestSupport.temporaryDirectory()
    }

    /// The first `rows` typed addresses of the benchmark file (written once per run).
    static let typedAddresses: Result<String, LocusError> = {
        let path = TestSupport.temporaryDirectory().appendingPathComponent("typed.csv").path
        do {
            let r = try TestSupport.locus(["bench", "typed-addresses", "-o", path, "--index", try TestSupport.portlandIndexPath()])
            guard r.status == 0 else { return .failure(LocusError(.internalError, r.stderr)) }
            return .success(path)
        } catch let e as LocusError {
            return .failure(e)
        } catch {
            return .failure(LocusError(.internalError, "\(error)"))
        }
    }()

    func typed(_ rows: Int) throws -> String {
        let all = try String(contentsOfFile: Self.typedAddresses.get(), encoding: .utf8)
        let lines = all.split(separator: "\n", omittingEmptySubsequences: false)
        let path = dir.appendingPathComponent("typed-\(rows).csv").path
        try (lines.prefix(rows + 1).joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func write(_ name: String, _ text: String) throws -> String {
        let path = dir.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func rows(_ path: String) throws -> [[String: String]] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return parseCSV(text)
    }

    @Test func enrichKeepsEveryRowInOrderAndFindsTheAddresses() throws {
        let input = try typed(3_000)
        let out = dir.appendingPathComponent("enriched.csv").path
        let r = try TestSupport.locus(["enrich", input, "-o", out, "--index", index, "--allow-failures"])
        #expect(r.status == 0, "\(r.stderr)")
        let written = try rows(out)
        #expect(written.count == 3_000)
        #expect(written.map { $0["id"] } == (1...3_000).map { String($0) })
        // Found where they are: the typed address's true position within 25 m.
        let near = written.filter { row in
            guard row["status"] == "matched", let x = Double(row["longitude"] ?? ""), let y = Double(row["latitude"] ?? ""),
                  let tx = Double(row["true_lon"] ?? ""), let ty = Double(row["true_lat"] ?? "") else { return false }
            return GeoPoint(x: x, y: y).metres(to: GeoPoint(x: tx, y: ty)) < 25
        }
        #expect(Double(near.count) / 3_000 > 0.995)
        #expect(written.contains { $0["neighborhoods"] == "Concordia" })
        #expect(r.stderr.contains("3,000 rows"))
        #expect(r.stderr.contains("matched"))
    }

    @Test func failedRowsStayWithTheirReasonAndSetTheExitStatus() throws {
        let input = try write("messy.csv", """
        id,address,city,zip
        1,6132 NE 34th Ave,Portland,97211
        2,,Portland,
        3,asdf qwer,,
        4,"NE 34th Ave & NE Killingsworth St",,
        5,6132 ne 34th avenue,,97211

        """)
        let out = dir.appendingPathComponent("messy.out.csv").path
        let r = try TestSupport.locus(["enrich", input, "-o", out, "--index", index])
        #expect(r.status == 2)
        #expect(r.stderr.contains("2 rows failed"))
        let written = try rows(out)
        #expect(written.map { $0["id"] } == ["1", "2", "3", "4", "5"])
        #expect(written.map { $0["status"] } == ["matched", "failed", "unmatched", "matched", "matched"])
        #expect(written[1]["reason"] == "no address in this row")
        let why = try #require(written[2]["reason"])
        #expect(why == "no candidate" || why.hasPrefix("best candidate "), "\(why)")
        #expect(written[0]["match_addr"] == "6132 NE 34th Ave, Portland, OR 97211")
        #expect(written[3]["match_type"] == "intersection")
        #expect(written[4]["match_postcode"] == "97211")
        let allowed = try TestSupport.locus(["enrich", input, "-o", out, "--index", index, "--allow-failures"])
        #expect(allowed.status == 0)
    }

    @Test func addressPartsInColumnsOfTheirOwn() throws {
        let input = try write("parts.csv", "House Number;Street Name;ZIP Code\n6132;NE 34th Ave;97211\n1;Nowhere Blvd;97211\n")
        let out = dir.appendingPathComponent("parts.out.csv").path
        let r = try TestSupport.locus(["enrich", input, "-o", out, "--index", index, "--allow-failures"])
        #expect(r.status == 0, "\(r.stderr)")
        let text = try String(contentsOfFile: out, encoding: .utf8)
        #expect(text.hasPrefix("House Number;Street Name;ZIP Code;status;"))
        #expect(text.contains("6132;NE 34th Ave;97211;matched;"))
        #expect(r.stderr.contains(#"address from "House Number" + "Street Name" + "ZIP Code""#))
    }

    @Test func assignAgreesWithTheEngineOnRealPointsInWebMercator() throws {
        // Address points moved a little, in Web Mercator, with the nearest polygon for the rest.
        let idx = try TestSupport.portland()
        let a = try #require(idx.addresses)
        var rng = SeededGenerator(seed: 11)
        var text = "tree_id,x,y,species\n"
        var expected: [String] = []
        let locator = Locator(index: idx)
        for i in 0..<2_000 {
            let p = a.points[Int.random(in: 0..<a.count, using: &rng)]
            let lon = p.lon + Double.random(in: -0.01...0.01, using: &rng), lat = p.lat + Double.random(in: -0.01...0.01, using: &rng)
            let m = try locator.location(GeoPoint(x: lon, y: lat), in: try SpatialReference(wkid: 3857))
            text += "T\(i),\(m.x),\(m.y),\"Acer, macrophyllum\"\n"
            var w = WithinRequest(location: GeoPoint(x: lon, y: lat))
            w.nearestWithin = 500
            expected.append(try locator.within(w).features.map(\.name).joined(separator: "; "))
        }
        let input = try write("trees.csv", text)
        let out = dir.appendingPathComponent("trees.out.csv").path
        let r = try TestSupport.locus(["assign", input, "-o", out, "--wkid", "3857", "--nearest-within", "500", "--reverse", "--index", index])
        #expect(r.status == 0, "\(r.stderr)")
        let written = try rows(out)
        #expect(written.count == 2_000)
        #expect(written.map { $0["tree_id"] } == (0..<2_000).map { "T\($0)" })
        #expect(written.map { $0["neighborhoods"] ?? "?" } == expected)
        #expect(written.allSatisfy { $0["species"] == "Acer, macrophyllum" })
        #expect(written.contains { $0["status"] == "nearest" && Double($0["neighborhoods_distance_m"] ?? "") ?? 0 > 0 })
        #expect(written.contains { !($0["address"] ?? "").isEmpty })
    }

    @Test(arguments: [
        // BOM, CRLF, quotes with delimiters and newlines, a unicode name, a ragged row.
        ("bom-crlf.csv", "\u{FEFF}name,lon,lat\r\n\"Tree, \"\"big\"\"\",-122.6296,45.5676\r\n\"two\nlines\",-122.6296,45.5676\r\nÉrable 🌳,-122.6296,45.5676\r\nshort,-122.6296\r\n", 4),
        // Semicolons and tabs.
        ("semicolon.csv", "name;longitude;latitude\na;-122.6296;45.5676\nb;-122,6;45,5\n", 2),
        ("tab.tsv", "name\tlng\tlat\na\t-122.6296\t45.5676\n\nb\t-122.6296\t45.5676\n", 2),
    ])
    func hostileCSVsKeepEveryRowAndField(_ name: String, _ text: String, _ count: Int) throws {
        let input = try write(name, text)
        let out = dir.appendingPathComponent(name + ".out.csv").path
        let r = try TestSupport.locus(["assign", input, "-o", out, "--index", index, "--allow-failures"])
        #expect(r.status == 0, "\(r.stderr)")
        let written = try String(contentsOfFile: out, encoding: .utf8)
        let inputRows = parseCSV(text.replacingOccurrences(of: "\u{FEFF}", with: ""), delimiter: name.hasSuffix(".tsv") ? "\t" : (name.hasPrefix("semi") ? ";" : ","))
        let outputRows = parseCSV(written.replacingOccurrences(of: "\u{FEFF}", with: ""), delimiter: name.hasSuffix(".tsv") ? "\t" : (name.hasPrefix("semi") ? ";" : ","))
        #expect(outputRows.count == count)
        #expect(inputRows.count == count)
        for (i, o) in zip(inputRows, outputRows) {
            for (k, v) in i where !k.isEmpty { #expect(o[k] == v, "\(name): field \(k)") }
        }
        if text.hasPrefix("\u{FEFF}") {
            // Foundation drops a byte-order mark when it decodes; look at the bytes.
            let bytes = try Data(contentsOf: URL(fileURLWithPath: out))
            #expect(bytes.starts(with: [0xEF, 0xBB, 0xBF] + Array("name,lon,lat,status".utf8)))
            #expect(bytes.firstRange(of: Data([0x0D, 0x0A])) != nil)
        }
    }

    @Test func unusableFilesGetClearErrors() throws {
        let empty = try write("empty.csv", "")
        var r = try TestSupport.locus(["assign", empty, "-o", dir.appendingPathComponent("e.out").path, "--index", index])
        #expect(r.status == 64)
        #expect(r.stderr.contains("empty"))
        let noColumns = try write("nocols.csv", "a,b\n1,2\n")
        r = try TestSupport.locus(["assign", noColumns, "-o", dir.appendingPathComponent("n.out").path, "--index", index])
        #expect(r.status == 64)
        #expect(r.stderr.contains("--x-column"))
        r = try TestSupport.locus(["enrich", noColumns, "-o", dir.appendingPathComponent("n2.out").path, "--index", index])
        #expect(r.stderr.contains("--address-column"))
        let badUTF8 = dir.appendingPathComponent("bad.csv")
        try Data([0x6C, 0x6F, 0x6E, 0x2C, 0x6C, 0x61, 0x74, 0x0A, 0xFF, 0xFE, 0x2C, 0x31, 0x0A]).write(to: badUTF8)
        r = try TestSupport.locus(["assign", badUTF8.path, "-o", dir.appendingPathComponent("b.out").path, "--index", index])
        // A row that is not UTF-8 is a bad row like any other: kept, failed, with its reason.
        #expect(r.status == 2)
        #expect(try String(contentsOfFile: dir.appendingPathComponent("b.out").path, encoding: .utf8).contains("not valid UTF-8"))
        r = try TestSupport.locus(["assign", noColumns, "-o", dir.appendingPathComponent("l.out").path, "--x-column", "a", "--y-column", "b", "--layer", "zoning", "--index", index])
        #expect(r.stderr.contains("no layer named \"zoning\""))
    }

    /// Kills a run at a random moment, resumes it, and compares with an uninterrupted run.
    func killAndResume(_ arguments: [String], output: String, seed: UInt64, wait: ClosedRange<Double>) throws {
        let reference = output + ".reference" + (output.hasSuffix(".gz") ? ".gz" : "")
        let whole = try TestSupport.locus(arguments + ["-o", reference, "--allow-failures"])
        #expect(whole.status == 0, "\(whole.stderr)")
        var rng = SeededGenerator(seed: seed)
        var interrupted = false
        for _ in 0..<6 where !interrupted {
            let process = Process()
            process.executableURL = TestSupport.locusBinary
            process.arguments = arguments + ["-o", output, "--allow-failures"]
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Somewhere after the first chunks, before the end.
            Thread.sleep(forTimeInterval: Double.random(in: wait, using: &rng))
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                let record = (try? Data(contentsOf: URL(fileURLWithPath: output + ".locus-resume"))).flatMap {
                    try? JSONSerialization.jsonObject(with: $0) as? [String: Any]
                }
                interrupted = (record?["rowsDone"] as? Int ?? 0) > 0
            }
            process.waitUntilExit()
        }
        #expect(interrupted, "every run finished before it could be killed")
        #expect(FileManager.default.fileExists(atPath: output + ".locus-resume"))
        let resumed = try TestSupport.locus(arguments + ["-o", output, "--allow-failures", "--resume"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stderr.contains("from the interrupted run"))
        let a = try Data(contentsOf: URL(fileURLWithPath: output)), b = try Data(contentsOf: URL(fileURLWithPath: reference))
        #expect(a == b, "resumed output differs from the uninterrupted run (\(a.count) vs \(b.count) bytes)")
        #expect(!FileManager.default.fileExists(atPath: output + ".locus-resume"))
        // A finished output is not resumed again by mistake.
        let again = try TestSupport.locus(arguments + ["-o", output, "--resume"])
        #expect(again.status == 64)
        #expect(again.stderr.contains("no resume record"))
    }

    @Test func enrichResumedAfterAKillIsByteIdentical() throws {
        let input = try typed(200_000)
        try killAndResume(["enrich", input, "--index", index], output: dir.appendingPathComponent("resume.csv").path, seed: 3, wait: 1.5...4)
    }

    @Test func assignResumedAfterAKillIsByteIdenticalGzipped() throws {
        let points = dir.appendingPathComponent("points.csv").path
        let r = try TestSupport.locus(["bench", "within", "--points", "1500000", "--repeats", "1", "--write-points", points, "--index", index])
        #expect(r.status == 0)
        try killAndResume(["assign", points, "--reverse", "--index", index], output: dir.appendingPathComponent("resume.csv.gz").path, seed: 5, wait: 0.5...2.5)
        // The .gz is real gzip.
        let gunzip = try TestSupport.run(URL(fileURLWithPath: "/bin/gzip"), ["-t", dir.appendingPathComponent("resume.csv.gz").path])
        #expect(gunzip.status == 0)
    }

    @Test func throughAServerTheOutputIsTheSame() async throws {
        let input = try typed(2_000)
        let live = try await LiveServer.start()
        let embedded = dir.appendingPathComponent("embedded.csv").path
        let served = dir.appendingPathComponent("served.csv").path
        let a = try TestSupport.locus(["enrich", input, "-o", embedded, "--index", index, "--allow-failures"])
        let b = try TestSupport.locus(["enrich", input, "-o", served, "--server", live.unix.description, "--allow-failures"])
        #expect(a.status == 0 && b.status == 0, "\(b.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: embedded)) == Data(contentsOf: URL(fileURLWithPath: served)))
        try await live.stop()
    }
}

/// A small RFC 4180 reader for checking outputs (quotes, doubled quotes, CR LF, embedded newlines).
func parseCSV(_ text: String, delimiter: Character = ",") -> [[String: String]] {
    var records: [[String]] = []
    var field = "", record: [String] = [], quoted = false
    var chars = Array(text)
    if chars.last != "\n" { chars.append("\n") }
    var i = 0
    while i < chars.count {
        let c = chars[i]
        if quoted {
            if c == "\"" {
                if i + 1 < chars.count, chars[i + 1] == "\"" { field.append("\""); i += 1 } else { quoted = false }
            } else { field.append(c) }
        } else if c == "\"" {
            quoted = true
        } else if c == delimiter {
            record.append(field); field = ""
        } else if c == "\n" || c == "\r\n" {
            record.append(field); field = ""
            if !(record.count == 1 && record[0].isEmpty) { records.append(record) }
            record = []
        } else if c != "\r" {
            field.append(c)
        }
        i += 1
    }
    guard let header = records.first else { return [] }
    return records.dropFirst().map { r in
        var d: [String: String] = [:]
        for (k, name) in header.enumerated() where k < r.count { d[name] = r[k] }
        return d
    }
}
