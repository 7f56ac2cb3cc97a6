import LocusCore

/// A place where two streets meet: the closest pair of their address points there (`a` of the
/// first street, `b` of the second) and the squared metres between them.
struct Crossing {
    let a: Int32
    let b: Int32
    let squaredGap: Double
}

/// One street's address points in square cells of `size` metres, so that the points within
/// `size` of a place are found in its cell and the eight around it, not by comparing every pair.
///
/// The points lie in one array sorted by column, row and position in the list: the three cells
/// of a column around a place are one run, found by a binary search. (A dictionary of cells cost
/// nine hashed lookups a point: hashing was a fifth of geocoding "se 32n />30th", two numbered
/// streets' many namesakes paired, 5.6 ms, the geocoder fuzzer's 13 ms instrumented.)
struct StreetPointCells {
    let size: Double
    let points: PointTable
    let scale: LocalMetricScale
    private var entries: [Entry] = []

    private struct Entry {
        let column: Int32, row: Int32
        let index: Int
        let x: Double, y: Double
        let number: Int32
    }

    /// The box of the points kept, in metres (`position(of:)`); empty when none is.
    private(set) var extent = Envelope.empty

    /// `list`'s points by their positions in it; with `near`, only those within one of its boxes
    /// (metres, as `position(of:)` gives them).
    init(_ list: Slice<StoredIDs>, points: PointTable, scale: LocalMetricScale, size: Double, near boxes: [Envelope]? = nil) {
        self.size = size
        self.points = points
        self.scale = scale
        entries.reserveCapacity(list.count)
        for k in list.indices {
            let i = Int(list[k])
            guard let p = position(of: list[k]), let c = cell(p.x, p.y) else { continue }
            if let boxes, !boxes.contains(where: { $0.contains(x: p.x, y: p.y) }) { continue }
            entries.append(Entry(column: c.column, row: c.row, index: k, x: p.x, y: p.y, number: points.number(i)))
            extent.extend(x: p.x, y: p.y)
        }
        entries.sort { ($0.column, $0.row, $0.index) < ($1.column, $1.row, $1.index) }
    }

    /// Metres east and north of the point's (from lon/lat 0, 0 at the street's scale); nil for a
    /// damaged coordinate (NaN, huge), which is in no cell and meets nothing.
    func position(of id: Int32) -> (x: Double, y: Double)? { Self.position(of: id, in: points, scale: scale) }

    /// `position(of:)` without cells: the same metres, for boxes that must hold what cells hold.
    static func position(of id: Int32, in points: PointTable, scale: LocalMetricScale) -> (x: Double, y: Double)? {
        let x = points.lon(Int(id)) * scale.metresPerDegreeX, y = points.lat(Int(id)) * scale.metresPerDegreeY
        guard x.isFinite, y.isFinite else { return nil }
        return (x, y)
    }

    /// The cell a position lies in, by column and row; nil beyond any street's (and where a
    /// neighbouring cell's number would not be an Int32).
    private func cell(_ x: Double, _ y: Double) -> (column: Int32, row: Int32)? {
        let cx = (x / size).rounded(.down), cy = (y / size).rounded(.down)
        guard abs(cx) < 1e9, abs(cy) < 1e9 else { return nil }
        return (Int32(cx), Int32(cy))
    }

    /// Each point within a cell of `p` (some further than `size`), with its position in the list
    /// and its squared distance from `p`.
    func forEachNear(_ p: (x: Double, y: Double), _ body: (Int, Double) -> Void) {
        forEachEntry(near: p) { r in body(r.index, (p.x - r.x) * (p.x - r.x) + (p.y - r.y) * (p.y - r.y)) }
    }

    /// Whether a point of the list with another number than address `id`'s lies within `reach`
    /// (at most `size`) of it: the street goes on there, rather than one stray address (and the
    /// units of its building) standing alone.
    func hasOtherNumber(near id: Int32, within reach: Double) -> Bool {
        guard let p = position(of: id) else { return false }
        let number = points.number(Int(id))
        var found = false
        forEachEntry(near: p) { r in
            if !found, r.number != number, (p.x - r.x) * (p.x - r.x) + (p.y - r.y) * (p.y - r.y) <= reach * reach { found = true }
        }
        return found
    }

    private func forEachEntry(near p: (x: Double, y: Double), _ body: ((index: Int, x: Double, y: Double, number: Int32)) -> Void) {
        guard let c = cell(p.x, p.y) else { return }
        for column in c.column - 1...c.column + 1 {
            // The first entry at or after (column, row - 1), then the run up to row + 1.
            var (lo, hi) = (0, entries.count)
            while lo < hi {
                let mid = (lo + hi) / 2
                let e = entries[mid]
                if (e.column, e.row) < (column, c.row - 1) { lo = mid + 1 } else { hi = mid }
            }
            while lo < entries.count, entries[lo].column == column, entries[lo].row <= c.row + 1 {
                let e = entries[lo]
                body((e.index, e.x, e.y, e.number))
                lo += 1
            }
        }
    }
}
