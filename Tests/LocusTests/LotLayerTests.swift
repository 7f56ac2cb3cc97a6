import Foundation
import LocusCore
import LocusEngine
import Testing

/// Reverse geocoding with a lot layer, on a hand-drawn block (Tests/Fixtures/lots.geojson and
/// lots_addresses.csv): Elm St runs east–west along latitude 40; lots 15 m wide and 40 m deep start
/// 9 m either side of its centre line. North side: A (101, its house 45 m back), C (vacant, no
/// address point), D (a duplex, 105 and 107). South side: B (100, its house near the front), E (102),
/// F (104).
@Suite struct LotLayerTests {
    static let lon0 = -100.0, lat0 = 40.0
    /// Metres east and north of the origin, as lon/lat (the fixture's own scale at 40° N).
    static func at(_ east: Double, _ north: Double) -> GeoPoint {
        GeoPoint(x: lon0 + east / 85_390, y: lat0 + north / 111_035)
    }

    static func build(lots: Bool) throws -> LocusIndex {
        let out = TestSupport.temporaryDirectory().appendingPathComponent(lots ? "lots.locus" : "nolots.locus").path
        var config = IndexBuildConfiguration(output: out)
        config.addresses = TestSupport.fixtures.appendingPathComponent("lots_addresses.csv").path
        config.layers = [LayerSource(name: "lots", path: TestSupport.fixtures.appendingPathComponent("lots.geojson").path)]
        if lots { config.lotLayer = "lots" }
        _ = try IndexBuilder.build(config)
        return try LocusIndex(path: out)
    }

    static let withLots = Result { try build(lots: true) }
    static let withoutLots = Result { try build(lots: false) }

    func reverse(_ index: LocusIndex, _ p: GeoPoint, _ method: ReverseMethod = .frontage) throws -> String? {
        var r = ReverseRequest(location: p)
        r.method = method
        return try Locator(index: index).reverse(r)?.components.number
    }

    @Test func theBuildLinksEveryAddressToItsLot() throws {
        let index = try Self.withLots.get()
        let lots = try #require(index.lots)
        #expect(lots.addressedLotCount == 5, "A, D, B, E and F have addresses; C is vacant")
        let d = try #require(lots.layer.features.firstIndex { $0.name == "D" })
        let numbers = lots.addressIDs(ofLot: d).map { index.addresses!.components(of: Int($0)).number }.sorted()
        #expect(numbers == ["105", "107"])
        #expect(index.metadata.values["lot_layer"] == "lots")
        #expect(try Self.withoutLots.get().lots == nil)
    }

    /// A street tree in the planting strip, 2 m in front of A's lot line: A's house stands 38 m
    /// away, B's across the street 21 m. From the points alone the answer is B's; the lot says A's.
    @Test func aPointInFrontOfALotGetsThatLotsAddressNotTheNearerHouseAcross() throws {
        let tree = Self.at(7.5, 7)
        #expect(try reverse(Self.withoutLots.get(), tree, .nearest) == "100")
        #expect(try reverse(Self.withoutLots.get(), tree) == "100", "the points alone put it across the street")
        #expect(try reverse(Self.withLots.get(), tree) == "101")
        // The nearest-point method stays what it says, lots or not.
        #expect(try reverse(Self.withLots.get(), tree, .nearest) == "100")
    }

    @Test(arguments: [
        (7.5, 30.0, "101"),     // inside A
        (14.0, 12.0, "101"),    // inside A at its front corner: D's door (24 m) and B's house (27 m) are nearer than A's (34 m)
        (33.0, 15.0, "105"),    // inside the duplex lot, nearer 105's door
        (43.0, 15.0, "107"),    // inside the duplex lot, nearer 107's door
        (37.5, -12.0, "104"),   // inside F
        (22.5, -6.0, "102"),    // in front of E (3 m), 14 m from its house, 18 m from C's empty lot
    ])
    func aPointOnOrBeforeALotGetsItsAddress(_ east: Double, _ north: Double, _ expected: String) throws {
        #expect(try reverse(Self.withLots.get(), Self.at(east, north)) == expected)
    }

    /// In front of the vacant lot the lots cannot say: the answer is what the points alone give.
    @Test func aPointBeforeALotWithoutAddressesFallsBackToThePoints() throws {
        for p in [Self.at(22.5, 7), Self.at(22.5, 30)] {
            let fallback = try reverse(Self.withoutLots.get(), p)
            #expect(fallback != nil)
            #expect(try reverse(Self.withLots.get(), p) == fallback)
        }
    }

    /// Beyond the reach of any lot (and of the request's own distance) the lots say nothing.
    @Test func farFromEveryLotTheLotsSayNothing() throws {
        let index = try Self.withLots.get()
        #expect(index.lots?.address(atLon: Self.at(7.5, 80).x, lat: Self.at(7.5, 80).y, maxDistance: 100, in: index.addresses!) == nil)
        #expect(index.lots?.address(atLon: Self.at(7.5, 7).x, lat: Self.at(7.5, 7).y, maxDistance: 1, in: index.addresses!) == nil,
                "a request for 1 m does not reach a lot 2 m away")
    }

    @Test func aLotLayerNeedsAddressesAndOneOfTheLayers() throws {
        var config = IndexBuildConfiguration(output: TestSupport.temporaryDirectory().appendingPathComponent("x.locus").path)
        config.layers = [LayerSource(name: "lots", path: TestSupport.fixtures.appendingPathComponent("lots.geojson").path)]
        config.lotLayer = "parcels"
        config.addresses = TestSupport.fixtures.appendingPathComponent("lots_addresses.csv").path
        #expect(throws: LocusError.self) { try IndexBuilder.build(config) }
        config.lotLayer = "lots"
        config.addresses = nil
        #expect(throws: LocusError.self) { try IndexBuilder.build(config) }
    }

    @Test func theCLIBuildsAndShowsALotLayer() throws {
        let out = TestSupport.temporaryDirectory().appendingPathComponent("cli-lots.locus").path
        let build = try TestSupport.locus(["index", "build", "--addresses", TestSupport.fixtures.appendingPathComponent("lots_addresses.csv").path,
                                           "--layer", "lots=" + TestSupport.fixtures.appendingPathComponent("lots.geojson").path,
                                           "--lots", "lots", "-o", out])
        #expect(build.status == 0, "\(build.stderr)")
        // The report and the stages go to standard error, as a batch job's do, in plain lines
        // when it is not a terminal; standard output stays empty without --json.
        #expect(build.stderr.contains("lots (layer lots): 6 addresses on 5 of 6 lots"), "\(build.stderr)")
        #expect(build.stderr.contains("  layer lots (") && build.stderr.contains("  linking addresses to the lots of lots ("))
        #expect(!build.stderr.contains("\r"))
        #expect(build.stdout.isEmpty)
        let info = try TestSupport.locus(["index", "info", out])
        #expect(info.stdout.contains("lots       layer lots: 6 addresses on 5 lots, reach 12.0 m"))
        let tree = Self.at(7.5, 7)
        let reverse = try TestSupport.locus(["reverse", String(tree.x), String(tree.y), "--index", out, "--json"])
        #expect(reverse.stdout.contains("\"101 Elm St"), "\(reverse.stdout)")
        let wrong = try TestSupport.locus(["index", "build", "--layer", "lots=x.geojson", "--lots", "parcels", "-o", out])
        #expect(wrong.status == 64)
    }
}
