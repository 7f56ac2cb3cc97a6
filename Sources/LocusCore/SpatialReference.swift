/// A coordinate reference system named the way Esri clients name it: by a well-known id.
///
/// Esri's own ids for EPSG systems (102100 for Web Mercator) are kept as the client sent them so a
/// reply echoes the wkid the client asked in, while PROJ is given the EPSG definition.
public struct SpatialReference: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The id as the client wrote it.
    public let wkid: Int

    public init(wkid: Int) throws(LocusError) {
        guard wkid > 0 else {
            throw LocusError(.invalidArgument, "wkid must be a positive integer, got \(wkid)")
        }
        self.wkid = wkid
    }

    private init(unchecked wkid: Int) { self.wkid = wkid }

    /// WGS 84 longitude/latitude, the space Locus stores everything in.
    public static let wgs84 = SpatialReference(unchecked: 4326)
    /// Web Mercator (EPSG:3857), which Esri calls 102100.
    public static let webMercator = SpatialReference(unchecked: 3857)

    /// Esri wkids that are aliases of EPSG codes.
    private static let esriAliases: [Int: Int] = [102100: 3857, 102113: 3857, 900913: 3857, 104199: 4326]

    /// The EPSG code this wkid stands for, after resolving Esri aliases.
    public var latestWkid: Int { Self.esriAliases[wkid] ?? wkid }

    /// The definition PROJ understands. Esri-only ids (other 10xxxx codes) live under the ESRI authority.
    public var projDefinition: String {
        let code = latestWkid
        return (100_000..<200_000).contains(code) ? "ESRI:\(code)" : "EPSG:\(code)"
    }

    public var isGeographicWGS84: Bool { latestWkid == 4326 }

    /// WGS 84 or Web Mercator: PROJ sets up their transformation in about a millisecond, where a
    /// system whose datum shift it chooses among many takes 100–300 ms (PROTOCOL.md).
    public var isQuickToSetUp: Bool { latestWkid == 4326 || latestWkid == 3857 }

    public var description: String { "wkid \(wkid)" }
}

/// Checks a lon/lat position before it goes anywhere near an index.
public func validateLonLat(_ point: GeoPoint) throws(LocusError) {
    guard point.x.isFinite, point.y.isFinite else {
        throw LocusError(.invalidArgument, "coordinates must be finite numbers")
    }
    guard (-180...180).contains(point.x) else {
        throw LocusError(.invalidArgument, "longitude \(point.x) is outside -180…180 (did you swap x and y, or mean another wkid?)")
    }
    guard (-90...90).contains(point.y) else {
        throw LocusError(.invalidArgument, "latitude \(point.y) is outside -90…90 (did you swap x and y, or mean another wkid?)")
    }
}
