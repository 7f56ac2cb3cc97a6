import Foundation
import LocusCore
import LocusEngine

/// The indexes the targets run against, and a scratch folder for the files they write.
public enum FuzzIndexes {
    /// The checkout: this file is Fuzz/Sources/FuzzSupport/FuzzIndexes.swift.
    public static let checkout = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    public static let fixtures = checkout.appendingPathComponent("Tests/Fixtures")

    /// A folder of this process's own, removed at exit: in memory (/dev/shm) where there is one,
    /// since the batch target writes and syncs files on every input.
    public static let scratch: URL = {
        let environment = ProcessInfo.processInfo.environment
        let base = environment["LOCUS_FUZZ_TMP"]
            ?? (FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory())
        let dir = URL(fileURLWithPath: base).appendingPathComponent("locus-fuzz-\(getpid())")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: FuzzIndexes.scratch) }
        return dir
    }()

    /// The small index the tests build (Tests/Fixtures: the messy addresses, the polygons as layer
    /// "neighborhoods", the default dataset's synonyms), built here once per process.
    public static let fixturePath: String = {
        let out = scratch.appendingPathComponent("fixture.locus").path
        var config = IndexBuildConfiguration(output: out)
        config.addresses = fixtures.appendingPathComponent("addresses_messy.csv").path
        config.layers = [LayerSource(name: "neighborhoods", path: fixtures.appendingPathComponent("polygons.geojson").path)]
        config.synonyms = [checkout.appendingPathComponent("Data/portland/synonyms.csv").path]
        // The messy file rejects rows on purpose.
        config.maximumRejectedShare = 1
        config.buildDate = Date(timeIntervalSince1970: 0)
        do {
            _ = try IndexBuilder.build(config)
        } catch {
            Fuzzer.fail("cannot build the fixture index from \(fixtures.path): \(error)")
        }
        return out
    }()

    public static func open(_ path: String) -> LocusIndex {
        do {
            let index = try LocusIndex(path: path)
            index.search?.prepare()
            return index
        } catch {
            Fuzzer.fail("cannot open the index \(path): \(error)")
        }
    }

    /// `LOCUS_FUZZ_INDEX` when set (scripts/fuzz gives the Portland index, whose size is what the
    /// time bound is about), else the fixture index.
    public static func chosen() -> LocusIndex {
        if let path = ProcessInfo.processInfo.environment["LOCUS_FUZZ_INDEX"], !path.isEmpty { return open(path) }
        return open(fixturePath)
    }
}
