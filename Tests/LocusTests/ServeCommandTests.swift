import Foundation
import LocusClient
import LocusCore
import LocusServer
import LocusWire
import Testing

/// `locus serve` as a user runs it: signals, and the CLI as its client printing exactly what it
/// prints in embedded mode.
@Suite(.serialized) struct ServeCommandTests {
    @Test func theCLIPrintsTheSameThroughAServer() async throws {
        let index = try TestSupport.portlandIndexPath()
        let serve = try ServeProcess(index: index)
        _ = try await serve.waitUntilServing()
        let commands: [[String]] = [
            ["reverse", "-122.6296", "45.5676"],
            ["reverse", "-122.6296", "45.5676", "--json"],
            ["reverse", "-122.6296", "45.5676", "--layer", "neighborhoods"],
            ["reverse", "-122.6296", "45.5676", "--layer", "neighborhoods", "--json"],
            ["reverse", "7656784", "700220", "--wkid", "2913", "--out-wkid", "102100"],
            ["reverse", "-121.0", "45.0"],
            ["reverse", "-122.7750", "45.5600", "--layer", "neighborhoods"],
            ["within", "-13660733", "5702896", "--wkid", "102100"],
            ["within", "-122.75", "45.45", "--nearest-within", "3000", "--json"],
            ["within", "-122.6", "45.5", "--layer", "nope"],
            ["suggest", "6132 ne 34", "--near=-122.63,45.57"],
            ["suggest", "killingsw", "--json"],
            ["geocode", "6132", "ne", "34th", "ave", "apt", "3,", "portland", "--explain"],
            ["geocode", "--number", "6132", "--street", "NE 34th Ave", "--postcode", "97211", "--json"],
            ["geocode", "NE 34th Ave & NE Killingsworth St"],
            ["geocode", "asdf", "qwer"],
        ]
        for command in commands {
            let embedded = try TestSupport.locus(command + ["--index", index])
            let served = try TestSupport.locus(command + ["--server", serve.url])
            #expect(served.status == embedded.status, "\(command)")
            #expect(served.stdout == embedded.stdout, "\(command)")
            #expect(served.stderr == embedded.stderr, "\(command)")
        }
        let unreachable = try TestSupport.locus(["within", "-122.6", "45.5", "--server", "unix:/nonexistent/locus.sock"])
        #expect(unreachable.status == 69)
        #expect(unreachable.stderr.hasPrefix("locus: no Locus server at unix:/nonexistent/locus.sock: no such file or directory (5 attempts in "), "\(unreachable.stderr)")
        #expect(serve.stop() == 0)
    }

    @Test func sighupReloadsAndSigtermStopsCleanly() async throws {
        let dir = TestSupport.temporaryDirectory()
        let path = dir.appendingPathComponent("served.locus").path
        try FileManager.default.copyItem(atPath: try TestSupport.portlandIndexPath(), toPath: path)
        let serve = try ServeProcess(index: path)
        let startup = try await serve.waitUntilServing()
        // A guard against a hang, not the start-up figure (`locus-bench startup`: about 0.5 s): the
        // suite's other tests keep both cores busy meanwhile.
        #expect(startup < 30)
        let c = try await LocusClient.connect(to: .unix(path: serve.socket))
        /// The index state once `done` holds (or after 10 s).
        func indexState(until done: (ServerStats.Snapshot.IndexState) -> Bool) async throws -> ServerStats.Snapshot.IndexState {
            var state = try await c.send(op: "stats").decode(ServerStats.Snapshot.self).index
            for _ in 0..<200 where !done(state) {
                try await Task.sleep(for: .milliseconds(50))
                state = try await c.send(op: "stats").decode(ServerStats.Snapshot.self).index
            }
            return state
        }
        kill(serve.process.processIdentifier, SIGHUP)
        #expect(try await indexState { $0.generation >= 2 }.generation == 2)
        // A corrupt file in its place is refused on the next SIGHUP; the server keeps answering.
        try Data(repeating: 0, count: 4_096).write(to: URL(fileURLWithPath: path))
        kill(serve.process.processIdentifier, SIGHUP)
        #expect(try await indexState { $0.failedReloads >= 1 }.failedReloads == 1)
        #expect(try await c.send(op: "within", ["location": .object(["x": .number(-122.6296), "y": .number(45.5676)])]).ok)
        await c.close()
        #expect(serve.stop() == 0)
        let log = serve.log
        #expect(log.contains("refused the new index"))
        #expect(log.contains("stopped"))
        // No query text or coordinates at the default level.
        #expect(!log.contains("45.5676"))
    }

    @Test func listeningBeyondLoopbackWithoutATokenIsRefusedAtStart() throws {
        let r = try TestSupport.locus(["serve", "--index", try TestSupport.portlandIndexPath(), "--listen", "tcp://0.0.0.0:0"])
        #expect(r.status == 64)
        #expect(r.stderr.contains("reachable beyond this machine"))
    }
}

