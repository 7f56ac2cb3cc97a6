import LocusCore

/// Chooses the address of the lot a point stands in front of, not merely the nearest address point.
///
/// The nearest address point to a spot on the sidewalk is often the neighbour's or the corner
/// lot's: address points sit inside buildings, and a deep or wide building puts its point far from
/// the frontage. The data says more than positions: each address faces a named street, its
/// same-side neighbours (stored in the index by house-number order and parity) trace the line of
/// its side of that street, and the houses of the other parity trace the other side.
///
/// 1. **Which street.** For each street among the nearby addresses, the line of each side is
///    placed through its houses; the street's centre line lies halfway between the two sides. A
///    point in a planting strip or on a sidewalk is nearest the centre line of the street it
///    fronts. (A street seen from one side only is judged by that side's line, with a handicap.)
/// 2. **Which side.** The side whose house line is nearer.
/// 3. **Which lot.** Along that side, each lot runs halfway to its neighbours; the lot the point's
///    position along the street falls in wins, else the one it overshoots least.
///
/// Keeps scratch space between calls, so it belongs to one thread (a `Locator` owns one).
final class FrontageChooser {
    let addresses: AddressIndex
    private var list: AddressIndex.NearestList
    private var lots: [Lot] = []

    init(addresses: AddressIndex) {
        self.addresses = addresses
        list = AddressIndex.NearestList(capacity: Self.candidates, maxDistance: 0)
        lots.reserveCapacity(Self.candidates)
    }

    /// Addresses looked at: enough for both sides of a street and the corner lots.
    static let candidates = 8
    /// How much further than the nearest address a candidate may be, in metres.
    static let reach = 30.0
    /// Added to a street seen from one side only: its centre line is somewhere beyond that side.
    static let oneSidedHandicap = 8.0

    private struct Lot {
        var index: Int
        var planar: Double
        var street: UInt32
        var parity: Int32
        var position: (Double, Double)
        var previous: (Double, Double)?
        var next: (Double, Double)?
    }

    func choose(_ q: GeoPoint, maxDistance: Double) -> (index: Int, planarMetres: Double)? {
        // A lot whose house is more than `reach` metres further than the nearest one is not the
        // lot in front of which the point stands; bounding the search keeps it to a few cells.
        guard let first = addresses.nearest(lon: q.x, lat: q.y, maxDistance: maxDistance) else { return nil }
        list.reset(maxDistance: min(maxDistance, first.planarMetres + Self.reach))
        addresses.search(lon: q.x, lat: q.y, into: &list)
        guard let nearest = list.items.first else { return nil }
        let s = LocalMetricScale(latitude: q.y)
        let points = addresses.points
        // Everything in metres with q at the origin.
        func metres(_ i: Int32) -> (Double, Double) {
            let p = points[Int(i)]
            return ((p.lon - q.x) * s.metresPerDegreeX, (p.lat - q.y) * s.metresPerDegreeY)
        }
        lots.removeAll(keepingCapacity: true)
        for c in list.items {
            let p = points[c.index]
            lots.append(Lot(index: c.index, planar: c.squared.squareRoot(), street: p.street, parity: p.number & 1,
                            position: metres(Int32(c.index)), previous: p.previous >= 0 ? metres(p.previous) : nil,
                            next: p.next >= 0 ? metres(p.next) : nil))
        }
        // Group by street without building sets: sort, then walk the runs.
        lots.sort { ($0.street, $0.planar) < ($1.street, $1.planar) }
        var best: (cost: Double, lot: Int)?
        var start = 0
        while start < lots.count {
            var end = start + 1
            while end < lots.count, lots[end].street == lots[start].street { end += 1 }
            defer { start = end }
            guard let u = direction(lots[start..<end]) else { continue }
            let n = (-u.1, u.0)
            // Signed distance from each side's house line to q (q is the origin).
            var sum = (0.0, 0.0), count = (0.0, 0.0)
            @inline(__always) func add(_ v: (Double, Double)?, _ parity: Int32) {
                guard let v else { return }
                let d = -(v.0 * n.0 + v.1 * n.1)
                if parity == 0 { sum.0 += d; count.0 += 1 } else { sum.1 += d; count.1 += 1 }
            }
            for lot in lots[start..<end] {
                add(lot.position, lot.parity)
                add(lot.previous, lot.parity)
                add(lot.next, lot.parity)
            }
            let even = count.0 > 0 ? sum.0 / count.0 : nil, odd = count.1 > 0 ? sum.1 / count.1 : nil
            let streetDistance: Double
            if let even, let odd, (even > 0) != (odd > 0) {
                streetDistance = abs((even + odd) / 2)
            } else {
                streetDistance = min(abs(even ?? .infinity), abs(odd ?? .infinity)) + Self.oneSidedHandicap
            }
            let side: Int32 = abs(even ?? .infinity) <= abs(odd ?? .infinity) ? 0 : 1
            for k in start..<end where lots[k].parity == side {
                // Lot boundaries run square to the street where the lot is: its own neighbours' line.
                let own = direction(lots[k...k]) ?? u
                let cost = streetDistance * 2 + overshoot(lots[k], own) * 2 + lots[k].planar * 0.01
                if best == nil || cost < best!.cost { best = (cost, k) }
            }
        }
        guard let best else { return (nearest.index, nearest.squared.squareRoot()) }
        return (lots[best.lot].index, lots[best.lot].planar)
    }

    /// The street's direction: from the lots' neighbour links, averaged with a consistent sign.
    private func direction(_ lots: ArraySlice<Lot>) -> (Double, Double)? {
        var sx = 0.0, sy = 0.0
        for lot in lots {
            let from = lot.previous ?? lot.position, to = lot.next ?? lot.position
            var d = (to.0 - from.0, to.1 - from.1)
            let len = (d.0 * d.0 + d.1 * d.1).squareRoot()
            guard len > 0.5 else { continue }
            d = (d.0 / len, d.1 / len)
            // Opposite sides may number in opposite directions: align before summing.
            if sx * d.0 + sy * d.1 < 0 { d = (-d.0, -d.1) }
            sx += d.0
            sy += d.1
        }
        let len = (sx * sx + sy * sy).squareRoot()
        return len > 0 ? (sx / len, sy / len) : nil
    }

    /// How far q's position along the street falls outside the lot (0 when inside it).
    private func overshoot(_ lot: Lot, _ u: (Double, Double)) -> Double {
        let along = -(lot.position.0 * u.0 + lot.position.1 * u.1)
        func at(_ v: (Double, Double)) -> Double { v.0 * u.0 + v.1 * u.1 }
        let a = at(lot.position)
        var bounds: [Double] = []
        if let p = lot.previous { bounds.append((at(p) - a) / 2) }
        if let n = lot.next { bounds.append((at(n) - a) / 2) }
        guard !bounds.isEmpty else { return abs(along) }
        // An end lot is taken to be as wide as its one neighbour's gap, mirrored.
        if bounds.count == 1 { bounds.append(-bounds[0]) }
        let lo = min(bounds[0], bounds[1]), hi = max(bounds[0], bounds[1])
        return along > hi ? along - hi : (along < lo ? lo - along : 0)
    }
}
