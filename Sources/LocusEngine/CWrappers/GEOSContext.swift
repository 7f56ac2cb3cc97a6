import CGEOS
import LocusCore

/// One GEOS context handle.
///
/// Thread rules: a context, and every geometry, prepared geometry and tree made with it, belongs to
/// one thread at a time. Nothing here is `Sendable`; code that queries from many threads makes a
/// context per thread.
///
/// `package`, not internal: the GEOS reference layer (LocusEvaluation) wraps prepared geometries
/// and trees of its own on these handles. Nothing of it is public.
package final class GEOSContext {
    package let handle: GEOSContextHandle_t
    private let messages: MessageBox

    /// Collects the last error GEOS reported through its callback, so a failed call can say why.
    final class MessageBox {
        var lastError: String = ""
    }

    package init() throws(LocusError) {
        // GEOS returns no context only when it cannot allocate one: a fault of this process, not
        // of the input, but the caller decides whether the process goes on.
        guard let handle = GEOS_init_r() else {
            throw LocusError(.internalError, "GEOS: no context (out of memory)")
        }
        self.handle = handle
        self.messages = MessageBox()
        let box = Unmanaged.passUnretained(messages).toOpaque()
        GEOSContext_setErrorMessageHandler_r(handle, { message, userdata in
            guard let message, let userdata else { return }
            Unmanaged<MessageBox>.fromOpaque(userdata).takeUnretainedValue().lastError = String(cString: message)
        }, box)
    }

    deinit {
        GEOS_finish_r(handle)
    }

    /// The error for a GEOS call that failed, with what GEOS said when it explains the input.
    package func failure(_ what: String) -> LocusError {
        let detail = messages.lastError
        messages.lastError = ""
        return LocusError(.internalError, detail.isEmpty ? "GEOS: \(what) failed" : "GEOS: \(what) failed: \(detail)")
    }

    package func readWKB(_ bytes: [UInt8]) throws(LocusError) -> GEOSGeometryHandle {
        guard let reader = GEOSWKBReader_create_r(handle) else { throw failure("creating a WKB reader") }
        defer { GEOSWKBReader_destroy_r(handle, reader) }
        let geometry = bytes.withUnsafeBufferPointer { GEOSWKBReader_read_r(handle, reader, $0.baseAddress, $0.count) }
        guard let geometry else { throw LocusError(.importFailed, "unreadable geometry (WKB): \(messages.lastError)") }
        return GEOSGeometryHandle(context: self, owning: geometry)
    }

    package func point(x: Double, y: Double) throws(LocusError) -> GEOSGeometryHandle {
        guard let g = GEOSGeom_createPointFromXY_r(handle, x, y) else { throw failure("creating a point") }
        return GEOSGeometryHandle(context: self, owning: g)
    }

    /// A MultiPolygon made of copies of the given polygons.
    func multiPolygon(_ polygons: [GEOSGeometryHandle]) throws(LocusError) -> GEOSGeometryHandle {
        var clones: [OpaquePointer?] = []
        for p in polygons {
            guard let c = GEOSGeom_clone_r(handle, p.pointer) else { throw failure("copying a polygon") }
            clones.append(c)
        }
        let made = clones.withUnsafeMutableBufferPointer {
            GEOSGeom_createCollection_r(handle, Int32(GEOS_MULTIPOLYGON.rawValue), $0.baseAddress, UInt32($0.count))
        }
        guard let made else { throw failure("building a multipolygon") }
        return GEOSGeometryHandle(context: self, owning: made)
    }
}
