import LocusCore

/// Where two streets meet in a district whose lots have no address points: downtown Portland
/// has a dozen points in its ZIP code, so the points of "SW 5th Ave" and "SW Morrison St" stop
/// 400 m and more short of each other, and no pair of them meets (`crossings`). Their numbers
/// still run along straight lines there: each street is read as the line through its last
/// numbers before the empty district (`extrapolationLine`), and the two lines meet at the
/// crossing. Only where no pair of the streets' points meets in the town.
extension AddressSearch {
    /// Where a stretch of a street's numbers ends (a run's first or last number, or either side
    /// of a gap wider than `crossingGap`): the point and the way the street goes on beyond it.
    struct StretchEnd {
        let id: Int32
        /// Metres east and north of the street's scale origin.
        let x: Double, y: Double
        /// Metres east and north per number beyond the end.
        let ux: Double, uy: Double
        /// The most numbers the street can go on beyond the end: to the next known number across
        /// a gap, to number 0 before a run's first.
        let room: Double?
        /// Whether the street's points go on on both sides (a point in the middle of a stretch,
        /// nearest another street's end): its line is no ray but must pass close by.
        let within: Bool
        /// Metres past the point, the way the line points, where a line read `within` may still
        /// be met: `crossingGap` inside a stretch; `crossingSlack` at a stretch's last point,
        /// whose line points out of it (beyond, the street is read as a ray, with its room).
        var ahead = AddressSearch.crossingGap
    }

    /// Ends of a stretch looked at per run: the widest gaps of a long street (each end a line fit).
    static let stretchEndsPerRun = 12

    /// Where streets with address runs `ra` and `rb` (of one town) meet beyond their points: the
    /// pair of a stretch end of one street and an end of, or the nearest point of, the other whose
    /// lines cross nearest to both, each at most `beyondPointsReach` on; nil when no lines do.
    func crossingBeyondPoints(_ ra: [Int32], _ rb: [Int32], scale s: LocalMetricScale)
        -> (location: GeoPoint, a: Int32, metres: Double)? {
        guard ra.count >= 2, rb.count >= 2 else { return nil }
        // Streets more than two reaches apart everywhere meet nowhere near their points: told
        // from their extents before any line is read (two long streets of many towns that do not
        // meet had every end of each read in each town, a third more time per crossing query).
        let ba = extent(ra, scale: s), bb = extent(rb, scale: s)
        let reach = 2 * Self.beyondPointsReach
        guard ba.minX - reach <= bb.maxX, bb.minX - reach <= ba.maxX, ba.minY - reach <= bb.maxY, bb.minY - reach <= ba.maxY
        else { return nil }
        let ea = stretchEnds(ra, scale: s), eb = stretchEnds(rb, scale: s)
        var best: (location: GeoPoint, a: Int32, metres: Double)?
        // `p` is of the first street, `q` of the second.
        func consider(_ p: StretchEnd, _ q: StretchEnd) {
            guard let (x, y, d) = meeting(p, q), d < best?.metres ?? .infinity else { return }
            best = (GeoPoint(x: x / s.metresPerDegreeX, y: y / s.metresPerDegreeY), p.id, d)
        }
        for p in ea { for q in eb { consider(p, q) } }
        // An end of one street before a stretch of the other that goes on past it.
        for p in ea { if let q = nearestLine(rb, to: p, scale: s) { consider(p, q) } }
        for q in eb { if let p = nearestLine(ra, to: q, scale: s) { consider(p, q) } }
        return best
    }

    /// The box (metres east and north) a run's points lie in.
    func extent(_ run: [Int32], scale s: LocalMetricScale) -> (minX: Double, minY: Double, maxX: Double, maxY: Double) {
        let points = addresses.points
        var box = (minX: Double.infinity, minY: Double.infinity, maxX: -Double.infinity, maxY: -Double.infinity)
        for i in run {
            let x = points.lon(Int(i)) * s.metresPerDegreeX, y = points.lat(Int(i)) * s.metresPerDegreeY
            box = (min(box.minX, x), min(box.minY, y), max(box.maxX, x), max(box.maxY, y))
        }
        return box
    }

