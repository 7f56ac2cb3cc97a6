import Foundation
import LocusClient
import LocusCore
import LocusWire
import Testing

/// `LocusClient`'s reconnection and retry, against a server scripted to fail as killed, full and
/// restarting servers do.
@Suite struct RetryTests {
    /// Quick waits: the behaviour, not the timing, is under test.
    static let quick = RetryPolicy(attempts: 4, initialDelay: .milliseconds(5), maximumDelay: .milliseconds(20))
    static let local = ListenAddress.tcp(host: "127.0.0.1", port: 0)

    /// The number of the server connection that answered.
    static func connection(_ reply: ClientReply) throws -> Int {
        try reply.decode([String: Int].self)["connection"] ?? 0
    }

    /// `window` requests at once; each one's answering connection, or its error.
    static func sendAtOnce(_ client: LocusClient, _ window: Int, idempotent: Bool) async -> [Result<Int, any Error>] {
        await withTaskGroup(of: Result<Int, any Error>.self) { group in
            for _ in 0..<window {
                group.addTask {
                    do { return .success(try connection(try await client.send(op: "reverse", idempotent: idempotent))) } catch { return .failure(error) }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
    }

    /// Catches: requests in flight on a connection that dies failing, where the client could
    /// have sent them again (the first connection reads 8 requests and closes, as a killed server's
    /// does). Without the retry all 8 fail.
    @Test func requestsLostWithTheirConnectionAreSentAgainOnANewOne() async throws {
        let server = try await ScriptedServer(at: Self.local) { $0 == 1 ? .dropAfter(requests: 8) : .answer }
        let client = try await LocusClient.connect(to: server.address, retry: Self.quick)
        let results = await Self.sendAtOnce(client, 8, idempotent: true)
        #expect(results.map { try? $0.get() } == [Int?](repeating: 2, count: 8), "\(results)")
        #expect(client.counts.retries == 8 && client.counts.connections == 2, "\(client.counts)")
        #expect(server.connections == 2)
        await client.close()
        await server.stop()

        // The same without retries: every request in flight fails, as the connection does.
        let again = try await ScriptedServer(at: Self.local) { $0 == 1 ? .dropAfter(requests: 8) : .answer }
        let once = try await LocusClient.connect(to: again.address, retry: .none)
        let lost = await Self.sendAtOnce(once, 8, idempotent: true)
        #expect(lost.allSatisfy { if case .failure(let e) = $0 { e is LocusClientError } else { false } }, "\(lost)")
        // The client itself goes on: the next request connects again.
        #expect(try Self.connection(try await once.send(op: "ping", idempotent: true)) == 2)
        await once.close()
        await again.stop()
    }

    /// Catches: a request that is not idempotent sent twice (it may have run); the client left
    /// unusable after its connection died.
    @Test func aRequestThatIsNotIdempotentIsNotSentAgainButTheNextOneReconnects() async throws {
        let server = try await ScriptedServer(at: Self.local) { $0 == 1 ? .dropAfter(requests: 1) : .answer }
        let client = try await LocusClient.connect(to: server.address, retry: Self.quick)
        await #expect(throws: LocusClientError.self) { try await client.send(op: "reload", idempotent: false) }
        #expect(client.counts.retries == 0)
        #expect(try Self.connection(try await client.send(op: "reload", idempotent: false)) == 2)
        await client.close()
        await server.stop()
    }

    /// Catches: retrying for ever against a server that keeps dying; an error that hides how hard
    /// the client tried.
    @Test func attemptsAreBoundedAndTheLastErrorSaysHowMany() async throws {
        let server = try await ScriptedServer(at: Self.local) { _ in .dropAfter(requests: 1) }
        let client = try await LocusClient.connect(to: server.address, retry: Self.quick)
        do {
            _ = try await client.send(op: "reverse", idempotent: true)
            Issue.record("a server that always drops the request answered it")
        } catch let e as LocusClientError {
            #expect(e.description.hasPrefix("the server closed the connection") || e.description.hasPrefix("lost the connection"), "\(e)")
            #expect(e.description.contains(" (4 attempts in "), "\(e)")
        }
        #expect(server.connections == 4)
        await client.close()
        await server.stop()
    }

    /// Catches: a client turned away by a full server (or replica) giving up at once, when the
    /// request never ran and another attempt may find room; and so for any request.
    @Test func aConnectionRefusedAsOverloadedIsTriedAgain() async throws {
        let server = try await ScriptedServer(at: Self.local) { $0 <= 2 ? .refuse : .answer }
        let client = try await LocusClient.connect(to: server.address, retry: Self.quick)
        #expect(try Self.connection(try await client.send(op: "cancel", ["request": .number(1)], idempotent: false)) == 3)
        await client.close()
        await server.stop()

        // Refused every time: after the last attempt, the server's own word (busy), not a lost
        // connection: as the reply, or thrown when the refusal came before the request went.
        let full = try await ScriptedServer(at: Self.local) { _ in .refuse }
        let busy = try await LocusClient.connect(to: full.address, retry: Self.quick)
        do {
            let reply = try await busy.send(op: "reverse", idempotent: true)
            #expect(reply.error?.code == .overloaded)
        } catch let e as WireError {
            #expect(e.code == .overloaded)
        }
        // Four attempts; one more connection when the one `connect` made was already refused
        // and closed before the first request.
        #expect((4...5).contains(full.connections), "\(full.connections)")
        await busy.close()
        await full.stop()
    }

    /// Catches: a client that cannot start while its server is (re)starting: connecting is tried
    /// again until the socket appears.
    @Test func connectingWaitsForAServerThatIsStarting() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("locus-retry-\(UUID().uuidString).sock").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let patient = RetryPolicy(attempts: 60, initialDelay: .milliseconds(10), maximumDelay: .milliseconds(100))
        async let connected = LocusClient.connect(to: .unix(path: path), retry: patient)
        try await Task.sleep(for: .milliseconds(300))
        let server = try await ScriptedServer(at: .unix(path: path)) { _ in .answer }
        let client = try await connected
        #expect(try Self.connection(try await client.send(op: "ping")) == 1)
        await client.close()
        await server.stop()

        // Nobody ever comes: the error names the server, the reason and the attempts.
        do {
            _ = try await LocusClient.connect(to: .unix(path: path + ".none"), retry: Self.quick)
            Issue.record("connected to nothing")
        } catch let e as LocusClientError {
            #expect(e.description.hasPrefix("no Locus server at unix:\(path).none: no such file or directory (4 attempts in "), "\(e)")
        }
    }
}
