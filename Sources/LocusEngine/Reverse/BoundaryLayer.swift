import Foundation
import LocusCore
import Synchronization

/// One polygon of a layer: what an answer says about it.
public struct BoundaryFeature: Sendable, Hashable {
    public var id: String
    public var name: String
    /// The source's fields. Read from an index, decoded when first asked for (decoding every
    /// feature's at open was 50 ms of a one-shot's time at 2,940 polygons).
    public var attributes: [String: JSONValue] {
        get { storedAttributes.value }
        set { storedAttributes = StoredAttributes(newValue) }
    }
    private var storedAttributes: StoredAttributes
    /// Square metres, used to put the most specific (smallest) polygon first.
    public var areaSquareMetres: Double
    public var envelope: Envelope

    public init(id: String, name: String, attributes: [String: JSONValue], areaSquareMetres: Double, envelope: Envelope) {
        self.init(id: id, name: name, attributes: StoredAttributes(attributes), areaSquareMetres: areaSquareMetres, envelope: envelope)
    }

    /// With the attributes as the index stores them (a JSON object), decoded on first use.
    init(id: String, name: String, attributesJSON: String, areaSquareMetres: Double, envelope: Envelope) {
        self.init(id: id, name: name, attributes: StoredAttributes(json: attributesJSON), areaSquareMetres: areaSquareMetres, envelope: envelope)
    }

    private init(id: String, name: String, attributes: StoredAttributes, areaSquareMetres: Double, envelope: Envelope) {
        self.id = id
        self.name = name
        storedAttributes = attributes
        self.areaSquareMetres = areaSquareMetres
        self.envelope = envelope
    }

    public static func == (a: BoundaryFeature, b: BoundaryFeature) -> Bool {
        a.id == b.id && a.name == b.name && a.areaSquareMetres == b.areaSquareMetres && a.envelope == b.envelope && a.attributes == b.attributes
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(name)
        hasher.combine(areaSquareMetres)
        hasher.combine(envelope)
        hasher.combine(attributes)
    }

    /// Attributes decoded once, by whichever thread first asks; unreadable JSON (a damaged
    /// file) reads as none.
    private final class StoredAttributes: Sendable {
        let json: String
        let decoded: Mutex<[String: JSONValue]?>

        init(_ value: [String: JSONValue]) {
            json = ""
            decoded = Mutex(value)
        }

        init(json: String) {
            self.json = json
            decoded = Mutex(nil)
        }

        var value: [String: JSONValue] {
            decoded.withLock { cached in
                if let cached { return cached }
                let value = (try? JSONDecoder().decode([String: JSONValue].self, from: Data(json.utf8))) ?? [:]
                cached = value
                return value
            }
        }
    }
}

/// A layer of named polygons (neighbourhoods, districts, zones) answering "which polygons cover this
/// point" in well under a microsecond.
///
/// GEOS validates and repairs the polygons when the index is built; answering uses a structure of
/// Locus's own because the GEOS C API (3.11, Debian 12) needs a heap-allocated point geometry per
/// query plus an STRtree callback per candidate, which alone costs more than the whole answer here.
///
/// The layer's extent is cut into a grid of cells. For every cell each polygon is either absent,
/// covers the whole cell ("full"), or has boundary in it ("partial"). A point in a full cell is
/// answered without arithmetic. For a partial cell Locus keeps the polygon's edges that cross the
/// cell's horizontal band: the crossing-number test along a horizontal ray only ever meets edges
/// that cross the ray's own line, so those few edges decide the point exactly, with the same
/// half-open rule and orientation test GEOS's ray-crossing counter uses. Points on the boundary are
/// covered (the `covers` predicate).
///
/// Immutable after init and `Sendable`: one layer serves every thread.
public final class BoundaryLayer: Sendable {
    public let name: String
    /// In rank order: smallest area first. Query results are indexes into this array.
    public let features: [BoundaryFeature]

