import Foundation
import LocusCore
@testable import LocusEngine
import Testing

/// A street with no points on one side of a city's baseline is placed as the continuation of its
/// namesake on the other side (`AddressSearch.continued`).
///
/// Gridton, a made-up grid town: seven streets run north–south, 100 m apart (Ash, Birch, Cedar,
/// Main, Elm, Fir, Gum, at x = −300 … 300 m), numbered away from the baseline (y = 0) at 0.8 m a number,
/// odd numbers east of the centre line and even west, 10 m off it. North of the baseline every
/// street but Main has points ("N Ash St" …); south of it Main has ("S Main St", from `southFrom`
/// on) and so do the others. "500 N Main St" has no point and no street: it lies 400 m north of the
/// baseline on Main's line.
@Suite struct StreetContinuationTests {
    static let pace = 0.8
    static let names = ["Ash", "Birch", "Cedar", "Main", "Elm", "Fir", "Gum"]

    /// Longitude and latitude of a point `x` metres east and `y` metres north of the town's origin.
    static func at(_ x: Double, _ y: Double) -> GeoPoint {
        GeoPoint(x: -97.0 + x / (111_320 * cos(38.0 * .pi / 180)), y: 38.0 + y / 110_990)
    }

    /// The town's points; S Main St's from number `southFrom`, turned `turn` degrees off the grid
    /// about its first point (a stretch that runs another way than the streets beside it).
    static func gridton(southFrom: Int = 100, turn: Double = 0) throws -> AddressSearch {
        var rows = ["number,street,city,state,postcode,lon,lat"]
        for (i, name) in names.enumerated() {
            let x = Double(i - 3) * 100
            for n in stride(from: 100, through: 1200, by: 20) {
                for odd in [n + 1, n] {
                    let across = odd % 2 == 1 ? 10.0 : -10.0
                    if name != "Main" {
                        let p = at(x + across, Double(odd) * pace)
                        rows.append("\(odd),North \(name) Street,Gridton,KS,67010,\(p.x),\(p.y)")
                    }
                    guard name != "Main" || n >= southFrom else { continue }
                    var (dx, dy) = (across, -Double(odd) * pace)
                    if name == "Main" {
                        // Turned about the stretch's first point.
                        let (ox, oy) = (0.0, -Double(southFrom) * pace)
                        let (rx, ry) = (dx - ox, dy - oy), r = turn * .pi / 180
                        (dx, dy) = (ox + rx * cos(r) - ry * sin(r), oy + rx * sin(r) + ry * cos(r))
                    }
                    let p = at(x + dx, dy)
                    rows.append("\(odd),South \(name) Street,Gridton,KS,67010,\(p.x),\(p.y)")
                }
            }
        }
        return try TestSupport.addressSearch(rows: rows)
    }

    @Test(arguments: [500, 1000])
    func aNumberOfTheMissingStretchLiesOnItsNamesakesLine(_ number: Int) throws {
        let search = try Self.gridton()
        var request = GeocodeRequest(.text("\(number) N Main St, Gridton, KS"))
        request.explain = true
        let top = try #require(search.geocode(request).first)
        #expect(top.components.street == "N Main St" && top.components.streetFull == "North Main Street", "\(top.address)")
        #expect(top.matchType == .extrapolated && top.key.hasPrefix("v"), "\(top.key) \(top.explain ?? [])")
        // On Main's line (x = 0), where the numbers of the streets beside it have its number.
        let metres = Self.at(0, Double(number) * Self.pace).metres(to: GeoPoint(x: top.location.x, y: top.location.y))
        #expect(metres < 15, "\(metres) m from \(number) N Main St's place")
        #expect(top.score >= 75, "\(top.score)")
        // Its key places it there again.
        let back = try #require(search.geocode(GeocodeRequest(.key(top.key))).first)
        #expect(back.address == top.address && back.location.x == top.location.x && back.location.y == top.location.y)
    }

    /// Where the namesake's nearest points to the baseline are far from it and run another way,
    /// its line carried over would miss the street: no continuation.
    @Test func aNamesakeThatRunsAnotherWayFarFromTheBaselineIsNotCarriedOver() throws {
        let search = try Self.gridton(southFrom: 700, turn: 20)
        let found = search.geocode(GeocodeRequest(.text("500 N Main St, Gridton, KS")))
        #expect(!found.contains { $0.key.hasPrefix("v") }, "\(found.map(\.key))")
        // Near the baseline, the same turn costs little across: carried over.
        let near = try Self.gridton(southFrom: 100, turn: 20)
        let top = try #require(near.geocode(GeocodeRequest(.text("500 N Main St, Gridton, KS"))).first)
        #expect(top.key.hasPrefix("v"), "\(top.key)")
    }

    @Test(arguments: [
        ("northwest", "southwest", true), ("northwest", "northeast", true), ("north", "northeast", true),
        ("north", "south", true), ("east", "west", true),
        ("northwest", "southeast", false), ("northeast", "southwest", false), ("north", "southwest", false),
        ("northwest", "northwest", false),
    ])
    func aStreetContinuesAcrossOneBaselineOnly(_ a: String, _ b: String, _ continues: Bool) {
        #expect(AddressSearch.continues(a, as: b) == continues)
    }
}
