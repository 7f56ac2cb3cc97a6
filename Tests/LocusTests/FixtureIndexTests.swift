import CSQLite
import Foundation
import LocusCore
import LocusEngine
import LocusEvaluation
import Testing

/// The builder and the spatial engine on small hand-written files whose answers are known.
@Suite struct FixtureIndexTests {
    static func buildFixture(addresses: Bool = false, acceptAnyShare: Bool = true) throws -> (LocusIndex, IndexBuildReport) {
        let out = TestSupport.temporaryDirectory().appendingPathComponent("fixture.locus").path
        var config = IndexBuildConfiguration(output: out)
        config.layers = [LayerSource(name: "areas", path: TestSupport.fixtures.appendingPathComponent("polygons.geojson").path)]
        if addresses {
            config.addresses = TestSupport.fixtures.appendingPathComponent("addresses_messy.csv").path
        }
        if acceptAnyShare { config.maximumRejectedShare = 1 }
        let report = try IndexBuilder.build(config)
        return (try LocusIndex(path: out), report)
    }

    @Test func polygonsImportRepairAndReject() throws {
        let (index, report) = try Self.buildFixture()
        let layer = try #require(report.layers.first)
        #expect(layer.features == 4)
        #expect(layer.repaired == 1, "the bowtie is repaired")
        #expect(layer.rejected == 2, "the line and the feature without geometry are rejected")
        #expect(layer.nameField == "LABEL", "a mixed-case label is preferred over an all-capitals NAME")
        let reasons = report.issues.map(\.reason)
        #expect(reasons.contains { $0.contains("Self-intersection") })
        #expect(reasons.contains { $0.hasPrefix("not a polygon") })
        #expect(reasons.contains("no geometry"))
        #expect(index.metadata.issueCounts["areas"] == ["rejected": 2, "repaired": 1])
    }

    @Test(arguments: [
        (-122.68, 45.52, ["Alpha"]),
        (-122.62, 45.57, ["Beta", "Alpha"]),          // the overlap: both; Beta lies further north, so is smaller on the ground
        (-122.58, 45.62, ["Beta"]),
        (-122.45, 45.55, []),                          // inside Gamma's hole
        (-122.49, 45.51, ["Gamma"]),
        (-122.70, 45.55, ["Alpha"]),                   // on Alpha's west edge: covers
        (-122.70, 45.50, ["Alpha"]),                   // on Alpha's corner
        (-122.48, 45.55, ["Gamma"]),                   // on the hole's edge: still Gamma's boundary
        (-122.28, 45.55, ["Delta"]),                   // left lobe of the repaired bowtie
        (-122.25, 45.52, []),                          // between the bowtie's lobes
        (-122.10, 45.55, []),                          // where the rejected line was
        (-121.00, 45.55, []),                          // outside everything
    ])
    func covering(_ x: Double, _ y: Double, _ expected: [String]) throws {
        let (index, _) = try Self.buildFixture()
        let layer = try #require(index.layers["areas"])
        #expect(layer.covering(x: x, y: y).map { layer.features[$0].name } == expected)
    }

    @Test func nearestWhenNothingCovers() throws {
        let (index, _) = try Self.buildFixture()
        let locator = Locator(index: index)
        var request = WithinRequest(location: GeoPoint(x: -122.38, y: 45.55))
        request.layer = "areas"
        #expect(try locator.within(request).features.isEmpty)
        request.nearestWithin = 2_000
        let near = try #require(try locator.within(request).features.first)
        #expect(near.name == "Gamma")
        #expect(near.relation == .nearest)
        // 0.02° of longitude at 45.55° N is about 1,561 m.
        #expect(abs(near.distanceMetres - 1_561) < 5)
        request.nearestWithin = 1_000
        #expect(try locator.within(request).features.isEmpty)
    }

    @Test func agreesWithGEOSOnRandomPoints() throws {
        let (index, _) = try Self.buildFixture()
        let layer = try #require(index.layers["areas"])
        let geos = try GEOSReferenceLayer(polygonsWKB: index.layerWKB("areas"))
        var extent = layer.extentOfFeatures
        extent = Envelope(minX: extent.minX - 0.01, minY: extent.minY - 0.01, maxX: extent.maxX + 0.01, maxY: extent.maxY + 0.01)
        for p in randomPoints(in: extent, count: 20_000, seed: 7) {
            #expect(layer.covering(x: p.x, y: p.y) == (try geos.covering(x: p.x, y: p.y)), "at \(p.x), \(p.y)")
        }
    }

