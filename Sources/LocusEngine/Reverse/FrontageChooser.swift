import LocusCore

/// Chooses the address of the lot a point stands in front of, not merely the nearest address point.
///
/// The nearest address point to a street tree is often the neighbour's, the corner lot's or the
/// house across the street: address points sit inside buildings, buildings sit anywhere on their
/// lots, and the planting strip is nearer the middle of the street than the houses are. Each
/// address's `LotFrontage` (worked out by the index builder from its same-side neighbours and the
/// houses across the street) says more: which way its street runs, how far its lot reaches along
/// it, and where the street's centre line lies.
///
/// Every address within `reach` metres of the nearest is scored on how well the point fits being in
/// front of that lot, and the best wins:
/// - **distance** to the address point (the nearest-point answer is the baseline);
/// - **how far the point stands beside the lot** rather than before it: its offset along the street
///   past the lot's ends (`overshoot`), along the street at all, and the angle between the street
///   and the line from the house to the point (a tree along a side street lies *along* the house's
///   street line, not in front of it);
/// - **how far in front** of the house line the point is;
/// - **streets in between**: a lot whose street's centre line separates it from the point is across
///   that street; so is a lot of any nearby street whose centre line lies between.
///
/// How likely a lot is does not fall evenly with these lengths: a tree a little aside of the house
/// is likelier its lot's than one straight in front of it, and one along the street's line far
/// less; so the score is linear in them plus a few bends (`Bend`: the weight changes past a knot).
///
/// The weights were fitted (conditional logit: which candidate the city recorded) on the Portland
/// street-tree inventory's development half, 99,185 trees whose recorded address is among their
/// candidates, with `locus eval --frontage-features` and `scripts/fit_frontage.py`, and checked
/// by fitting on half of its 56 neighbourhoods and measuring on the other half (three splits):
/// right 88.0–88.9 % before the bends, 88.5–89.5 % with them (+0.5 to +0.7 points on each half);
/// `locus eval` on the whole file: 87.39 → 87.90 % (the nearest point: 84.70 %). The features are
/// geometry any city's address points give; none names a street or a place. Since the street's
/// direction is read from both rows of its houses (`LotFrontage`: 88.85 %), refitting gives 88.80 %:
/// these weights stay.
///
/// Keeps scratch space between calls, so it belongs to one thread (a `Locator` owns one).
public final class FrontageChooser {
    let addresses: AddressIndex
    private var list: AddressIndex.NearestList
    private var lines: [(street: UInt32, x: Double, y: Double, ux: Double, uy: Double)] = []

    init(addresses: AddressIndex) {
        self.addresses = addresses
        list = AddressIndex.NearestList(capacity: Self.candidates, maxDistance: 0)
        // Nothing beyond the reach of the nearest is weighed, so the search need not look there:
        // the same answers (every dev tree's), the frontage method 1.05× as fast (`locus-bench
        // reverse`, medians of ten alternated rounds: 387.6 k against 368.8 k points/s).
        list.reach = Self.reach
        lines.reserveCapacity(Self.candidates)
    }

    /// Addresses looked at: both sides of a street, the lots either side and the corner lots (12
    /// gave the same answers on the dev trees, 86.26 % against 86.27 %, at 0.85× the speed).
    public static let candidates = 8
    /// How much further than the nearest address a candidate may be, in metres.
    public static let reach = 40.0
    /// A street's centre line counts as lying between only this far (metres) along from where it was
    /// seen: streets end, bend and meet.
    static let lineReach = 60.0

    /// Weights of the score (per metre for lengths). See the type's comment for where they come from.
    enum Weight {
        static let distance = 0.8538
        static let hasDirection = 0.5596
        static let along = -0.4832
        static let inFront = -0.0085
        static let overshoot = -0.6710
        static let alongAngle = 11.7372
        static let acrossOwnStreet = -1.0011
        static let endLot = 0.4240
        static let streetsBetween = -0.8187
        static let streetsBetweenDepth = -0.0406
        /// Depths past a centre line count up to this many metres: beyond, the street is certain.
        static let depthCap = 20.0
    }

    /// Where a length's weight changes (`at`) and by how much per unit past it (`slope`): how
    /// likely a lot is does not fall evenly with distance, angle or overshoot. Fitted with the
    /// weights above; ten bends do within 0.1 point of 24 (on either half of the neighbourhoods)
    /// at less cost.
    enum Bend {
        static let distance = ((at: 5.0, slope: -1.4326), (at: 10.0, slope: 0.3665))
        static let along = ((at: 3.0, slope: -0.3446), (at: 6.0, slope: 0.7958))
        static let overshoot = (at: 2.0, slope: 0.6763)
        static let acrossOwnStreet = ((at: 2.0, slope: 0.6259), (at: 5.0, slope: 0.5317))
        static let alongAngle = ((at: 0.3, slope: -14.8488), (at: 0.6, slope: 4.7451), (at: 0.8, slope: 3.2952))
    }

