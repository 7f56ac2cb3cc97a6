import CGEOS
import LocusCore
import LocusEngine

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
