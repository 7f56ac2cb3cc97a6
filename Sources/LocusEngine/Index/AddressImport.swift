import Foundation
import LocusCore

/// The address points of a build, imported without holding them: every row goes into a scratch
/// database beside the index (`staging`), and every step that needs them in some order — grid
/// order with duplicates dropped, each street's same-side neighbours, each street's and each
/// number's addresses, each ZIP code's and city's — is one sorted pass of SQLite over it, whose
/// sorter spills to temporary files past its share of `--max-memory`. What stays in memory grows
/// with streets, places and grid cells, not with addresses: at thirty times Portland the build held
/// 6.8 GB when it kept every row (BENCHMARKS.md, "From one city to thirty").
///
/// The passes give the same index, byte for byte, as sorting the rows in memory did: the same
/// total orders, and the same tie-breaks.
extension IndexWriter {
    /// The address source's distinct names, numbered as they are first seen, then in order.
    private struct Names {
        var streets: [String: Int32] = [:]
        var places: [AddressPlace: Int32] = [:]
        var suffixes: [String: Int32] = [:]

        /// Bytes of the distinct names so far (text, and about 64 per entry of the tables).
        var bytes = 0

        static func id<K: Hashable>(_ key: K, in table: inout [K: Int32], size: Int, bytes: inout Int) -> Int32 {
            if let id = table[key] { return id }
            let id = Int32(truncatingIfNeeded: table.count)
            table[key] = id
            bytes += size + 64
            return id
        }

        /// Per street spelling, by first-seen number: its rows, and the places (first-seen
        /// numbers) it is in.
        var streetRows: [Int] = []
        var streetPlaces: [Set<Int32>] = []

        mutating func street(_ s: String, place: Int32) -> Int32 {
            let id = Self.id(s, in: &streets, size: s.utf8.count, bytes: &bytes)
            if Int(id) == streetRows.count {
                streetRows.append(0)
                streetPlaces.append([])
            }
            streetRows[Int(id)] += 1
            if streetPlaces[Int(id)].insert(place).inserted { bytes += 16 }
            return id
        }

        /// A street's canonical words, but a letter before a street type, which is a lettered
        /// street's name ("E Street"), not a directional ("East Street").
        static func streetKey(_ s: String) -> String {
            var words = AddressText.tokens(s)
            let raw = AddressText.rawTokens(s)
            if raw.count == words.count {
                for i in raw.indices.dropLast() where raw[i].count == 1 && StreetNameParts.types.contains(words[i + 1]) {
                    words[i] = raw[i]
                }
            }
            return words.joined(separator: " ")
        }

        /// The streets in order, and each spelling's street: spellings with the same canonical
        /// words (`streetKey`) that share a city are one street, named by its most written
        /// spelling (ties: the first in text order, so a build is the same on every run). A file
        /// that writes "MAIN ST", "Main St" and "Main Street." had three streets, each placing
        /// numbers from its own few points; Portland's has six such pairs ("SW Grahams Ferry Rd"
        /// and "SW Graham'S Ferry Rd" in Sherwood). Spellings in different cities stay apart, each
        /// printed as its city writes it (Forest Grove's "Parks Street" is no "Park Street").
        func mergedStreets() -> (ordered: [String], final: [Int32]) {
            var byID = [String](repeating: "", count: streets.count)
            for (name, id) in streets { byID[Int(id)] = name }
            var cityOfPlace = [String](repeating: "", count: places.count)
            for (p, id) in places { cityOfPlace[Int(id)] = p.city }
            var parent = Array(byID.indices)
            func root(_ i: Int) -> Int {
                var i = i
                while parent[i] != i { parent[i] = parent[parent[i]]; i = parent[i] }
                return i
            }
            var byKey: [String: [Int]] = [:]
            for (id, name) in byID.enumerated() { byKey[Self.streetKey(name), default: []].append(id) }
            for (key, ids) in byKey where ids.count > 1 && !key.isEmpty {
                var firstInCity: [String: Int] = [:]
                for id in ids {
                    for city in Set(streetPlaces[id].map { cityOfPlace[Int($0)] }) {
                        if let other = firstInCity[city] {
                            let (a, b) = (root(other), root(id))
                            if a != b { parent[max(a, b)] = min(a, b) }
                        } else {
                            firstInCity[city] = id
                        }
                    }
                }
            }
            // Each street's name: its most written spelling.
            var named: [Int: Int] = [:]
            for id in byID.indices {
                let r = root(id)
                // More rows, or as many and first in text order.
                if let n = named[r], (streetRows[n], byID[id]) >= (streetRows[id], byID[n]) { continue }
                named[r] = id
            }
            let ordered = named.values.map { byID[$0] }.sorted()
            let rank = Dictionary(uniqueKeysWithValues: ordered.enumerated().map { ($1, Int32($0)) })
            let final = byID.indices.map { rank[byID[named[root($0)] ?? $0]] ?? 0 }
            return (ordered, final)
        }
        mutating func suffix(_ s: String) -> Int32 { Self.id(s, in: &suffixes, size: s.utf8.count, bytes: &bytes) }
        mutating func place(_ p: AddressPlace) -> Int32 {
            Self.id(p, in: &places, size: p.city.utf8.count + p.state.utf8.count + p.postcode.utf8.count, bytes: &bytes)
        }

