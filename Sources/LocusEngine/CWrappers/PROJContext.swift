import CPROJ
import LocusCore

/// One PROJ threading context. Thread rules: a context and every transformation made with it
/// belong to one thread at a time.
final class PROJContext {
    let pointer: OpaquePointer

    init() throws(LocusError) {
        // PROJ returns no context only when it cannot allocate one: a fault of this process, not
        // of the input, but the caller decides whether the process goes on.
        guard let ctx = proj_context_create() else { throw LocusError(.internalError, "PROJ: no context (out of memory)") }
        pointer = ctx
        // Offline by design: grids that are not installed are not fetched.
        proj_context_set_enable_network(ctx, 0)
        // PROJ logs to stderr by default; Locus reports failures as errors instead.
        proj_log_level(ctx, PJ_LOG_NONE)
    }

    deinit { proj_context_destroy(pointer) }

    var lastError: String {
        let errno = proj_context_errno(pointer)
        guard errno != 0, let s = proj_context_errno_string(pointer, errno) else { return "unknown CRS" }
        return String(cString: s)
    }
}
