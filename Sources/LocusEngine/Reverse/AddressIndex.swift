import LocusCore

/// The city, state and postcode an address shares with its neighbours; stored once per combination.
public struct AddressPlace: Sendable, Hashable {
    public var city: String
    public var state: String
    public var postcode: String
}

/// Every address point of the index in memory, in a grid of about 50 m cells, for nearest-address
/// searches and the reverse geocoder.
///
/// Addresses are numbered in grid order (the builder sorts them so), which keeps each cell's points
/// contiguous: `cellStart[c] ..< cellStart[c + 1]` are the points of cell `c`.
/// Immutable after init and `Sendable`: one index serves every thread.
public final class AddressIndex: Sendable {
    public struct Grid: Sendable, Codable, Equatable {
        public var originX: Double
        public var originY: Double
        public var cellWidth: Double
        public var cellHeight: Double
        public var columns: Int
        public var rows: Int

        enum CodingKeys: String, CodingKey {
            case originX = "origin_x", originY = "origin_y", cellWidth = "cell_width", cellHeight = "cell_height"
            case columns, rows
        }

        func column(_ x: Double) -> Int { min(max(Int(((x - originX) / cellWidth).rounded(.down)), 0), columns - 1) }
        func row(_ y: Double) -> Int { min(max(Int(((y - originY) / cellHeight).rounded(.down)), 0), rows - 1) }
        func cell(x: Double, y: Double) -> Int { row(y) * columns + column(x) }

        /// A grid of square cells of about `cellMetres` over the envelope, coarsened if the envelope
        /// is so large that the grid would pass `maxCells`.
        static func covering(_ e: Envelope, cellMetres: Double = 50, maxCells: Int = 1 << 23) -> Grid {
            let scale = LocalMetricScale(latitude: (e.minY + e.maxY) / 2)
            var metres = cellMetres
            while true {
                let w = metres / scale.metresPerDegreeX, h = metres / scale.metresPerDegreeY
                let columns = Int((e.width / w).rounded(.down)) + 1, rows = Int((e.height / h).rounded(.down)) + 1
                if columns * rows <= maxCells {
                    return Grid(originX: e.minX, originY: e.minY, cellWidth: w, cellHeight: h, columns: columns, rows: rows)
                }
                metres *= 2
            }
        }
    }

    /// One address point as the index stores it.
    public struct Point: Sendable, Equatable {
        public var lon: Double
        public var lat: Double
        public var number: Int32
        public var street: UInt32
        public var place: UInt32
        public var suffix: UInt32
        /// The neighbouring lots on the same side of the same street, by number (-1: none).
        public var previous: Int32
        public var next: Int32

        var lonLat: GeoPoint { GeoPoint(x: lon, y: lat) }
    }

    public let grid: Grid
    /// The points of cell `c` are `cellStart[c] ..< cellStart[c + 1]` (read through `cellRange`).
    let cellStart: PackedRecords
    public let points: PointTable
    /// Street names as published ("Northeast 34th Avenue").
    public let streets: [String]
    /// The same streets in USPS style ("NE 34th Ave"), as answers print them.
    public let streetDisplay: [String]
    public let places: [AddressPlace]
    public let suffixes: [String]
    /// Each address's lot frontage, in the same order as `points` (what the reverse geocoder
    /// reasons with); empty while the builder is still working it out.
    public let frontage: FrontageTable

    /// Over tables as the index file holds them (mapped, or packed by the builder).
    init(grid: Grid, cellStart: PackedRecords, points: PackedRecords, streets: [String], streetDisplay: [String],
         places: [AddressPlace], suffixes: [String], frontage: PackedRecords?) {
        self.frontage = FrontageTable(records: frontage ?? PackedRecords(packed: [], stride: LotFrontage.packedSize))
        self.streetDisplay = streetDisplay
        self.grid = grid
        self.cellStart = cellStart
        self.points = PointTable(records: points, streets: streets.count, places: places.count, suffixes: suffixes.count)
        self.streets = streets
        self.places = places
        self.suffixes = suffixes
    }

