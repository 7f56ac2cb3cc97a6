// Target (d): damaged index files. The bytes are written as an index file and opened the ways
// Locus opens one (`index info`'s metadata, the full load with search prepared, as a reload does);
// an index that opens is then queried. Checked: every damaged file is refused with a coded
// error or works, never a trap; `info` still encodes to one JSON line.
//
// The seeds are index files: this program writes the fixture index (and one with polygons
// only) into LOCUS_FUZZ_SEED_DIR at start, since built indexes are not committed.

import Foundation
import FuzzSupport
import LocusCore
import LocusEngine
import LocusProtocol

Fuzzer.begin()

let indexPath = FuzzIndexes.scratch.appendingPathComponent("fuzzed.locus").path

if let seeds = ProcessInfo.processInfo.environment["LOCUS_FUZZ_SEED_DIR"] {
    let layersOnly = FuzzIndexes.scratch.appendingPathComponent("layers-only.locus").path
    var config = IndexBuildConfiguration(output: layersOnly)
    config.layers = [LayerSource(name: "neighborhoods", path: FuzzIndexes.fixtures.appendingPathComponent("polygons.geojson").path)]
    config.buildDate = Date(timeIntervalSince1970: 0)
    do { _ = try IndexBuilder.build(config) } catch { Fuzzer.fail("cannot build the layers-only seed: \(error)") }
    try? FileManager.default.createDirectory(atPath: seeds, withIntermediateDirectories: true)
    for (name, path) in [("fixture.locus", FuzzIndexes.fixturePath), ("layers-only.locus", layersOnly)] {
        let target = URL(fileURLWithPath: seeds).appendingPathComponent(name).path
        try? FileManager.default.removeItem(atPath: target)
        try? FileManager.default.copyItem(atPath: path, toPath: target)
    }
}

let points = [(-122.65, 45.55), (-122.62, 45.57), (-122.68, 45.52), (-122.45, 45.55), (-121.0, 45.55)]
let texts = ["100 NE Alpha St", "102 northeast alpha street portland", "alpha", "97211", "1", "Beta & Alpha"]

@MainActor func query(_ index: LocusIndex, input: UnsafeRawBufferPointer) {
    let locator = Locator(index: index)
    for (x, y) in points {
        for method in ReverseMethod.allCases {
            var r = ReverseRequest(location: GeoPoint(x: x, y: y))
            r.method = method
            r.maxDistance = 5_000
            _ = try? locator.reverse(r)
        }
        for layer in index.layers.keys {
            var w = WithinRequest(location: GeoPoint(x: x, y: y))
            w.layer = layer
            w.nearestWithin = 10_000
            _ = try? locator.within(w)
        }
    }
    for text in texts {
        var g = GeocodeRequest(.text(text))
        g.minScore = 0
        g.explain = true
        _ = try? locator.geocode(g)
        if let suggestions = try? locator.suggest(SuggestRequest(text: text)) {
            for s in suggestions.suggestions { _ = try? locator.geocode(GeocodeRequest(.key(s.key))) }
        }
    }
    let reply = RequestHandler(index: index).reply(to: Array(#"{"id":1,"op":"info"}"#.utf8))
    guard reply.last == 0x0A, !reply.dropLast().contains(0x0A),
          (try? JSONSerialization.jsonObject(with: Data(reply))) is [String: Any] else {
        Fuzzer.fail("info on a damaged index is not one JSON line: \(String(decoding: reply, as: UTF8.self))", input: input)
    }
    for source in Set(index.metadata.sources.map(\.name)) { _ = try? index.importIssues(source: source) }
}

Fuzzer.run { input in
    guard FileManager.default.createFile(atPath: indexPath, contents: Data(input)) else { Fuzzer.fail("cannot write \(indexPath)") }
    _ = try? LocusIndex.metadata(path: indexPath)
    guard let index = try? LocusIndex(path: indexPath) else { return }
    index.search?.prepare()
    query(index, input: input)
}
