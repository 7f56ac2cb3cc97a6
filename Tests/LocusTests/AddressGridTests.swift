import Foundation
import LocusCore
@testable import LocusEngine
import Testing

/// The town's grid (`AddressGrid`) on two made-up towns of ten parallel streets: one numbered on a
/// grid (a number stands at the same distance along every street, as in most US cities), one
/// numbered street by street (each street's numbers start elsewhere). In each, Elm St has five
/// known numbers at its west end, 100–140; 3000 is 2.3 km beyond them, further than a street's
/// own line is read (`extrapolationReach`). North of Gridtown's ten, two streets of one point each:
/// Kale St's 1501 stands where the grid has 1501; Oak St's 9001 stands where the grid has 1501 too,
/// a number of no grid there.
@Suite struct AddressGridTests {
    /// Metres per number along every street, and degrees of longitude per metre at 38° N.
    static let pace = 0.8
    static let degreesPerMetre = 1 / 87_832.0

    static func towns() throws -> AddressSearch {
        var rows = ["number,street,city,state,postcode,lon,lat"]
        let names = ["Ash St", "Birch St", "Cedar St", "Dogwood St", "Elm St", "Fir St", "Gum St", "Hazel St", "Ivy St", "Juniper St"]
        for (town, west, zip) in [("Gridtown", -97.0, 67001), ("Winding", -96.0, 67002)] {
            for (j, name) in names.enumerated() {
                // Winding's streets each start their numbers 700 further along than the last.
                let start = town == "Winding" ? 700 * j : 0
                let numbers = name == "Elm St" ? [100, 101, 120, 121, 140] : Array(stride(from: 100, through: 3600, by: 20)).flatMap { [$0, $0 + 1] }
                for n in numbers {
                    let x = west + Double(n - start) * pace * degreesPerMetre
                    let y = 38.0 + Double(j) * 0.0009 + (n % 2 == 1 ? 0.00009 : -0.00009)
                    rows.append("\(n),\(name),\(town),KS,\(zip),\(x),\(y)")
                }
            }
        }
        for (j, name, number) in [(10, "Kale St", 9001 - 7500), (11, "Oak St", 9001)] {
            let x = -97.0 + 1501 * pace * degreesPerMetre, y = 38.0 + Double(j) * 0.0009 + 0.00009
            rows.append("\(number),\(name),Gridtown,KS,67001,\(x),\(y)")
        }
        return try TestSupport.addressSearch(rows: rows)
    }

    /// Metres along a street of Blockton to number `n`: its blocks (hundreds) are 40 m long up to
    /// the 600s and 120 m long from the 700s on, on every street alike (the cross streets).
    static func blocktonMetres(_ n: Int) -> Double {
        let block = { (h: Int) -> Double in h <= 6 ? 40 : 120 }
        let h = n / 100
        return (1..<max(1, h)).reduce(0) { $0 + block($1) } + Double(n % 100) / 100 * block(h)
    }

    /// Blockton: ten parallel streets, blocks of two lengths (`blocktonMetres`); Elm St knows 101–141
    /// and 1301–1341 only, 920 m apart.
    static func blockton() throws -> AddressSearch {
        var rows = ["number,street,city,state,postcode,lon,lat"]
        let names = ["Ash St", "Birch St", "Cedar St", "Dogwood St", "Elm St", "Fir St", "Gum St", "Hazel St", "Ivy St", "Juniper St"]
        for (j, name) in names.enumerated() {
            let numbers = name == "Elm St" ? [101, 121, 141, 1301, 1321, 1341]
                : Array(stride(from: 100, through: 3600, by: 20)).flatMap { [$0, $0 + 1] }
            for n in numbers {
                let x = -95.0 + blocktonMetres(n) * degreesPerMetre
                let y = 38.0 + Double(j) * 0.0009 + (n % 2 == 1 ? 0.00009 : -0.00009)
                rows.append("\(n),\(name),Blockton,KS,67003,\(x),\(y)")
            }
        }
        return try TestSupport.addressSearch(rows: rows)
    }