    /// The points of a cell; empty where the stored starts are out of order or beyond the points
    /// (a damaged file: the mapped tables are not checked at open, which would read all of them).
    @inline(__always) func cellRange(_ cell: Int) -> Range<Int> {
        let lo = Int(cellStart.u32(cell, 0)), hi = Int(cellStart.u32(cell + 1, 0))
        return lo <= hi && hi <= points.count ? lo..<hi : 0..<0
    }

    public var count: Int { points.count }

    /// The address nearest the lon/lat point within `maxDistance` metres (ties: lowest index).
    /// Distances are on a plane fitted at the point's latitude: within 0.01 % of the geodesic over
    /// the distances this searches.
    public func nearest(lon: Double, lat: Double, maxDistance: Double) -> (index: Int, planarMetres: Double)? {
        var one = NearestList(capacity: 1, maxDistance: maxDistance)
        search(lon: lon, lat: lat, into: &one)
        return one.items.first.map { ($0.index, $0.squared.squareRoot()) }
    }

    /// Up to `count` addresses nearest the point within `maxDistance` metres, nearest first.
    public func nearest(lon: Double, lat: Double, maxDistance: Double, count: Int) -> [(index: Int, planarMetres: Double)] {
        var list = NearestList(capacity: count, maxDistance: maxDistance)
        search(lon: lon, lat: lat, into: &list)
        return list.items.map { ($0.index, $0.squared.squareRoot()) }
    }

    /// The k best so far, kept sorted; `bound` is the distance a point must beat to enter.
    struct NearestList {
        var items: [(index: Int, squared: Double)] = []
        let capacity: Int
        var limit: Double
        /// Metres beyond the nearest found past which nothing is wanted (the frontage method's
        /// candidates stand within its reach of the nearest): the limit closes in as nearer points
        /// are found, so fewer rings are searched. Infinite: the k nearest, however far apart.
        var reach = Double.infinity

        init(capacity: Int, maxDistance: Double) {
            self.capacity = max(capacity, 1)
            limit = maxDistance * maxDistance
            items.reserveCapacity(self.capacity + 1)
        }

        /// Empties the list for another search, keeping its storage.
        mutating func reset(maxDistance: Double) {
            items.removeAll(keepingCapacity: true)
            limit = maxDistance * maxDistance
        }

        var bound: Double { items.count < capacity ? limit : items[items.count - 1].squared }

        @inline(__always)
        mutating func offer(_ index: Int, _ squared: Double) {
            guard squared <= limit else { return }
            let n = items.count
            if n == capacity {
                let last = items[n - 1]
                guard squared < last.squared || (squared == last.squared && index < last.index) else { return }
                items[n - 1] = (index, squared)
            } else {
                items.append((index, squared))
            }
            // Down to its place, shifting the further ones up: through insert(at:) and removeLast,
            // with the frontage score's bends, the frontage method ran at 0.82–0.94 of the code
            // before the bends, and at 0.98 with this (`locus-bench reverse`, BENCHMARKS.md).
            items.withUnsafeMutableBufferPointer { b in
                var i = b.count - 1
                while i > 0, b[i - 1].squared > squared || (b[i - 1].squared == squared && b[i - 1].index > index) {
                    b[i] = b[i - 1]
                    i -= 1
                }
                b[i] = (index, squared)
                if i == 0, reach.isFinite {
                    let r = squared.squareRoot() + reach
                    limit = min(limit, r * r)
                }
            }
        }
    }

