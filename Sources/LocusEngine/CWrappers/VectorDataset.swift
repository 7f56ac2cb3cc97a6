import CGDAL
import Foundation
import LocusCore

/// One polygon layer's feature as read from a GIS file, before any checking.
struct SourceFeature {
    /// GDAL's feature id (1-based row in a Shapefile, the `id` in GeoJSON when present).
    var fid: Int64
    var fields: [(name: String, value: JSONValue)]
    /// ISO WKB in the layer's own CRS; nil when the feature has no geometry.
    var wkb: [UInt8]?
}

/// The coordinate reference system a GIS file declares.
struct DeclaredCRS {
    /// "EPSG:3857" when GDAL can identify it, else the CRS's own name.
    var name: String
    /// A full definition PROJ can build a transformation from (WKT2).
    var definition: String
}

/// One GDAL dataset opened for reading vector layers: GeoJSON, Shapefile, GeoPackage, FlatGeobuf,
/// KML and every other format the system's GDAL has a driver for.
///
/// Thread rules: a dataset is used from one thread at a time.
final class VectorDataset {
    private let dataset: GDALDatasetH
    let path: String

    private static let registered: Void = {
        GDALAllRegister()
        // GDAL prints warnings to stderr by default; Locus reports through errors and counts instead.
        CPLSetErrorHandler(CPLQuietErrorHandler)
    }()

    init(path: String) throws(LocusError) {
        _ = Self.registered
        guard FileManager.default.fileExists(atPath: path) else {
            throw LocusError(.notFound, "no such file: \(path)")
        }
        guard let ds = GDALOpenEx(path, UInt32(GDAL_OF_VECTOR | GDAL_OF_READONLY), nil, nil, nil) else {
            throw LocusError(.importFailed, "\(path) is not a vector dataset GDAL can read (\(Self.lastError()))")
        }
        self.dataset = ds
        self.path = path
    }

    deinit { GDALClose(dataset) }

    private static func lastError() -> String {
        guard let m = CPLGetLastErrorMsg(), m.pointee != 0 else { return "unknown format" }
        return String(cString: m)
    }

    /// Every file the dataset is made of (a Shapefile's .shp, .shx, .dbf, .prj …), for provenance.
    var files: [String] {
        guard let list = GDALGetFileList(dataset) else { return [path] }
        defer { CSLDestroy(list) }
        var out: [String] = []
        var i = 0
        while let s = list[i] {
            out.append(String(cString: s))
            i += 1
        }
        return out.isEmpty ? [path] : out.sorted()
    }

    var layerNames: [String] {
        (0..<GDALDatasetGetLayerCount(dataset)).compactMap { i in
            GDALDatasetGetLayer(dataset, i).flatMap { OGR_L_GetName($0) }.map { String(cString: $0) }
        }
    }

    private func layerHandle(_ name: String?) throws(LocusError) -> OGRLayerH {
        if let name {
            guard let l = GDALDatasetGetLayerByName(dataset, name) else {
                throw LocusError(.notFound, "\(path) has no layer named \(name) (it has: \(layerNames.joined(separator: ", ")))")
            }
            return l
        }
        guard GDALDatasetGetLayerCount(dataset) > 0, let l = GDALDatasetGetLayer(dataset, 0) else {
            throw LocusError(.importFailed, "\(path) contains no vector layer")
        }
        return l
    }

    /// The CRS the layer declares, or nil when it declares none.
    func declaredCRS(layer: String?) throws(LocusError) -> DeclaredCRS? {
        let l = try layerHandle(layer)
        guard let srs = OGR_L_GetSpatialRef(l) else { return nil }
        var name: String
        if OSRAutoIdentifyEPSG(srs) == OGRERR_NONE || OSRGetAuthorityName(srs, nil) != nil,
           let auth = OSRGetAuthorityName(srs, nil), let code = OSRGetAuthorityCode(srs, nil) {
            name = "\(String(cString: auth)):\(String(cString: code))"
        } else {
            name = OSRGetName(srs).map { String(cString: $0) } ?? "unnamed CRS"
        }
        var wkt: UnsafeMutablePointer<CChar>?
        let options = ["FORMAT=WKT2_2019"]
        let rc = withCStringArray(options) { OSRExportToWktEx(srs, &wkt, $0) }
        defer { VSIFree(wkt) }
        guard rc == OGRERR_NONE, let wkt else {
            throw LocusError(.importFailed, "the CRS of \(path) cannot be exported for PROJ")
        }
        if name.isEmpty { name = "unnamed CRS" }
        return DeclaredCRS(name: name, definition: String(cString: wkt))
    }

    /// Calls `body` with every feature of the layer, in file order.
    func forEachFeature(layer: String?, _ body: (SourceFeature) throws(LocusError) -> Void) throws(LocusError) {
        let l = try layerHandle(layer)
        OGR_L_ResetReading(l)
        while let f = OGR_L_GetNextFeature(l) {
            defer { OGR_F_Destroy(f) }
            var feature = SourceFeature(fid: Int64(OGR_F_GetFID(f)), fields: [], wkb: nil)
            for i in 0..<OGR_F_GetFieldCount(f) {
                guard let defn = OGR_F_GetFieldDefnRef(f, i) else { continue }
                let name = String(cString: OGR_Fld_GetNameRef(defn))
                feature.fields.append((name, fieldValue(f, i, OGR_Fld_GetType(defn))))
            }
            if let g = OGR_F_GetGeometryRef(f) {
                feature.wkb = wkb(of: g)
            }
            try body(feature)
        }
    }

    private func fieldValue(_ f: OGRFeatureH, _ i: Int32, _ type: OGRFieldType) -> JSONValue {
        guard OGR_F_IsFieldSetAndNotNull(f, i) != 0 else { return .null }
        switch type {
        case OFTInteger, OFTInteger64: return .integer(Int64(OGR_F_GetFieldAsInteger64(f, i)))
        case OFTReal: return .number(OGR_F_GetFieldAsDouble(f, i))
        default: return .string(OGR_F_GetFieldAsString(f, i).map { String(cString: $0) } ?? "")
        }
    }

    private func wkb(of geometry: OGRGeometryH) -> [UInt8]? {
        // Curved geometries (GeoPackage, FileGDB) are stroked to straight segments first.
        var g = geometry
        var stroked: OGRGeometryH?
        if OGR_G_HasCurveGeometry(geometry, 0) != 0, let linear = OGR_G_GetLinearGeometry(geometry, 0, nil) {
            stroked = linear
            g = linear
        }
        defer { if let stroked { OGR_G_DestroyGeometry(stroked) } }
        let size = Int(OGR_G_WkbSize(g))
        guard size > 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: size)
        let rc = bytes.withUnsafeMutableBufferPointer { OGR_G_ExportToIsoWkb(g, wkbNDR, $0.baseAddress) }
        return rc == OGRERR_NONE ? bytes : nil
    }
}

private func withCStringArray<R>(_ strings: [String], _ body: (UnsafeMutablePointer<UnsafePointer<CChar>?>) -> R) -> R {
    let cStrings = strings.map { strdup($0) }
    defer { cStrings.forEach { free($0) } }
    var pointers: [UnsafePointer<CChar>?] = cStrings.map { UnsafePointer($0) } + [nil]
    return pointers.withUnsafeMutableBufferPointer { body($0.baseAddress!) }
}
