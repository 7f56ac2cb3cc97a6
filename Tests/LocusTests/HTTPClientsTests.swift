import Foundation
import LocusCore
import LocusEngine
import LocusProtocol
import LocusWire
import NIOConcurrencyHelpers
import Testing

/// A `locus serve --http` subprocess (or any `locus` command serving HTTP), on ports the system
/// picks, read from what it prints.
final class HTTPServeProcess: Sendable {
    let process: Process
    let httpBase: String
    private let log: NIOLockedValueBox<String>

    /// `locus serve` with `--http` on a free port.
    /// - Parameter index: the index to serve; default the Portland test index.
    convenience init(arguments extra: [String] = [], index: String? = nil) throws {
        try self.init(command: ["serve", "--index", try index ?? TestSupport.portlandIndexPath(), "--listen", "tcp://127.0.0.1:0",
                                "--http", "127.0.0.1:0"] + extra, printsAddressOn: .standardError) { log in
            guard let line = log.split(separator: "\n").first(where: { $0.contains("listening for HTTP") }),
                  let range = line.range(of: #"tcp://127\.0\.0\.1:\d+"#, options: .regularExpression) else { return nil }
            return "http://" + line[range].dropFirst("tcp://".count)
        }
    }

    enum Stream { case standardOutput, standardError }

    /// - Parameters:
    ///   - stream: where the command prints its address (the other is discarded).
    ///   - base: the `http://HOST:PORT` in what has been printed so far, once it is there.
    init(command: [String], printsAddressOn stream: Stream, base: (String) -> String?) throws {
        let process = Process()
        process.executableURL = TestSupport.locusBinary
        process.arguments = command
        let pipe = Pipe()
        if stream == .standardError {
            process.standardError = pipe
            process.standardOutput = FileHandle.nullDevice
        } else {
            process.standardOutput = pipe
            process.standardError = FileHandle.nullDevice
        }
        let log = NIOLockedValueBox("")
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            log.withLockedValue { $0 += String(decoding: data, as: UTF8.self) }
        }
        try process.run()
        self.process = process
        self.log = log
        // Blocking waits, off the shared pool: the server starts in about a second.
        var found: String?
        for _ in 0..<600 where found == nil && process.isRunning {
            found = base(log.withLockedValue { $0 })
            if found == nil { usleep(50_000) }
        }
        guard let found else {
            if process.isRunning { process.terminate() }
            throw LocusError(.internalError, "locus \(command.first ?? "") did not start: \(log.withLockedValue { $0 }.suffix(500))")
        }
        httpBase = found
    }

    var logText: String { log.withLockedValue { $0 } }

    deinit {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}

/// geopy's ArcGIS geocoder and geopandas' geocode/reverse_geocode — clients written by others —
/// against a live `locus serve --http`, on real street-tree addresses and positions; each answer
/// must be what the engine gives for the same input.
@Suite(.serialized) struct HTTPClientsTests {
    static let script = TestSupport.packageRoot.appendingPathComponent("Tests/Clients/geopy_clients.py").path
    static var trees: String { TestSupport.dataDirectory.appendingPathComponent("portland/street_trees_dev.csv.gz").path }

    struct Answer: Decodable {
        var address: String
        var lat: Double
        var lon: Double
        var label: String?
    }

    struct Line: Decodable {
        var client: String
        var text: String
        var lat: Double
        var lon: Double
        var geocode: Answer?
        var reverse: Answer?
    }

    static func run(_ clients: String, count: Int, on server: HTTPServeProcess) throws -> [Line] {
        let python = URL(fileURLWithPath: "/usr/bin/env")
        let result = try TestSupport.run(python, ["python3", script, "--base", server.httpBase, "--trees", trees,
                                                  "--count", String(count), "--clients", clients], timeout: 300)
        guard result.status == 0 else {
            throw LocusError(.internalError, "the clients failed (is geopy installed? scripts/setup --with-python): \(result.stderr.suffix(800))")
        }
        return try result.stdout.split(separator: "\n").map { try JSONDecoder().decode(Line.self, from: Data($0.utf8)) }
    }

    /// What a client shows of the engine's reverse answer or top candidate, in its own words.
    static func expectedAddress(_ client: String, _ c: AddressComponents) -> (String) -> Bool {
        switch client {
        // geopy writes Esri's fields as "Address, City, Region Postal, CountryCode".
        case "arcgis", "geopandas": { $0.hasPrefix("\(c.number) \(c.street), \(c.city), ") }
        case "pelias": { $0 == "\(c.number) \(c.street)" }
        // Nominatim's display_name, OSM style: "6132, Northeast 34th Avenue, Concordia, …".
        default: { $0.hasPrefix("\(c.number), \(c.streetFull), ") }
        }
    }