    /// Ring search over the grid: rings of cells around the point, until the nearest a ring's cells
    /// can be is further than the k-th best found.
    ///
    /// Bounded whatever the point: a point further than the search distance from the grid's extent
    /// is answered at once, and no ring goes beyond the one that covers the whole grid. (Rings are
    /// cells of longitude, which shrink to nothing near the poles: the distance test alone would
    /// let them widen for ever.)
    func search(lon: Double, lat: Double, into list: inout NearestList) {
        guard !points.isEmpty, cellStart.count == grid.columns * grid.rows + 1, lon.isFinite, lat.isFinite else { return }
        let scale = LocalMetricScale(latitude: lat)
        let kx = scale.metresPerDegreeX, ky = scale.metresPerDegreeY
        let maxX = grid.originX + Double(grid.columns) * grid.cellWidth, maxY = grid.originY + Double(grid.rows) * grid.cellHeight
        let outX = max(grid.originX - lon, lon - maxX, 0) * kx, outY = max(grid.originY - lat, lat - maxY, 0) * ky
        guard outX * outX + outY * outY <= list.bound else { return }
        // Position in cell units, unclamped: the point may lie outside the grid (by no more than
        // the search distance, so these are small numbers).
        let gx = (lon - grid.originX) / grid.cellWidth, gy = (lat - grid.originY) / grid.cellHeight
        guard abs(gx) < 1e9, abs(gy) < 1e9 else { return }
        let cx = Int(gx.rounded(.down)), cy = Int(gy.rounded(.down))
        let cellW = grid.cellWidth * kx, cellH = grid.cellHeight * ky
        // Rings before the first that reaches the grid hold no cells.
        var ring = max(0, -cx, cx - (grid.columns - 1), -cy, cy - (grid.rows - 1))
        let lastRing = max(cx, grid.columns - 1 - cx, cy, grid.rows - 1 - cy)
        // The distance a point must beat, cached: most points are beyond it and cost one compare.
        var bound = list.bound
        let columns = grid.columns, rows = grid.rows
        // Raw loads at the layout's constant stride, the bounds checked once per cell (the grid's
        // cells against `cellStart` above, each cell's run against the points in `scan`): through
        // `PackedRecords` and `cellRange` this loop ran 10–15 % slower than over a Swift array
        // (`locus-bench reverse`, frontage).
        guard let pts = points.records.bytes.baseAddress, let starts = cellStart.bytes.baseAddress else { return }
        let stride = IndexSchema.packedAddressSize, n = points.count
        while true {
            // The closest any cell of this ring can be: the gap to the inner square's edge.
            if ring > 0 {
                let gapX = min(gx - Double(cx - ring + 1), Double(cx + ring) - gx) * cellW
                let gapY = min(gy - Double(cy - ring + 1), Double(cy + ring) - gy) * cellH
                let gap = max(min(gapX, gapY), 0)
                if gap * gap > bound { break }
            }
            let r0 = cy - ring, r1 = cy + ring, c0 = cx - ring, c1 = cx + ring
            @inline(__always) func scan(_ r: Int, _ c: Int) {
                guard r >= 0, r < rows, c >= 0, c < columns else { return }
                // A cell wholly further than the k-th best found holds nothing: the corners of a
                // ring are often so (the nearest-point search 1.09× as fast, `locus-bench reverse`).
                let ex = max(Double(c) - gx, gx - Double(c + 1), 0) * cellW, ey = max(Double(r) - gy, gy - Double(r + 1), 0) * cellH
                guard ex * ex + ey * ey <= bound else { return }
                let cell = r * columns + c
                let lo = Int(UInt32(littleEndian: starts.loadUnaligned(fromByteOffset: cell &* 4, as: UInt32.self)))
                let hi = Int(UInt32(littleEndian: starts.loadUnaligned(fromByteOffset: (cell &+ 1) &* 4, as: UInt32.self)))
                guard lo <= hi, hi <= n else { return }
                for i in lo..<hi {
                    let x = Double(bitPattern: UInt64(littleEndian: pts.loadUnaligned(fromByteOffset: i &* stride, as: UInt64.self)))
                    let y = Double(bitPattern: UInt64(littleEndian: pts.loadUnaligned(fromByteOffset: i &* stride &+ 8, as: UInt64.self)))
                    let dx = (x - lon) * kx, dy = (y - lat) * ky
                    let d2 = dx * dx + dy * dy
                    if d2 <= bound {
                        list.offer(i, d2)
                        bound = list.bound
                    }
                }
            }
            // Only the ring itself, and only its cells on the grid: full top and bottom
            // rows, two cells of every row between. (Clamped to the grid by the loops
            // rather than per cell, this ran 35 % slower: `locus-bench reverse`.)
            let cLow = max(c0, 0), cHigh = min(c1, columns - 1)
            if cLow <= cHigh {
                for c in cLow...cHigh {
                    scan(r0, c)
                    if r1 != r0 { scan(r1, c) }
                }
            }
            let rLow = max(r0 + 1, 0), rHigh = min(r1 - 1, rows - 1)
            if rLow <= rHigh {
                for r in rLow...rHigh {
                    scan(r, c0)
                    if c1 != c0 { scan(r, c1) }
                }
            }
            if ring >= lastRing { break }
            ring += 1
        }
    }

