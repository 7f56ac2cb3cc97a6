import CSQLite
import Foundation
import LocusClient
import LocusCore
import LocusProtocol
import LocusServer
import LocusWire
import NIOConcurrencyHelpers
import Testing

/// Index files a reload must refuse, each as an operator could end up with one in place of a good
/// index: a copy cut short, a disk's bit rot, a file of another build of Locus, the wrong file.
enum DamagedIndex: String, CaseIterable, Sendable, CustomStringConvertible {
    case missing, empty, notSQLite, truncated, flippedHeader, flippedTableDirectory, otherSchemaVersion, otherSQLite

    var description: String { rawValue }

    /// The code a `reload` with this file's path answers.
    var expectedCode: WireErrorCode { self == .missing ? .notFound : .invalidArgument }

    /// What the refusal says, in part.
    var expectedMessage: String {
        switch self {
        case .missing: "no index at"
        case .otherSchemaVersion: "has index schema version"
        default: "keeps serving"
        }
    }

    /// The damaged file's bytes, made from the good index at `good`; nil for `missing`.
    func bytes(from good: String) throws -> Data? {
        switch self {
        case .missing:
            return nil
        case .empty:
            return Data()
        case .notSQLite:
            // A CSV where the index should be.
            return Data(String(repeating: "id,address\n1,6132 ne 34th ave portland\n", count: 300).utf8)
        case .truncated:
            let data = try Data(contentsOf: URL(fileURLWithPath: good))
            return data.prefix(data.count / 2)
        case .flippedHeader:
            // The page size (bytes 16–17 of the header).
            var data = try Data(contentsOf: URL(fileURLWithPath: good))
            data[16] ^= 0xFF
            data[17] ^= 0xFF
            return data
        case .flippedTableDirectory:
            // Where the file's footer says the address tables' directory is (`IndexSections`):
            // without it, no table can be found. (A flip inside a table's payload, a coordinate's
            // low bits, say, loads: nothing in the file checks the payload against a checksum;
            // `IndexTablesTests` shows such values answer without a trap.)
            var data = try Data(contentsOf: URL(fileURLWithPath: good))
            for i in (data.count - 24)..<(data.count - 20) { data[i] ^= 0xFF }
            return data
        case .otherSchemaVersion, .otherSQLite:
            let path = TestSupport.temporaryDirectory().appendingPathComponent("\(rawValue).locus").path
            var sql = "CREATE TABLE photos(id INTEGER PRIMARY KEY, taken TEXT); INSERT INTO photos(taken) VALUES ('2024-05-01')"
            if self == .otherSchemaVersion {
                try FileManager.default.copyItem(atPath: good, toPath: path)
                sql = "UPDATE metadata SET value = CAST(value AS INTEGER) + 1 WHERE key = 'schema_version'"
            }
            var db: OpaquePointer?
            guard sqlite3_open(path, &db) == SQLITE_OK, sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
                sqlite3_close(db)
                throw LocusError(.internalError, "cannot make the \(rawValue) file")
            }
            sqlite3_close(db)
            return try Data(contentsOf: URL(fileURLWithPath: path))
        }
    }

    /// Puts the damaged file at `path`: written beside it and renamed into place (as `locus index
    /// build` does), or written over the file in place (as `cp` does); removed for `missing`.
    func place(at path: String, from good: String, inPlace: Bool) throws {
        guard let data = try bytes(from: good) else {
            try? FileManager.default.removeItem(atPath: path)
            return
        }
        if inPlace, let handle = FileHandle(forUpdatingAtPath: path) {
            try handle.truncate(atOffset: 0)
            try handle.write(contentsOf: data)
            try handle.close()
        } else {
            try data.write(to: URL(fileURLWithPath: path + ".new"))
            guard rename(path + ".new", path) == 0 else { throw LocusError(.internalError, "cannot rename into \(path)") }
        }
    }
}

/// Faults a running server must survive: SIGKILL under load and a restart in its place, SIGHUP
/// onto every kind of bad file while clients keep asking, SIGHUP before it is ready.
@Suite(.serialized) struct ServerFaultTests {
    let point: JSONValue = .object(["x": .number(-122.6296), "y": .number(45.5676)])

