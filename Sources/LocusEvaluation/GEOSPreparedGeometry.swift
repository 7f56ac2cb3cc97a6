import CGEOS
import LocusCore
import LocusEngine

/// One GEOS prepared geometry. Same thread rules as its `GEOSContext`.
final class GEOSPreparedGeometry {
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

    func intersects(_ g: GEOSGeometryHandle) -> Bool {
        GEOSPreparedIntersects_r(context.handle, pointer, g.pointer) == 1
    }
}
