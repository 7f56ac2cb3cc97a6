import Foundation
import LocusCore
import LocusEngine
import LocusProtocol
import LocusWire
import Testing

/// The map page in a real browser: headless Chromium, driven by Selenium
/// (Tests/Clients/map_page.py), against a live `locus serve --http`, on the Portland index and
/// on another city's. What the page shows must be what the engine answers; screenshots of every
/// step are left in .build/test-output/map/.
@Suite(.serialized) struct MapPageTests {
    static let script = TestSupport.packageRoot.appendingPathComponent("Tests/Clients/map_page.py").path
    static let output = TestSupport.packageRoot.appendingPathComponent(".build/test-output/map")

    struct Layer: Decodable {
        var name: String
        var shown: Int
        var paths: Int
    }

    struct Info: Decodable {
        var built: String
        var addresses: String
        var text: String
    }

    struct Candidate: Decodable {
        var address: String
        var lon: Double
        var lat: Double
        var score: Double
        var match_type: String
        var explain: [String]
    }

    struct Point: Decodable {
        var lat: Double
        var lon: Double
    }

    struct Feature: Decodable, Equatable {
        var layer: String
        var name: String
    }

    struct Reverse: Decodable {
        var address: String?
        var lon: Double?
        var lat: Double?
        var match_type: String?
        var features: [Feature]
        var highlighted: Int
        var line: Bool
        /// Where the click landed, in lon/lat: the point asked about.
        var click: [Double]
    }

    struct Batch: Decodable {
        var rows: Int
        var drawn: Int
        var failed: Int
        var markers: Int
        var failed_items: [String]
    }

    struct Report: Decodable {
        var layers: [Layer]
        var info: Info
        var suggestions: [String]?
        var candidate: Candidate?
        var marker: Point?
        var reverse: [String: Reverse]?
        var csv: Batch?
        var drop: Batch?
        var console: [String]
        var screenshots: [String]
        var seconds: Double
    }

    /// Runs the page's steps in the browser; a missing browser is a failure that says how to
    /// install it, as scripts/test installs it.
    static func browse(_ server: HTTPServeProcess, into folder: String, _ arguments: [String]) throws -> Report {
        for tool in ["/usr/bin/chromium", "/usr/bin/chromedriver"] where !FileManager.default.isExecutableFile(atPath: tool) {
            throw LocusError(.internalError, "\(tool) is missing: the map page's test needs Chromium and its driver (scripts/setup --with-browser installs them)")
        }
        let out = output.appendingPathComponent(folder)
        try? FileManager.default.removeItem(at: out)
        let python = URL(fileURLWithPath: "/usr/bin/env")
        let result = try TestSupport.run(python, ["python3", script, "--base", server.httpBase, "--out", out.path] + arguments, timeout: 180)
        guard result.status == 0 else {
            throw LocusError(.internalError, "the browser steps failed (is selenium installed? scripts/setup --with-browser): \(result.stderr.suffix(1_500))\nserver: \(server.logText.suffix(500))")
        }
        return try JSONDecoder().decode(Report.self, from: Data(result.stdout.utf8))
    }

    static func metres(_ a: (Double, Double), _ b: (Double, Double)) -> Double {
        GeoPoint(x: a.0, y: a.1).metres(to: GeoPoint(x: b.0, y: b.1))
    }

    /// A real tree of the city's inventory, recorded at 3335 NE Ainsworth St, in Concordia: the
    /// lot it fronts is 3335's, the nearest address point its neighbour 3325's.
    static let tree = GeoPoint(x: -122.629936, y: 45.566452)