        /// The first-seen numbers → the index's (names in order), as arrays by first-seen number.
        static func ranks<K>(_ table: [K: Int32], by less: (K, K) -> Bool) -> (ordered: [K], final: [Int32]) {
            let ordered = table.keys.sorted(by: less)
            var final = [Int32](repeating: 0, count: table.count)
            for (rank, key) in ordered.enumerated() { final[Int(table[key] ?? 0)] = Int32(rank) }
            return (ordered, final)
        }
    }

    /// The share of numbers written with a leading zero above which the zeros are padding.
    static let paddedShare = 0.1

    static func placeKey(_ p: AddressPlace) -> String { "\(p.city)\u{1}\(p.state)\u{1}\(p.postcode)" }

    mutating func importAddresses(path: String, report: inout IndexBuildReport) throws(LocusError) {
        let columns = config.addressColumns
        let srs = try SpatialReference(wkid: columns.wkid)
        let transform = srs.isGeographicWGS84 ? nil : try CoordinateTransform(from: srs, to: .wgs84)
        // Only the first issues are listed in the index; all are counted.
        var issues: [ImportIssue] = []
        let listed = config.listedIssuesPerSource
        func reject(_ row: Int, _ reason: String) {
            if issues.count < listed { issues.append(ImportIssue(source: "addresses", row: row, outcome: .rejected, reason: reason)) }
            report.rejectedAddresses[Self.reasonClass(reason), default: 0] += 1
        }
        var names = Names()
        let nameBudget = config.maxMemory / 4
        var envelope = Envelope.empty
        var candidates = 0
        var outOfRange: GeoPoint?
        let stage = try db.prepare("INSERT INTO staging.rows(street, number, suffix, place, lon, lat, row) VALUES (?,?,?,?,?,?,?)")
        try AddressCSVSource(path: path, columns: columns).forEachRow(read: { report.addressColumns = $0 }) { (raw) throws(LocusError) in
            report.addressRows += 1
            if report.addressRows % 50_000 == 0 { config.progress?(.addresses(rows: report.addressRows)) }
            let numberText = raw.number.trimmingWhitespace()
            let street = raw.street.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            guard !numberText.isEmpty else { return reject(raw.row, "missing house number") }
            guard let number = HouseNumber(parsing: numberText), number.value <= Int(Int32.max) else {
                return reject(raw.row, "house number does not start with a number: \"\(numberText.prefix(40))\"")
            }
            guard !street.isEmpty else { return reject(raw.row, "missing street") }
            guard let x = Double(raw.x.trimmingWhitespace()), let y = Double(raw.y.trimmingWhitespace()), x.isFinite, y.isFinite else {
                return reject(raw.row, "coordinates are not numbers: \"\(raw.x.prefix(30))\", \"\(raw.y.prefix(30))\"")
            }
            var point = GeoPoint(x: x, y: y)
            if let transform {
                guard let p = transform.transform(point) else {
                    return reject(raw.row, "coordinates cannot be transformed from wkid \(srs.wkid)")
                }
                point = p
            }
            guard (-180...180).contains(point.x), (-90...90).contains(point.y) else {
                if outOfRange == nil { outOfRange = point }
                return reject(raw.row, "coordinates outside the lon/lat range: \(point.x), \(point.y)")
            }
            guard !(point.x == 0 && point.y == 0) else { return reject(raw.row, "coordinates are 0, 0 (a missing location)") }
            // Cities published in capitals print in mixed case ("CAMBRIDGE" → "Cambridge"); state codes in capitals.
            let place = AddressPlace(city: StreetStyle.mixedCase(raw.city.trimmingWhitespace()),
                                     state: Self.stateCode(raw.state.trimmingWhitespace()),
                                     postcode: raw.postcode.trimmingWhitespace())
            let placeID = names.place(place)
            try stage.run([.integer(Int64(names.street(street, place: placeID))), .integer(Int64(number.value)), .integer(Int64(names.suffix(number.suffix))),
                           .integer(Int64(placeID)), .real(point.x), .real(point.y), .integer(Int64(raw.row))])
            // Names are held (the index and every server hold them too): a column of distinct values
            // mapped as the street (an id, a full address) would otherwise grow past any setting.
            if names.bytes > nameBudget {
                throw LocusError(.importFailed, """
                    the distinct street names, places and number suffixes of \(path) pass \(nameBudget >> 20) MiB \
                    (\(names.streets.count) streets by row \(raw.row)): is the street column right? Else raise --max-memory
                    """)
            }
            envelope.extend(x: point.x, y: point.y)
            candidates += 1
            if number.value < 0 { report.numbersWithLeadingZero += 1 }
        }
        guard report.addressRows > 0 else { throw LocusError(.importFailed, "\(path) has a header but no rows") }
        let rejectedShare = Double(report.addressRows - candidates) / Double(report.addressRows)
        if rejectedShare > config.maximumRejectedShare {
            // Ties go to the first reason by name, so the message is the same on every run.
            let top = report.rejectedAddresses.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key ?? ""
            // Metres or feet read as degrees: the file's CRS is the fix, not its columns. Said only
            // where out-of-range rows are most of the file, not one bad row among other faults.
            let outside = report.rejectedAddresses[Self.reasonClass("coordinates outside the lon/lat range: ")] ?? 0
            if let p = outOfRange, transform == nil, Double(outside) > config.maximumRejectedShare * Double(report.addressRows) {
                throw LocusError(.importFailed, """
                    \(Int(Double(outside) * 100 / Double(report.addressRows)))% of the rows of \(path) have x/y outside the \
                    lon/lat range (first: \(p.x), \(p.y)): projected coordinates? Give their spatial reference with \
                    --address-wkid (a State Plane or UTM EPSG code, e.g. 2913)
                    """)
            }
            throw LocusError(.importFailed, "\(Int(rejectedShare * 100))% of the rows of \(path) were rejected (mostly: \(top)); check the column options")
        }

        // A leading zero is a real part of an address where few numbers have one (Portland: 503 of
        // 435,000, east of its zero line); where many do, the file pads its numbers ("00123") and
        // the zeros mean nothing.
        if report.numbersWithLeadingZero > 0, Double(report.numbersWithLeadingZero) > Self.paddedShare * Double(candidates) {
            try db.execute("UPDATE staging.rows SET number = -number WHERE number < 0")
            report.leadingZerosArePadding = true
        }

        // Names in order. (A name only a duplicate row had is still some kept row's: the same.)
        _ = names.suffix("")
        let (streets, streetFinal) = names.mergedStreets()
        let (suffixes, suffixFinal) = Names.ranks(names.suffixes, by: <)
        let (places, placeFinal) = Names.ranks(names.places) { Self.placeKey($0) < Self.placeKey($1) }
        // Rows of one cell, street, number and suffix order by ZIP code, then city.
        let zipCities = Array(Set(places.map { [$0.postcode, $0.city] })).sorted { ($0[0], $0[1]) < ($1[0], $1[1]) }
        let zipCityRank = Dictionary(uniqueKeysWithValues: zipCities.enumerated().map { ($1, $0) })
        try fill("staging.street_ids", streetFinal.enumerated().map { [Int64($0), Int64($1)] })
        try fill("staging.suffix_ids", suffixFinal.enumerated().map { [Int64($0), Int64($1)] })
        try fill("staging.place_ids", placeFinal.enumerated().map { provisional, final in
            [Int64(provisional), Int64(final), Int64(zipCityRank[[places[Int(final)].postcode, places[Int(final)].city]] ?? 0)]
        })

        // The USPS-style form is stored, not derived per answer: answers are the hot path.
        let insertStreet = try db.prepare("INSERT INTO streets(id, name, display) VALUES (?, ?, ?)")
        for (i, s) in streets.enumerated() {
            try insertStreet.run([.integer(Int64(i)), .text(s), .text(StreetStyle.abbreviated(s))])
        }
        let insertPlace = try db.prepare("INSERT INTO places(id, city, state, postcode) VALUES (?,?,?,?)")
        for (i, p) in places.enumerated() {
            try insertPlace.run([.integer(Int64(i)), .text(p.city), .text(p.state), .text(p.postcode)])
        }
        let insertSuffix = try db.prepare("INSERT INTO number_suffixes(id, suffix) VALUES (?, ?)")
        for (i, s) in suffixes.enumerated() { try insertSuffix.run([.integer(Int64(i)), .text(s)]) }
        content.update((streets + places.map(Self.placeKey) + suffixes).joined(separator: "\u{1}"))

        let grid = AddressIndex.Grid.covering(envelope, cellMetres: config.addressCellMetres)
        self.grid = grid
        let kept = try layOut(grid: grid, places: places.count, reject: reject)
        let cellBytes = kept.cellStart.flatMap { withUnsafeBytes(of: $0.littleEndian, Array.init) }
        let derivation = SearchDerivation(streets: streets, places: places, placeCounts: kept.placeCounts)
        try placeRanks(derivation)
        try linkNeighbours()
        let points = try writePoints()
        config.progress?(.searchTables)
        let frontage = try writeFrontage(points: points, grid: grid, cellStart: kept.cellStart, cellBytes: cellBytes, streets: streets,
                                         places: places, suffixes: suffixes)
        let search = try writeSearchTables(derivation)
        sections += [("address_points", .file(points)), ("address_cells", .bytes(cellBytes))]
        sections += search
        sections.append(("address_frontage", .file(frontage)))
        if config.lotLayer != nil { pointsFile = points }

        report.addresses = kept.count
        try recordIssues(issues, report: &report)
        try recordSource(name: "addresses", kind: "addresses", files: [path], crs: srs.projDefinition)
        metadata["address_count"] = String(kept.count)
        metadata["address_rows"] = String(report.addressRows)
        metadata["address_rejected"] = String(report.addressRows - kept.count)
        metadata["address_grid"] = Self.json(grid)
        metadata["address_rejected_by_reason"] = Self.json(report.rejectedAddresses)
        metadata["address_extent"] = Self.json(envelope)
        metadata["address_columns"] = Self.json(columns)
    }

