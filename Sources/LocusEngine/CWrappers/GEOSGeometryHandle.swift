import CGEOS
import LocusCore

/// One owned GEOS geometry, destroyed with its wrapper. Same thread rules as its `GEOSContext`.
package final class GEOSGeometryHandle {
    package let context: GEOSContext
    package let pointer: OpaquePointer

    init(context: GEOSContext, owning pointer: OpaquePointer) {
        self.context = context
        self.pointer = pointer
    }

    deinit {
        GEOSGeom_destroy_r(context.handle, pointer)
    }

    private var h: GEOSContextHandle_t { context.handle }

    enum Kind: Int32 {
        case point = 0, lineString, linearRing, polygon, multiPoint, multiLineString, multiPolygon, collection
    }

    var kind: Kind? { Kind(rawValue: GEOSGeomTypeId_r(h, pointer)) }
    var isEmpty: Bool { GEOSisEmpty_r(h, pointer) == 1 }

    /// nil when valid, else GEOS's reason ("Self-intersection at …").
    func invalidityReason() -> String? {
        var reason: UnsafeMutablePointer<CChar>?
        var location: OpaquePointer?
        let valid = GEOSisValidDetail_r(h, pointer, 0, &reason, &location)
        defer {
            if let reason { GEOSFree_r(h, reason) }
            if let location { GEOSGeom_destroy_r(h, location) }
        }
        if valid == 1 { return nil }
        return reason.map { String(cString: $0) } ?? "invalid geometry"
    }

    func makeValid() throws(LocusError) -> GEOSGeometryHandle {
        guard let g = GEOSMakeValid_r(h, pointer) else { throw context.failure("repairing a geometry") }
        return GEOSGeometryHandle(context: context, owning: g)
    }

    /// The polygons inside this geometry, flattening multi-parts and collections.
    func polygonParts() -> [GEOSGeometryHandle] {
        switch kind {
        case .polygon:
            return isEmpty ? [] : [clone()].compactMap { $0 }
        case .multiPolygon, .collection:
            let n = GEOSGetNumGeometries_r(h, pointer)
            var parts: [GEOSGeometryHandle] = []
            for i in 0..<max(n, 0) {
                guard let sub = GEOSGetGeometryN_r(h, pointer, i), let c = GEOSGeom_clone_r(h, sub) else { continue }
                parts.append(contentsOf: GEOSGeometryHandle(context: context, owning: c).polygonParts())
            }
            return parts
        default:
            return []
        }
    }

    private func clone() -> GEOSGeometryHandle? {
        GEOSGeom_clone_r(h, pointer).map { GEOSGeometryHandle(context: context, owning: $0) }
    }

    /// Applies `transform` to every coordinate; a nil from it fails the whole geometry.
    func transformed(_ transform: CoordinateTransform) throws(LocusError) -> GEOSGeometryHandle {
        let box = Unmanaged.passUnretained(transform).toOpaque()
        let result = GEOSGeom_transformXY_r(h, pointer, { x, y, userdata in
            guard let x, let y, let userdata else { return 0 }
            let t = Unmanaged<CoordinateTransform>.fromOpaque(userdata).takeUnretainedValue()
            guard let p = t.transform(GeoPoint(x: x.pointee, y: y.pointee)) else { return 0 }
            x.pointee = p.x
            y.pointee = p.y
            return 1
        }, box)
        guard let result else {
            throw LocusError(.importFailed, "coordinates could not be transformed to lon/lat (outside the CRS's area of use?)")
        }
        return GEOSGeometryHandle(context: context, owning: result)
    }

    /// Area in the square units of the coordinates (square degrees for lon/lat).
    var area: Double {
        var a = 0.0
        return GEOSArea_r(h, pointer, &a) == 1 ? a : 0
    }

    var envelope: Envelope {
        var e = Envelope.empty
        var v = 0.0
        if GEOSGeom_getXMin_r(h, pointer, &v) == 1 { e.minX = v }
        if GEOSGeom_getYMin_r(h, pointer, &v) == 1 { e.minY = v }
        if GEOSGeom_getXMax_r(h, pointer, &v) == 1 { e.maxX = v }
        if GEOSGeom_getYMax_r(h, pointer, &v) == 1 { e.maxY = v }
        return e
    }

    func wkb() throws(LocusError) -> [UInt8] {
        guard let writer = GEOSWKBWriter_create_r(h) else { throw context.failure("creating a WKB writer") }
        defer { GEOSWKBWriter_destroy_r(h, writer) }
        GEOSWKBWriter_setByteOrder_r(h, writer, Int32(GEOS_WKB_NDR.rawValue))
        GEOSWKBWriter_setOutputDimension_r(h, writer, 2)
        var size = 0
        guard let buffer = GEOSWKBWriter_write_r(h, writer, pointer, &size) else { throw context.failure("writing WKB") }
        defer { GEOSFree_r(h, buffer) }
        return Array(UnsafeBufferPointer(start: buffer, count: size))
    }

    /// Every ring of every polygon part, as closed coordinate lists.
    func rings() -> [[GeoPoint]] {
        var out: [[GeoPoint]] = []
        for part in kind == .polygon ? [self] : polygonParts() {
            if let shell = GEOSGetExteriorRing_r(h, part.pointer) { out.append(coordinates(of: shell)) }
            let holes = GEOSGetNumInteriorRings_r(h, part.pointer)
            for i in 0..<max(holes, 0) {
                if let ring = GEOSGetInteriorRingN_r(h, part.pointer, i) { out.append(coordinates(of: ring)) }
            }
        }
        return out
    }

    private func coordinates(of ring: OpaquePointer) -> [GeoPoint] {
        guard let seq = GEOSGeom_getCoordSeq_r(h, ring) else { return [] }
        var n: UInt32 = 0
        GEOSCoordSeq_getSize_r(h, seq, &n)
        var points: [GeoPoint] = []
        points.reserveCapacity(Int(n))
        for i in 0..<n {
            var x = 0.0, y = 0.0
            GEOSCoordSeq_getXY_r(h, seq, i, &x, &y)
            points.append(GeoPoint(x: x, y: y))
        }
        return points
    }
}