    let extent: Envelope
    let columns: Int
    let rows: Int
    let cellWidth: Double
    let cellHeight: Double
    /// Entries of cell `i` are `entries[cellStart[i] ..< cellStart[i + 1]]` (u32), in rank order.
    let cellStart: PackedRecords
    /// `CellEntry` records (feature, edge start, edge count: u32 each).
    let entries: PackedRecords
    /// Edges per (feature, band), referenced by partial entries (`Edge`: four f64).
    let bandEdges: PackedRecords
    /// All edges of each feature, for distances: `featureEdges[featureEdgeStart[f] ..< featureEdgeStart[f + 1]]`.
    let featureEdges: PackedRecords
    let featureEdgeStart: PackedRecords
    /// A point inside each feature (`labelPoint`), worked out with the grid.
    let labels: PackedRecords

    struct Edge: Sendable {
        var ax: Double, ay: Double, bx: Double, by: Double

        static let packedSize = 32

        @inline(__always) init(ax: Double, ay: Double, bx: Double, by: Double) {
            self.ax = ax
            self.ay = ay
            self.bx = bx
            self.by = by
        }

        @inline(__always) init(_ bytes: UnsafeRawBufferPointer, _ i: Int) {
            let o = i * Self.packedSize
            @inline(__always) func f(_ k: Int) -> Double {
                Double(bitPattern: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: o + k, as: UInt64.self)))
            }
            self.init(ax: f(0), ay: f(8), bx: f(16), by: f(24))
        }

        func pack(into out: inout [UInt8]) {
            for v in [ax, ay, bx, by] { withUnsafeBytes(of: v.bitPattern.littleEndian) { out += $0 } }
        }
    }

    struct CellEntry: Sendable {
        var feature: UInt32
        var edgeStart: UInt32
        /// 0 when the feature covers the whole cell.
        var edgeCount: UInt32

        static let packedSize = 12
    }

    /// The layer as the index stores it (`LayerTables`), used where it lies: nothing is derived at
    /// open. The shapes were checked by the caller; the contents are clamped as they are read.
    init(name: String, features: [BoundaryFeature], extent: Envelope, columns: Int, rows: Int, cellStart: PackedRecords,
         entries: PackedRecords, bandEdges: PackedRecords, featureEdges: PackedRecords, featureEdgeStart: PackedRecords,
         labels: PackedRecords) {
        self.name = name
        self.features = features
        self.extent = extent
        self.columns = columns
        self.rows = rows
        cellWidth = max(extent.width, 1e-12) / Double(columns)
        cellHeight = max(extent.height, 1e-12) / Double(rows)
        self.cellStart = cellStart
        self.entries = entries
        self.bandEdges = bandEdges
        self.featureEdges = featureEdges
        self.featureEdgeStart = featureEdgeStart
        self.labels = labels
    }

    /// - Parameters:
    ///   - features: the layer's features in rank order.
    ///   - rings: for each feature, every ring (shells and holes) in lon/lat.
    ///   - targetCells: about how many grid cells to use; more cells means more points answered
    ///     without arithmetic, at 4 bytes a cell.
    public init(name: String, features: [BoundaryFeature], rings: [[[GeoPoint]]], targetCells: Int? = nil) {
        precondition(features.count == rings.count)
        self.name = name
        self.features = features

        var edgesByFeature: [[Edge]] = []
        var extent = Envelope.empty
        var vertexCount = 0
        for featureRings in rings {
            var list: [Edge] = []
            for ring in featureRings where ring.count >= 2 {
                vertexCount += ring.count
                for i in 0..<(ring.count - 1) {
                    let a = ring[i], b = ring[i + 1]
                    if a == b { continue }
                    list.append(Edge(ax: a.x, ay: a.y, bx: b.x, by: b.y))
                    extent.extend(x: a.x, y: a.y)
                }
                if let last = ring.last { extent.extend(x: last.x, y: last.y) }
            }
            edgesByFeature.append(list)
        }
        var allEdges: [UInt8] = []
        var starts: [UInt32] = [0]
        for list in edgesByFeature {
            for e in list { e.pack(into: &allEdges) }
            starts.append(UInt32(allEdges.count / Edge.packedSize))
        }
        let featureEdges = PackedRecords(packed: allEdges, stride: Edge.packedSize)
        let featureEdgeStart = PackedRecords(packed: Self.pack(starts), stride: 4)
        self.featureEdges = featureEdges
        self.featureEdgeStart = featureEdgeStart

        if extent.isEmpty { extent = Envelope(minX: 0, minY: 0, maxX: 0, maxY: 0) }
        // Cells square on the ground, sized so that boundaries occupy a small share of them.
        let cells = Double(targetCells ?? min(max(vertexCount * 16, 1 << 16), 1 << 22))
        let cosLat = max(cos((extent.minY + extent.maxY) / 2 * .pi / 180), 0.01)
        let groundWidth = max(extent.width * cosLat, 1e-9), groundHeight = max(extent.height, 1e-9)
        let side = (groundWidth * groundHeight / cells).squareRoot()
        let columns = max(1, min(Int((groundWidth / side).rounded(.up)), 1 << 14))
        let rows = max(1, min(Int((groundHeight / side).rounded(.up)), 1 << 14))
        self.extent = extent
        self.columns = columns
        self.rows = rows
        let cellWidth = max(extent.width, 1e-12) / Double(columns), cellHeight = max(extent.height, 1e-12) / Double(rows)
        self.cellWidth = cellWidth
        self.cellHeight = cellHeight

        var builder = GridBuilder(extent: extent, columns: columns, rows: rows, cellWidth: cellWidth, cellHeight: cellHeight)
        for (f, list) in edgesByFeature.enumerated() {
            builder.add(feature: UInt32(f), edges: list)
        }
        let (cellStart, entries, bandEdges) = builder.finish()
        self.cellStart = PackedRecords(packed: Self.pack(cellStart), stride: 4)
        var entryBytes: [UInt8] = []
        entryBytes.reserveCapacity(entries.count * CellEntry.packedSize)
        for e in entries { entryBytes += Self.pack([e.feature, e.edgeStart, e.edgeCount]) }
        self.entries = PackedRecords(packed: entryBytes, stride: CellEntry.packedSize)
        var edgeBytes: [UInt8] = []
        edgeBytes.reserveCapacity(bandEdges.count * Edge.packedSize)
        for e in bandEdges { e.pack(into: &edgeBytes) }
        self.bandEdges = PackedRecords(packed: edgeBytes, stride: Edge.packedSize)
        var labelBytes: [UInt8] = []
        for f in features.indices {
            let p = Self.labelPoint(features[f].envelope, edges: Self.edgeRange(featureEdgeStart, f, featureEdges.count), featureEdges)
            for v in [p.x, p.y] { withUnsafeBytes(of: v.bitPattern.littleEndian) { labelBytes += $0 } }
        }
        labels = PackedRecords(packed: labelBytes, stride: 16)
    }

    static func pack(_ values: [UInt32]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: values.count * 4)
        out.withUnsafeMutableBytes { raw in
            for (i, v) in values.enumerated() { raw.storeBytes(of: v.littleEndian, toByteOffset: i * 4, as: UInt32.self) }
        }
        return out
    }

    /// The edges of feature `f` within `featureEdges`; empty where the stored starts are out of
    /// order or beyond the edges (a damaged file: the mapped tables are not checked at open).
    @inline(__always) static func edgeRange(_ starts: PackedRecords, _ f: Int, _ edgeCount: Int) -> Range<Int> {
        guard f >= 0, f + 1 < starts.count else { return 0..<0 }
        let lo = Int(starts.u32(f, 0)), hi = Int(starts.u32(f + 1, 0))
        return lo <= hi && hi <= edgeCount ? lo..<hi : 0..<0
    }

    func edges(ofFeature f: Int) -> Range<Int> { Self.edgeRange(featureEdgeStart, f, featureEdges.count) }

    @inline(__always) func featureEdge(_ i: Int) -> Edge { Edge(featureEdges.bytes, i) }

    /// The entries of a cell, clamped as `AddressIndex.cellRange` clamps its cells.
    @inline(__always) func cellRange(_ cell: Int) -> Range<Int> {
        guard cell >= 0, cell + 1 < cellStart.count else { return 0..<0 }
        let starts = cellStart.bytes
        let lo = Int(UInt32(littleEndian: starts.loadUnaligned(fromByteOffset: cell * 4, as: UInt32.self)))
        let hi = Int(UInt32(littleEndian: starts.loadUnaligned(fromByteOffset: cell * 4 + 4, as: UInt32.self)))
        return lo <= hi && hi <= entries.count ? lo..<hi : 0..<0
    }

    /// Indexes (into `features`) of every polygon that covers the point, smallest first.
    public func covering(x: Double, y: Double) -> [Int] {
        var out: [Int] = []
        forEachCovering(x: x, y: y) { out.append($0) }
        return out
    }

    /// How many polygons cover the point, with no allocation (the benchmark loop and bulk counting).
    public func coveringCount(x: Double, y: Double) -> Int {
        var n = 0
        forEachCovering(x: x, y: y) { _ in n += 1 }
        return n
    }

    @inline(__always)
    func forEachCovering(x: Double, y: Double, _ body: (Int) -> Void) {
        guard x >= extent.minX, x <= extent.maxX, y >= extent.minY, y <= extent.maxY else { return }
        let c = min(Int((x - extent.minX) / cellWidth), columns - 1)
        let r = min(Int((y - extent.minY) / cellHeight), rows - 1)
        let featureCount = features.count, edgeCount = bandEdges.count
        // Raw loads at the layout's constant strides (through `PackedRecords`, whose stride is a
        // stored value, this loop ran 10–20 % slower); each entry's feature and edges checked
        // against their tables (a damaged file answers wrongly, never traps).
        guard let base = entries.bytes.baseAddress else { return }
        let edges = bandEdges.bytes
        @inline(__always) func u32(_ offset: Int) -> Int {
            Int(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        }
        for i in cellRange(r * columns + c) {
            let o = i * CellEntry.packedSize
            let feature = u32(o), start = u32(o + 4), count = u32(o + 8)
            guard feature < featureCount else { continue }
            if count == 0 || (start <= edgeCount && count <= edgeCount - start && Self.covers(edges, start, count, x, y)) {
                body(feature)
            }
        }
    }

    /// Crossing-number test over the edges that cross the point's horizontal band.
    @inline(__always)
    static func covers(_ edges: UnsafeRawBufferPointer, _ start: Int, _ count: Int, _ x: Double, _ y: Double) -> Bool {
        var inside = false
        for i in start..<(start + count) {
            let e = Edge(edges, i)
            let aAbove = e.ay > y, bAbove = e.by > y
            if aAbove != bAbove {
                let orient = (e.ax - x) * (e.by - y) - (e.bx - x) * (e.ay - y)
                if orient == 0 { return true }
                if (orient > 0) == bAbove { inside.toggle() }
            } else if e.ay == y {
                // Boundary cases the crossing rule cannot see: the point on a vertex or on a horizontal edge.
                if e.ax == x { return true }
                if e.by == y, x >= min(e.ax, e.bx), x <= max(e.ax, e.bx) { return true }
            } else if e.by == y, e.bx == x {
                return true
            }
        }
        return inside
    }

    /// The polygon nearest the point within `maxDistance` metres, for points no polygon covers.
    public func nearest(x: Double, y: Double, maxDistance: Double) -> (feature: Int, distanceMetres: Double)? {
        let scale = LocalMetricScale(latitude: y)
        let dx = maxDistance / scale.metresPerDegreeX, dy = maxDistance / scale.metresPerDegreeY
        let box = Envelope(minX: x - dx, minY: y - dy, maxX: x + dx, maxY: y + dy)
        guard box.intersects(extent) else { return nil }
        let c0 = max(0, Int((box.minX - extent.minX) / cellWidth)), c1 = min(columns - 1, Int((box.maxX - extent.minX) / cellWidth))
        let r0 = max(0, Int((box.minY - extent.minY) / cellHeight)), r1 = min(rows - 1, Int((box.maxY - extent.minY) / cellHeight))
        var candidates = Set<UInt32>()
        guard c0 <= c1, r0 <= r1 else { return nil }
        for r in r0...r1 {
            for c in c0...c1 {
                for i in cellRange(r * columns + c) where Int(entries.u32(i, 0)) < features.count { candidates.insert(entries.u32(i, 0)) }
            }
        }
        var best: (feature: Int, distanceMetres: Double)?
        for f in candidates.sorted() {
            let d = distance(toFeature: Int(f), x: x, y: y, scale: scale)
            if d <= maxDistance, best == nil || d < best!.distanceMetres { best = (Int(f), d) }
        }
        return best
    }

    /// Metres from the point to the feature's boundary, on a plane fitted at the point's latitude.
    func distance(toFeature f: Int, x: Double, y: Double, scale: LocalMetricScale) -> Double {
        var best = Double.infinity
        let kx = scale.metresPerDegreeX, ky = scale.metresPerDegreeY
        for i in edges(ofFeature: f) {
            let e = featureEdge(i)
            let ax = (e.ax - x) * kx, ay = (e.ay - y) * ky
            let bx = (e.bx - x) * kx, by = (e.by - y) * ky
            let vx = bx - ax, vy = by - ay
            let len2 = vx * vx + vy * vy
            var t = len2 > 0 ? -(ax * vx + ay * vy) / len2 : 0
            t = min(max(t, 0), 1)
            let px = ax + t * vx, py = ay + t * vy
            best = min(best, (px * px + py * py).squareRoot())
        }
        return best
    }
}