    /// Between two known numbers blocks apart, a straight line has every block as long as every
    /// other: 701 Elm St would stand 219 m east of where the parallel streets have the 700s.
    @Test func aNumberBetweenKnownOnesBlocksApartIsWhereTheParallelStreetsHaveItsBlock() throws {
        let search = try Self.blockton()
        let town = try #require(search.localities.firstIndex { $0.city == "Blockton" })
        let (answered, near) = search.gridCheck(in: Int32(town))
        #expect(search.gridHolds(in: Int32(town)), "\(near) of \(answered)")
        var request = GeocodeRequest(.text("701 Elm St, Blockton, KS"))
        request.explain = true
        let top = try #require(search.geocode(request).first)
        #expect(top.matchType == .interpolated && top.key.hasPrefix("h"), "\(top.matchType) \(top.key) \(top.explain ?? [])")
        let expected = GeoPoint(x: -95.0 + Self.blocktonMetres(701) * Self.degreesPerMetre, y: 38.0 + 4 * 0.0009 + 0.00009)
        let metres = expected.metres(to: GeoPoint(x: top.location.x, y: top.location.y))
        #expect(metres < 15, "\(metres) m off")
        let back = try #require(search.geocode(GeocodeRequest(.key(top.key))).first)
        #expect(back.location.x == top.location.x && back.location.y == top.location.y)
        // A key naming addresses of two streets, or out of order, finds nothing.
        let parts = top.key.dropFirst().split(separator: ":")
        for bad in ["h\(parts[0]):\(parts[1]):\(parts[3]):\(parts[2])", "h\(parts[0]):\(parts[1]):0:\(parts[3])", "h\(parts[0]):\(parts[1])"] {
            #expect(search.geocode(GeocodeRequest(.key(bad))).isEmpty, "\(bad)")
        }
    }

    @Test func aStreetOfOnePointIsPlacedTheWayTheGridRunsThere() throws {
        let search = try Self.towns()
        var request = GeocodeRequest(.text("1801 Kale St, Gridtown, KS"))
        request.explain = true
        let top = try #require(search.geocode(request).first)
        #expect(top.matchType == .extrapolated && top.key.hasPrefix("g"), "\(top.matchType) \(top.key) \(top.explain ?? [])")
        let expected = GeoPoint(x: -97.0 + 1801 * Self.pace * Self.degreesPerMetre, y: 38.0 + 10 * 0.0009 + 0.00009)
        let metres = expected.metres(to: GeoPoint(x: top.location.x, y: top.location.y))
        #expect(metres < 25, "\(metres) m off")
        let back = try #require(search.geocode(GeocodeRequest(.key(top.key))).first)
        #expect(back.location.x == top.location.x && back.location.y == top.location.y)
        // A point whose number the grid has 6 km off says nothing of the way its street runs.
        let odd = try #require(search.geocode(GeocodeRequest(.text("9301 Oak St, Gridtown, KS"))).first)
        #expect(odd.matchType == .street && odd.components.street == "Oak St", "\(odd.matchType) \(odd.key)")
    }

    @Test func aNumberBeyondItsStreetsReachIsWhereTheParallelStreetsHaveIt() throws {
        let search = try Self.towns()
        let town = try #require(search.localities.firstIndex { $0.city == "Gridtown" })
        let (answered, near) = search.gridCheck(in: Int32(town))
        #expect(search.gridHolds(in: Int32(town)), "\(near) of \(answered)")
        var request = GeocodeRequest(.text("3000 Elm St, Gridtown, KS"))
        request.explain = true
        let top = try #require(search.geocode(request).first)
        #expect(top.matchType == .extrapolated && top.key.hasPrefix("g"), "\(top.matchType) \(top.key) \(top.explain ?? [])")
        let expected = GeoPoint(x: -97.0 + 3000 * Self.pace * Self.degreesPerMetre, y: 38.0 + 4 * 0.0009)
        let metres = expected.metres(to: GeoPoint(x: top.location.x, y: top.location.y))
        #expect(metres < 25, "\(metres) m off")
        #expect(top.components.number == "3000" && top.components.street == "Elm St")
        // Its key finds it again.
        let back = try #require(search.geocode(GeocodeRequest(.key(top.key))).first)
        #expect(back.location.x == top.location.x && back.location.y == top.location.y)
    }

    @Test func aTownNumberedStreetByStreetIsNoGrid() throws {
        let search = try Self.towns()
        let town = try #require(search.localities.firstIndex { $0.city == "Winding" })
        let (answered, near) = search.gridCheck(in: Int32(town))
        #expect(!search.gridHolds(in: Int32(town)), "\(near) of \(answered)")
        let top = try #require(search.geocode(GeocodeRequest(.text("3000 Elm St, Winding, KS"))).first)
        #expect(top.matchType == .street && top.components.city == "Winding", "\(top.matchType) \(top.key)")
    }
}