    /// The index state, asked of the server, once `done` holds (or after 60 s).
    func indexState(_ c: LocusClient, until done: (ServerStats.Snapshot.IndexState) -> Bool) async throws -> ServerStats.Snapshot.IndexState {
        try await withTaskExecutorPreference(OwnThread.polling) {
            var state = try await c.send(op: "stats").decode(ServerStats.Snapshot.self).index
            let deadline = ContinuousClock.now + .seconds(60)
            while !done(state), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
                state = try await c.send(op: "stats").decode(ServerStats.Snapshot.self).index
            }
            return state
        }
    }

    /// Catches: a client waiting forever on a connection that died (its requests must fail at
    /// once, so it can reconnect); a restart refused because kill -9 left the socket file behind;
    /// a TCP port that cannot be bound again while the killed server's connections linger
    /// (TIME_WAIT, without SO_REUSEADDR); a wrong answer or an error reply around the restart.
    @Test(.timeLimit(.minutes(3)))
    func aKilledServerRestartsInItsPlaceAndClientsReconnect() async throws {
        let index = try TestSupport.portlandIndexPath()
        let tcp = ServeProcess.freeTCPAddress(seed: UInt64(getpid()))
        let first = try ServeProcess(index: index, tcp: tcp)
        _ = try await first.waitUntilServing()
        let tcpAddress = try #require(ListenAddress(tcp))
        let unix = ListenAddress.unix(path: first.socket)
        let load = LoadClients([unix, tcpAddress, unix, tcpAddress])
        // Besides the load, a connection with nothing in flight: the killed server's end of it
        // closes first, so it lingers in TIME_WAIT on the port. (Those under load are reset, as
        // requests reach them after the kill, and leave nothing behind.)
        let idle = try await LocusClient.connect(to: tcpAddress, retry: .none)
        #expect(try await idle.send(op: "ping").ok)
        #expect(try await load.wait { $0.ok >= 50 }, "the load did not get going: \(load.snapshot)")

        let atKill = load.snapshot
        first.kill9()
        #expect(first.process.terminationReason == .uncaughtSignal)
        await #expect(throws: LocusClientError.self) { try await idle.send(op: "ping") }
        await idle.close()
        // Every client was waiting on a reply: each learns its connection is gone, none hangs.
        #expect(try await load.wait { $0.lost >= 1 }, "a client did not notice the server died: \(load.snapshot)")
        #expect(FileManager.default.fileExists(atPath: first.socket), "kill -9 should leave the socket file")
        let before = load.snapshot

        let second = try ServeProcess(index: index, socket: first.socket, tcp: tcp)
        _ = try await second.waitUntilServing()
        // Reconnected, on both transports, and answered right.
        #expect(try await load.wait { $0.connections >= 2 }, "a client could not reconnect: \(load.snapshot)")
        #expect(try await load.waitForAnswers(beyond: before, count: 50), "clients got no answers after the restart: \(load.snapshot)")

        // A third server on the live socket is refused, and the second keeps it. (Bounded: were
        // it not refused, it would serve until stopped.)
        let third = try TestSupport.locus(["serve", "--index", index, "--listen", "unix:\(first.socket)"], timeout: 60)
        #expect(third.status == 64, "\(third.stderr)")
        #expect(third.stderr.contains("another server is listening"))

        let counts = await load.stop()
        for (k, c) in counts.enumerated() {
            #expect(c.wrong == 0 && c.errors.isEmpty, "client \(k): \(c)")
            // Connections were lost to the kill (or while the killed process was going, which the
            // client may notice more than once), never to anything after the restart.
            #expect(atKill[k].lost == 0 && c.lost == before[k].lost && c.connections == c.lost + 1,
                    "client \(k): \(c); at the kill: \(atKill[k]); at the restart: \(before[k])")
            #expect(c.ok > before[k].ok)
        }
        #expect(second.stop() == 0)
        #expect(!FileManager.default.fileExists(atPath: first.socket), "a clean stop removes its socket file")
    }

    /// Catches: a client losing the requests it had in flight when its server was killed and
    /// restarted in its place (a replica behind a load balancer, a rolling restart): with its
    /// retries (`RetryPolicy`) it connects to the new process and sends them again, and every one
    /// is answered, right. Without the retry they fail, as the raw clients of
    /// `aKilledServerRestartsInItsPlaceAndClientsReconnect` see.
    @Test(.timeLimit(.minutes(3)))
    func aClientWithRetriesLosesNoRequestToAKilledAndRestartedServer() async throws {
        let index = try TestSupport.portlandIndexPath()
        let first = try ServeProcess(index: index)
        _ = try await first.waitUntilServing()
        // Patient enough to outlast the restart (the new process loads the index first).
        let patient = RetryPolicy(attempts: 30, initialDelay: .milliseconds(50), maximumDelay: .milliseconds(500))
        let client = try await LocusClient.connect(to: .unix(path: first.socket), retry: patient)
        let stopped = NIOLockedValueBox(false)
        let tally = NIOLockedValueBox((right: 0, wrong: 0, failed: [String]()))
        let point = self.point
        let thread = OwnThread("locus.tests.retrying")
        let workers = (0..<16).map { _ in
            Task(executorPreference: thread) {
                while !stopped.withLockedValue({ $0 }) {
                    do {
                        let reply = try await client.send(op: "reverse", ["location": point], idempotent: true)
                        let right = (try? reply.decode(ReverseReply.self))?.address?.address == "6132 NE 34th Ave, Portland, OR 97211"
                        tally.withLockedValue { if right { $0.right += 1 } else { $0.wrong += 1 } }
                    } catch {
                        tally.withLockedValue { $0.failed.append("\(error)") }
                    }
                }
            }
        }
        func answered(beyond count: Int) async throws -> Bool {
            try await withTaskExecutorPreference(OwnThread.polling) {
                let deadline = ContinuousClock.now + .seconds(60)
                while tally.withLockedValue({ $0.right }) < count + 200, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(10))
                }
                return tally.withLockedValue { $0.right } >= count + 200
            }
        }
        #expect(try await answered(beyond: 0), "the load did not get going")
        // A kill between requests (every reply in, the workers' thread not yet back to send more,
        // as on a loaded machine: one full test run) catches none in flight; then the next kill.
        var server = first, kills = 0
        repeat {
            server.kill9()
            kills += 1
            server = try ServeProcess(index: index, socket: first.socket)
            _ = try await server.waitUntilServing()
            #expect(try await answered(beyond: tally.withLockedValue { $0.right }), "no answers after restart \(kills)")
        } while client.counts.retries == 0 && kills < 3
        stopped.withLockedValue { $0 = true }
        for w in workers { await w.value }
        let final = tally.withLockedValue { $0 }
        #expect(final.failed.isEmpty && final.wrong == 0, "\(final.failed.prefix(3)); wrong \(final.wrong)")
        // A kill caught requests in flight, and they were sent again, on one new connection a kill.
        #expect(client.counts.retries > 0 && client.counts.connections == kills + 1, "\(client.counts) after \(kills) kills")
        await client.close()
        #expect(server.stop() == 0)
    }

    /// Catches: a bad file replacing the good one (the server answering from it, or failing
    /// requests, or dying); a served index that still reads its file after loading (a file
    /// overwritten in place would then break the answers); a refused reload that changes what
    /// the next SIGHUP loads; a good file not loaded after bad ones.
    @Test(.timeLimit(.minutes(3)))
    func sighupOntoEveryKindOfBadFileUnderLoadFailsNoRequest() async throws {
        let good = try TestSupport.portlandIndexPath()
        let served = TestSupport.temporaryDirectory().appendingPathComponent("served.locus").path
        try FileManager.default.copyItem(atPath: good, toPath: served)
        let serve = try ServeProcess(index: served)
        _ = try await serve.waitUntilServing()
        let admin = try await LocusClient.connect(to: .unix(path: serve.socket))
        let load = LoadClients([.unix(path: serve.socket), .unix(path: serve.socket), .unix(path: serve.socket)])
        #expect(try await load.wait { $0.ok >= 20 })

        // The first overwrites, in place, the very file the server loaded at start.
        let damages: [(DamagedIndex, inPlace: Bool)] = [
            (.truncated, true), (.flippedTableDirectory, true), (.notSQLite, false), (.flippedHeader, false),
            (.empty, true), (.otherSchemaVersion, false), (.otherSQLite, true), (.missing, false),
        ]
        #expect(Set(damages.map(\.0)) == Set(DamagedIndex.allCases))
        for (k, (damage, inPlace)) in damages.enumerated() {
            let asked = load.snapshot
            try damage.place(at: served, from: good, inPlace: inPlace)
            kill(serve.process.processIdentifier, SIGHUP)
            let state = try await indexState(admin) { $0.failedReloads > k }
            #expect(state.failedReloads == k + 1, "\(damage) was not refused")
            #expect(state.generation == 1 && state.reloads == 0, "\(damage)")
            #expect(state.reloadPath == served)
            // The clients went on being answered, from the index loaded at start.
            #expect(try await load.waitForAnswers(beyond: asked, count: 1))
            let r = try await admin.send(op: "reverse", ["location": point]).decode(ReverseReply.self)
            #expect(r.address?.address == "6132 NE 34th Ave, Portland, OR 97211", "after \(damage)")
        }
        // The good file back, renamed into place as `locus index build -o` does.
        try FileManager.default.copyItem(atPath: good, toPath: served + ".new")
        #expect(rename(served + ".new", served) == 0)
        kill(serve.process.processIdentifier, SIGHUP)
        let state = try await indexState(admin) { $0.generation >= 2 }
        #expect(state.generation == 2 && state.reloads == 1)

        let counts = await load.stop()
        for c in counts { #expect(c.wrong == 0 && c.errors.isEmpty && c.lost == 0 && c.connections == 1, "\(c)") }
        await admin.close()
        #expect(serve.stop() == 0)
        let log = serve.log
        #expect(log.components(separatedBy: "refused the new index").count - 1 == DamagedIndex.allCases.count)
        #expect(log.contains("reason=SIGHUP"))
        #expect(log.contains("no index at"))
        #expect(log.contains("has index schema version"))
    }

    /// Catches: SIGHUP's default action (ending the process) left in force while the index
    /// loads, before the server installs its handler. An operator's reload, or a log rotation,
    /// during a restart then killed the server.
    ///
    /// The window (the index loading) can be shorter than one poll on a machine busy with other
    /// tests: a start in which the poll saw the socket before it saw SIGHUP ignored proves
    /// nothing either way, and is tried again. A fresh clone's CI, the full suite beside it, saw
    /// no window in 5 starts polling every millisecond: the poll now spins (its own thread, a read
    /// of /proc a turn), and up to 20 starts are made (about a second each).
    @Test(.timeLimit(.minutes(3)))
    func aSIGHUPWhileStartingIsNotFatal() async throws {
        let starts = 20
        for attempt in 1...starts {
            let serve = try ServeProcess(index: try TestSupport.portlandIndexPath())
            let pid = serve.process.processIdentifier
            /// Whether the process ignores SIGHUP now, from its signal mask in /proc.
            func ignoresHangup() -> Bool {
                guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
                      let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigIgn:") }),
                      let mask = UInt64(line.dropFirst("SigIgn:".count).trimmingCharacters(in: .whitespaces), radix: 16) else { return false }
                return mask & (1 << (UInt64(SIGHUP) - 1)) != 0
            }
            var caughtLoading = false
            await withTaskExecutorPreference(OwnThread.polling) {
                while serve.process.isRunning, !FileManager.default.fileExists(atPath: serve.socket) {
                    if ignoresHangup() { caughtLoading = !FileManager.default.fileExists(atPath: serve.socket); break }
                }
            }
            guard caughtLoading else {
                #expect(serve.stop() == 0)
                if attempt == starts { Issue.record("never saw the server between ignoring SIGHUP and listening in \(starts) starts") }
                continue
            }
            // Ignored from before the socket exists: while the index is still loading.
            kill(pid, SIGHUP)
            _ = try await serve.waitUntilServing()
            #expect(serve.stop() == 0)
            return
        }
    }
}