    private func fill(_ table: String, _ rows: [[Int64]]) throws(LocusError) {
        guard let width = rows.first?.count else { return }
        let insert = try db.prepare("INSERT INTO \(table) VALUES (\(Array(repeating: "?", count: width).joined(separator: ",")))")
        for r in rows { try insert.run(r.map { .integer($0) }) }
    }

    /// Numbers each kept address in grid order (each cell's points contiguous), then by a total
    /// order on content so that the same rows in any file order give the same index, into the
    /// `addresses` table; the same address at the same spot twice is one address, and the second
    /// row is reported.
    private func layOut(grid: AddressIndex.Grid, places: Int, reject: (Int, String) -> Void) throws(LocusError)
        -> (count: Int, cellStart: [UInt32], placeCounts: [Int]) {
        // `Grid.cell` in SQL: x − origin is never negative, so truncation is the floor it takes.
        let cell = """
            min(max(CAST((r.lat - ?1) / ?2 AS INTEGER), 0), ?3) * ?4 + min(max(CAST((r.lon - ?5) / ?6 AS INTEGER), 0), ?7)
            """
        let sorted = try db.prepare("""
            SELECT \(cell) AS cell, s.id, r.number, x.id, p.id, r.lon, r.lat, r.row
            FROM staging.rows r JOIN staging.street_ids s ON s.provisional = r.street
            JOIN staging.suffix_ids x ON x.provisional = r.suffix JOIN staging.place_ids p ON p.provisional = r.place
            ORDER BY cell, s.id, r.number, x.id, p.zip_city, r.lon, r.lat, r.row
            """)
        try sorted.bind([.real(grid.originY), .real(grid.cellHeight), .integer(Int64(grid.rows - 1)), .integer(Int64(grid.columns)),
                         .real(grid.originX), .real(grid.cellWidth), .integer(Int64(grid.columns - 1))])
        let insert = try db.prepare("INSERT INTO addresses(id, number, suffix_id, street_id, place_id, lon, lat, source_row) VALUES (?,?,?,?,?,?,?,?)")
        var cellStart = [UInt32](repeating: 0, count: grid.columns * grid.rows + 1)
        var placeCounts = [Int](repeating: 0, count: places)
        var last: (cell: Int64, street: Int64, number: Int64, suffix: Int64, place: Int64, lon: Double, lat: Double, row: Int64)?
        var id: Int64 = 0
        while try sorted.step() {
            let row = (cell: sorted.int64(0), street: sorted.int64(1), number: sorted.int64(2), suffix: sorted.int64(3),
                       place: sorted.int64(4), lon: sorted.double(5), lat: sorted.double(6), row: sorted.int64(7))
            if let l = last, l.cell == row.cell, l.street == row.street, l.number == row.number, l.suffix == row.suffix,
               l.place == row.place, l.lon == row.lon, l.lat == row.lat {
                reject(Int(row.row), "duplicate of row \(l.row)")
                continue
            }
            last = row
            try insert.run([.integer(id), .integer(row.number), .integer(row.suffix), .integer(row.street), .integer(row.place),
                            .real(row.lon), .real(row.lat), .integer(row.row)])
            id += 1
            guard row.cell >= 0, row.cell < Int64(cellStart.count - 1), row.place >= 0, row.place < Int64(places) else {
                throw LocusError(.internalError, "an address fell outside the grid while laying the index out")
            }
            cellStart[Int(row.cell) + 1] += 1
            placeCounts[Int(row.place)] += 1
        }
        for i in 0..<(cellStart.count - 1) { cellStart[i + 1] += cellStart[i] }
        try db.execute("DELETE FROM staging.rows")
        return (Int(id), cellStart, placeCounts)
    }