    /// The same answer by looking at every point: the reference the grid search is tested against.
    public func nearestByScan(lon: Double, lat: Double, maxDistance: Double) -> (index: Int, planarMetres: Double)? {
        let scale = LocalMetricScale(latitude: lat)
        var bestIndex = -1
        var bestSquared = maxDistance * maxDistance
        for (i, p) in points.enumerated() {
            let dx = (p.lon - lon) * scale.metresPerDegreeX, dy = (p.lat - lat) * scale.metresPerDegreeY
            let d2 = dx * dx + dy * dy
            if d2 < bestSquared || (d2 == bestSquared && bestIndex < 0) {
                bestSquared = d2
                bestIndex = i
            }
        }
        return bestIndex < 0 ? nil : (bestIndex, bestSquared.squareRoot())
    }

    /// Calls `body` with the index of every address point inside the lon/lat box (edges
    /// included), cell by cell of the grid: the cost is the points of the cells the box
    /// touches, never the whole index unless the box covers it.
    public func forEachPoint(in box: Envelope, _ body: (Int) -> Void) {
        guard !points.isEmpty, cellStart.count == grid.columns * grid.rows + 1, !box.isEmpty,
              [box.minX, box.minY, box.maxX, box.maxY].allSatisfy(\.isFinite) else { return }
        let maxX = grid.originX + Double(grid.columns) * grid.cellWidth, maxY = grid.originY + Double(grid.rows) * grid.cellHeight
        guard box.intersects(Envelope(minX: grid.originX, minY: grid.originY, maxX: maxX, maxY: maxY)) else { return }
        let pts = points.records
        for r in grid.row(box.minY)...grid.row(box.maxY) {
            for c in grid.column(box.minX)...grid.column(box.maxX) {
                for i in cellRange(r * grid.columns + c) where box.contains(x: pts.f64(i, 0), y: pts.f64(i, 8)) {
                    body(i)
                }
            }
        }
    }

    public func components(of index: Int) -> AddressComponents {
        let p = points[index]
        let place = places[Int(p.place)]
        let number = HouseNumber(value: Int(p.number), suffix: suffixes[Int(p.suffix)])
        return AddressComponents(number: number.text, street: streetDisplay[Int(p.street)], streetFull: streets[Int(p.street)],
                                 city: place.city, state: place.state, postcode: place.postcode)
    }
}

/// The address points as the index lays them out (`IndexSchema.packedAddressSize` bytes each),
/// decoded one at a time. Values a damaged file could hold that would send a reader out of its
/// tables (a street, place or suffix beyond them, a neighbour beyond the points, coordinates
/// that are no lon/lat) read as harmless ones: the mapped table is not checked at open, which
/// would read all of it.
public struct PointTable: RandomAccessCollection, Sendable {
    let records: PackedRecords
    let streetCount: UInt32, placeCount: UInt32, suffixCount: UInt32