    @Test(.timeLimit(.minutes(5))) func geopyGeocodersAndGeopandasGetTheEnginesAnswers() throws {
        let count = 20
        let server = try HTTPServeProcess()
        let lines = try Self.run("arcgis,geopandas,pelias,nominatim", count: count, on: server)
        let handler = RequestHandler(index: try TestSupport.portland())
        for client in ["arcgis", "geopandas", "pelias", "nominatim"] {
            let mine = lines.filter { $0.client == client }
            #expect(mine.count == count, "\(client)")
            var geocoded = 0, reversed = 0
            // Nominatim writes coordinates with 7 decimals.
            let tolerance = client == "nominatim" ? 1e-7 : 1e-9
            for line in mine {
                let text = line.text + ", Portland, OR"
                let engine = try handler.result(LocusRequest(.geocode, GeocodeArguments(request: GeocodeRequest(.text(text)))),
                                                as: GeocodeResult.self).candidates.first
                if let g = line.geocode, let e = engine {
                    geocoded += 1
                    #expect(Self.expectedAddress(client, e.components)(g.address), "\(client) geocode \(text): \(g.address)")
                    if client == "arcgis" { #expect(g.label == e.address) }
                    #expect(abs(g.lat - e.location.y) <= tolerance && abs(g.lon - e.location.x) <= tolerance, "\(client) \(text)")
                } else {
                    #expect(line.geocode == nil && engine == nil, "\(client) geocode \(text)")
                }
                let back = try handler.result(LocusRequest(.reverse, ReverseArguments(request: ReverseRequest(location: GeoPoint(x: line.lon, y: line.lat)))),
                                              as: ReverseReply.self).address
                if let r = line.reverse, let e = back {
                    reversed += 1
                    #expect(Self.expectedAddress(client, e.components)(r.address), "\(client) reverse \(line.lat),\(line.lon): \(r.address)")
                    if client == "arcgis" { #expect(r.label == e.address) }
                    #expect(abs(r.lat - e.location.y) <= tolerance && abs(r.lon - e.location.x) <= tolerance)
                } else {
                    #expect(line.reverse == nil && back == nil, "\(client) reverse \(line.lat),\(line.lon)")
                }
            }
            // Real addresses of real trees: nearly all are found both ways.
            #expect(geocoded >= count - 2, "\(client): \(geocoded) of \(count) geocoded")
            #expect(reversed >= count - 2, "\(client): \(reversed) of \(count) reversed")
        }
        // The server counted every client's requests under its dialect (geopandas speaks Esri).
        let python = URL(fileURLWithPath: "/usr/bin/env")
        let scrape = try TestSupport.run(python, ["python3", "-c", "import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1]).read().decode())",
                                                  server.httpBase + "/metrics"], timeout: 30).stdout
        for (dialect, requests) in [("esri", 2 * count), ("pelias", count), ("nominatim", count)] {
            let line = scrape.split(separator: "\n").first { $0.hasPrefix("locus_requests_total{op=\"reverse\",outcome=\"ok\",protocol=\"\(dialect)\"}") }
            let counted = line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
            #expect(counted >= requests - 4, "\(dialect): \(counted) reverse ok of \(requests)\n\(scrape.prefix(600))")
        }
    }
}

/// What an attacker's connections get from `locus serve --http`.
@Suite struct HTTPConnectionAbuseTests {
    /// A connection that sends nothing is closed after the idle timeout (the socket server's
    /// `--idle-timeout`), so silent connections cannot use up `--max-connections`.
    @Test(.timeLimit(.minutes(2))) func aSilentConnectionIsClosedAfterTheIdleTimeout() throws {
        let server = try HTTPServeProcess(arguments: ["--idle-timeout", "1"])
        // Only its port is used below: keep the server running to the end.
        defer { withExtendedLifetime(server) {} }
        let port = try #require(server.httpBase.split(separator: ":").last.map(String.init))
        let script = """
        import socket, sys, time
        s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
        s.settimeout(20)
        t = time.time()
        data = s.recv(1)
        print(len(data), round(time.time() - t, 2))
        """
        let r = try TestSupport.run(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script, port], timeout: 60)
        let fields = r.stdout.split(separator: " ").map { String($0).trimmingWhitespace() }
        #expect(fields.first == "0", "the server did not close the silent connection: \(r.stdout) \(r.stderr.suffix(300))")
        let seconds = Double(fields.last ?? "") ?? 99
        #expect(seconds >= 0.5 && seconds < 10, "closed after \(seconds) s")
    }
}