/// Builds the cell lists of a `BoundaryLayer`, one feature at a time.
private struct GridBuilder {
    let extent: Envelope
    let columns: Int
    let rows: Int
    let cellWidth: Double
    let cellHeight: Double
    /// Widens every boundary test so a boundary exactly on a grid line marks the cells on both sides.
    let slackX: Double
    let slackY: Double

    var pending: [(cell: UInt32, entry: BoundaryLayer.CellEntry)] = []
    var bandEdges: [BoundaryLayer.Edge] = []

    init(extent: Envelope, columns: Int, rows: Int, cellWidth: Double, cellHeight: Double) {
        self.extent = extent
        self.columns = columns
        self.rows = rows
        self.cellWidth = cellWidth
        self.cellHeight = cellHeight
        slackX = cellWidth * 1e-7
        slackY = cellHeight * 1e-7
    }

    func column(_ x: Double) -> Int { min(max(Int(((x - extent.minX) / cellWidth).rounded(.down)), 0), columns - 1) }
    func row(_ y: Double) -> Int { min(max(Int(((y - extent.minY) / cellHeight).rounded(.down)), 0), rows - 1) }

    mutating func add(feature: UInt32, edges: [BoundaryLayer.Edge]) {
        guard !edges.isEmpty else { return }
        var box = Envelope.empty
        for e in edges {
            box.extend(x: e.ax, y: e.ay)
            box.extend(x: e.bx, y: e.by)
        }
        let c0 = column(box.minX - slackX), c1 = column(box.maxX + slackX)
        let r0 = row(box.minY - slackY), r1 = row(box.maxY + slackY)
        let width = c1 - c0 + 1, height = r1 - r0 + 1
        var boundary = [Bool](repeating: false, count: width * height)
        var bands = [[Int32]](repeating: [], count: height)

        for (index, e) in edges.enumerated() {
            let minY = min(e.ay, e.by), maxY = max(e.ay, e.by)
            for r in row(minY - slackY)...row(maxY + slackY) { bands[r - r0].append(Int32(index)) }
            // Mark every cell the segment passes through, column by column.
            let (lx, ly, rx, ry) = e.ax <= e.bx ? (e.ax, e.ay, e.bx, e.by) : (e.bx, e.by, e.ax, e.ay)
            for c in column(lx - slackX)...column(rx + slackX) {
                let cellLeft = extent.minX + Double(c) * cellWidth - slackX
                let cellRight = cellLeft + cellWidth + 2 * slackX
                let x0 = max(lx, cellLeft), x1 = min(rx, cellRight)
                var y0: Double, y1: Double
                if rx - lx > 0 {
                    let slope = (ry - ly) / (rx - lx)
                    y0 = ly + (x0 - lx) * slope
                    y1 = ly + (x1 - lx) * slope
                } else {
                    (y0, y1) = (ly, ry)
                }
                if y0 > y1 { swap(&y0, &y1) }
                for r in row(y0 - slackY)...row(y1 + slackY) { boundary[(r - r0) * width + (c - c0)] = true }
            }
        }

        for localRow in 0..<height {
            let band = bands[localRow]
            let start = bandEdges.count
            for i in band { bandEdges.append(edges[Int(i)]) }
            let count = bandEdges.count - start
            var packedBand: [UInt8] = []
            for i in band { edges[Int(i)].pack(into: &packedBand) }
            let r = r0 + localRow
            let centreY = extent.minY + (Double(r) + 0.5) * cellHeight
            var runInside: Bool?  // status of the current run of boundary-free cells
            for localColumn in 0..<width {
                let c = c0 + localColumn
                let cell = UInt32(r * columns + c)
                if boundary[localRow * width + localColumn] {
                    runInside = nil
                    pending.append((cell, .init(feature: feature, edgeStart: UInt32(start), edgeCount: UInt32(count))))
                    continue
                }
                if runInside == nil {
                    let centreX = extent.minX + (Double(c) + 0.5) * cellWidth
                    runInside = packedBand.withUnsafeBytes { BoundaryLayer.covers($0, 0, count, centreX, centreY) }
                }
                if runInside == true {
                    pending.append((cell, .init(feature: feature, edgeStart: 0, edgeCount: 0)))
                }
            }
        }
    }

