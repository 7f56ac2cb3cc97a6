import CGEOS
import LocusCore

/// One GEOS prepared geometry. Same thread rules as its `GEOSContext`.
final class GEOSPrepared {
    let context: GEOSContext
    let pointer: OpaquePointer
    /// The prepared geometry points into its source, which must outlive it.
    let source: GEOSGeometryHandle

    init(_ source: GEOSGeometryHandle) throws(LocusError) {
        guard let p = GEOSPrepare_r(source.context.handle, source.pointer) else {
            throw source.context.failure("preparing a geometry")
        }
        self.context = source.context
        self.pointer = p
        self.source = source
    }

    deinit { GEOSPreparedGeom_destroy_r(context.handle, pointer) }

    func covers(_ g: GEOSGeometryHandle) -> Bool {
        GEOSPreparedCovers_r(context.handle, pointer, g.pointer) == 1
    }
}

/// One GEOS STRtree whose items are integer indexes. Same thread rules as its `GEOSContext`.
final class GEOSTree {
    let context: GEOSContext
    let pointer: OpaquePointer
    /// Envelopes inserted into the tree are borrowed by it; they live as long as the tree.
    private var keepAlive: [GEOSGeometryHandle] = []

    final class Hits { var items: [Int] = [] }

    init(context: GEOSContext, nodeCapacity: Int = 10) throws(LocusError) {
        guard let t = GEOSSTRtree_create_r(context.handle, nodeCapacity) else { throw context.failure("creating an STRtree") }
        self.context = context
        self.pointer = t
    }

    deinit { GEOSSTRtree_destroy_r(context.handle, pointer) }

    func insert(_ geometry: GEOSGeometryHandle, item: Int) {
        keepAlive.append(geometry)
        GEOSSTRtree_insert_r(context.handle, pointer, geometry.pointer, UnsafeMutableRawPointer(bitPattern: item + 1))
    }

    /// Items whose envelope intersects the geometry's envelope, in no particular order.
    func query(_ geometry: GEOSGeometryHandle, into hits: Hits) {
        hits.items.removeAll(keepingCapacity: true)
        GEOSSTRtree_query_r(context.handle, pointer, geometry.pointer, { item, userdata in
            guard let userdata else { return }
            let hits = Unmanaged<Hits>.fromOpaque(userdata).takeUnretainedValue()
            hits.items.append(Int(bitPattern: item) - 1)
        }, Unmanaged.passUnretained(hits).toOpaque())
    }
}

/// A polygon layer answered the textbook way: an STRtree over the polygons' envelopes and a GEOS
/// prepared `covers` per candidate, a GEOS point made for every query.
///
/// Locus answers from `BoundaryLayer`; this is the reference it is tested against and the
/// "raw GEOS loop" it is benchmarked against. Not thread-safe: one per thread.
public final class GEOSReferenceLayer {
    private let context: GEOSContext
    private var prepared: [GEOSPrepared] = []
    private let tree: GEOSTree
    private let hits = GEOSTree.Hits()

    /// - Parameter polygons: WKB in lon/lat, in the layer's rank order.
    public init(polygonsWKB: [[UInt8]]) throws(LocusError) {
        context = try GEOSContext()
        tree = try GEOSTree(context: context)
        for (i, wkb) in polygonsWKB.enumerated() {
            let g = try context.readWKB(wkb)
            prepared.append(try GEOSPrepared(g))
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
}