    /// The ends of the stretches of a run of one street's numbers (in number order), each with
    /// the line its numbers run along there.
    func stretchEnds(_ run: [Int32], scale s: LocalMetricScale) -> [StretchEnd] {
        let points = addresses.points
        func position(_ k: Int) -> (x: Double, y: Double) {
            (points.lon(Int(run[k])) * s.metresPerDegreeX, points.lat(Int(run[k])) * s.metresPerDegreeY)
        }
        func number(_ k: Int) -> Double { Double(points.number(Int(run[k]))) }
        var gaps: [(k: Int, squared: Double)] = []
        let gap = Self.crossingGap * Self.crossingGap
        for k in run.indices.dropLast() {
            let p = position(k), q = position(k + 1)
            let d = (q.x - p.x) * (q.x - p.x) + (q.y - p.y) * (q.y - p.y)
            if d > gap { gaps.append((k, d)) }
        }
        gaps = Array(gaps.sorted { ($0.squared, $1.k) > ($1.squared, $0.k) }.prefix(Self.stretchEndsPerRun))
        // (index, the side its line is read from, room beyond)
        var ends: [(Int, Int, Double?)] = [(0, 1, number(0)), (run.count - 1, -1, nil)]
        for g in gaps {
            let room = number(g.k + 1) - number(g.k)
            ends += [(g.k, -1, room), (g.k + 1, 1, room)]
        }
        return ends.compactMap { k, step, room in
            guard let line = extrapolationLine(run, anchor: k, step: step), isLong(line, from: run[k], scale: s) else { return nil }
            let p = position(k)
            // The line gives metres per number up the street; beyond a first number is down it.
            let sign = step == 1 ? -1.0 : 1.0
            return StretchEnd(id: run[k], x: p.x, y: p.y, ux: sign * line.east, uy: sign * line.north, room: room, within: false)
        }
    }

    /// The point of `run` nearest the end `e`, within reach, as a line through it (read from the
    /// numbers on either side); nil when no line is read there. A run's first or last point may be
    /// the nearest though the streets meet inside the run: West Burnside St's points stop 200 m
    /// either side of NW 23rd Ave, whose own stop 540 m short of it (no crossing was found for
    /// NW 19th–24th Ave); that point's line is met behind it, not beyond.
    func nearestLine(_ run: [Int32], to e: StretchEnd, scale s: LocalMetricScale) -> StretchEnd? {
        let points = addresses.points
        var nearest: (k: Int, d: Double)?
        for k in run.indices {
            let x = points.lon(Int(run[k])) * s.metresPerDegreeX - e.x, y = points.lat(Int(run[k])) * s.metresPerDegreeY - e.y
            let d = x * x + y * y
            if d < nearest?.d ?? .infinity { nearest = (k, d) }
        }
        guard let nearest, nearest.d <= Self.beyondPointsReach * Self.beyondPointsReach,
              let line = [1, -1].lazy.compactMap({ self.extrapolationLine(run, anchor: nearest.k, step: $0) })
                  .first(where: { self.isLong($0, from: run[nearest.k], scale: s) })
        else { return nil }
        let k = nearest.k
        // Out of the run at its ends: down the numbers before the first, up them after the last.
        let outward = k == 0 ? -1.0 : 1.0, isEnd = k == 0 || k == run.count - 1
        var end = StretchEnd(id: run[k], x: points.lon(Int(run[k])) * s.metresPerDegreeX, y: points.lat(Int(run[k])) * s.metresPerDegreeY,
                             ux: outward * line.east, uy: outward * line.north, room: nil, within: true)
        if isEnd { end.ahead = Self.crossingSlack }
        return end
    }