    /// What the score weighs about one candidate (lengths in metres, from the house to the point).
    public struct Features: Sendable, Equatable {
        /// Straight-line distance to the address point.
        public var distance = 0.0
        /// Whether the address has a street direction; without one, the lengths below are judged
        /// as if the point stood `distance` beside the lot.
        public var hasDirection = false
        /// Offset along the street, and in front of (or behind) the house line.
        public var along = 0.0
        public var inFront = 0.0
        /// Offset along the street past the lot's ends.
        public var overshoot = 0.0
        /// `along / distance`: 0 straight in front of the house, 1 along the street's line.
        public var alongAngle = 0.0
        /// How far past the lot's own street's centre line the point is (capped).
        public var acrossOwnStreet = 0.0
        /// Open ends of the lot: 0, 1 or 2 sides without a neighbour on the same side.
        public var endLots = 0.0
        /// Centre lines of other streets between the house and the point, and how deep past them.
        public var streetsBetween = 0.0
        public var streetsBetweenDepth = 0.0

        /// The chooser's score: higher is likelier the lot the point is in front of.
        @inline(__always)
        public var score: Double {
            var s = Weight.distance * distance + Weight.acrossOwnStreet * acrossOwnStreet + Weight.endLot * endLots
                + Weight.inFront * inFront + Weight.overshoot * overshoot
                + Weight.streetsBetween * streetsBetween + Weight.streetsBetweenDepth * streetsBetweenDepth
            if hasDirection { s += Weight.hasDirection + Weight.along * along + Weight.alongAngle * alongAngle }
            @inline(__always) func past(_ x: Double, _ bend: (at: Double, slope: Double)) -> Double { bend.slope * max(0, x - bend.at) }
            s += past(distance, Bend.distance.0) + past(distance, Bend.distance.1) + past(along, Bend.along.0) + past(along, Bend.along.1)
                + past(overshoot, Bend.overshoot) + past(acrossOwnStreet, Bend.acrossOwnStreet.0) + past(acrossOwnStreet, Bend.acrossOwnStreet.1)
                + past(alongAngle, Bend.alongAngle.0) + past(alongAngle, Bend.alongAngle.1) + past(alongAngle, Bend.alongAngle.2)
            return s
        }
    }

    /// One address looked at for a point, with what its score weighs.
    public struct Candidate: Sendable {
        public var index: Int
        public var features: Features
    }

    /// Where `weigh` puts each candidate: the best so far (`choose`) or all of them (`candidates`).
    private protocol Sink {
        mutating func take(_ index: Int, _ features: Features)
    }

    private struct Best: Sink {
        var score = -Double.infinity, index = -1, distance = 0.0
        @inline(__always) mutating func take(_ index: Int, _ features: Features) {
            let s = features.score
            if s > score { (score, self.index, distance) = (s, index, features.distance) }
        }
    }

    private struct All: Sink {
        var candidates: [Candidate] = []
        mutating func take(_ index: Int, _ features: Features) { candidates.append(Candidate(index: index, features: features)) }
    }

    func choose(_ q: GeoPoint, maxDistance: Double) -> (index: Int, planarMetres: Double)? {
        var sink = Best()
        guard let first = weigh(q, maxDistance: maxDistance, into: &sink) else { return nil }
        var best = sink.index < 0 ? (index: first.index, planar: first.planarMetres) : (index: sink.index, planar: sink.distance)
        let points = addresses.points
        // Several addresses of one street on one spot are one building's (a duplex, a row of shops
        // on one point): records name it by its first number ("5509-5523 NE 29th Ave"), and the
        // scores above cannot tell them apart. Measured on the dev street trees: 86.27 → 87.37 %,
        // "colocated" failures 2,238 → 1,124 (each half of the neighbourhoods +1.0 / +1.2 points).
        let b = points[best.index]
        // The scale only where another address of the street is near (a cosine a call otherwise).
        var scale: LocalMetricScale?
        var lowest = b.number
        for item in list.items where item.index != best.index {
            let p = points[item.index]
            guard p.street == b.street, p.place == b.place, p.number < lowest else { continue }
            let s = scale ?? LocalMetricScale(latitude: q.y)
            scale = s
            let dx = (p.lon - b.lon) * s.metresPerDegreeX, dy = (p.lat - b.lat) * s.metresPerDegreeY
            if dx * dx + dy * dy <= Self.oneSpot * Self.oneSpot { (best, lowest) = ((item.index, item.squared.squareRoot()), p.number) }
        }
        return (best.index, best.planar)
    }