    @Test(.timeLimit(.minutes(3))) func portlandSearchClickAndCSVShowWhatTheEngineAnswers() throws {
        let index = try TestSupport.portland()
        let handler = RequestHandler(index: index)
        let dir = TestSupport.temporaryDirectory()

        // An enriched CSV as `locus enrich` writes it: real addresses, one that matches nothing,
        // one empty; and an `assign` output with a point outside every polygon and one broken.
        let addresses = ["6132 NE 34TH AVE", "3410 NE AINSWORTH ST", "8740 SE KNAPP ST", "5603 NE 39TH AVE", "1640 NW 27TH AVE",
                         "qqqq zzzz", "", "2000 SE HAWTHORNE BLVD", "4107 N WILLIAMS AVE"]
        let input = dir.appendingPathComponent("trees.csv").path
        try (["id,address"] + addresses.enumerated().map { "\($0.offset + 1),\"\($0.element)\"" }).joined(separator: "\n")
            .write(toFile: input, atomically: true, encoding: .utf8)
        let enriched = dir.appendingPathComponent("enriched.csv").path
        let enrich = try TestSupport.locus(["enrich", input, "-o", enriched, "--index", try TestSupport.portlandIndexPath(), "--allow-failures"], timeout: 120)
        #expect(enrich.status == 0, "\(enrich.stderr)")
        let enrichedRows = parseCSV(try String(contentsOfFile: enriched, encoding: .utf8))
        let withPoints = enrichedRows.filter { !($0["longitude"] ?? "").isEmpty && !($0["latitude"] ?? "").isEmpty }.count
        let unmatched = enrichedRows.filter { $0["status"] != "matched" }.count
        #expect(enrichedRows.count == addresses.count && unmatched >= 2 && withPoints >= 6)

        let points = dir.appendingPathComponent("points.csv").path
        try "id,lon,lat\n1,-122.629576,45.567553\n2,-122.6296,45.5676\n3,-122.68,45.52\n4,-100,40\n5,abc,45.5\n"
            .write(toFile: points, atomically: true, encoding: .utf8)
        let assigned = dir.appendingPathComponent("assigned.csv").path
        let assign = try TestSupport.locus(["assign", points, "-o", assigned, "--index", try TestSupport.portlandIndexPath(), "--allow-failures"], timeout: 120)
        #expect(assign.status == 0, "\(assign.stderr)")
        let assignedRows = parseCSV(try String(contentsOfFile: assigned, encoding: .utf8))
        let assignedPoints = assignedRows.filter { Double($0["lon"] ?? "") != nil && Double($0["lat"] ?? "") != nil }.count
        let assignedFailed = assignedRows.filter { $0["status"] == "outside" || $0["status"] == "failed" || Double($0["lon"] ?? "") == nil }.count

        let server = try HTTPServeProcess()
        let clock = ContinuousClock()
        let start = clock.now
        let report = try Self.browse(server, into: "portland", [
            "--search", "6132 ne 34", "--expect", "6132 NE 34th Ave", "--click=\(Self.tree.x),\(Self.tree.y)",
            "--csv", enriched, "--drop", assigned,
        ])
        print("map page, Portland: \(report.seconds) s in the browser, \((clock.now - start).inSeconds) s with its start")

        // The layers, from the server: Portland's one, every polygon in the first view, drawn
        // but for those smaller than a pixel there.
        #expect(report.layers.map(\.name) == index.metadata.layers.map(\.name))
        for (layer, info) in zip(report.layers, index.metadata.layers) {
            #expect(layer.shown == info.featureCount && layer.paths <= layer.shown && layer.paths >= layer.shown * 9 / 10, "\(layer)")
        }
        #expect(report.info.addresses.filter(\.isNumber) == index.metadata.values["address_count"])
        #expect(report.info.built == index.metadata.values["build_time"])
        #expect(report.info.text.contains("addresses.csv.gz") && report.info.text.contains("neighborhoods.geojson"))

        // Suggest on every keystroke, then the pick: the engine's geocode of the same text.
        #expect(report.suggestions?.first == "6132 NE 34th Ave, Portland, OR 97211", "\(report.suggestions ?? [])")
        let engine = try #require(try handler.result(LocusRequest(.geocode, GeocodeArguments(request: GeocodeRequest(.text("6132 NE 34th Ave, Portland, OR 97211")))),
                                                     as: GeocodeResult.self).candidates.first)
        let candidate = try #require(report.candidate)
        #expect(candidate.address == engine.address)
        #expect(candidate.score == engine.score && candidate.match_type == engine.matchType.rawValue)
        #expect(!candidate.explain.isEmpty, "the explanation is shown")
        let marker = try #require(report.marker, "no candidate marker on the map")
        #expect(Self.metres((marker.lon, marker.lat), (engine.location.x, engine.location.y)) < 1, "marker at \(marker)")

        // The click: the engine's reverse with every layer, each method, at the point clicked.
        for method in ReverseMethod.allCases {
            let shown = try #require(report.reverse?[method.rawValue], "\(method)")
            let clicked = GeoPoint(x: shown.click.first ?? 0, y: shown.click.last ?? 0)
            #expect(clicked.metres(to: Self.tree) < 1, "the click landed at \(clicked)")
            var request = ReverseRequest(location: clicked)
            request.method = method
            let expected = try handler.result(LocusRequest(.reverse, ReverseArguments(request: request, layers: index.metadata.layers.map(\.name))), as: ReverseReply.self)
            let address = try #require(expected.address)
            #expect(shown.address == address.address, "\(method)")
            #expect(shown.match_type == address.matchType.rawValue)
            #expect(Self.metres((shown.lon ?? 0, shown.lat ?? 0), (address.location.x, address.location.y)) < 0.01)
            #expect(shown.features == (expected.features ?? []).map { Feature(layer: $0.layer, name: $0.name) })
            #expect(shown.features.map(\.name) == ["Concordia"])
            #expect(shown.highlighted == shown.features.count && shown.line, "the covering polygon outlined, a line to the answer")
        }
        #expect(report.reverse?["frontage"]?.address == "3335 NE Ainsworth St, Portland, OR 97211")
        #expect(report.reverse?["nearest"]?.address == "3325 NE Ainsworth St, Portland, OR 97211")

        // The CSVs: a marker per row with coordinates, the failed rows listed.
        let csv = try #require(report.csv)
        #expect(csv.rows == enrichedRows.count && csv.markers == withPoints && csv.drawn == withPoints, "\(csv)")
        #expect(csv.failed == unmatched && csv.failed_items.count == unmatched, "\(csv)")
        #expect(csv.failed_items.contains { $0.contains("qqqq zzzz") })
        let drop = try #require(report.drop)
        #expect(drop.rows == assignedRows.count && drop.markers == assignedPoints && drop.failed == assignedFailed, "\(drop)")

        #expect(report.console.isEmpty, "browser console errors: \(report.console)")
        #expect(report.screenshots.count == 8)
    }

    /// Another city, whose layer and fields are not Portland's: a block of Testville, KS, with its
    /// lots (Tests/Fixtures/lots*). The page finds the layer from the server, draws it, searches.
    @Test(.timeLimit(.minutes(2))) func anotherCitysIndexIsListedDrawnAndSearched() throws {
        let path = TestSupport.temporaryDirectory().appendingPathComponent("testville.locus").path
        let build = try TestSupport.locus(["index", "build", "--addresses", TestSupport.fixtures.appendingPathComponent("lots_addresses.csv").path,
                                           "--layer", "parcels=" + TestSupport.fixtures.appendingPathComponent("lots.geojson").path,
                                           "--lots", "parcels", "-o", path])
        #expect(build.status == 0, "\(build.stderr)")
        let index = try LocusIndex(path: path)
        let handler = RequestHandler(index: index)
        let server = try HTTPServeProcess(index: path)
        // Inside lot A, in front of 101 Elm St.
        let click = GeoPoint(x: -99.99991, y: 40.00030)
        let report = try Self.browse(server, into: "testville", ["--search", "101 elm", "--expect", "101 Elm St", "--click=\(click.x),\(click.y)", "--zoom", "20"])

        #expect(report.layers.map(\.name) == ["parcels"])
        let parcels = try #require(index.metadata.layers.first)
        #expect(report.layers.first?.shown == parcels.featureCount && report.layers.first?.paths == parcels.featureCount, "\(report.layers)")
        #expect(report.info.text.contains("parcels: 6 polygons") && report.info.text.contains("lots.geojson"), "\(report.info.text)")

        let engine = try #require(try handler.result(LocusRequest(.geocode, GeocodeArguments(request: GeocodeRequest(.text("101 Elm St, Testville, KS")))),
                                                     as: GeocodeResult.self).candidates.first)
        #expect(report.suggestions?.first?.hasPrefix("101 Elm St") == true, "\(report.suggestions ?? [])")
        #expect(report.candidate?.address == engine.address)
        let marker = try #require(report.marker)
        #expect(Self.metres((marker.lon, marker.lat), (engine.location.x, engine.location.y)) < 0.5)

        let shown = try #require(report.reverse?["frontage"])
        let clicked = GeoPoint(x: shown.click.first ?? 0, y: shown.click.last ?? 0)
        #expect(clicked.metres(to: click) < 0.5)
        let expected = try handler.result(LocusRequest(.reverse, ReverseArguments(request: ReverseRequest(location: clicked), layers: ["parcels"])), as: ReverseReply.self)
        #expect(shown.address == expected.address?.address && shown.address?.hasPrefix("101 Elm St") == true, "\(shown)")
        #expect(shown.features == (expected.features ?? []).map { Feature(layer: $0.layer, name: $0.name) } && shown.features.count == 1)
        #expect(shown.highlighted == 1)
        #expect(report.console.isEmpty, "browser console errors: \(report.console)")
    }
}

