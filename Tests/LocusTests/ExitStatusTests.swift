import Foundation
import LocusClient
import LocusWire
import Testing

/// Every exit status README's "Exit status" promises, each by the exact number, through the
/// `locus` binary as a script runs it. (70, a fault inside Locus, is the one no input provokes.)
@Suite struct ExitStatusTests {
    let index: String

    init() throws { index = try TestSupport.portlandIndexPath() }

    @Test func answeredIs0() throws {
        #expect(try TestSupport.locus(["reverse", "-122.6296", "45.5676", "--index", index]).status == 0)
    }

    @Test func nothingFoundIs3() throws {
        let r = try TestSupport.locus(["reverse", "-121.0", "45.0", "--index", index])
        #expect(r.status == 3)
        let json = try TestSupport.locus(["reverse", "-121.0", "45.0", "--index", index, "--json"])
        #expect(json.status == 3)
        #expect(try Self.errorCode(json.stdout) == "not_found")
    }

    @Test(arguments: [
        ["reverse", "-122.6"],
        ["reverse", "-122.6", "45.5", "--bogus"],
        ["reverse", "-122.6", "45.5", "--max-distance", "-5"],
        ["reverse", "45.5676", "-122.6296"],
        ["geocode", "6132 ne 34th", "--min-score", "101"],
        ["enrich", "in.csv"],
        ["ping"],
    ])
    func badArgumentsAre64AndWithJSONAnErrorObject(_ arguments: [String]) throws {
        let r = try TestSupport.locus(arguments + ["--index", index])
        #expect(r.status == 64, "\(arguments): \(r.stderr)")
        #expect(!r.stderr.isEmpty)
        // With --json, the same failure as one error object on standard output, nothing else.
        let json = try TestSupport.locus(arguments + ["--index", index, "--json"])
        #expect(json.status == 64)
        #expect(try Self.errorCode(json.stdout) == "invalid_argument", "\(arguments): \(json.stdout)")
        #expect(!json.stdout.contains("Usage:"))
    }

    @Test func anUnusableIndexIs65() throws {
        let dir = TestSupport.temporaryDirectory()
        let missing = dir.appendingPathComponent("none.locus").path
        #expect(try TestSupport.locus(["reverse", "-122.6", "45.5", "--index", missing]).status == 65)
        #expect(try TestSupport.locus(["index", "info", missing]).status == 65)
        #expect(try TestSupport.locus(["serve", "--index", missing, "--listen", "unix:\(dir.path)/s.sock"], timeout: 60).status == 65)
        let garbage = dir.appendingPathComponent("garbage.locus")
        try Data(repeating: 0x41, count: 8_192).write(to: garbage)
        let r = try TestSupport.locus(["within", "-122.6", "45.5", "--index", garbage.path, "--json"])
        #expect(r.status == 65)
        #expect(try Self.errorCode(r.stdout) == "invalid_index")
    }

    @Test func aMissingInputFileIs66() throws {
        let dir = TestSupport.temporaryDirectory()
        let missing = dir.appendingPathComponent("nothing.csv").path
        let out = dir.appendingPathComponent("out.csv").path
        for arguments in [
            ["enrich", missing, "-o", out, "--index", index],
            ["assign", missing, "-o", out, "--index", index],
            ["eval", "--truth", missing, "--index", index],
            ["reverse", "-122.6", "45.5", "--index", index, "--synonyms", missing],
            ["index", "build", "--addresses", missing, "-o", dir.appendingPathComponent("x.locus").path],
            ["ping", "--server", "unix:\(dir.path)/none.sock", "--token-file", missing],
        ] {
            let r = try TestSupport.locus(arguments)
            #expect(r.status == 66, "\(arguments): \(r.stderr)")
            #expect(r.stderr.contains("no such file: \(missing)"), "\(r.stderr)")
            let json = try TestSupport.locus(arguments + ["--json"])
            #expect(json.status == 66)
            #expect(try Self.errorCode(json.stdout) == "no_input", "\(arguments): \(json.stdout)")
        }
    }

