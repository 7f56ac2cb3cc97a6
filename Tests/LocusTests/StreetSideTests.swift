import Foundation
import LocusCore
@testable import LocusEngine
import Testing

/// A number placed from the other side's numbers stands on its own side of the street: US streets
/// put odd numbers on one side and even on the other, and a lot's trees, walk and door are there.
///
/// Sidestreet, a made-up street running east at 0.75 m a number: odd numbers 301–421 on its north
/// side (every 20), even numbers 300–360 on its south side, 26 m across. 380 lies beyond the even
/// side's last number, between the odd side's 361 and 381; 440 beyond every number.
@Suite struct StreetSideTests {
    static let degreesPerMetre = 1 / 87_832.0
    static let pace = 0.75
    /// Metres north of the centre line of the odd side's houses; the even side's are as far south.
    static let half = 13.0

    static func sidestreet() throws -> AddressSearch {
        var rows = ["number,street,city,state,postcode,lon,lat"]
        for n in Array(stride(from: 301, through: 421, by: 20)) + Array(stride(from: 300, through: 360, by: 20)) {
            rows.append("\(n),Main St,Sideton,KS,67010,\(position(n).x),\(position(n).y)")
        }
        return try TestSupport.addressSearch(rows: rows)
    }

    /// Where number `n`'s house stands: along the street by its number, on its side.
    static func position(_ n: Int) -> GeoPoint {
        GeoPoint(x: -97.0 + Double(n) * pace * degreesPerMetre, y: 38.0 + (n % 2 == 1 ? half : -half) / 111_000)
    }

    @Test(arguments: [(380, MatchType.interpolated), (440, .extrapolated)])
    func aNumberPlacedFromTheOtherSidesNumbersIsOnItsOwnSide(_ number: Int, _ type: MatchType) throws {
        let search = try Self.sidestreet()
        var request = GeocodeRequest(.text("\(number) Main St, Sideton, KS"))
        request.explain = true
        let top = try #require(search.geocode(request).first)
        #expect(top.matchType == type, "\(top.explain ?? [])")
        // South of the centre line (it was on the odd side, 13 m north), about where its house is.
        #expect(top.location.y < 38.0, "\(top.location)")
        let metres = Self.position(number).metres(to: GeoPoint(x: top.location.x, y: top.location.y))
        #expect(metres < 8, "\(metres) m from where \(number)'s house is")
        // The key places it there again.
        let back = try #require(search.geocode(GeocodeRequest(.key(top.key))).first)
        #expect(back.location.x == top.location.x && back.location.y == top.location.y)
    }

    /// A number of the side that has the points is placed among them, as before.
    @Test func aNumberOfTheSideWithPointsStaysThere() throws {
        let search = try Self.sidestreet()
        let top = try #require(search.geocode(GeocodeRequest(.text("391 Main St, Sideton, KS"))).first)
        #expect(top.matchType == .interpolated)
        #expect(Self.position(391).metres(to: GeoPoint(x: top.location.x, y: top.location.y)) < 3)
    }
}
