import Foundation
import LocusBatch
import LocusCore
import LocusEngine
import LocusServer
import LocusWire
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
            let r = try TestSupport.locusBench(["typed-addresses", "-o", path, "--index", try TestSupport.portlandIndexPath()])
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
        #expect(r.stderr.contains("locus: 2 rows unmatched or failed (unmatched 1, failed 1); they are in the output"), "\(r.stderr)")
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

    /// A row found only as a ZIP code or a town stands at the area's centre: the neighbourhood
    /// there is none of the row's (was: the one the centre fell in, given as the row's).
    @Test func aZipCodeOrTownGetsNoNeighbourhood() throws {
        let input = try write("areas.csv", "id,address\n1,97211\n2,\"Portland, OR\"\n3,6132 NE 34th Ave\n")
        let out = dir.appendingPathComponent("areas.out.csv").path
        let r = try TestSupport.locus(["enrich", input, "-o", out, "--index", index, "--layer", "neighborhoods"])
        #expect(r.status == 0, "\(r.stderr)")
        let written = try rows(out)
        #expect(written.map { $0["match_type"] } == ["postcode", "locality", "point_address"])
        #expect(written.map { $0["neighborhoods"] } == ["", "", "Concordia"])
        #expect(written[0]["reason"] == "found only as a ZIP code: no neighborhoods at its centre")
        #expect(written[1]["reason"] == "found only as a town: no neighborhoods at its centre")
    }

    /// A row whose street none of its ZIP code's is (a street newer than the points) is found as
    /// that ZIP code, and says so; it was unmatched with "no candidate", the ZIP code it gave lost.
    @Test func aStreetNotFoundIsFoundAsItsZipCodeAndSaysSo() throws {
        let input = try write("newstreet.csv", "id,address,zip\n1,1234 Nonexistent Way,97211\n")
        let out = dir.appendingPathComponent("newstreet.out.csv").path
        let r = try TestSupport.locus(["enrich", input, "-o", out, "--index", index])
        #expect(r.status == 0, "\(r.stderr)")
        let written = try rows(out)
        #expect(written.map { $0["status"] } == ["matched"])
        #expect(written.map { $0["match_type"] } == ["postcode"])
        #expect(written.first?["score"].flatMap(Double.init) == 70)
        #expect(written.first?["reason"] == "found only as a ZIP code: no neighborhoods at its centre")
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
        try Data([0x6C, 0x6F, 0x6E, 0x2C, 0x6C, 0x61, 0x74, 0x0A, 0x81, 0x9D, 0x2C, 0x31, 0x0A]).write(to: badUTF8)
        r = try TestSupport.locus(["assign", badUTF8.path, "-o", dir.appendingPathComponent("b.out").path, "--index", index])
        // A row that is not UTF-8 is a bad row like any other: kept, failed, with its reason.
        #expect(r.status == 2)
        #expect(try String(contentsOfFile: dir.appendingPathComponent("b.out").path, encoding: .utf8).contains("not valid UTF-8"))
        r = try TestSupport.locus(["assign", noColumns, "-o", dir.appendingPathComponent("l.out").path, "--x-column", "a", "--y-column", "b", "--layer", "zoning", "--index", index])
        #expect(r.stderr.contains("no layer named \"zoning\""))
    }

    /// Rows per chunk: the unit of the output's writes and of the resume record (`BatchOptions`).
    static let chunk = 4_096

    /// The rows the resume record beside `output` says are written, nil when there is none.
    func rowsDone(_ output: String) -> Int? {
        (try? Data(contentsOf: URL(fileURLWithPath: output + ".locus-resume")))
            .flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
            .flatMap { $0["rowsDone"] as? Int }
    }

    /// Starts `locus` with `arguments`, its standard error to a file.
    func start(_ arguments: [String]) throws -> (Process, URL) {
        let process = Process()
        process.executableURL = TestSupport.locusBinary
        process.arguments = arguments
        let log = dir.appendingPathComponent("job-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: log)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        return (process, log)
    }

    /// Waits until the job writing `output` has recorded at least `rows` rows done (and fewer
    /// than `below`); false when it exits, or gets to `below`, first. The record moves a chunk at a
    /// time, so whatever is done next (SIGKILL) lands in the chunk after, at whatever point of its
    /// work that chunk has reached.
    func waitForRecord(_ output: String, of process: Process, atLeast rows: Int, below: Int = .max) -> Bool {
        while process.isRunning {
            if let done = rowsDone(output), done >= rows { return done < below }
            usleep(500)
        }
        return false
    }

    /// Runs the job (with `--resume` when `resume`) and SIGKILLs it once its record shows `target`
    /// rows done; returns the rows the record shows then. A run that reaches its end before it can
    /// be killed (possible only for a target in the last chunks, on a machine so busy this thread
    /// did not run for a chunk's time) is tried again from a copy of the files as they were.
    func killedRun(_ arguments: [String], output: String, resume: Bool, at target: Int, total: Int) throws -> Int {
        let saved = [output, output + ".locus-resume"].filter { FileManager.default.fileExists(atPath: $0) }
        for f in saved { try? FileManager.default.removeItem(atPath: f + ".saved"); try FileManager.default.copyItem(atPath: f, toPath: f + ".saved") }
        for _ in 0..<3 {
            let (process, log) = try start(arguments + ["-o", output, "--allow-failures"] + (resume ? ["--resume"] : []))
            let reached = waitForRecord(output, of: process, atLeast: target, below: total)
            if reached { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            if reached {
                #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL)
                return rowsDone(output) ?? -1
            }
            #expect(process.terminationStatus == 0, "\(String(decoding: (try? Data(contentsOf: log)) ?? Data(), as: UTF8.self))")
            for f in [output, output + ".locus-resume"] { try? FileManager.default.removeItem(atPath: f) }
            for f in saved { try FileManager.default.copyItem(atPath: f + ".saved", toPath: f) }
        }
        Issue.record("every run of \(arguments) finished before it reached \(target) rows")
        return -1
    }

    /// Kills a run early, its resumed run in the middle, that one's resumed run in its last chunk,
    /// resumes once more, and compares with an uninterrupted run byte for byte. The points are
    /// rows done, drawn from `seed`, not moments: each kill lands where it was aimed.
    func killAndResume(_ arguments: [String], output: String, rows total: Int, seed: UInt64) throws {
        let reference = output + ".reference" + (output.hasSuffix(".gz") ? ".gz" : "")
        let whole = try TestSupport.locus(arguments + ["-o", reference, "--allow-failures"])
        #expect(whole.status == 0, "\(whole.stderr)")
        let chunk = Self.chunk
        #expect(total % chunk == 0 && total >= 8 * chunk, "the last chunk is a whole one, and there are enough before it")
        var rng = SeededGenerator(seed: seed)
        let lastChunkStart = total - chunk
        let targets = [
            // Early: as soon as the header is written, or after the first chunk.
            Int.random(in: 0...chunk, using: &rng),
            // The middle, in a resumed run.
            Int.random(in: (total * 2 / 5)...(total * 3 / 5), using: &rng),
            // The last chunk, in a run resumed twice.
            Int.random(in: (lastChunkStart - chunk + 1)...lastChunkStart, using: &rng),
        ]
        var done = 0
        for (k, target) in targets.enumerated() {
            let now = try killedRun(arguments, output: output, resume: k > 0, at: target, total: total)
            #expect(now >= target && now >= done && now < total && now % chunk == 0, "killed at \(now) rows, aimed at \(target)")
            done = now
            if k == 1 {
                // A kill between a chunk's write and its record's leaves bytes past what the record
                // counts, and one during the record's save a partial record beside it; polling seldom
                // lands there, so leave both as such kills would.
                let h = try #require(FileHandle(forUpdatingAtPath: output))
                try h.seekToEnd()
                try h.write(contentsOf: Data("8,1 half a row,\"unterminated".utf8))
                try h.close()
                try Data(#"{"rowsDone":"#.utf8).write(to: URL(fileURLWithPath: output + ".locus-resume.tmp"))
            }
        }
        #expect(done == lastChunkStart)
        let resumed = try TestSupport.locus(arguments + ["-o", output, "--allow-failures", "--resume"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stderr.contains("(\(BatchProgress.grouped(done)) from the interrupted run)"), "\(resumed.stderr)")
        // The summary counts the whole output, rows of the interrupted runs too (it counted the
        // last run's rows only: failures before a kill were forgotten, and the exit status with them).
        func counts(_ text: String) -> [String] { text.split(separator: "\n").map(String.init).filter { $0.hasPrefix("  ") } }
        #expect(!counts(whole.stderr).isEmpty && counts(resumed.stderr) == counts(whole.stderr), "\(resumed.stderr)\nwhole: \(whole.stderr)")
        let a = try Data(contentsOf: URL(fileURLWithPath: output)), b = try Data(contentsOf: URL(fileURLWithPath: reference))
        #expect(a == b, "resumed output differs from the uninterrupted run (\(a.count) vs \(b.count) bytes)")
        #expect(!FileManager.default.fileExists(atPath: output + ".locus-resume"))
        #expect(!FileManager.default.fileExists(atPath: output + ".locus-resume.tmp"))
        // A finished output is not resumed again by mistake.
        let again = try TestSupport.locus(arguments + ["-o", output, "--resume"])
        #expect(again.status == 64)
        #expect(again.stderr.contains("no resume record"))
    }

    @Test func enrichResumedAfterKillsIsByteIdentical() throws {
        let rows = 12 * Self.chunk
        try killAndResume(["enrich", try typed(rows), "--index", index], output: dir.appendingPathComponent("resume.csv").path, rows: rows, seed: 3)
    }

    @Test func assignResumedAfterKillsIsByteIdenticalGzipped() throws {
        let rows = 24 * Self.chunk
        let points = dir.appendingPathComponent("points.csv").path
        let r = try TestSupport.locusBench(["within", "--points", "\(rows)", "--repeats", "1", "--write-points", points, "--index", index])
        #expect(r.status == 0)
        try killAndResume(["assign", points, "--reverse", "--index", index], output: dir.appendingPathComponent("resume.csv.gz").path, rows: rows, seed: 5)
        // The .gz is real gzip.
        let gunzip = try TestSupport.run(URL(fileURLWithPath: "/bin/gzip"), ["-t", dir.appendingPathComponent("resume.csv.gz").path])
        #expect(gunzip.status == 0)
    }

    /// Catches: a job that hangs, or goes on writing failed rows, when its server dies; an error
    /// that does not say how to go on; a resume through the restarted server (on the socket the
    /// killed one left) that differs from an uninterrupted run.
    @Test func enrichThroughAServerKilledMidJobStopsClearlyAndResumesByteIdentical() async throws {
        let rows = 10 * Self.chunk
        let input = try typed(rows)
        let first = try ServeProcess(index: index)
        _ = try await first.waitUntilServing()
        let reference = dir.appendingPathComponent("served-reference.csv").path
        let whole = try TestSupport.locus(["enrich", input, "-o", reference, "--server", first.url, "--allow-failures"])
        #expect(whole.status == 0, "\(whole.stderr)")

        let output = dir.appendingPathComponent("served-killed.csv").path
        var rng = SeededGenerator(seed: 17)
        let target = Int.random(in: (2 * Self.chunk)...(6 * Self.chunk), using: &rng)
        let (job, log) = try start(["enrich", input, "-o", output, "--server", first.url, "--allow-failures"])
        #expect(waitForRecord(output, of: job, atLeast: target, below: rows), "the job ended before the server could be killed")
        first.kill9()
        // It stops by itself, once the client's retries are spent: no hang on the dead connection.
        let deadline = ContinuousClock.now + .seconds(30)
        while job.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        if job.isRunning { kill(job.processIdentifier, SIGKILL); Issue.record("the job hung when its server died") }
        job.waitUntilExit()
        let stderr = String(decoding: try Data(contentsOf: log), as: UTF8.self)
        #expect(job.terminationStatus == 69, "\(stderr)")
        let done = try #require(rowsDone(output))
        #expect(done >= target && done < rows)
        // The connection lost (or, for a row asked after that, none to be had), then tried again
        // as long as the client's retry policy allows before the job stopped.
        #expect(stderr.hasPrefix("locus: the server closed the connection") || stderr.hasPrefix("locus: lost the connection to the server: ")
                || stderr.hasPrefix("locus: no Locus server at \(first.url)"), "\(stderr)")
        #expect(stderr.contains("no Locus server at \(first.url): connection refused (5 attempts in "), "\(stderr)")
        #expect(stderr.contains("\(BatchProgress.grouped(done)) rows are written to \(output)"), "\(stderr)")
        #expect(stderr.contains("--resume"), "\(stderr)")

        let second = try ServeProcess(index: index, socket: first.socket)
        _ = try await second.waitUntilServing()
        let resumed = try TestSupport.locus(["enrich", input, "-o", output, "--server", second.url, "--allow-failures", "--resume"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stderr.contains("from the interrupted run"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == Data(contentsOf: URL(fileURLWithPath: reference)))
        #expect(second.stop() == 0)
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
