import Foundation
import LocusCore
import LocusEngine
import Testing

/// A street name shared by many cities (a county's or a state's index: "Main St" in dozens).
/// Placing a number between others is limited to some of the cities per query, so that such a
/// street costs no more than a few; a house that is a point is found in any of them.
@Suite struct ManyCitiesTests {
    @Test func aHouseThatIsAPointIsFoundInTheSmallestOfTwelveCities() throws {
        let dir = TestSupport.temporaryDirectory()
        var rows = ["number,street,city,state,postcode,lon,lat"]
        for c in 0..<12 {
            // City 0 the largest; only the smallest, city 11, has a 123.
            let houses = (24 - c) * 4
            for h in 0..<houses {
                let number = 100 + 10 * h + (h % 2)
                rows.append("\(c == 11 && h == 3 ? 123 : number),Main St,Town \(c),KS,\(67000 + c),\(-97.0 + Double(c) * 0.2 + Double(h) * 0.0002),\(38.0 + Double(h % 2) * 0.0003)")
            }
        }
        let csv = dir.appendingPathComponent("towns.csv")
        try rows.joined(separator: "\n").write(to: csv, atomically: true, encoding: .utf8)
        var config = IndexBuildConfiguration(output: dir.appendingPathComponent("towns.locus").path)
        config.addresses = csv.path
        _ = try IndexBuilder.build(config)
        let search = try #require(try LocusIndex(path: config.output).search)
        let top = try #require(search.geocode(GeocodeRequest(.text("123 Main St"))).first)
        #expect(top.matchType == .pointAddress)
        #expect(top.components.city == "Town 11")
        #expect(top.score == 100)
        // Named, it is that city's point too; elsewhere a number between others is placed.
        #expect(search.geocode(GeocodeRequest(.text("123 Main St, Town 11"))).first?.matchType == .pointAddress)
        let placed = try #require(search.geocode(GeocodeRequest(.text("125 Main St, Town 0"))).first)
        #expect(placed.matchType == .interpolated && placed.components.city == "Town 0")
    }
}