    /// Each place's city and ZIP code by rank, and locality, for the passes that group by them.
    private func placeRanks(_ d: SearchDerivation) throws(LocusError) {
        try fill("staging.place_ranks", d.placeCity.indices.map {
            [Int64($0), Int64(d.placeCity[$0]), Int64(d.placePostcode[$0]), Int64(d.placeLocality[$0])]
        })
    }

    /// For each address, the addresses before and after it on the same side (house-number parity)
    /// of the same street in the same city, by number: the lot's neighbours, which the reverse
    /// geocoder uses to tell which lot a point fronts. Neighbours more than 150 m away are none.
    private func linkNeighbours() throws(LocusError) {
        let sorted = try db.prepare("""
            SELECT a.id, a.street_id, q.city, a.number, a.lon, a.lat FROM addresses a JOIN staging.place_ranks q ON q.id = a.place_id
            ORDER BY a.street_id, q.city, a.number & 1, a.number, a.suffix_id, a.id
            """)
        let insert = try db.prepare("INSERT INTO staging.neighbours(id, previous, next) VALUES (?,?,?)")
        // The address before the current one in its group, and the current one's own previous.
        var held: (id: Int64, group: (Int64, Int64, Int64), lon: Double, lat: Double, previous: Int64)?
        func emit(_ h: (id: Int64, group: (Int64, Int64, Int64), lon: Double, lat: Double, previous: Int64), next: Int64) throws(LocusError) {
            if h.previous >= 0 || next >= 0 { try insert.run([.integer(h.id), .integer(h.previous), .integer(next)]) }
        }
        while try sorted.step() {
            let id = sorted.int64(0), number = sorted.int64(3), lon = sorted.double(4), lat = sorted.double(5)
            let group = (sorted.int64(1), sorted.int64(2), number & 1)
            var previous: Int64 = -1
            if let h = held {
                var linked = false
                if h.group == group {
                    let s = LocalMetricScale(latitude: h.lat)
                    let dx = (h.lon - lon) * s.metresPerDegreeX, dy = (h.lat - lat) * s.metresPerDegreeY
                    linked = dx * dx + dy * dy <= 150 * 150
                }
                try emit(h, next: linked ? id : -1)
                if linked { previous = h.id }
            }
            held = (id, group, lon, lat, previous)
        }
        if let h = held { try emit(h, next: -1) }
    }

