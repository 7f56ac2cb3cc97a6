import Foundation
import LocusCore
import LocusEngine
import LocusEvaluation
import Testing

/// Answers on the real Portland data, checked against independent references.
@Suite(.serialized) struct PortlandTests {
    let index: LocusIndex

    init() throws { index = try TestSupport.portland() }

    @Test func buildsEveryAddressAndPolygon() throws {
        let m = index.metadata
        #expect(m.values["address_count"] == "435177")
        #expect(m.values["address_rejected"] == "0")
        #expect(m.layers.first?.featureCount == 98)
        #expect(m.sources.contains { $0.file == "addresses.csv.gz" && $0.sha256.count == 64 && $0.size > 5_000_000 })
        #expect(m.values["schema_version"] == "8")
    }

    @Test func withinAgreesWithShapelyOn10000RandomPoints() throws {
        let layer = try #require(index.layers["neighborhoods"])
        let points = randomPoints(in: layer.extentOfFeatures, count: 10_000, seed: 2024)
        let dir = TestSupport.temporaryDirectory()
        let csv = dir.appendingPathComponent("points.csv")
        try ("x,y\n" + points.map { "\($0.x),\($0.y)" }.joined(separator: "\n") + "\n").write(to: csv, atomically: true, encoding: .utf8)
        let python = ProcessInfo.processInfo.environment["LOCUS_PYTHON"] ?? "/usr/bin/env"
        let args = (python.hasSuffix("env") ? ["python3"] : []) + [
            TestSupport.packageRoot.appendingPathComponent("scripts/shapely_within.py").path,
            "--layer", TestSupport.portlandNeighbourhoods, "--id-property", "OBJECTID", "--points", csv.path,
        ]
        let result = try TestSupport.run(URL(fileURLWithPath: python), args)
        try #require(result.status == 0, "shapely reference failed: \(result.stderr)")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        try #require(lines.count == points.count)
        var covered = 0, overlapping = 0
        for (i, line) in lines.enumerated() {
            let parts = line.split(separator: ",", omittingEmptySubsequences: false)
            let expected = Set(parts[1].split(separator: ";").map(String.init))
            let got = layer.coveringIDs(points[i])
            #expect(Set(got) == expected, "point \(i) at \(points[i].x), \(points[i].y)")
            #expect(got.count == Set(got).count)
            if !got.isEmpty { covered += 1 }
            if got.count > 1 { overlapping += 1 }
        }
        // The sample must exercise all three cases, or it proves little.
        #expect(covered > 3_000 && covered < 9_900)
        #expect(overlapping > 0)
    }

    @Test func overlapsComeSmallestFirst() throws {
        let layer = try #require(index.layers["neighborhoods"])
        let points = randomPoints(in: layer.extentOfFeatures, count: 200_000, seed: 99)
        var overlaps = 0
        for p in points {
            let hits = layer.covering(x: p.x, y: p.y)
            guard hits.count > 1 else { continue }
            overlaps += 1
            let areas = hits.map { layer.features[$0].areaSquareMetres }
            #expect(areas == areas.sorted())
        }
        #expect(overlaps > 10)
    }

    @Test func withinAgreesWithRawGEOSOn200000Points() throws {
        let layer = try #require(index.layers["neighborhoods"])
        let geos = try GEOSReferenceLayer(polygonsWKB: index.layerWKB("neighborhoods"))
        var disagreements = 0
        for p in randomPoints(in: layer.extentOfFeatures, count: 200_000, seed: 5) {
            if layer.covering(x: p.x, y: p.y) != (try geos.covering(x: p.x, y: p.y)) { disagreements += 1 }
        }
        #expect(disagreements == 0)
    }

    @Test func webMercatorShapefileGivesTheSameAnswersAsGeoJSON() throws {
        let out = TestSupport.temporaryDirectory().appendingPathComponent("shp.locus").path
        var config = IndexBuildConfiguration(output: out)
        config.layers = [LayerSource(name: "neighborhoods", path: TestSupport.portlandNeighbourhoodsShapefile)]
        let report = try IndexBuilder.build(config)
        #expect(report.layers.first?.crs == "EPSG:3857")
        let shp = try #require(try LocusIndex(path: out).layers["neighborhoods"])
        let geojson = try #require(index.layers["neighborhoods"])
        #expect(shp.features.count == geojson.features.count)
        // The two publications are not of the same vintage everywhere: a few boundaries moved
        // between them. Compare the polygons that are the same in both (area within 0.01 %),
        // which must then give identical answers after PROJ's reprojection from Web Mercator.
        func areas(_ l: BoundaryLayer) -> [JSONValue: Double] {
            Dictionary(uniqueKeysWithValues: l.features.map { ($0.attributes["OBJECTID"] ?? .null, $0.areaSquareMetres) })
        }
        let a1 = areas(geojson), a2 = areas(shp)
        let same = Set(a1.keys.filter { k in a2[k].map { abs($0 - a1[k]!) / a1[k]! < 1e-4 } ?? false })
        #expect(same.count >= 90, "most polygons are identical in both files")
        var differences = 0, compared = 0
        for p in randomPoints(in: geojson.extentOfFeatures, count: 10_000, seed: 11) {
            let a = Set(geojson.covering(x: p.x, y: p.y).compactMap { geojson.features[$0].attributes["OBJECTID"] }).intersection(same)
            let b = Set(shp.covering(x: p.x, y: p.y).compactMap { shp.features[$0].attributes["OBJECTID"] }).intersection(same)
            if a != b { differences += 1 }
            if !a.isEmpty { compared += 1 }
        }
        #expect(compared > 3_000)
        #expect(differences == 0)
    }

