import CPROJ
import Foundation
import LocusCore

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
        context = try PROJContext()
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

/// The spatial references a request may name, known before any transformation is built.
///
/// Building a transformation costs a PROJ context and database lookups: 1–2 ms for most codes,
/// and 8–12 ms to find that a code is no CRS at all — which, not being cached, a client could
/// make every request pay. The codes PROJ knows are read once per process (about 10,000, 15 ms),
/// so an unknown wkid is refused in microseconds; a known code PROJ cannot transform from lon/lat
/// (a vertical or engineering CRS) is remembered once it has failed.
///
/// Thread rules: shared by every thread; the failures are behind a lock.
public final class SpatialReferenceCatalog: @unchecked Sendable {
    public static let shared = SpatialReferenceCatalog()

    /// Codes of systems that place points on a map: geographic 2D and projected.
    private let epsg: Set<Int>
    private let esri: Set<Int>
    /// Codes of every other CRS (vertical, geocentric, 3D, compound, engineering): known, refused.
    private let otherCRS: Set<Int>
    private let lock = NSLock()
    private var failures: [Int: LocusError] = [:]
    /// Set when PROJ gave no context to list the codes with: every check then fails with it.
    private let unavailable: LocusError?

    private init() {
        let context: PROJContext
        do {
            context = try PROJContext()
        } catch {
            (epsg, esri, otherCRS, unavailable) = ([], [], [], error)
            return
        }
        unavailable = nil
        func codes(_ authority: String, _ type: PJ_TYPE = PJ_TYPE_CRS) -> Set<Int> {
            guard let list = proj_get_codes_from_database(context.pointer, authority, type, 1) else { return [] }
            defer { proj_string_list_destroy(list) }
            var out = Set<Int>()
            var p = list
            while let code = p.pointee {
                if let n = Int(String(cString: code)) { out.insert(n) }
                p += 1
            }
            return out
        }
        // A height-only system (NAVD88, 5703) or Earth-centred XYZ (4978) was taken as lon/lat and
        // answered latitude in x, labelled with the code asked for.
        func onAMap(_ authority: String) -> Set<Int> {
            codes(authority, PJ_TYPE_GEOGRAPHIC_2D_CRS).union(codes(authority, PJ_TYPE_PROJECTED_CRS))
        }
        epsg = onAMap("EPSG")
        esri = onAMap("ESRI")
        otherCRS = codes("EPSG").union(codes("ESRI")).subtracting(epsg).subtracting(esri)
    }

    /// Refuses a wkid PROJ does not know as a CRS, or one whose transformation failed before.
    public func check(_ srs: SpatialReference) throws(LocusError) {
        if let unavailable { throw unavailable }
        let code = srs.latestWkid
        let known = srs.projDefinition.hasPrefix("ESRI:") ? esri.contains(code) : epsg.contains(code)
        guard known else {
            if otherCRS.contains(code) {
                throw LocusError(.invalidArgument, "wkid \(srs.wkid) is no system of positions on a map (it is vertical, geocentric or 3D): give a geographic 2D or projected one, such as 4326, 3857 or a State Plane zone")
            }
            throw LocusError(.invalidArgument, "unknown or unsupported coordinate reference system: wkid \(srs.wkid) is no EPSG or Esri code PROJ knows")
        }
        if let failure = lock.withLock({ failures[code] }) { throw failure }
    }

    /// Remembers that transformations for this wkid cannot be built (bounded by the known codes).
    public func recordFailure(_ srs: SpatialReference, _ error: LocusError) {
        lock.withLock { failures[srs.latestWkid] = error }
    }
}