    /// The `address_points` table (`IndexSchema.packedAddressSize` bytes per address), in order.
    private func writePoints() throws(LocusError) -> ScratchFile {
        let file = try scratch("points", hashed: true)
        let rows = try db.prepare("""
            SELECT a.lon, a.lat, a.number, a.street_id, a.place_id, a.suffix_id, coalesce(n.previous, -1), coalesce(n.next, -1)
            FROM addresses a LEFT JOIN staging.neighbours n ON n.id = a.id ORDER BY a.id
            """)
        var record = [UInt8](repeating: 0, count: IndexSchema.packedAddressSize)
        while try rows.step() {
            let p = AddressIndex.Point(lon: rows.double(0), lat: rows.double(1), number: Int32(truncatingIfNeeded: rows.int64(2)),
                                       street: UInt32(truncatingIfNeeded: rows.int64(3)), place: UInt32(truncatingIfNeeded: rows.int64(4)),
                                       suffix: UInt32(truncatingIfNeeded: rows.int64(5)), previous: Int32(truncatingIfNeeded: rows.int64(6)),
                                       next: Int32(truncatingIfNeeded: rows.int64(7)))
            record.withUnsafeMutableBytes { PointTable.pack(p, into: $0, at: 0) }
            file.append(record)
            try file.recordWritten()
        }
        try file.flush()
        return file
    }