    /// Groups entries by cell, keeping the order features were added in (rank order).
    func finish() -> ([UInt32], [BoundaryLayer.CellEntry], [BoundaryLayer.Edge]) {
        var starts = [UInt32](repeating: 0, count: columns * rows + 1)
        for p in pending { starts[Int(p.cell) + 1] += 1 }
        for i in 0..<(columns * rows) { starts[i + 1] += starts[i] }
        var cursor = starts
        var entries = [BoundaryLayer.CellEntry](repeating: .init(feature: 0, edgeStart: 0, edgeCount: 0), count: pending.count)
        for p in pending {
            entries[Int(cursor[Int(p.cell)])] = p.entry
            cursor[Int(p.cell)] += 1
        }
        return (starts, entries, bandEdges)
    }
}

#if canImport(Glibc)
import Glibc
#endif

extension BoundaryLayer {
    /// A point inside the feature, for answers that name the polygon itself: the middle of the
    /// widest inside stretch of the horizontal line through the middle of its envelope.
    public func labelPoint(feature f: Int) -> GeoPoint {
        guard features.indices.contains(f), f < labels.count else { return GeoPoint(x: 0, y: 0) }
        let x = labels.f64(f, 0), y = labels.f64(f, 8)
        // Stored: a damaged one (NaN, out of range) reads as the middle of the feature's envelope.
        guard abs(x) <= 180, abs(y) <= 90 else {
            let e = features[f].envelope
            return GeoPoint(x: (e.minX + e.maxX) / 2, y: (e.minY + e.maxY) / 2)
        }
        return GeoPoint(x: x, y: y)
    }

