import Foundation
import LocusClient
import LocusCore
import LocusWire
import Testing

/// What a program that only talks to a Locus server builds on: this target links LocusClient,
/// LocusWire and LocusCore, and so no C library (no GEOS, PROJ, GDAL or SQLite).
@Suite struct WireTests {
    @Test func repliesReadAsTheServerWritesThem() throws {
        let line = ReplyEncoder.success(id: .number(7), result: ["pong": true], elapsed: .milliseconds(12))
        #expect(String(decoding: line, as: UTF8.self) == #"{"id":7,"ok":true,"result":{"pong":true},"elapsed":0.012}"# + "\n")
        let reply = try #require(line.dropLast().withUnsafeBytes { ClientReply(line: $0) })
        #expect(reply.id == .number(7))
        #expect(reply.ok)
        #expect(try reply.decode([String: Bool].self) == ["pong": true])
    }

    @Test func errorCodesReadBackAndUnknownOnesAreStillErrors() throws {
        let line = ReplyEncoder.failure(id: .string("a"), error: WireError(.notFound, "no such layer"), elapsed: .zero)
        let reply = try #require(line.dropLast().withUnsafeBytes { ClientReply(line: $0) })
        #expect(reply.error == WireError(.notFound, "no such layer"))
        #expect(throws: WireError.self) { try reply.decode(WithinResult.self) }
        let newer = Array(#"{"id":1,"ok":false,"error":{"code":"a_newer_code","message":"m"},"elapsed":0}"#.utf8)
        #expect(newer.withUnsafeBytes { ClientReply(line: $0) }?.error?.code == .internalError)
        #expect(Set(WireErrorCode.allCases.map(\.rawValue)).count == WireErrorCode.allCases.count)
        #expect(WireErrorCode(rawValue: "too_large") == .tooLarge)
    }

    @Test func listenAddressesParse() {
        #expect(ListenAddress("tcp://[::1]:7878") == .tcp(host: "::1", port: 7878))
        #expect(ListenAddress("unix:///run/locus.sock")?.description == "unix:/run/locus.sock")
        #expect(ListenAddress("http://x:1") == nil)
    }
}

/// A `locus serve` of the Portland index (`Index/portland.locus`, as `scripts/setup` builds it),
/// run as a subprocess and asked over its Unix socket.
@Suite struct LiveClientTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let index = packageRoot.appendingPathComponent("Index/portland.locus").path

    /// The `locus` executable built beside the test bundle.
    static var locusBinary: URL? {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while dir.path != "/" {
            let candidate = dir.appendingPathComponent("locus")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            dir.deleteLastPathComponent()
        }
        return nil
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: index) && locusBinary != nil), .timeLimit(.minutes(2)))
    func asksARunningServer() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("locus-client-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let socket = dir.appendingPathComponent("s.sock").path
        let serve = Process()
        serve.executableURL = try #require(Self.locusBinary)
        serve.arguments = ["serve", "--index", Self.index, "--listen", "unix:\(socket)"]
        serve.standardError = FileHandle.nullDevice
        serve.standardOutput = FileHandle.nullDevice
        try serve.run()
        defer {
            if serve.isRunning { serve.terminate() }
            serve.waitUntilExit()
        }
        var client: LocusClient?
        for _ in 0..<600 where client == nil {
            client = try? await LocusClient.connect(to: .unix(path: socket), retry: .none)
            if client == nil { try await Task.sleep(for: .milliseconds(50)) }
        }
        let c = try #require(client)
        #expect(try await c.send(op: "ping").ok)
        let point: JSONValue = .object(["x": .number(-122.6296), "y": .number(45.5676)])
        let r = try await c.send(op: "reverse", ["location": point, "layers": .array([.string("neighborhoods")])]).decode(ReverseReply.self)
        #expect(r.address?.address == "6132 NE 34th Ave, Portland, OR 97211")
        #expect(r.features?.first?.name == "Concordia")
        let g = try await c.send(op: "geocode", ["text": .string("6132 ne 34th ave")]).decode(GeocodeResult.self)
        #expect(g.candidates.first?.address == "6132 NE 34th Ave, Portland, OR 97211")
        let unknown = try await c.send(op: "fly")
        #expect(unknown.error?.code == .unknownOp)
        await c.close()
    }
}