    /// Lot frontages need every address of a street and its neighbours in the grid: worked out
    /// here once, over the points just written (mapped), a band of grid rows at a time; the pages
    /// of points a band can no longer reach are let go, so memory holds a few rows of the grid.
    private func writeFrontage(points: ScratchFile, grid: AddressIndex.Grid, cellStart: [UInt32], cellBytes: [UInt8], streets: [String],
                               places: [AddressPlace], suffixes: [String]) throws(LocusError) -> ScratchFile {
        let file = try scratch("frontage", hashed: true)
        guard points.count > 0 else { return file }
        let mapped = try MappedFile(path: points.path)
        let stride = IndexSchema.packedAddressSize
        let records = PackedRecords(bytes: UnsafeRawBufferPointer(rebasing: mapped.bytes[0..<(points.count / stride * stride)]), stride: stride, owner: mapped)
        let cells = PackedRecords(packed: cellBytes, stride: 4)
        let index = AddressIndex(grid: grid, cellStart: cells, points: records, streets: streets, streetDisplay: streets,
                                 places: places, suffixes: suffixes, frontage: nil)
        // Rows a frontage reads around its own: its same-side neighbours lie within 150 m.
        let reach = Int((150 / max(grid.cellHeight * 111_132, 1)).rounded(.up)) + 1
        var row = 0, released = 0
        while row < grid.rows {
            var end = row + 1
            while end < grid.rows, Int(cellStart[end * grid.columns]) - Int(cellStart[row * grid.columns]) < 65_536 { end += 1 }
            let ids = Int(cellStart[row * grid.columns])..<Int(cellStart[end * grid.columns])
            for f in LotFrontage.compute(index, ids: ids) {
                for v in [f.ux, f.uy, f.start, f.end, f.centre] { file.append(v.bitPattern) }
                try file.recordWritten()
            }
            let passed = Int(cellStart[max(end - reach, 0) * grid.columns]) * stride
            if passed > released { mapped.release(released..<passed) }
            released = max(released, passed)
            row = end
        }
        try file.flush()
        return file
    }