    /// Whether a line was read over `beyondPointsFitLength` of its street at least: a cul-de-sac's
    /// few houses around its turning circle give a line in any direction.
    func isLong(_ line: (reference: Int32, east: Double, north: Double), from anchor: Int32, scale s: LocalMetricScale) -> Bool {
        let points = addresses.points
        let dx = (points.lon(Int(line.reference)) - points.lon(Int(anchor))) * s.metresPerDegreeX
        let dy = (points.lat(Int(line.reference)) - points.lat(Int(anchor))) * s.metresPerDegreeY
        return hypot(dx, dy) >= Self.beyondPointsFitLength
    }

    /// Where the lines of `p` and `q` meet (metres east and north) and the further of the two
    /// distances from them; nil when they are near parallel, meet behind an end, beyond the room
    /// an end has (and `roomSlack`) or further than `beyondPointsReach`, or further than `crossingGap` from a
    /// point within a stretch.
    func meeting(_ p: StretchEnd, _ q: StretchEnd) -> (Double, Double, Double)? {
        let pu = hypot(p.ux, p.uy), qu = hypot(q.ux, q.uy)
        guard (0.1...Self.fastestPace).contains(pu), (0.1...Self.fastestPace).contains(qu) else { return nil }
        // p + s·u = q + t·v
        let det = q.ux * p.uy - p.ux * q.uy
        guard abs(det) / (pu * qu) > Self.beyondPointsAngle else { return nil }
        let dx = q.x - p.x, dy = q.y - p.y
        let sp = (q.ux * dy - q.uy * dx) / det
        let tq = (p.ux * dy - p.uy * dx) / det
        func fits(_ e: StretchEnd, _ numbers: Double, _ rate: Double) -> Bool {
            let metres = numbers * rate
            if e.within { return metres >= -Self.crossingGap && metres <= e.ahead }
            return metres >= -Self.crossingSlack && metres <= Self.beyondPointsReach
                && metres <= (e.room ?? .infinity) * rate + Self.roomSlack
        }
        guard fits(p, sp, pu), fits(q, tq, qu) else { return nil }
        return (p.x + sp * p.ux, p.y + sp * p.uy, max(abs(sp * pu), abs(tq * qu)))
    }

    // Measured on the dev street trees' 882 corner rows ("SEC/ 18TH & NW THURMAN ST": trees within
    // 75 m of the answer) and on 3,000 random pairs of Portland's street names (answers: most such
    // pairs do not meet, so fewer is better), against 301 trees and 61 answers without crossings
    // beyond the points: every line (none of the three limits, reach 2 km) 371 / 176; the limits
    // below 372 / 93; fit length 50 / 200 m 372 / 110, 369 / 79; angle sine 0.3 / 0.7 372 / 94,
    // 372 / 90; reach 600 / 800 / 1,500 m 366 / 80, 371 / 86, 372 / 124.

    /// Metres of its street, at the least, a line is read over (see `isLong`).
    static let beyondPointsFitLength = 100.0
    /// The sine of the angle, at the least, at which two streets' lines meet: lines near parallel
    /// meet far off, wherever a small error in their directions says.
    static let beyondPointsAngle = 0.5
    /// Metres, at the most, from a stretch's end to where its line meets the other street's.
    static let beyondPointsReach = 1000.0

    /// Metres behind a stretch's end at which its line may still meet another (a corner house
    /// stands past the crossing's line).
    static let crossingSlack = 30.0

    /// Metres a line may go on past its room (the numbers left before 0 or the next known number,
    /// at the pace read from its points): a block's first numbers stand some way into it, and a
    /// pace read from whole blocks is slower than the numbers' at a street's start. 130 NW 19th
    /// Ave, its first point, stands 245 m from W Burnside St (number 0), 130 numbers at 0.79 m
    /// each. With the nearest point's line met behind a run's end (`nearestLine`), on the corner
    /// rows and the 3,000 pairs above: 0 m 375 / 74, 50 / 100 / 150 m 376 / 74, and W Burnside
    /// St found crossing NW 19th–24th Ave (22nd–24th at 0 m); 302 crossings of downtown's
    /// streets and avenues: 120 found before, 131 after.
    static let roomSlack = 50.0
}

#if canImport(Glibc)
import Glibc
#endif