    init(records: PackedRecords, streets: Int, places: Int, suffixes: Int) {
        self.records = records
        streetCount = UInt32(clamping: streets)
        placeCount = UInt32(clamping: places)
        suffixCount = UInt32(clamping: suffixes)
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { records.count }

    public subscript(i: Int) -> AddressIndex.Point {
        precondition(i >= 0 && i < records.count, "address index out of range")
        let lon = records.f64(i, 0), lat = records.f64(i, 8)
        let street = records.u32(i, 20), place = records.u32(i, 24), suffix = records.u32(i, 28)
        let previous = records.i32(i, 32), next = records.i32(i, 36)
        let n = Int32(clamping: records.count)
        return AddressIndex.Point(lon: abs(lon) <= 180 ? lon : 0, lat: abs(lat) <= 90 ? lat : 0, number: records.i32(i, 16),
                                  street: street < streetCount ? street : 0, place: place < placeCount ? place : 0,
                                  suffix: suffix < suffixCount ? suffix : 0,
                                  previous: previous >= -1 && previous < n ? previous : -1, next: next >= -1 && next < n ? next : -1)
    }

    // One field without decoding the whole point: the frontage chooser reads these per candidate
    // (decoding whole points there cost a quarter of its throughput, `locus-bench reverse`).
    // Coordinates as stored: a damaged one is NaN or huge, harmless in distance arithmetic.
    @inline(__always) func lon(_ i: Int) -> Double {
        precondition(i >= 0 && i < records.count, "address index out of range")
        return records.f64(i, 0)
    }
    @inline(__always) func lat(_ i: Int) -> Double {
        precondition(i >= 0 && i < records.count, "address index out of range")
        return records.f64(i, 8)
    }
    @inline(__always) func number(_ i: Int) -> Int32 {
        precondition(i >= 0 && i < records.count, "address index out of range")
        return records.i32(i, 16)
    }
    @inline(__always) func place(_ i: Int) -> UInt32 {
        precondition(i >= 0 && i < records.count, "address index out of range")
        let place = records.u32(i, 24)
        return place < placeCount ? place : 0
    }
    @inline(__always) func street(_ i: Int) -> UInt32 {
        precondition(i >= 0 && i < records.count, "address index out of range")
        let street = records.u32(i, 20)
        return street < streetCount ? street : 0
    }
    @inline(__always) func suffix(_ i: Int) -> UInt32 {
        precondition(i >= 0 && i < records.count, "address index out of range")
        let suffix = records.u32(i, 28)
        return suffix < suffixCount ? suffix : 0
    }

    /// The stored form of points.
    static func pack(_ p: AddressIndex.Point, into raw: UnsafeMutableRawBufferPointer, at base: Int) {
        raw.storeBytes(of: p.lon.bitPattern.littleEndian, toByteOffset: base, as: UInt64.self)
        raw.storeBytes(of: p.lat.bitPattern.littleEndian, toByteOffset: base + 8, as: UInt64.self)
        raw.storeBytes(of: p.number.littleEndian, toByteOffset: base + 16, as: Int32.self)
        raw.storeBytes(of: p.street.littleEndian, toByteOffset: base + 20, as: UInt32.self)
        raw.storeBytes(of: p.place.littleEndian, toByteOffset: base + 24, as: UInt32.self)
        raw.storeBytes(of: p.suffix.littleEndian, toByteOffset: base + 28, as: UInt32.self)
        raw.storeBytes(of: p.previous.littleEndian, toByteOffset: base + 32, as: Int32.self)
        raw.storeBytes(of: p.next.littleEndian, toByteOffset: base + 36, as: Int32.self)
    }
}

/// Each address's `LotFrontage`, as the index lays them out, decoded one at a time.
public struct FrontageTable: RandomAccessCollection, Sendable {
    let records: PackedRecords

    public var startIndex: Int { 0 }
    public var endIndex: Int { records.count }

    public subscript(i: Int) -> LotFrontage {
        precondition(i >= 0 && i < records.count, "address index out of range")
        return LotFrontage.unpack(records.bytes, at: i * LotFrontage.packedSize)
    }
}
