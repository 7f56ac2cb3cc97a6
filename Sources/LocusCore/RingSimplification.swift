/// Douglas–Peucker generalisation of a closed ring, for drawing a polygon at a scale where
/// detail finer than `tolerance` (in the ring's own units: Esri's `maxAllowableOffset`) cannot
/// be seen. Not topology-preserving: neighbouring polygons may no longer share their edge
/// exactly, which a map drawn at that scale does not show.
public enum RingSimplification {
    /// The ring with every vertex within `tolerance` of the kept line dropped; nil when what is
    /// left is no longer a ring (fewer than four points, closing point included): a ring smaller
    /// than the tolerance, which would be drawn as a dot.
    ///
    /// Iterative (an explicit stack), so a ring of a million vertices cannot overflow the
    /// thread's stack; O(n log n) typical, O(n²) worst case, as Douglas–Peucker is.
    public static func simplified(_ ring: [GeoPoint], tolerance: Double) -> [GeoPoint]? {
        guard tolerance > 0, tolerance.isFinite else { return ring.count >= 4 ? ring : nil }
        // Open the ring: its closing point repeats the first.
        var open = ring
        if open.count > 1, open.first == open.last { open.removeLast() }
        guard open.count >= 3 else { return nil }
        // A closed ring has no chord to measure from: split it at the vertex furthest from the
        // first, and simplify the two halves.
        let first = open[0]
        var far = 0
        var farDistance = -1.0
        for (i, p) in open.enumerated() {
            let d = (p.x - first.x) * (p.x - first.x) + (p.y - first.y) * (p.y - first.y)
            if d > farDistance { (far, farDistance) = (i, d) }
        }
        guard far > 0 else { return nil }
        open.append(first)
        var keep = [Bool](repeating: false, count: open.count)
        keep[0] = true
        keep[far] = true
        keep[open.count - 1] = true
        var stack = [(0, far), (far, open.count - 1)]
        let squaredTolerance = tolerance * tolerance
        while let (a, b) = stack.popLast() {
            guard b > a + 1 else { continue }
            var worst = -1
            var worstDistance = squaredTolerance
            for i in (a + 1)..<b {
                let d = squaredDistance(open[i], open[a], open[b])
                if d > worstDistance { (worst, worstDistance) = (i, d) }
            }
            if worst >= 0 {
                keep[worst] = true
                stack.append((a, worst))
                stack.append((worst, b))
            }
        }
        let out = open.indices.filter { keep[$0] }.map { open[$0] }
        return out.count >= 4 ? out : nil
    }

    /// Squared distance from `p` to the segment `a`–`b`.
    public static func squaredDistance(_ p: GeoPoint, _ a: GeoPoint, _ b: GeoPoint) -> Double {
        let dx = b.x - a.x, dy = b.y - a.y
        let length = dx * dx + dy * dy
        var t = length > 0 ? ((p.x - a.x) * dx + (p.y - a.y) * dy) / length : 0
        t = min(max(t, 0), 1)
        let ex = a.x + t * dx - p.x, ey = a.y + t * dy - p.y
        return ex * ex + ey * ey
    }
}
