import Foundation
import LocusCore

/// Where a street meets a numbered street, read from the street's own numbers. US grids number a
/// street's addresses by the numbered streets it crosses: NW Glisan St's 600 block begins at NW
/// 6th Ave, SW Madison St's 1800 block at SW 18th Ave, SE Division St's 8200 block at SE 82nd Ave.
/// Where the points of both streets stop short of the crossing (downtown Portland has a few points
/// a street), "SW 6th & Madison", the way transit and field lists write places, got no
/// candidate: the street's number n × 100, placed along it as a house number is (`placeNumber`),
/// is the crossing.
///
/// Only in a town whose points keep the rule (`ordinalCrossingsHold`), only where no crossing was
/// found from the points or the lines of both streets, only within reach of the named street's
/// own points, and only where the numbered street's own points near it have a line through the
/// place: a street running along the numbered ones, or one far from them, has numbers of the
/// block too.
extension AddressSearch {
    /// What a crossing read from one street's numbers loses: this and half of what placing the
    /// number cost, at most what a street without its number loses (20); more than a crossing
    /// of both streets' points (0) or of their lines (5).
    static let numberedCrossingCost = 12.0
    /// Metres the numbered street's line near the place (the main axis of its nearest points) may
    /// pass from it.
    static let numberedCrossingLineGap = 60.0
    /// Metres within which the numbered street's points count as running by the place.
    static let numberedCrossingReach = 1500.0
    /// A town's points sampled for the rule (`ordinalCrossingsHold`): at most this many, of which
    /// at least `ordinalCheckKept` and `ordinalTrustedShare` keep it. The sample takes streets
    /// of either way, and those running along the numbered streets (a north–south street's
    /// numbers count the east–west ones) cannot keep it: Portland's share is 19 % (28 of 150),
    /// Beaverton's 21 %, Hillsboro's 25 %, Milwaukie's 39 %, Canby's 50 %, Gresham's 59 %, where
    /// an address of a town without the rule lies near numbered street n by chance, 1–4 %
    /// (a numbered street's 100 m strip in a town's area).
    static let ordinalCheckSample = 150
    static let ordinalCheckKept = 10
    static let ordinalTrustedShare = 0.12
    /// Metres from a block's first address (n00 to n09) to the nearest point of numbered street n
    /// within which the address keeps the rule.
    static let ordinalCheckReach = 100.0

