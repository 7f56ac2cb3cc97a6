import Foundation
import LocusCore
import LocusEngine
import Testing

/// What answers print is for people: mixed case from a file in capitals, names instead of codes.
@Suite struct ReadableNamesTests {
    @Test func capitalsPrintInMixedCase() throws {
        let out = TestSupport.temporaryDirectory().appendingPathComponent("caps.locus").path
        var config = IndexBuildConfiguration(output: out)
        config.addresses = TestSupport.fixtures.appendingPathComponent("addresses_capitals.csv").path
        _ = try IndexBuilder.build(config)
        let locator = Locator(index: try LocusIndex(path: out))
        let c = try #require(try locator.geocode(GeocodeRequest(.text("14 ABERDEEN AVE"))).candidates.first)
        #expect(c.address == "14 Aberdeen Ave, Cambridge, MA 02138")
        let mc = try #require(try locator.geocode(GeocodeRequest(.text("20 Mcloughlin St, Cambridge"))).candidates.first)
        #expect(mc.address == "20 McLoughlin St, Cambridge, MA 02138")
        #expect(mc.components.state == "MA")
    }

    @Test(arguments: [("zipcodes.geojson", "ZCTA5CE10"), ("zipcodes_no_name.geojson", "ZIP")])
    func zipLayerIsNamedByItsZip(_ file: String, _ field: String) throws {
        let out = TestSupport.temporaryDirectory().appendingPathComponent("zips.locus").path
        var config = IndexBuildConfiguration(output: out)
        config.layers = [LayerSource(name: "zips", path: TestSupport.fixtures.appendingPathComponent(file).path)]
        let report = try IndexBuilder.build(config)
        #expect(report.layers.first?.nameField == field)
        let locator = Locator(index: try LocusIndex(path: out))
        var request = WithinRequest(location: GeoPoint(x: -122.65, y: 45.57))
        request.layer = "zips"
        let inside = try locator.within(request)
        #expect(inside.features.map(\.name) == ["97211"])
    }
}