    @Test func addressRowsAreCountedNotDropped() throws {
        let (index, report) = try Self.buildFixture(addresses: true)
        #expect(report.addressRows == 10)
        #expect(report.addresses == 3)
        #expect(report.rejectedAddresses == [
            "missing house number": 1, "house number does not start with a number": 1, "missing street": 1,
            "coordinates are not numbers": 1, "coordinates outside the lon/lat range": 1, "duplicate": 1,
            "coordinates are 0, 0 (a missing location)": 1,
        ])
        let rows = try index.importIssues(source: "addresses").map(\.row).sorted()
        #expect(rows == [3, 4, 5, 6, 7, 8, 10])
        let a = try #require(index.addresses)
        let all = (0..<a.count).map { a.components(of: $0).formatted }.sorted()
        #expect(all == ["100 NE Alpha St, Portland, OR 97211", "102 NE Alpha St, Portland, OR 97211",
                        "7212 A SW Main St, Portland, OR 97201"])
    }

    @Test func mostlyRejectedRowsFailTheBuild() throws {
        #expect {
            _ = try Self.buildFixture(addresses: true, acceptAnyShare: false)
        } throws: { error in
            (error as? LocusError)?.code == .importFailed && "\(error)".contains("check the column options")
        }
    }

    @Test func missingFileUnknownCRSAndNoCRS() throws {
        let dir = TestSupport.temporaryDirectory()
        var config = IndexBuildConfiguration(output: dir.appendingPathComponent("x.locus").path)
        config.layers = [LayerSource(name: "x", path: "/nonexistent/file.geojson")]
        #expect { try IndexBuilder.build(config) } throws: { ($0 as? LocusError)?.code == .notFound }

        var unknown = LayerSource(name: "x", path: TestSupport.fixtures.appendingPathComponent("polygons.geojson").path)
        unknown.crs = "EPSG:999999"
        config.layers = [unknown]
        #expect { try IndexBuilder.build(config) } throws: {
            ($0 as? LocusError)?.code == .invalidArgument && "\($0)".contains("EPSG:999999")
        }

        config.layers = [LayerSource(name: "x", path: TestSupport.fixtures.appendingPathComponent("polygons_without_crs.csv").path)]
        #expect { try IndexBuilder.build(config) } throws: { "\($0)".contains("declares no coordinate reference system") }

        var missingColumn = IndexBuildConfiguration(output: dir.appendingPathComponent("y.locus").path)
        missingColumn.addresses = TestSupport.fixtures.appendingPathComponent("addresses_messy.csv").path
        missingColumn.addressColumns.street = "road"
        #expect { try IndexBuilder.build(missingColumn) } throws: { "\($0)".contains("no column \"road\"") }
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("y.locus").path), "no half-written index is left")
    }

    @Test func sameInputsGiveTheSameFile() throws {
        let dir = TestSupport.temporaryDirectory()
        var digests: [Data] = []
        for name in ["a.locus", "b.locus"] {
            var config = IndexBuildConfiguration(output: dir.appendingPathComponent(name).path)
            config.layers = [LayerSource(name: "areas", path: TestSupport.fixtures.appendingPathComponent("polygons.geojson").path)]
            config.addresses = TestSupport.fixtures.appendingPathComponent("addresses_messy.csv").path
            config.maximumRejectedShare = 1
            config.buildDate = Date(timeIntervalSince1970: 1_700_000_000)
            _ = try IndexBuilder.build(config)
            digests.append(try Data(contentsOf: dir.appendingPathComponent(name)))
        }
        #expect(digests[0] == digests[1])
    }

    @Test func refusesAnotherSchemaVersionAndNonIndexes() throws {
        let (index, _) = try Self.buildFixture()
        let copy = TestSupport.temporaryDirectory().appendingPathComponent("old.locus").path
        try FileManager.default.copyItem(atPath: index.path, toPath: copy)
        var db: OpaquePointer?
        #expect(sqlite3_open(copy, &db) == SQLITE_OK)
        #expect(sqlite3_exec(db, "UPDATE metadata SET value = '999' WHERE key = 'schema_version'", nil, nil, nil) == SQLITE_OK)
        sqlite3_close(db)
        #expect { try LocusIndex(path: copy) } throws: {
            ($0 as? LocusError)?.code == .invalidIndex && "\($0)".contains("schema version 999")
        }
        let notAnIndex = TestSupport.fixtures.appendingPathComponent("polygons.geojson").path
        #expect { try LocusIndex(path: notAnIndex) } throws: { ($0 as? LocusError)?.code == .invalidIndex }
    }

    @Test func opensFromAReadOnlyDirectory() throws {
        let (index, _) = try Self.buildFixture()
        let dir = TestSupport.temporaryDirectory()
        let path = dir.appendingPathComponent("ro.locus").path
        try FileManager.default.copyItem(atPath: index.path, toPath: path)
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: dir.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: dir.path) }
        let reopened = try LocusIndex(path: path)
        #expect(reopened.layers["areas"]?.features.count == 4)
        #expect(index.metadata.values["journal_mode"] == nil)
    }
}
