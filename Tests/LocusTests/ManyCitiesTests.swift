import Foundation
import LocusCore
import LocusEngine
import Testing

/// A street name shared by many cities (a county's or a state's index: "Main St" in dozens).
/// Placing a number between others is limited to some of the cities per query, so that such a
/// street costs no more than a few; a house that is a point is found in any of them.
@Suite struct ManyCitiesTests {
    @Test func aHouseThatIsAPointIsFoundInTheSmallestOfTwelveCities() throws {
        let search = try Self.towns()
        let top = try #require(search.geocode(GeocodeRequest(.text("123 Main St"))).first)
        #expect(top.matchType == .pointAddress)
        #expect(top.components.city == "Town 11")
        #expect(top.score == 100)
        // Named, it is that city's point too; elsewhere a number between others is placed.
        #expect(search.geocode(GeocodeRequest(.text("123 Main St, Town 11"))).first?.matchType == .pointAddress)
        let placed = try #require(search.geocode(GeocodeRequest(.text("125 Main St, Town 0"))).first)
        #expect(placed.matchType == .interpolated && placed.components.city == "Town 0")
    }

    /// A number between others is placed from its own city's numbers only: the street's addresses
    /// are read city by city, each city's a run of the street's list (`addressRuns`). Town 5's
    /// 120 and 131 are 0.0002° apart, 125 between them; any other town's numbers are 0.2° away.
    /// A street in more cities than are placed per query (8) is placed in the city named only.
    @Test func aNumberIsPlacedAmongItsOwnCitysNumbers() throws {
        let search = try Self.towns()
        for town in [0, 5, 10] {
            let placed = try #require(search.geocode(GeocodeRequest(.text("125 Main St, Town \(town)"))).first)
            #expect(placed.matchType == .interpolated && placed.components.city == "Town \(town)")
            let between = -97.0 + Double(town) * 0.2 + 2.5 * 0.0002
            #expect(abs(placed.location.x - between) < 0.0002, "Town \(town): \(placed.location.x), not about \(between)")
            // The street is in twelve towns and the query names one: placed there only.
            var all = GeocodeRequest(.text("125 Main St, Town \(town)"))
            all.maxResults = 50
            let elsewhere = search.geocode(all).filter { $0.matchType == .interpolated && $0.components.city != "Town \(town)" }
            #expect(elsewhere.isEmpty, "\(elsewhere.map(\.address))")
        }
        // Named nowhere: placed in the eight largest.
        var unnamed = GeocodeRequest(.text("125 Main St"))
        unnamed.maxResults = 50
        #expect(Set(search.geocode(unnamed).filter { $0.matchType == .interpolated }.map(\.components.city)) == Set((0..<8).map { "Town \($0)" }))
    }

    /// "120 " names a 120 in each of twelve towns: five are shown, each once; with a bias point,
    /// the nearest first. "131 Main" likewise (eleven towns have one).
    @Test func aNumberInEveryTownSuggestsFiveOfThem() throws {
        let search = try Self.towns()
        for text in ["120 ", "131 Main", "131 Main St"] {
            let s = search.suggest(SuggestRequest(text: text))
            #expect(s.count == 5, "\(text): \(s.map(\.text))")
            #expect(Set(s.map(\.text)).count == 5)
            #expect(s.allSatisfy { $0.text.hasPrefix(String(text.prefix(3)) + " Main St, Town ") })
            var near = SuggestRequest(text: text)
            near.near = GeoPoint(x: -97.0 + 9 * 0.2, y: 38.0)
            #expect(search.suggest(near).first?.text.hasPrefix(String(text.prefix(3)) + " Main St, Town 9,") == true)
        }
    }

    /// Twelve towns along a line, each with a Main St; town 0 the largest, only town 11 has a 123.
    static func towns() throws -> AddressSearch {
        var rows = ["number,street,city,state,postcode,lon,lat"]
        for c in 0..<12 {
            // City 0 the largest; only the smallest, city 11, has a 123.
            let houses = (24 - c) * 4
            for h in 0..<houses {
                let number = 100 + 10 * h + (h % 2)
                rows.append("\(c == 11 && h == 3 ? 123 : number),Main St,Town \(c),KS,\(67000 + c),\(-97.0 + Double(c) * 0.2 + Double(h) * 0.0002),\(38.0 + Double(h % 2) * 0.0003)")
            }
        }
        return try TestSupport.addressSearch(rows: rows)
    }
}