    /// A crossing of `named` and `numbered` (ordinal `n`) in each town of `named` not in `found`,
    /// at most `limit`: where, the known address it was placed from, its cost and how.
    func numberedCrossings(_ named: Int32, _ numbered: Int32, ordinal n: Int, skipping found: Set<Int32>, limit: Int)
        -> [(location: GeoPoint, anchor: Int32, cost: Double, how: String)] {
        let value = n * 100
        guard n > 0, value <= 999_999_999, limit > 0,
              Self.sameQuarter(streets[Int(named)].parts, streets[Int(numbered)].parts) else { return [] }
        let points = addresses.points
        var out: [(location: GeoPoint, anchor: Int32, cost: Double, how: String)] = []
        let numberedRuns = Array(zip(places(ofStreet: numbered), addressRuns(onStreet: numbered)))
        for (k, run) in zip(places(ofStreet: named), addressRuns(onStreet: named)) where out.count < limit {
            let town = streetPlaces[k].locality
            // Only where the numbered street has points in the town, within reach of the named
            // street's (boxes first, before the number is placed: these are tried for every pair
            // of streets a crossing query could mean, and the 302 downtown crossings took 0.40 s
            // against 0.24 s when every town was placed).
            let theirs = numberedRuns.filter { streetPlaces[$0.0].locality == town }.map(\.1)
            guard !found.contains(town), let box = Self.box(of: theirs.joined(), points, widenedBy: Self.numberedCrossingReach),
                  let runBox = Self.box(of: run, points, widenedBy: Self.numberedCrossingOwnReach), box.intersects(runBox),
                  ordinalCrossingsHold(in: town),
                  let placed = placeNumber(HouseNumber(value: value), among: Array(run), street: named, place: k, q: ParsedAddress(),
                                           penalty: 0, notes: []) ?? exactPoint(value, in: run) else { continue }
            let at = placed.location
            let s = LocalMetricScale(latitude: at.y)
            func metres(_ i: Int32) -> (x: Double, y: Double) {
                ((points.lon(Int(i)) - at.x) * s.metresPerDegreeX, (points.lat(Int(i)) - at.y) * s.metresPerDegreeY)
            }
            let anchor = run.min { a, b in
                let va = metres(a), vb = metres(b)
                return va.x * va.x + va.y * va.y < vb.x * vb.x + vb.y * vb.y
            } ?? run[run.startIndex]
            // Near the street's own points: the city's grid puts a number where the parallel
            // streets have it, kilometres from a short street's houses (NE Russell Ct's 2700
            // block, 6 km from them, "met" NE 27th Ave).
            let own = metres(anchor)
            guard own.x * own.x + own.y * own.y <= Self.numberedCrossingOwnReach * Self.numberedCrossingOwnReach else { continue }
            // The numbered street's points in the town near the place: its line must pass by it (a
            // town whose numbers keep the rule may still have a street of the name elsewhere, or
            // one the named street never meets).
            var near: [(x: Double, y: Double, d: Double)] = []
            for other in theirs {
                for i in other {
                    let v = metres(i), d = (v.x * v.x + v.y * v.y).squareRoot()
                    if d <= Self.numberedCrossingReach { near.append((v.x, v.y, d)) }
                }
            }
            near.sort { $0.d < $1.d }
            // With nothing of the numbered street to check it by, no crossing: streets that run
            // along the numbered ones, or far from them, have numbers of the block too (NW
            // Macleay Blvd's 600 block is in the hills, 3 km from NW 6th Ave), and of 3,000
            // random pairs of Portland's street names 40 such were answered.
            guard let first = near.first else { continue }
            // Its line: the main axis of its nearest points, else through the two nearest
            // that stand apart.
            let nearest = near.prefix(Self.numberedCrossingLinePoints)
            var axis = LotFrontage.mainAxis(nearest.map { ($0.x, $0.y) })
            var through = (x: nearest.reduce(0) { $0 + $1.x } / Double(nearest.count), y: nearest.reduce(0) { $0 + $1.y } / Double(nearest.count))
            if axis == nil, let second = near.dropFirst().first(where: { hypot($0.x - first.x, $0.y - first.y) >= 15 }) {
                let dx = second.x - first.x, dy = second.y - first.y, length = hypot(dx, dy)
                axis = (dx / length, dy / length)
                through = (first.x, first.y)
            }
            guard let (ux, uy) = axis else { continue }
            // The place's offset from the line, and the foot of it on the line.
            let along = -through.x * ux - through.y * uy
            let foot = (x: through.x + along * ux, y: through.y + along * uy)
            let off = hypot(foot.x, foot.y)
            guard off <= Self.numberedCrossingLineGap else { continue }
            let location = GeoPoint(x: at.x + foot.x / s.metresPerDegreeX, y: at.y + foot.y / s.metresPerDegreeY)
            let cost = min(Self.numberedCrossingCost + (100 - placed.score) / 2, Self.numberNotPlacedPenalty)
            out.append((location, anchor, cost,
                        "where \(addresses.streetDisplay[Int(named)])'s \(value) block begins (\(placed.matchType.rawValue)), on its line \(Int(off.rounded())) m across (−\(Int(cost.rounded())))"))
        }
        return out
    }

    /// Metres from the named street's nearest point within which the place must lie.
    static let numberedCrossingOwnReach = 1000.0

    /// The lon/lat box of some points, widened by `metres` each way; nil for no point.
    static func box<S: Sequence>(of ids: S, _ points: PointTable, widenedBy metres: Double) -> Envelope? where S.Element == Int32 {
        var e = Envelope.empty
        for i in ids { e.extend(x: points.lon(Int(i)), y: points.lat(Int(i))) }
        guard !e.isEmpty else { return nil }
        let s = LocalMetricScale(latitude: (e.minY + e.maxY) / 2)
        let dx = metres / s.metresPerDegreeX, dy = metres / s.metresPerDegreeY
        return e.expanded(x: dx, y: dy)
    }