    /// What search derives from the points (`SearchTables`), each pass in the order
    /// `SearchDerivation` takes it.
    private func writeSearchTables(_ derivation: SearchDerivation) throws(LocusError) -> [(name: String, content: SectionContent)] {
        var d = derivation
        let byStreet = try scratch("by-street"), streetNumbers = try scratch("street-numbers")
        // A street's addresses city by city (its street places' order), each in number order.
        let streets = try db.prepare("""
            SELECT a.id, a.street_id, a.place_id, a.lon, a.lat, a.number FROM addresses a JOIN staging.place_ranks q ON q.id = a.place_id
            ORDER BY a.street_id, q.locality, a.number, a.suffix_id, a.id
            """)
        var street: Int64 = 0
        var members: [(member: SearchDerivation.Member, place: UInt32)] = []
        func flushStreets(upTo s: Int64) {
            while street < s {
                d.addStreet(members)
                members.removeAll(keepingCapacity: true)
                street += 1
            }
        }
        while try streets.step() {
            let id = Int32(truncatingIfNeeded: streets.int64(0))
            flushStreets(upTo: streets.int64(1))
            members.append((.init(id: id, lon: streets.double(3), lat: streets.double(4)), UInt32(truncatingIfNeeded: streets.int64(2))))
            byStreet.append(id)
            try byStreet.recordWritten()
            streetNumbers.append(Int32(truncatingIfNeeded: streets.int64(5)))
            try streetNumbers.recordWritten()
        }
        flushStreets(upTo: Int64(d.streetTokens.count))
        try byStreet.flush()
        try streetNumbers.flush()

        let byNumber = try scratch("by-number")
        var keys: [Int32] = [], starts: [Int32] = [0]
        let numbers = try db.prepare("SELECT id, number FROM addresses ORDER BY number, street_id, suffix_id, id")
        var n: Int32 = 0
        while try numbers.step() {
            let number = Int32(truncatingIfNeeded: numbers.int64(1))
            if keys.last != number {
                if !keys.isEmpty { starts.append(n) }
                keys.append(number)
            }
            byNumber.append(Int32(truncatingIfNeeded: numbers.int64(0)))
            try byNumber.recordWritten()
            n += 1
        }
        if !keys.isEmpty { starts.append(n) }
        try byNumber.flush()

        for column in ["postcode", "city"] {
            func add(_ rank: Int64, _ group: [SearchDerivation.Member]) {
                if column == "postcode" { d.addPostcode(Int32(truncatingIfNeeded: rank), members: group) } else { d.addCity(Int32(truncatingIfNeeded: rank), members: group) }
            }
            let areas = try db.prepare("""
                SELECT q.\(column), a.id, a.lon, a.lat FROM addresses a JOIN staging.place_ranks q ON q.id = a.place_id
                WHERE q.\(column) >= 0 ORDER BY q.\(column), a.id
                """)
            var rank: Int64 = -1
            var group: [SearchDerivation.Member] = []
            while try areas.step() {
                if areas.int64(0) != rank {
                    add(rank, group)
                    group.removeAll(keepingCapacity: true)
                    rank = areas.int64(0)
                }
                group.append(.init(id: Int32(truncatingIfNeeded: areas.int64(1)), lon: areas.double(2), lat: areas.double(3)))
            }
            add(rank, group)
        }

        // The tables that grow with streets, from what the passes gathered (those that grow with
        // the addresses are the files above).
        let (vocabulary, postings) = d.wordIndex()
        let streetLevel = AddressSearch.PointDerived(
            streetTokens: d.streetTokens, streetStart: d.streetStart, byStreet: [], streetNumbers: [], streetPlaces: d.streetPlaces,
            localities: d.localities.map { [$0.city, $0.state] }, numberKeys: [], numberStart: [], byNumber: [],
            vocabulary: vocabulary, postings: postings, postcodes: d.postcodes, cities: d.cities)
        return [("search_street_start", .bytes(SearchTables.bytes(d.streetStart))), ("search_by_street", .file(byStreet)),
                ("search_street_numbers", .file(streetNumbers)),
                ("search_number_keys", .bytes(SearchTables.bytes(keys))), ("search_number_start", .bytes(SearchTables.bytes(starts))),
                ("search_by_number", .file(byNumber))]
            + SearchTables.packPerStreet(streetLevel).map { ($0.name, .bytes($0.bytes)) }
    }

    private func scratch(_ name: String, hashed: Bool = false) throws(LocusError) -> ScratchFile {
        try ScratchFile(path: scratchPrefix + name, digest: hashed ? content : nil)
    }
}
