import Foundation
import LocusCore
import LocusEngine
import Testing

/// Paths and shared, expensive fixtures for the tests.
enum TestSupport {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let fixtures = packageRoot.appendingPathComponent("Tests/Fixtures")

    /// The real open data, from $LOCUS_DATA_DIR or ../shared/data beside the checkout.
    static let dataDirectory: URL = {
        if let d = ProcessInfo.processInfo.environment["LOCUS_DATA_DIR"] { return URL(fileURLWithPath: d) }
        return packageRoot.appendingPathComponent("../shared/data").standardized
    }()

    static var portlandAddresses: String { dataDirectory.appendingPathComponent("portland/addresses.csv.gz").path }
    static var portlandNeighbourhoods: String { dataDirectory.appendingPathComponent("portland/neighborhoods.geojson").path }
    static var portlandNeighbourhoodsShapefile: String {
        dataDirectory.appendingPathComponent("portland/neighborhoods_webmercator_shp/Neighborhoods_regions.shp").path
    }

    /// One folder per test run, removed when the run's process exits: each run left about
    /// 240 MB behind (a Portland index and its damaged copies), enough to fill a CI disk.
    private static let runDirectory: URL = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("locus-tests-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: TestSupport.runDirectory) }
        return dir
    }()

    static func temporaryDirectory() -> URL {
        let dir = runDirectory.appendingPathComponent(UUID().uuidString)
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// The address search of an index built through the real builder from `rows`: a CSV's lines,
    /// its header first (number, street, city, state, postcode, lon, lat).
    static func addressSearch(rows: [String]) throws -> AddressSearch {
        let dir = temporaryDirectory()
        let csv = dir.appendingPathComponent("addresses.csv")
        try rows.joined(separator: "\n").write(to: csv, atomically: true, encoding: .utf8)
        var config = IndexBuildConfiguration(output: dir.appendingPathComponent("addresses.locus").path)
        config.addresses = csv.path
        _ = try IndexBuilder.build(config)
        return try #require(try LocusIndex(path: config.output).search)
    }

    /// The full Portland index, built once per test run through the real builder.
    private static let portlandBuild: Result<(path: String, index: LocusIndex), LocusError> = {
        let out = temporaryDirectory().appendingPathComponent("portland.locus").path
        var config = IndexBuildConfiguration(output: out)
        config.addresses = portlandAddresses
        config.layers = [LayerSource(name: "neighborhoods", path: portlandNeighbourhoods)]
        // As the default dataset builds it: with its street synonyms.
        config.synonyms = [packageRoot.appendingPathComponent("Data/portland/synonyms.csv").path]
        do throws(LocusError) {
            _ = try IndexBuilder.build(config)
            return .success((out, try LocusIndex(path: out)))
        } catch {
            return .failure(LocusError(error.code, "cannot build the Portland test index from \(dataDirectory.path) (set LOCUS_DATA_DIR): \(error.message)"))
        }
    }()

    /// The small hand-written index (Tests/Fixtures: the polygons of layer `areas`, a few
    /// addresses on NE Alpha St), built once per test run: what tests of the server and the
    /// protocol need is an index that answers, not a city, which takes seconds to load.
    private static let fixtureBuild = Result { try FixtureIndexTests.buildFixture(addresses: true).0 }

    static func fixture() throws -> LocusIndex { try fixtureBuild.get() }

    static func portlandIndexPath() throws -> String { try portlandBuild.get().path }
    static func portland() throws -> LocusIndex { try portlandBuild.get().index }

    /// The `locus` executable built beside the test bundle.
    static var locusBinary: URL { executable("locus") }

    /// The `locus-bench` executable, built beside `locus`.
    static var benchBinary: URL { executable("locus-bench") }

    static func executable(_ name: String) -> URL {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while dir.path != "/" {
            let candidate = dir.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            dir.deleteLastPathComponent()
        }
        for config in ["release", "debug"] {
            let candidate = packageRoot.appendingPathComponent(".build/\(config)/\(name)")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        fatalError("no \(name) binary found near \(CommandLine.arguments[0])")
    }

    struct RunResult {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs to the end, or with `timeout` until then: a process still running is killed (and
    /// its status is that of SIGKILL), so a test of something that should exit cannot hang.
    static func run(_ executable: URL, _ arguments: [String], environment: [String: String] = [:], timeout: Double? = nil) throws -> RunResult {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        process.environment = env
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let pid = process.processIdentifier
        let deadline = DispatchWorkItem { kill(pid, SIGKILL) }
        if let timeout { DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: deadline) }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        deadline.cancel()
        return RunResult(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                         stderr: String(decoding: errData, as: UTF8.self))
    }

    static func locus(_ arguments: [String], timeout: Double? = nil) throws -> RunResult {
        try run(locusBinary, arguments, timeout: timeout)
    }

    static func locusBench(_ arguments: [String], timeout: Double? = nil) throws -> RunResult {
        try run(benchBinary, arguments, timeout: timeout)
    }
}

func randomPoints(in e: Envelope, count: Int, seed: UInt64) -> [GeoPoint] {
    e.randomPoints(count: count, seed: seed)
}

extension BoundaryLayer {
    var extentOfFeatures: Envelope {
        var e = Envelope.empty
        for f in features { e.extend(f.envelope) }
        return e
    }

    func coveringIDs(_ p: GeoPoint) -> [String] {
        covering(x: p.x, y: p.y).map { features[$0].id }
    }
}
