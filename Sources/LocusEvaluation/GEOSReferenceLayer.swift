import LocusCore
import LocusEngine

/// A polygon layer answered the textbook way: an STRtree over the polygons' envelopes and a GEOS
/// prepared `covers` per candidate, a GEOS point made for every query.
///
/// Locus answers from `BoundaryLayer`; this is the reference it is tested against and the
/// "raw GEOS loop" it is benchmarked against. Not thread-safe: one per thread.
public final class GEOSReferenceLayer {
    private let context: GEOSContext
    private var prepared: [GEOSPreparedGeometry] = []
    private let tree: GEOSTree
    private let hits = GEOSTree.Hits()

    /// - Parameter polygons: WKB in lon/lat, in the layer's rank order.
    public init(polygonsWKB: [[UInt8]]) throws(LocusError) {
        context = try GEOSContext()
        tree = try GEOSTree(context: context)
        for (i, wkb) in polygonsWKB.enumerated() {
            let g = try context.readWKB(wkb)
            prepared.append(try GEOSPreparedGeometry(g))
            tree.insert(g, item: i)
        }
    }

    /// Indexes of the polygons that cover the point, ascending.
    public func covering(x: Double, y: Double) throws(LocusError) -> [Int] {
        let p = try context.point(x: x, y: y)
        tree.query(p, into: hits)
        return hits.items.filter { prepared[$0].covers(p) }.sorted()
    }

    /// Number of covering polygons, without sorting or allocating a result (the benchmark loop).
    public func countCovering(x: Double, y: Double) throws(LocusError) -> Int {
        let p = try context.point(x: x, y: y)
        tree.query(p, into: hits)
        var n = 0
        for i in hits.items where prepared[i].covers(p) { n += 1 }
        return n
    }

    /// Indexes of the polygons that intersect the box (share a point with it), ascending: the
    /// reference for `BoundaryLayer.features(meeting:)`.
    public func meeting(_ box: Envelope) throws(LocusError) -> [Int] {
        // The box as a WKB polygon (little-endian, one closed ring).
        var wkb: [UInt8] = [1]
        func put(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { wkb += $0 } }
        func put(_ v: Double) { withUnsafeBytes(of: v.bitPattern.littleEndian) { wkb += $0 } }
        put(UInt32(3))
        put(UInt32(1))
        put(UInt32(5))
        for (x, y) in [(box.minX, box.minY), (box.maxX, box.minY), (box.maxX, box.maxY), (box.minX, box.maxY), (box.minX, box.minY)] {
            put(x)
            put(y)
        }
        let g = try context.readWKB(wkb)
        tree.query(g, into: hits)
        return hits.items.filter { prepared[$0].intersects(g) }.sorted()
    }
}