    @Test func noServerIs69InTheSystemsWords() throws {
        let dir = TestSupport.temporaryDirectory()
        let r = try TestSupport.locus(["reverse", "-122.6", "45.5", "--server", "unix:\(dir.path)/none.sock"])
        #expect(r.status == 69)
        // Tried again for a moment (a server restarting), then the reason and how hard it tried.
        #expect(r.stderr.hasPrefix("locus: no Locus server at unix:\(dir.path)/none.sock: no such file or directory (5 attempts in "), "\(r.stderr)")
        #expect(r.stderr.hasSuffix(" s)\n"), "\(r.stderr)")
        // A health check asks once.
        let ping = try TestSupport.locus(["ping", "--server", "tcp://127.0.0.1:1"])
        #expect(ping.status == 69)
        #expect(ping.stderr == "locus: no Locus server at tcp://127.0.0.1:1: connection refused\n")
    }

    /// A server with a token and room for one connection: ping answers before authentication
    /// (0), a wrong token is refused (77), the right one from a file answers (0), and a client
    /// turned away because the one connection is taken hears "busy" (75), not "no server".
    @Test func tokenRefusedIs77AndAFullServerIs75() async throws {
        let dir = TestSupport.temporaryDirectory()
        let tokens = dir.appendingPathComponent("tokens")
        try "s3cret\n".write(to: tokens, atomically: true, encoding: .utf8)
        let serve = try ServeProcess(index: index, extra: ["--token-file", tokens.path, "--max-connections", "1"])
        _ = try await serve.waitUntilServing()
        defer { _ = serve.stop() }
        #expect(try TestSupport.locus(["ping", "--server", serve.url]).status == 0)
        let wrong = try TestSupport.locus(["reverse", "-122.6296", "45.5676", "--server", serve.url, "--token", "nope"])
        #expect(wrong.status == 77, "\(wrong.stderr)")
        let right = try TestSupport.locus(["reverse", "-122.6296", "45.5676", "--server", serve.url, "--token-file", tokens.path])
        #expect(right.status == 0, "\(right.stderr)")
        #expect(right.stdout.hasPrefix("6132 NE 34th Ave"))

        let holder = try await LocusClient.connect(to: .unix(path: serve.socket), token: "s3cret")
        _ = try await holder.send(op: "ping", [:])
        let busy = try TestSupport.locus(["reverse", "-122.6296", "45.5676", "--server", serve.url, "--token-file", tokens.path, "--json"])
        #expect(busy.status == 75, "\(busy.stdout) \(busy.stderr)")
        #expect(try Self.errorCode(busy.stdout) == "overloaded")
        await holder.close()
    }

    /// A token file is read as far as its first line, within 4 KiB: a path naming a 4 GB file
    /// (or a device) is refused at once, not read into memory.
    @Test(.timeLimit(.minutes(1)))
    func aTokenFileIsReadOnlyAsFarAsItsFirstLine() throws {
        let dir = TestSupport.temporaryDirectory()
        let huge = dir.appendingPathComponent("huge")
        #expect(FileManager.default.createFile(atPath: huge.path, contents: nil))
        let handle = try FileHandle(forWritingTo: huge)
        try handle.truncate(atOffset: 4 << 30)
        try handle.close()
        let clock = ContinuousClock(), start = clock.now
        let r = try TestSupport.locus(["ping", "--server", "unix:\(dir.path)/none.sock", "--token-file", huge.path], timeout: 30)
        #expect(r.status == 64, "\(r.stderr)")
        #expect(r.stderr.contains("holds no token on its first line"))
        #expect(clock.now - start < .seconds(10))
    }