/// `locus map`: the page on a loopback port, its address printed, served until interrupted.
@Suite struct MapCommandTests {
    @Test(.timeLimit(.minutes(2))) func mapServesThePageOnLoopbackUntilInterrupted() throws {
        let path = TestSupport.temporaryDirectory().appendingPathComponent("testville.locus").path
        let build = try TestSupport.locus(["index", "build", "--addresses", TestSupport.fixtures.appendingPathComponent("lots_addresses.csv").path,
                                           "--layer", "parcels=" + TestSupport.fixtures.appendingPathComponent("lots.geojson").path, "-o", path])
        #expect(build.status == 0, "\(build.stderr)")
        let map = try HTTPServeProcess(command: ["map", "--index", path, "--no-open"], printsAddressOn: .standardOutput) { printed in
            printed.range(of: #"http://127\.0\.0\.1:\d+/"#, options: .regularExpression).map { String(printed[$0].dropLast()) }
        }
        #expect(map.logText.contains("testville.locus"))
        let fetch = """
        import sys, urllib.request
        for path in sys.argv[2:]:
            with urllib.request.urlopen(sys.argv[1] + path) as r:
                print(r.status, r.headers.get("Content-Type"), len(r.read()))
        """
        let r = try TestSupport.run(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", fetch, map.httpBase + "/", "", "leaflet/leaflet.js", "locus/info"], timeout: 30)
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.count == 3 && lines.allSatisfy { $0.hasPrefix("200 ") }, "\(r.stdout) \(r.stderr.suffix(300))")
        #expect(lines.first?.contains("text/html") == true)
        kill(map.process.processIdentifier, SIGINT)
        map.process.waitUntilExit()
        #expect(map.process.terminationStatus == 0)

        let remote = try TestSupport.locus(["map", "--index", path, "--http", "0.0.0.0:8080", "--no-open"])
        #expect(remote.status == 64 && remote.stderr.contains("loopback"), "\(remote.stderr)")
    }
}