    static func labelPoint(_ e: Envelope, edges range: Range<Int>, _ featureEdges: PackedRecords) -> GeoPoint {
        let y = (e.minY + e.maxY) / 2
        var xs: [Double] = []
        for i in range {
            let edge = Edge(featureEdges.bytes, i)
            if (edge.ay > y) != (edge.by > y) {
                xs.append(edge.ax + (y - edge.ay) * (edge.bx - edge.ax) / (edge.by - edge.ay))
            }
        }
        xs.sort()
        var best: (Double, Double)?
        var i = 0
        while i + 1 < xs.count {
            if best.map({ xs[i + 1] - xs[i] > $0.1 - $0.0 }) ?? true { best = (xs[i], xs[i + 1]) }
            i += 2
        }
        if let best { return GeoPoint(x: (best.0 + best.1) / 2, y: y) }
        return GeoPoint(x: (e.minX + e.maxX) / 2, y: y)
    }
}

extension BoundaryLayer {
    /// A feature's polygons, rebuilt from its edges (the layer keeps no other copy of its
    /// geometry): each polygon is a shell followed by its holes, shells clockwise and holes
    /// counter-clockwise (Esri's rule; GeoJSON readers accept either), every ring closed.
    ///
    /// A ring's edges are stored one after another, so a ring ends where an edge returns to its
    /// first vertex (or where the next edge does not start at the last one's end). Which rings
    /// are holes: those of the other orientation than the largest ring, given to the shell that
    /// contains them.
    public func polygons(feature f: Int) -> [[[GeoPoint]]] {
        guard features.indices.contains(f) else { return [] }
        var rings: [[GeoPoint]] = []
        var ring: [GeoPoint] = []
        for i in edges(ofFeature: f) {
            let e = featureEdge(i)
            let a = GeoPoint(x: e.ax, y: e.ay), b = GeoPoint(x: e.bx, y: e.by)
            if let last = ring.last, last != a {
                rings.append(Self.closed(ring))
                ring = []
            }
            if ring.isEmpty { ring.append(a) }
            ring.append(b)
            if b == ring[0], ring.count >= 4 {
                rings.append(ring)
                ring = []
            }
        }
        if ring.count >= 3 { rings.append(Self.closed(ring)) }
        rings = rings.filter { $0.count >= 4 }
        guard let largest = rings.indices.max(by: { abs(Self.signedArea(rings[$0])) < abs(Self.signedArea(rings[$1])) }) else { return [] }
        let shellSign = Self.signedArea(rings[largest]) >= 0
        var shells: [[GeoPoint]] = []
        var holes: [[GeoPoint]] = []
        for r in rings {
            if (Self.signedArea(r) >= 0) == shellSign { shells.append(r) } else { holes.append(r) }
        }
        // Clockwise has a negative signed area (x east, y north).
        var polygons = shells.map { [Self.signedArea($0) < 0 ? $0 : $0.reversed()] }
        for hole in holes {
            let owner = polygons.firstIndex { Self.ringContains($0[0], hole[0]) } ?? 0
            polygons[owner].append(Self.signedArea(hole) > 0 ? hole : hole.reversed())
        }
        return polygons
    }

