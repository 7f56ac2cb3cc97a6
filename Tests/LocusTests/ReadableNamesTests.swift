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

/// Another city's neighbourhood layer, in the fields its portal publishes: the name people read,
/// not the code beside it; mixed case, not the capitals; the publisher's own id.
@Suite struct LayerFieldTests {
    /// Three squares side by side, each with the fields given (one feature per entry).
    static func build(_ properties: [String], addresses: String? = nil) throws -> (Locator, IndexBuildReport) {
        let dir = TestSupport.temporaryDirectory()
        let features = properties.enumerated().map { i, p in
            let x = -73.9 + Double(i) * 0.01
            return """
                {"type":"Feature","properties":{\(p)},"geometry":{"type":"Polygon","coordinates":[[[\(x),40.7],[\(x + 0.01),40.7],[\(x + 0.01),40.71],[\(x),40.71],[\(x),40.7]]]}}
                """
        }
        let file = dir.appendingPathComponent("areas.geojson")
        try #"{"type":"FeatureCollection","features":[\#(features.joined(separator: ","))]}"#.write(to: file, atomically: true, encoding: .utf8)
        var config = IndexBuildConfiguration(output: dir.appendingPathComponent("a.locus").path)
        config.layers = [LayerSource(name: "nta", path: file.path)]
        if let addresses {
            let points = dir.appendingPathComponent("points.csv")
            try addresses.write(to: points, atomically: true, encoding: .utf8)
            config.addresses = points.path
        }
        let report = try IndexBuilder.build(config)
        return (Locator(index: try LocusIndex(path: config.output)), report)
    }

    /// A neighbourhood typed with its town, on points that name no town (a city's own file has no
    /// city column): the town is unknown there, not another one. "Noe Valley, San Francisco" found
    /// nothing where "Noe Valley" was found; a word that is no town or state still finds no area.
    @Test(arguments: [("Jackson Heights, New York", "Jackson Heights"), ("Jackson Heights, New York, NY", "Jackson Heights"),
                      ("Jackson Heights New York NY 11372", "Jackson Heights"), ("Jackson Heights", "Jackson Heights"),
                      ("Maspeth, New York", "Maspeth"), ("Maspeth, Queens, NY", "Maspeth")])
    func aNeighbourhoodWithATownOnPointsWithout(_ text: String, _ name: String) throws {
        let (locator, _) = try Self.build([
            #""NTACode":"QN28","NTAName":"Jackson Heights""#,
            #""NTACode":"QN29","NTAName":"Elmhurst""#,
            #""NTACode":"QN30","NTAName":"Maspeth""#,
        ], addresses: "H_NO,FULL_STREE,ZIPCODE,lon,lat\n37-13,74 ST,11372,-73.895,40.705\n")
        let top = try #require(try locator.geocode(GeocodeRequest(.text(text))).candidates.first)
        #expect(top.matchType == .neighbourhood && top.address == name && top.score >= 98)
        for other in ["Jackson Heights Bakery", "Maspeth Bakery", "Maspeth, 74 St"] {
            #expect(!(try locator.geocode(GeocodeRequest(.text(other))).candidates.contains { $0.matchType == .neighbourhood }), "\(other)")
        }
    }

    /// New York's NTA layer: `NTACode` came before `NTAName` and was taken for the name ("QN28").
    /// Its one layer, "nta", is searched without naming it (the default, "neighborhoods", is not there).
    @Test func aNameFieldOfAnotherNameIsTheName() throws {
        let (locator, report) = try Self.build([
            #""BoroName":"Queens","NTACode":"QN28","NTAName":"Jackson Heights""#,
            #""BoroName":"Queens","NTACode":"QN29","NTAName":"Elmhurst""#,
            #""BoroName":"Queens","NTACode":"QN30","NTAName":"Maspeth""#,
        ])
        #expect(report.layers.first?.nameField == "NTAName")
        #expect(report.layers.first?.idField == "NTACode")
        let inside = try locator.within(WithinRequest(location: GeoPoint(x: -73.895, y: 40.705)))
        #expect(inside.features.map(\.name) == ["Jackson Heights"] && inside.features.first?.id == "QN28")
    }

    /// Austin's: an all-capitals `NEIGHNAME` beside a mixed-case `NEIGHBORHOOD_NAME`; Chicago's names
    /// only in capitals, shown as people write them; codes stay codes.
    @Test func mixedCaseBeforeCapitalsAndCapitalsMixed() throws {
        let (austin, a) = try Self.build([
            #""NEIGHNAME":"DOWNTOWN","NEIGHBORHOOD_NAME":"Downtown","NBHD_ID":7"#,
            #""NEIGHNAME":"EAST CESAR CHAVEZ","NEIGHBORHOOD_NAME":"East Cesar Chavez","NBHD_ID":8"#,
            #""NEIGHNAME":"HOLLY","NEIGHBORHOOD_NAME":"Holly","NBHD_ID":9"#,
        ])
        #expect(a.layers.first?.nameField == "NEIGHBORHOOD_NAME" && a.layers.first?.idField == "NBHD_ID")
        #expect(try austin.within(WithinRequest(location: GeoPoint(x: -73.885, y: 40.705))).features.first?.name == "East Cesar Chavez")
        let (chicago, _) = try Self.build([#""community":"UPTOWN""#, #""community":"LINCOLN SQUARE""#, #""community":"NORTH PARK""#])
        #expect(try chicago.within(WithinRequest(location: GeoPoint(x: -73.885, y: 40.705))).features.first?.name == "Lincoln Square")
        let (codes, _) = try Self.build([#""name":"QN28""#, #""name":"QN29""#, #""name":"QN30""#])
        #expect(try codes.within(WithinRequest(location: GeoPoint(x: -73.895, y: 40.705))).features.first?.name == "QN28")
    }
}
