import Foundation
import LocusBatch
import LocusCore
import Testing

/// Files as analysts hand them to `locus enrich`: spreadsheet exports, pipes, links, a file cut
/// short. Each case was found wrong by running the CLI on such a file.
@Suite struct AnalystFilesTests {
    let index: String
    let dir: URL

    init() throws {
        index = try TestSupport.portlandIndexPath()
        dir = TestSupport.temporaryDirectory()
    }

    func file(_ name: String, _ bytes: [UInt8]) throws -> String {
        let path = dir.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    static let twoRows = Array("id,address\n1,6132 NE 34th Ave\n2,3405 NE Ainsworth St\n".utf8)

    func enrich(_ input: String, _ output: String, _ more: [String] = []) throws -> TestSupport.RunResult {
        try TestSupport.locus(["enrich", input, "-o", output, "--index", index] + more, timeout: 60)
    }

    /// The output is written where it is: a symbolic link is written through (it was replaced by
    /// a file, and `-o /dev/null` as root by a file in /dev); the input named again is refused.
    @Test func theOutputIsWrittenInPlace() throws {
        let input = try file("in.csv", Self.twoRows)
        let target = dir.appendingPathComponent("target.csv").path
        let link = dir.appendingPathComponent("link.csv").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let r = try enrich(input, link)
        #expect(r.status == 0, "\(r.stderr)")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == target)
        #expect(parseCSV(try String(contentsOfFile: target, encoding: .utf8)).count == 2)
        let hard = dir.appendingPathComponent("hard.csv").path
        try FileManager.default.linkItem(atPath: input, toPath: hard)
        let same = try enrich(input, hard)
        #expect(same.status == 64 && same.stderr.contains("is the input file"), "\(same.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: input)) == Data(Self.twoRows))
    }

    /// A `.gz` cut short is an error, not a shorter file whose last row is cut mid-word (it was
    /// "2 rows, matched 100 %", the second "3405 NE Ains"); the rows before the cut are written.
    @Test func aCompressedFileCutShortIsAnError() throws {
        let whole = try file("whole.csv", Self.twoRows)
        let gz = try TestSupport.run(URL(fileURLWithPath: "/bin/gzip"), ["-k", whole])
        #expect(gz.status == 0)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole + ".gz"))
        for cut in [8, bytes.count / 2] {
            let input = try file("cut-\(cut).csv.gz", Array(bytes.prefix(bytes.count - cut)))
            let out = dir.appendingPathComponent("cut-\(cut).out").path
            let r = try enrich(input, out)
            #expect(r.status == 65 && r.stderr.contains("cut short"), "\(cut): \(r.stderr)")
            // The rows read before the cut are written (they were lost with their chunk), and
            // none cut mid-word.
            let written = parseCSV((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").compactMap { $0["address"] }
            #expect(written.allSatisfy { ["6132 NE 34th Ave", "3405 NE Ainsworth St"].contains($0) }, "\(written)")
            if cut == 8 { #expect(written.count == 2, "\(written)") }
        }
    }

    /// A FIFO (`mkfifo`, a shell's `<(…)`) is read once: it hung, the header read and lost to
    /// looking for the delimiter.
    @Test(.timeLimit(.minutes(1))) func aPipeIsRead() throws {
        let fifo = dir.appendingPathComponent("in.fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let writer = Thread {
            if let h = FileHandle(forWritingAtPath: fifo) { h.write(Data(Self.twoRows)); try? h.close() }
        }
        writer.start()
        let out = dir.appendingPathComponent("fifo.out").path
        let r = try enrich(fifo, out)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(parseCSV(try String(contentsOfFile: out, encoding: .utf8)).map { $0["match_type"] } == ["point_address", "point_address"])
    }

    /// A spreadsheet's Windows-1252 export: "Café" stays "Café" (it was U+FFFD) and the row is
    /// geocoded (it failed, "not valid UTF-8", its address plain ASCII). UTF-16 is refused, saying
    /// how to convert (it was read as bytes: a header " a d d r e s s ", rows in halves).
    @Test func spreadsheetEncodings() throws {
        let latin = try file("cp1252.csv", Array("id,address,name\n1,6132 NE 34th Ave,Caf".utf8) + [0xE9] + Array("\n".utf8))
        let out = dir.appendingPathComponent("cp1252.out").path
        let r = try enrich(latin, out)
        #expect(r.status == 0 && r.stderr.contains("Windows-1252"), "\(r.stderr)")
        let rows = parseCSV(try String(contentsOfFile: out, encoding: .utf8))
        #expect(rows.first?["name"] == "Café" && rows.first?["match_type"] == "point_address")
        let utf16 = try file("u16.csv", [0xFF, 0xFE] + Array("id,address\r\n1,6132 NE 34th Ave\r\n".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }))
        let u = try enrich(utf16, dir.appendingPathComponent("u16.out").path)
        #expect(u.status == 64 && u.stderr.contains("UTF-16"), "\(u.stderr)")
    }

    /// Options that cannot work are refused before the first row: a wkid PROJ cannot place points
    /// in (every matched row of a file failed, one by one), a quote as the delimiter (output no
    /// reader reads back).
    @Test func impossibleOptionsAreRefusedAtOnce() throws {
        let input = try file("in.csv", Self.twoRows)
        let out = dir.appendingPathComponent("opt.out").path
        for wkid in ["99999999", "5703"] {
            let r = try enrich(input, out, ["--out-wkid", wkid])
            #expect(r.status == 64 && r.stderr.contains("--out-wkid \(wkid)"), "\(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
        let q = try enrich(input, out, ["--delimiter", "\""])
        #expect(q.status == 64 && q.stderr.contains("--delimiter"), "\(q.stderr)")
    }

    /// Headers as other systems name the parts ("HouseNum", "StreetName"; the number was not found
    /// and the street alone reported "matched" at 100, 1.3 km off), and a file enriched three
    /// times keeps every column name distinct (13 names came twice).
    @Test func otherHeadersAndEnrichedAgain() throws {
        let parts = try file("parts.csv", Array("HouseNum,StreetName,City,Zip\n6132,NE 34th Ave,Portland,97211\n".utf8))
        let out = dir.appendingPathComponent("parts.out").path
        #expect(try enrich(parts, out).status == 0)
        #expect(parseCSV(try String(contentsOfFile: out, encoding: .utf8)).first?["match_type"] == "point_address")
        var input = try file("e0.csv", Self.twoRows)
        for k in 1...3 {
            let next = dir.appendingPathComponent("e\(k).csv").path
            #expect(try enrich(input, next).status == 0)
            input = next
        }
        let header = try String(contentsOfFile: input, encoding: .utf8).split(separator: "\n")[0].split(separator: ",")
        #expect(Set(header).count == header.count, "\(header)")
    }
}

extension AnalystFilesTests {
    /// An unquoted comma in a one-column file splits the address; the row is kept whole (the
    /// extra fields after the appended columns) and the summary now says so, as it says how many
    /// empty lines it skipped (both were silent).
    @Test func rowsLongerThanTheHeaderAreReported() throws {
        let input = try file("long.csv", Array("address\n6132 NE 34th Ave, Portland, OR 97211\n\n3405 NE Ainsworth St\n".utf8))
        let out = dir.appendingPathComponent("long.out").path
        let r = try enrich(input, out)
        #expect(r.stderr.contains("1 rows had more fields than the header") && r.stderr.contains("1 empty lines were skipped"), "\(r.stderr)")
        #expect(try String(contentsOfFile: out, encoding: .utf8).contains(" Portland, OR 97211"))
    }
}

extension AnalystFilesTests {
    /// A space after a closing quote leaves the field open: the rows after it are taken into it.
    /// The row is failed with that cause (it was "no candidate"); a field of a few lines is an
    /// address written over lines, and geocoded.
    @Test func rowsTakenInByAnOpenQuoteAreNamedSo() throws {
        var text = "id,address,note\n1,\"6131 NE 34th Ave\" ,x\n"
        for k in 2...6 { text += "\(k),6132 NE 34th Ave,y\n" }
        let input = try file("open.csv", Array(text.utf8))
        let out = dir.appendingPathComponent("open.out").path
        _ = try enrich(input, out)
        let rows = parseCSV(try String(contentsOfFile: out, encoding: .utf8))
        #expect(rows.first?["reason"]?.contains("quote left open") == true, "\(rows.first ?? [:])")
        let lines = try file("lines.csv", Array("id,address\n1,\"6132 NE 34th Ave\nPortland, OR\"\n".utf8))
        let linesOut = dir.appendingPathComponent("lines.out").path
        _ = try enrich(lines, linesOut)
        let written = parseCSV(try String(contentsOfFile: linesOut, encoding: .utf8))
        #expect(written.first?["match_type"] == "point_address", "\(written.first ?? [:])")
    }
}

extension AnalystFilesTests {
    /// A quote never closed took every row after it into one field, with no bound (a 300 MB file
    /// with a stray quote on line 2 peaked at 695 MB, exit 0, one row). Now the reading stops at
    /// 16 MB with exit 65 naming the quote's line, and the rows before it are written.
    @Test func aQuoteNeverClosedIsNamedWithinBoundedMemory() throws {
        var text = "id,address,note\n1,6131 NE 34th Ave,x\n2,\"6132 NE 34th Ave\" ,x\n"
        text.reserveCapacity(18 << 20)
        for k in 3..<900_000 { text += "\(k),6132 NE 34th Ave,y\n" }
        let input = try file("stray.csv", Array(text.utf8))
        let out = dir.appendingPathComponent("stray.out").path
        let r = try enrich(input, out, ["--allow-failures"])
        #expect(r.status == 65 && r.stderr.contains("quote opened on line 3 is not closed within 16 MB"), "\(r.status) \(r.stderr)")
        #expect(parseCSV(try String(contentsOfFile: out, encoding: .utf8)).map { $0["id"] } == ["1"])
    }

    /// The bound, on the reader itself: rows before a row over the bound are read whole, quoted
    /// fields over lines and `""` within the bound are rows like others, and the error names the
    /// long row's line.
    @Test func aRowOverTheBoundIsNamedByItsLine() throws {
        let text = "a,b\n1,\"x \"\"y\"\"\nz\"\r\n2,plain\n3," + String(repeating: "w", count: 100) + "\n4,after\n"
        let input = try CSVInput(path: try file("bound.csv", Array(text.utf8)), maxRecordBytes: 64)
        #expect(try input.next() == ["1", "x \"y\"\nz"])
        #expect(try input.next() == ["2", "plain"])
        #expect(throws: LocusError.self) { _ = try input.next() }
        do { _ = try input.next() } catch { #expect(error.message.contains("row on line 5 is longer than 64 bytes"), "\(error.message)") }
    }
}

extension AnalystFilesTests {
    /// "-" is standard input and output, as for other Unix tools (it was a file named "-"), and
    /// standard output is written where the shell left it: `-o /dev/stdout >> log` cut the log to
    /// nothing and wrote from its start.
    @Test func aDashIsTheStandardStream() throws {
        let input = try file("in.csv", Self.twoRows)
        let out = dir.appendingPathComponent("log.txt").path
        // Any name of standard output: by another, the log was opened again at its start and cut.
        for o in ["-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1", out] {
            try Data("before\n".utf8).write(to: URL(fileURLWithPath: out))
            let r = try TestSupport.run(URL(fileURLWithPath: "/bin/sh"), ["-c", "\"$0\" enrich - -o \(o) --index \"$1\" < \"$2\" >> \"$3\"",
                                                                          TestSupport.locusBinary.path, index, input, out], timeout: 60)
            #expect(r.status == 0, "\(r.stderr)")
            let text = try String(contentsOfFile: out, encoding: .utf8)
            #expect(text.hasPrefix("before\nid,address,"), "\(o): \(text)")
            #expect(parseCSV(String(text.dropFirst(7))).map { $0["match_type"] } == ["point_address", "point_address"], "\(o): \(text)")
        }
        #expect(!FileManager.default.fileExists(atPath: "-"))
        let both = try enrich(input, "-", ["--json"])
        #expect(both.status == 64 && both.stdout.contains("--json"), "\(both.stdout)")
    }
}

extension AnalystFilesTests {
    /// Excel's first line naming the delimiter (`sep=;`) was read as the header: "no address
    /// column". It names the delimiter, and the output keeps it, so Excel opens it in columns too.
    @Test func excelsSeparatorLine() throws {
        let input = try file("sep.csv", [0xEF, 0xBB, 0xBF] + Array("sep=;\r\nid;address\r\n1;6132 NE 34th Ave\r\n".utf8))
        let out = dir.appendingPathComponent("sep.out").path
        let r = try enrich(input, out)
        #expect(r.status == 0, "\(r.stderr)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: out))
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(bytes.starts(with: [0xEF, 0xBB, 0xBF] + Array("sep=;\r\nid;address;status;".utf8)), "\(text)")
        #expect(text.contains("1;6132 NE 34th Ave;matched;"), "\(text)")
    }
}
