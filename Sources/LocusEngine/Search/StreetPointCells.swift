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
struct StreetPointCells {
    let size: Double
    let points: PointTable
    let scale: LocalMetricScale
    private var cells: [Int: [(index: Int, x: Double, y: Double, number: Int32)]] = [:]

    /// `list`'s points by their positions in it.
    init(_ list: Slice<StoredIDs>, points: PointTable, scale: LocalMetricScale, size: Double) {
        self.size = size
        self.points = points
        self.scale = scale
        for k in list.indices {
            let i = Int(list[k])
            guard let p = position(of: list[k]), let c = cell(p.x, p.y) else { continue }
            cells[Self.key(c.column, c.row), default: []].append((k, p.x, p.y, points.number(i)))
        }
    }

    /// Metres east and north of the point's (from lon/lat 0, 0 at the street's scale); nil for a
    /// damaged coordinate (NaN, huge), which is in no cell and meets nothing.
    func position(of id: Int32) -> (x: Double, y: Double)? {
        let x = points.lon(Int(id)) * scale.metresPerDegreeX, y = points.lat(Int(id)) * scale.metresPerDegreeY
        guard x.isFinite, y.isFinite else { return nil }
        return (x, y)
    }

    /// The cell a position lies in, by column and row; nil beyond any street's.
    private func cell(_ x: Double, _ y: Double) -> (column: Int, row: Int)? {
        let cx = (x / size).rounded(.down), cy = (y / size).rounded(.down)
        guard abs(cx) < 1e9, abs(cy) < 1e9 else { return nil }
        return (Int(cx), Int(cy))
    }

    private static func key(_ column: Int, _ row: Int) -> Int { column &* 2_000_000_003 &+ row }

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
        for dx in -1...1 {
            for dy in -1...1 {
                for r in cells[Self.key(c.column + dx, c.row + dy)] ?? [] { body(r) }
            }
        }
    }
}