    /// A batch job with unmatched rows: 2 and a note in the summary's own words; with
    /// --allow-failures 0; with --json the summary as one object on standard output.
    @Test func rowsFailedIs2() throws {
        let dir = TestSupport.temporaryDirectory()
        let input = dir.appendingPathComponent("in.csv")
        try "address\n6132 NE 34th Ave\nzzzz qqqq\n".write(to: input, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("out.csv").path
        let r = try TestSupport.locus(["enrich", input.path, "-o", out, "--index", index])
        #expect(r.status == 2)
        #expect(r.stderr.contains("locus: 1 rows unmatched; they are in the output"), "\(r.stderr)")
        #expect(!r.stderr.contains("failed;"))
        #expect(try TestSupport.locus(["enrich", input.path, "-o", out, "--index", index, "--allow-failures"]).status == 0)
        let json = try TestSupport.locus(["enrich", input.path, "-o", out, "--index", index, "--json"])
        #expect(json.status == 2)
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(summary["rows"] as? Int == 2)
        #expect(summary["failed"] as? Int == 1)
        #expect((summary["categories"] as? [String: Int])?["unmatched"] == 1)
        #expect(summary["output"] as? String == out)
    }

    /// Ctrl-C in a batch job: 130, and where it stopped, in plain text when standard error is not
    /// a terminal (no carriage return or erase sequence in a log).
    @Test func anInterruptedBatchJobIs130() throws {
        let trees = TestSupport.dataDirectory.appendingPathComponent("portland/street_trees_dev.csv.gz")
        try #require(FileManager.default.fileExists(atPath: trees.path))
        let dir = TestSupport.temporaryDirectory()
        let out = dir.appendingPathComponent("out.csv").path
        let process = Process()
        process.executableURL = TestSupport.locusBinary
        process.arguments = ["enrich", trees.path, "-o", out, "--index", index, "--workers", "1"]
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // Interrupted once the job has written rows (its resume record exists). Polled with
        // blocking sleeps in this synchronous test: an async poll resumed on the shared pool, which
        // tests waiting on processes of their own held back past the end of the 10 s job.
        let clock = ContinuousClock(), deadline = clock.now + .seconds(120)
        while !FileManager.default.fileExists(atPath: out + ".locus-resume"), process.isRunning, clock.now < deadline {
            usleep(20_000)
        }
        if !process.isRunning {
            let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            Issue.record("the job ended (status \(process.terminationStatus)) before it could be interrupted: \(text)")
            return
        }
        kill(process.processIdentifier, SIGINT)
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 130)
        #expect(text.contains("locus: interrupted with "), "\(text)")
        #expect(text.contains("run the same command with --resume to go on"))
        #expect(!text.contains("\r") && !text.contains("\u{1B}["))
    }

    /// Ctrl-C in a batch job writing to standard output: no resume record, so no `--resume`
    /// (which refuses a pipe) is offered.
    @Test func anInterruptedJobIntoAPipeIsToldToStartOver() throws {
        let trees = TestSupport.dataDirectory.appendingPathComponent("portland/street_trees_dev.csv.gz")
        try #require(FileManager.default.fileExists(atPath: trees.path))
        let process = Process()
        process.executableURL = TestSupport.locusBinary
        process.arguments = ["enrich", trees.path, "-o", "-", "--index", index, "--workers", "1"]
        let err = Pipe(), out = Pipe()
        process.standardError = err
        process.standardOutput = out
        try process.run()
        // Interrupted once rows follow the header (written at the start); the rest is read after,
        // so the pipe never fills and holds the job in a write.
        var written = Data()
        while written.lazy.filter({ $0 == 0x0A }).count < 3 {
            let more = out.fileHandleForReading.availableData
            if more.isEmpty { break }
            written += more
        }
        kill(process.processIdentifier, SIGINT)
        written += out.fileHandleForReading.readDataToEndOfFile()
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 130)
        #expect(text.contains("locus: interrupted; /dev/stdout has no resume record"), "\(text)")
        #expect(text.contains("run the same command again to start over"))
        #expect(!text.contains("--resume"))
        let lines = String(decoding: written, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count > 2, "rows were written before the interrupt")
        #expect(lines.first?.hasPrefix("objectid,address,neighborhood,") == true)
    }

    static func errorCode(_ stdout: String) throws -> String? {
        let object = try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any]
        return (object?["error"] as? [String: Any])?["code"] as? String
    }
}
