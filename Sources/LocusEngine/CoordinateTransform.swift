import CPROJ
import LocusCore

/// One PROJ threading context. Thread rules: a context and every transformation made with it
/// belong to one thread at a time.
final class PROJContext {
    let pointer: OpaquePointer

    init() {
        guard let ctx = proj_context_create() else { fatalError("proj_context_create returned NULL: out of memory") }
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

/// A transformation between two coordinate reference systems, with x = longitude/easting and
/// y = latitude/northing on both sides whatever the CRS's official axis order.
///
/// Not thread-safe (it owns a PROJ context): make one per thread.
public final class CoordinateTransform {
    private let context: PROJContext
    private let pj: OpaquePointer
    /// True when source and target are the same system and `transform` can skip PROJ.
    public let isIdentity: Bool

    /// - Parameters: any definition PROJ accepts offline: "EPSG:2913", WKT, PROJJSON, a proj string.
    public init(from source: String, to target: String) throws(LocusError) {
        context = PROJContext()
        isIdentity = source == target
        guard let raw = proj_create_crs_to_crs(context.pointer, source, target, nil) else {
            throw LocusError(.invalidArgument, "unknown or unsupported coordinate reference system \(Self.shortName(source)) → \(Self.shortName(target)): \(context.lastError)")
        }
        // Force lon/lat (x/y) axis order whatever the authority says.
        guard let normalized = proj_normalize_for_visualization(context.pointer, raw) else {
            proj_destroy(raw)
            throw LocusError(.invalidArgument, "cannot normalise axis order for \(Self.shortName(source)): \(context.lastError)")
        }
        proj_destroy(raw)
        pj = normalized
    }

    public convenience init(from source: SpatialReference, to target: SpatialReference) throws(LocusError) {
        try self.init(from: source.projDefinition, to: target.projDefinition)
    }

    deinit { proj_destroy(pj) }

    /// The transformed point, or nil when PROJ cannot place it (outside the projection's domain).
    public func transform(_ p: GeoPoint) -> GeoPoint? {
        if isIdentity { return p }
        let out = proj_trans(pj, PJ_FWD, proj_coord(p.x, p.y, 0, 0))
        let x = out.xy.x, y = out.xy.y
        guard x.isFinite, y.isFinite, x != .infinity else { return nil }
        return GeoPoint(x: x, y: y)
    }

    private static func shortName(_ definition: String) -> String {
        definition.count > 60 ? String(definition.prefix(57)) + "…" : definition
    }
}

/// Distances on the WGS 84 ellipsoid (Karney's algorithm, from PROJ's geodesic.h).
public struct Geodesic: @unchecked Sendable {
    // `geod_geodesic` is a plain struct of doubles, read-only after init: safe to share.
    private var g = geod_geodesic()

    public init() {
        geod_init(&g, 6_378_137, 1 / 298.257223563)
    }

    /// Metres between two lon/lat points.
    public func distance(_ a: GeoPoint, _ b: GeoPoint) -> Double {
        var s12 = 0.0
        withUnsafePointer(to: g) { geod_inverse($0, a.y, a.x, b.y, b.x, &s12, nil, nil) }
        return s12
    }
}
