import Foundation
import LocusCore

/// A polygon layer's grid (`BoundaryLayer`) as the index stores it: sections `layer.NAME.*` of
/// `IndexSections`, used where they lie.
///
/// An open used to read every polygon's WKB through GEOS and grid it again: 371 ms for thirty
/// times Portland's neighbourhoods (BENCHMARKS.md, "From one city to thirty"). Stored, an open
/// reads the features' rows (names, attributes, envelopes) and checks the tables' shapes; the
/// contents are clamped as they are read (`BoundaryLayer.cellRange`, `edgeRange`), so a damaged
/// file answers wrongly or is refused, and never traps.
enum LayerTables {
    static func prefix(_ layer: String) -> String { "layer.\(layer)." }

    static func pack(_ layer: BoundaryLayer) -> [(name: String, bytes: [UInt8])] {
        var grid: [UInt8] = []
        for v in [layer.extent.minX, layer.extent.minY, layer.extent.maxX, layer.extent.maxY] {
            withUnsafeBytes(of: v.bitPattern.littleEndian) { grid += $0 }
        }
        grid += BoundaryLayer.pack([UInt32(layer.columns), UInt32(layer.rows)])
        let p = prefix(layer.name)
        func bytes(_ r: PackedRecords) -> [UInt8] { Array(r.bytes) }
        return [(p + "grid", grid), (p + "cells", bytes(layer.cellStart)), (p + "entries", bytes(layer.entries)),
                (p + "band_edges", bytes(layer.bandEdges)), (p + "edges", bytes(layer.featureEdges)),
                (p + "edge_start", bytes(layer.featureEdgeStart)), (p + "labels", bytes(layer.labels))]
    }

    static func unpack(name: String, features: [BoundaryFeature], _ sections: [String: PackedBytes], path: String) throws(LocusError) -> BoundaryLayer {
        let damaged = LocusError(.invalidIndex, "\(path): the grid of layer \(name) is missing or damaged; rebuild the index")
        let p = prefix(name)
        func table(_ suffix: String, stride: Int) throws(LocusError) -> PackedRecords {
            guard let s = sections[p + suffix], s.bytes.count % stride == 0 else { throw damaged }
            return PackedRecords(bytes: s.bytes, stride: stride, owner: s.owner)
        }
        let grid = try table("grid", stride: 40)
        guard grid.count == 1 else { throw damaged }
        let extent = Envelope(minX: grid.f64(0, 0), minY: grid.f64(0, 8), maxX: grid.f64(0, 16), maxY: grid.f64(0, 24))
        let columns = Int(grid.u32(0, 32)), rows = Int(grid.u32(0, 36))
        // What arithmetic trusts is checked here: the extent in lon/lat, the grid's size as the
        // builder bounds it (`BoundaryLayer.init`), one cell start per cell and one edge start
        // and label per feature.
        guard [extent.minX, extent.maxX].allSatisfy({ abs($0) <= 180 }), [extent.minY, extent.maxY].allSatisfy({ abs($0) <= 90 }),
              extent.minX <= extent.maxX, extent.minY <= extent.maxY,
              (1...(1 << 14)).contains(columns), (1...(1 << 14)).contains(rows) else { throw damaged }
        let cells = try table("cells", stride: 4), edgeStart = try table("edge_start", stride: 4), labels = try table("labels", stride: 16)
        guard cells.count == columns * rows + 1, edgeStart.count == features.count + 1, labels.count == features.count else { throw damaged }
        return BoundaryLayer(name: name, features: features, extent: extent, columns: columns, rows: rows, cellStart: cells,
                             entries: try table("entries", stride: BoundaryLayer.CellEntry.packedSize),
                             bandEdges: try table("band_edges", stride: BoundaryLayer.Edge.packedSize),
                             featureEdges: try table("edges", stride: BoundaryLayer.Edge.packedSize), featureEdgeStart: edgeStart,
                             labels: labels)
    }
}