    /// Every candidate with what its score weighs, nearest first (for fitting the weights on a
    /// city's own records: `locus eval --frontage-features`). Empty when there is no address
    /// within `maxDistance`; one candidate with default features when nothing is weighed (a lone
    /// address, an index without frontages).
    public func candidates(_ q: GeoPoint, maxDistance: Double) -> [Candidate] {
        var sink = All()
        guard let first = weigh(q, maxDistance: maxDistance, into: &sink) else { return [] }
        return sink.candidates.isEmpty ? [Candidate(index: first.index, features: Features(distance: first.planarMetres))] : sink.candidates
    }

    /// Finds the candidates (every address within `reach` of the nearest, at most `candidates`)
    /// and gives each one's features to `sink`, nearest first; returns the nearest, or nil when
    /// there is none within `maxDistance`. The sink is given nothing when there is nothing to weigh.
    private func weigh<S: Sink>(_ q: GeoPoint, maxDistance: Double, into sink: inout S) -> (index: Int, planarMetres: Double)? {
        // One search for the dozen nearest; those beyond the reach of the nearest are dropped after.
        list.reset(maxDistance: maxDistance)
        addresses.search(lon: q.x, lat: q.y, into: &list)
        guard let nearest = list.items.first else { return nil }
        let first = (index: nearest.index, planarMetres: nearest.squared.squareRoot())
        let frontage = addresses.frontage
        // An index without frontages (none is opened so today) answers with the nearest point.
        guard frontage.count == addresses.points.count else { return first }
        let reach = (first.planarMetres + Self.reach) * (first.planarMetres + Self.reach)
        while let last = list.items.last, last.squared > reach { list.items.removeLast() }
        // A point on a building is that building's: the trees the weights were fitted on stand 5 m
        // or more from every house (3 of 99,185 nearer), so the score says nothing nearer.
        guard list.items.count > 1, first.planarMetres > Self.onBuilding else { return first }
        let s = LocalMetricScale(latitude: q.y)
        let points = addresses.points
        // Everything in metres with q at the origin.
        @inline(__always) func metres(_ i: Int) -> (Double, Double) {
            ((points.lon(i) - q.x) * s.metresPerDegreeX, (points.lat(i) - q.y) * s.metresPerDegreeY)
        }
        // One centre line per street, from its nearest address whose street has houses across.
        lines.removeAll(keepingCapacity: true)
        for item in list.items {
            let f = frontage[item.index], street = points.street(item.index)
            guard !f.centre.isNaN, !lines.contains(where: { $0.street == street }) else { continue }
            let c = metres(item.index), ux = Double(f.ux), uy = Double(f.uy), o = Double(f.centre)
            lines.append((street, c.0 - uy * o, c.1 + ux * o, ux, uy))
        }
        for item in list.items {
            let p = points[item.index], f = frontage[item.index]
            let c = ((p.lon - q.x) * s.metresPerDegreeX, (p.lat - q.y) * s.metresPerDegreeY)
            var x = Features(distance: item.squared.squareRoot())
            if f.hasDirection {
                let ux = Double(f.ux), uy = Double(f.uy)
                // From the house to the point.
                let along = -(c.0 * ux + c.1 * uy), across = -(c.0 * -uy + c.1 * ux)
                x.hasDirection = true
                x.along = abs(along)
                x.inFront = abs(across)
                x.overshoot = f.start.isNaN ? abs(along) : max(0, along - Double(f.end), Double(f.start) - along)
                x.alongAngle = abs(along) / max(x.distance, 1e-6)
                if !f.centre.isNaN {
                    let o = Double(f.centre)
                    if (across - o) * (0 - o) < 0 { x.acrossOwnStreet = min(abs(across - o), Weight.depthCap) }
                }
                x.endLots = (p.previous < 0 ? 1.0 : 0) + (p.next < 0 ? 1.0 : 0)
            } else {
                // No direction: nothing says the point is before the lot; judged as far beside it.
                x.inFront = x.distance
                x.overshoot = x.distance
                x.endLots = 1
            }
            for line in lines where line.street != p.street {
                // Signed distances from the line's centre to the point (the origin) and the house.
                let nx = -line.uy, ny = line.ux
                let et = -(line.x * nx + line.y * ny), ec = (c.0 - line.x) * nx + (c.1 - line.y) * ny
                guard et * ec < 0 else { continue }
                let t = et / (et - ec)
                let crossAlong = (t * c.0 - line.x) * line.ux + (t * c.1 - line.y) * line.uy
                guard abs(crossAlong) < Self.lineReach else { continue }
                x.streetsBetween += 1
                x.streetsBetweenDepth += min(abs(et), Weight.depthCap)
            }
            sink.take(item.index, x)
        }
        return first
    }

    /// Metres from an address point within which a point stands on its building.
    public static let onBuilding = 5.0

    /// Metres within which two address points stand on one spot.
    static let oneSpot = 2.0
}