    @Test func reverseAgreesWithBruteForceOn10000Points() throws {
        let a = try #require(index.addresses)
        var rng = SeededGenerator(seed: 77)
        var found = 0
        for i in 0..<10_000 {
            // Half near an address (where people ask), half anywhere in the area (mostly nothing within reach).
            let p: GeoPoint
            if i % 2 == 0 {
                let base = a.points[Int.random(in: 0..<a.count, using: &rng)]
                p = GeoPoint(x: base.lon + Double.random(in: -0.001...0.001, using: &rng), y: base.lat + Double.random(in: -0.001...0.001, using: &rng))
            } else {
                p = GeoPoint(x: Double.random(in: -123.2 ... -122.2, using: &rng), y: Double.random(in: 45.2...45.8, using: &rng))
            }
            let grid = a.nearest(lon: p.x, lat: p.y, maxDistance: 100)
            let scan = a.nearestByScan(lon: p.x, lat: p.y, maxDistance: 100)
            #expect(grid?.index == scan?.index, "at \(p.x), \(p.y)")
            if grid != nil { found += 1 }
        }
        #expect(found > 3_000 && found < 9_000)
    }

    /// The frontage method's search closes in on the nearest found plus its reach as it goes
    /// (`NearestList.reach`); its candidates must be exactly the eight nearest within 100 m cut to
    /// those within the reach of the nearest, as a search for the eight nearest finds them.
    @Test func frontageCandidatesAreTheNearestWithinReach() throws {
        let a = try #require(index.addresses)
        let locator = Locator(index: index)
        var rng = SeededGenerator(seed: 78)
        var weighed = 0
        for _ in 0..<5_000 {
            let base = a.points[Int.random(in: 0..<a.count, using: &rng)]
            let p = GeoPoint(x: base.lon + Double.random(in: -0.0012...0.0012, using: &rng),
                             y: base.lat + Double.random(in: -0.0012...0.0012, using: &rng))
            let eight = a.nearest(lon: p.x, lat: p.y, maxDistance: 100, count: FrontageChooser.candidates)
            let within = eight.filter { $0.planarMetres <= (eight.first?.planarMetres ?? 0) + FrontageChooser.reach }
            let expected = within.count > 1 && within[0].planarMetres > FrontageChooser.onBuilding ? within.map(\.index) : within.prefix(1).map(\.index)
            let found = locator.frontageCandidates(at: p, maxDistance: 100).map(\.index)
            #expect(found == expected, "at \(p.x), \(p.y)")
            if found.count > 1 { weighed += 1 }
        }
        #expect(weighed > 2_000)
    }

    @Test func reverseAnswersInEveryCRS() throws {
        let locator = Locator(index: index)
        let lonLat = GeoPoint(x: -122.6296, y: 45.5676)
        let base = try #require(try locator.reverse(ReverseRequest(location: lonLat)))
        #expect(base.address == "6132 NE 34th Ave, Portland, OR 97211")
        #expect(base.matchType == .pointAddress)
        #expect(base.distanceMetres > 0 && base.distanceMetres < 40)
        for wkid in [3857, 102100, 2913] {
            let srs = try SpatialReference(wkid: wkid)
            let projected = try locator.location(lonLat, in: srs)
            var r = ReverseRequest(location: GeoPoint(x: projected.x, y: projected.y))
            r.spatialReference = srs
            let answer = try #require(try locator.reverse(r))
            #expect(answer.address == base.address)
            #expect(answer.location.wkid == wkid)
            #expect(abs(answer.distanceMetres - base.distanceMetres) < 0.5)
        }
        var none = ReverseRequest(location: GeoPoint(x: -122.0, y: 45.0))
        none.maxDistance = 100
        #expect(try locator.reverse(none) == nil)
        #expect(throws: LocusError.self) { try locator.reverse(ReverseRequest(location: GeoPoint(x: 45.5, y: -122.6))) }
    }
}