    /// Points of the numbered street its line near the place is read from.
    static let numberedCrossingLinePoints = 8

    /// Whether two streets' leading directionals could name one quarter's streets: "NW" and "NE"
    /// cannot meet by the grid's numbers (NE Davis St's 600 block is across the river from NW
    /// 6th Ave), "N" and "NE", or a street without one, can.
    static func sameQuarter(_ a: StreetNameParts, _ b: StreetNameParts) -> Bool {
        guard let x = a.predirectional.flatMap({ quarterParts[$0] }), let y = b.predirectional.flatMap({ quarterParts[$0] }) else { return true }
        return (x.ns == nil || y.ns == nil || x.ns == y.ns) && (x.ew == nil || y.ew == nil || x.ew == y.ew)
    }

    /// A directional's north–south and east–west halves.
    static let quarterParts: [String: (ns: Character?, ew: Character?)] = [
        "north": ("n", nil), "south": ("s", nil), "east": (nil, "e"), "west": (nil, "w"),
        "northeast": ("n", "e"), "northwest": ("n", "w"), "southeast": ("s", "e"), "southwest": ("s", "w"),
    ]

    /// The street's address numbered `value` itself, as a placement: `placeNumber` places only
    /// numbers that are no point.
    func exactPoint(_ value: Int, in run: Slice<StoredIDs>) -> ScoredMatch? {
        let i = firstAddress(numbered: value, in: run)
        guard i < run.endIndex, Int(streetNumbers.i32(i, 0)) == value else { return nil }
        return addressMatch(run[i], score: 100, type: .pointAddress, notes: [])
    }

    /// Whether a town's points keep the rule that a street's block n00 begins at numbered street
    /// n: of its addresses numbered n00 to n09 (a sample, on streets not themselves numbered)
    /// where the town has a numbered street n, whether one of that street's points lies within
    /// `ordinalCheckReach`. Worked out when a town is first asked, then kept.
    func ordinalCrossingsHold(in locality: Int32) -> Bool {
        if let known = ordinalTrust.withLock({ $0[locality] }) { return known }
        let points = addresses.points
        var byOrdinal: [Int: [Int32]] = [:]
        for list in numberedStreets.values {
            for (m, t) in list where m <= 999 {
                for (k, run) in zip(places(ofStreet: t), addressRuns(onStreet: t)) where streetPlaces[k].locality == locality {
                    byOrdinal[m, default: []].append(contentsOf: run)
                }
            }
        }
        var checked = 0, kept = 0
        if !byOrdinal.isEmpty {
            let town = streetPlaces.indices.filter { streetPlaces[$0].locality == locality }
            // Spread over the town's streets (most have no block's first address): at most two a street place.
            let stride = max(1, town.count / (4 * Self.ordinalCheckSample))
            for k in Swift.stride(from: 0, to: town.count, by: stride) where checked < Self.ordinalCheckSample {
                let street = streetPlaces[town[k]].street
                guard Self.ordinal(streets[Int(street)].parts.core) == nil, let run = addresses(ofStreetPlace: town[k]) else { continue }
                var taken = 0
                for a in run where taken < 2 {
                    let v = Int(points.number(Int(a)))
                    guard v >= 100, v % 100 < 10, let numbered = byOrdinal[v / 100] else { continue }
                    taken += 1
                    let p = points[Int(a)], s = LocalMetricScale(latitude: p.lat)
                    let reach = Self.ordinalCheckReach * Self.ordinalCheckReach
                    if numbered.contains(where: { i in
                        let q = points[Int(i)]
                        let dx = (q.lon - p.lon) * s.metresPerDegreeX, dy = (q.lat - p.lat) * s.metresPerDegreeY
                        return dx * dx + dy * dy <= reach
                    }) { kept += 1 }
                }
                checked += taken
            }
        }
        let holds = kept >= Self.ordinalCheckKept && Double(kept) >= Self.ordinalTrustedShare * Double(checked)
        ordinalTrust.withLock { $0[locality] = holds }
        return holds
    }
}
