import LocusCore
import LocusEngine

/// How well reverse geocoding names the lot a point fronts, built from the data itself.
///
/// For sampled addresses that have neighbours on both sides along their street and houses across
/// it, a test point is placed where a street tree would stand: between the address and the middle
/// of the street (50–90 % of the way to the centre line, which lies halfway to the houses across),
/// and anywhere along the lot's frontage (up to 80 % of the way to the halfway mark towards each
/// neighbour). The right answer is the address the point was placed in front of.
public struct ReverseEvaluation {
    public struct Report: Sendable {
        public var points: Int
        /// Correct answers per method.
        public var correct: [ReverseMethod: Int]
    }

    public let index: LocusIndex
    public let sample: Int
    public let seed: UInt64

    public init(index: LocusIndex, sample: Int, seed: UInt64) {
        self.index = index
        self.sample = sample
        self.seed = seed
    }

    /// (test point, address it fronts) pairs.
    public func testPoints() throws(LocusError) -> [(GeoPoint, Int)] {
        guard let a = index.addresses else { throw LocusError(.notFound, "the index has no addresses") }
        var rng = SeededGenerator(seed: seed)
        var out: [(GeoPoint, Int)] = []
        let points = a.points
        var tries = 0
        while out.count < sample, tries < sample * 20 {
            tries += 1
            let i = Int.random(in: 0..<a.count, using: &rng)
            let p = points[i]
            guard p.previous >= 0, p.next >= 0 else { continue }
            let s = LocalMetricScale(latitude: p.lat)
            func m(_ j: Int) -> (Double, Double) { ((points[j].lon - p.lon) * s.metresPerDegreeX, (points[j].lat - p.lat) * s.metresPerDegreeY) }
            let prev = m(Int(p.previous)), next = m(Int(p.next))
            var u = (next.0 - prev.0, next.1 - prev.1)
            let len = (u.0 * u.0 + u.1 * u.1).squareRoot()
            guard len > 5 else { continue }
            u = (u.0 / len, u.1 / len)
            let normal = (-u.1, u.0)
            // The houses across the street: same street, other parity, within 80 m.
            var acrossOffsets: [Double] = []
            for (j, _) in a.nearest(lon: p.lon, lat: p.lat, maxDistance: 80, count: 40) {
                let o = points[j]
                guard o.street == p.street, (o.number & 1) != (p.number & 1) else { continue }
                let v = m(j)
                acrossOffsets.append(v.0 * normal.0 + v.1 * normal.1)
            }
            guard acrossOffsets.count >= 2 else { continue }
            let mean = acrossOffsets.reduce(0, +) / Double(acrossOffsets.count)
            // The opposite houses must all be on one side and far enough for a street between.
            guard abs(mean) >= 15, acrossOffsets.allSatisfy({ ($0 > 0) == (mean > 0) }) else { continue }
            let back = -(prev.0 * u.0 + prev.1 * u.1) / 2, forward = (next.0 * u.0 + next.1 * u.1) / 2
            guard back > 2, forward > 2 else { continue }
            let across = mean / 2 * Double.random(in: 0.5...0.9, using: &rng)
            let along = Double.random(in: (-0.8 * back)...(0.8 * forward), using: &rng)
            let x = along * u.0 + across * normal.0, y = along * u.1 + across * normal.1
            out.append((GeoPoint(x: p.lon + x / s.metresPerDegreeX, y: p.lat + y / s.metresPerDegreeY), i))
        }
        return out
    }

    public func run() throws(LocusError) -> Report {
        let locator = Locator(index: index)
        let tests = try testPoints()
        var correct: [ReverseMethod: Int] = [:]
        for method in ReverseMethod.allCases {
            var n = 0
            for (q, truth) in tests {
                var r = ReverseRequest(location: q)
                r.method = method
                r.maxDistance = 100
                if let answer = try locator.reverse(r), let a = index.addresses {
                    let c = a.components(of: truth)
                    if answer.components == c { n += 1 }
                }
            }
            correct[method] = n
        }
        return Report(points: tests.count, correct: correct)
    }
}
