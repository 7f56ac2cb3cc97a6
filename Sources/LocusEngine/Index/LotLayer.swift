import LocusCore

/// Lot polygons (tax lots, parcels) or building footprints, each linked to the address points
/// that stand inside it: the answer to "which lot is this point on or in front of", when a city
/// publishes its lots.
///
/// Without lots the reverse geocoder infers the lot from the address points alone
/// (`FrontageChooser`), which fails where a house stands far back on its lot and the house across
/// the street is nearer, or where a corner lot's tree stands along the side street. A lot polygon
/// settles both: a point inside a lot, or in the strip in front of it (the nearest lot within
/// `reach`), gets that lot's address.
///
/// Immutable and `Sendable`; the links are worked out by the index builder (`link`) and stored in
/// the index as the `lot_addresses` blob.
public struct LotLayer: Sendable {
    /// The polygon layer holding the lots (also queryable with `within`).
    public let layer: BoundaryLayer
    /// How far (metres) in front of a lot a point still belongs to it: about a sidewalk and a
    /// planting strip, well short of the lots across the street.
    public let reach: Double
    /// For lot `f`, its addresses are `addressIDs[start[f]..<start[f + 1]]`.
    let start: [UInt32]
    let addressIDs: [UInt32]

    init(layer: BoundaryLayer, reach: Double, start: [UInt32], addressIDs: [UInt32]) {
        self.layer = layer
        self.reach = reach
        self.start = start
        self.addressIDs = addressIDs
    }

    /// Default `reach` in metres: a US sidewalk and planting strip are 3–6 m each, and a
    /// residential street between lot lines is 15–20 m, so 12 m keeps a point on its own side.
    public static let defaultReach = 12.0

    /// The addresses of lot `f`.
    public func addressIDs(ofLot f: Int) -> ArraySlice<UInt32> {
        addressIDs[Int(start[f])..<Int(start[f + 1])]
    }

    /// How many lots have at least one address.
    public var addressedLotCount: Int {
        (0..<(start.count - 1)).reduce(0) { $0 + (start[$1 + 1] > start[$1] ? 1 : 0) }
    }

    /// The address for a point from the lots: the smallest lot covering it that has addresses, else
    /// the nearest lot within `reach` (of `maxDistance`, if smaller) if it has any; of a lot's
    /// several addresses (a duplex, an apartment block), the nearest. Nil when the point is on or
    /// before a lot without addresses, or near no lot: the caller then judges from the points alone.
    public func address(atLon lon: Double, lat: Double, maxDistance: Double, in addresses: AddressIndex) -> (index: Int, planarMetres: Double)? {
        var lot: Int?
        var onAnyLot = false
        layer.forEachCovering(x: lon, y: lat) { f in
            onAnyLot = true
            if lot == nil, start[f + 1] > start[f] { lot = f }
        }
        if lot == nil, !onAnyLot, let near = layer.nearest(x: lon, y: lat, maxDistance: min(reach, maxDistance)) {
            lot = near.feature
        }
        guard let lot else { return nil }
        let scale = LocalMetricScale(latitude: lat)
        var best: (index: Int, planarMetres: Double)?
        for id in addressIDs(ofLot: lot) {
            let p = addresses.points[Int(id)]
            let dx = (p.lon - lon) * scale.metresPerDegreeX, dy = (p.lat - lat) * scale.metresPerDegreeY
            let d = (dx * dx + dy * dy).squareRoot()
            guard let b = best else { best = (Int(id), d); continue }
            // One building's addresses on one spot go by the first number, as in `FrontageChooser`.
            let q = addresses.points[b.index]
            let ex = (p.lon - q.lon) * scale.metresPerDegreeX, ey = (p.lat - q.lat) * scale.metresPerDegreeY
            let oneSpot = ex * ex + ey * ey <= FrontageChooser.oneSpot * FrontageChooser.oneSpot && p.street == q.street
            if oneSpot ? p.number < q.number : d < b.planarMetres { best = (Int(id), d) }
        }
        return best
    }

    /// The lot of each address point: the smallest lot covering it (lots may overlap where a
    /// footprint layer and a parcel layer were merged). As `(start, addressIDs)`, lot by lot.
    static func link(layer: BoundaryLayer, points: [GeoPoint]) -> (start: [UInt32], addressIDs: [UInt32]) {
        var perLot = [[UInt32]](repeating: [], count: layer.features.count)
        for (i, p) in points.enumerated() {
            var first: Int?
            layer.forEachCovering(x: p.x, y: p.y) { f in if first == nil { first = f } }
            if let f = first { perLot[f].append(UInt32(i)) }
        }
        var start: [UInt32] = [0]
        start.reserveCapacity(perLot.count + 1)
        var ids: [UInt32] = []
        ids.reserveCapacity(points.count)
        for list in perLot {
            ids.append(contentsOf: list)
            start.append(UInt32(ids.count))
        }
        return (start, ids)
    }

    /// The stored form: lot count, then `start` (count + 1 values), then the address ids; all
    /// little-endian UInt32.
    static func pack(start: [UInt32], addressIDs: [UInt32]) -> [UInt8] {
        ([UInt32(start.count - 1)] + start + addressIDs).flatMap { withUnsafeBytes(of: $0.littleEndian, Array.init) }
    }

    /// Reads the stored form, checking it against the layer and the address count: a damaged blob
    /// is a refused index, never a trap.
    static func unpack(_ raw: UnsafeRawBufferPointer, layer: BoundaryLayer, addressCount: Int, reach: Double) -> LotLayer? {
        guard raw.count % 4 == 0, raw.count >= 8 else { return nil }
        let words = (0..<(raw.count / 4)).map { UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self)) }
        let lots = Int(words[0])
        guard lots == layer.features.count, words.count >= lots + 2 else { return nil }
        let start = Array(words[1...(lots + 1)])
        let ids = Array(words[(lots + 2)...])
        guard start.first == 0, Int(start.last ?? 0) == ids.count, zip(start, start.dropFirst()).allSatisfy({ $0 <= $1 }),
              ids.allSatisfy({ Int($0) < addressCount }), reach.isFinite, reach >= 0 else { return nil }
        return LotLayer(layer: layer, reach: reach, start: start, addressIDs: ids)
    }
}