    private static func closed(_ ring: [GeoPoint]) -> [GeoPoint] {
        guard let first = ring.first, ring.last != first else { return ring }
        return ring + [first]
    }

    /// Shoelace area in square degrees: positive counter-clockwise.
    static func signedArea(_ ring: [GeoPoint]) -> Double {
        var sum = 0.0
        for i in 0..<max(ring.count - 1, 0) {
            sum += ring[i].x * ring[i + 1].y - ring[i + 1].x * ring[i].y
        }
        return sum / 2
    }

    /// Even-odd test of a point against one closed ring.
    static func ringContains(_ ring: [GeoPoint], _ p: GeoPoint) -> Bool {
        var inside = false
        for i in 0..<max(ring.count - 1, 0) {
            let a = ring[i], b = ring[i + 1]
            if (a.y > p.y) != (b.y > p.y), p.x < a.x + (p.y - a.y) * (b.x - a.x) / (b.y - a.y) { inside.toggle() }
        }
        return inside
    }
}

extension BoundaryLayer {
    /// Indexes (into `features`) of every polygon that meets the envelope — shares at least a
    /// point with it — in rank order: what a map asks for the polygons of its view.
    ///
    /// Exact, not by bounding box: a polygon meets the box when one of its edges does (which
    /// takes in polygons inside the box), or when the box lies inside it (its centre is covered).
    public func features(meeting box: Envelope) -> [Int] {
        guard !box.isEmpty, box.intersects(extent) else { return [] }
        let centreCovered = Set(covering(x: (box.minX + box.maxX) / 2, y: (box.minY + box.maxY) / 2))
        return features.indices.filter { f in
            guard features[f].envelope.intersects(box) else { return false }
            if centreCovered.contains(f) { return true }
            for i in edges(ofFeature: f) where Self.segment(featureEdge(i), meets: box) { return true }
            return false
        }
    }

    /// Whether the segment meets the box (Liang–Barsky clipping: some part of it survives).
    static func segment(_ e: Edge, meets box: Envelope) -> Bool {
        if box.contains(x: e.ax, y: e.ay) || box.contains(x: e.bx, y: e.by) { return true }
        let dx = e.bx - e.ax, dy = e.by - e.ay
        var t0 = 0.0, t1 = 1.0
        for (p, q) in [(-dx, e.ax - box.minX), (dx, box.maxX - e.ax), (-dy, e.ay - box.minY), (dy, box.maxY - e.ay)] {
            if p == 0 {
                if q < 0 { return false }
            } else {
                let t = q / p
                if p < 0 { t0 = max(t0, t) } else { t1 = min(t1, t) }
                if t0 > t1 { return false }
            }
        }
        return true
    }
}
