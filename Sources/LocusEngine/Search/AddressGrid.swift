import Foundation
import LocusCore

/// A city's address grid: where a house number lies along a street whose own points cannot say
/// (the number is hundreds beyond its last known one, or the street has no line), read from the
/// numbers of the streets beside it that run the same way. US cities number most streets on one
/// grid — 1200 on one east–west street stands where 1200 stands on the next — so the parallel
/// streets' points with numbers near the wanted one say how far along it lies, and the street's
/// own points say where across.
///
/// Portland's leading-zero numbers ("0205 SW Idaho St", held negative) are the grid's numbers
/// east of its zero line: the same reading places them, where the street's own points are all
/// west of the line, 4 km away.
extension AddressSearch {
    /// One street place's points as a line: their centre, the direction its numbers rise (a unit
    /// vector, east and north), metres per number along it, and how long the stretch is.
    struct StreetAxis: Sendable {
        var lon: Double
        var lat: Double
        var east: Double
        var north: Double
        var pace: Double
        var span: Double

        /// Metres along the axis from its centre to a point.
        func along(_ lon: Double, _ lat: Double) -> Double {
            let s = LocalMetricScale(latitude: self.lat)
            return (lon - self.lon) * s.metresPerDegreeX * east + (lat - self.lat) * s.metresPerDegreeY * north
        }
    }

    /// Numbers either side of the wanted one that the parallel streets' points are read at. Swept
    /// on the dev street trees in a sketch of this reading (see `gridPlaced`): 150 / 300 numbers,
    /// +718 / +769 trees.
    static let gridNumberWindow = 300
    /// Metres across from the street's line within which a parallel street's points count: about
    /// ten blocks. 800 / 1,200 / 2,000 m: +612 / +718 / +747 trees (at a 150-number window).
    static let gridReach = 1200.0
    /// Degrees between a street and another whose points count as its parallel.
    static let gridAngle = 12.0
    /// Estimates needed, at the least.
    static let gridEstimates = 3
    /// The number is this many numbers or more from the street's nearest known one before the grid
    /// is read instead of the street's own line (nearer, the street's own numbers say it better:
    /// on the dev street trees its extrapolations within 100 numbers were right 373 times to the
    /// grid's 317 of 607).
    static let gridBeyondNumbers = 100
    /// Metres between the middle half of the estimates above which the grid is not one there
    /// (streets that bend, numbering that restarts): 50 for an extrapolation replaced, 100 for a
    /// street answer that had no place at all.
    static let gridSpreadOverLine = 50.0
    static let gridSpreadOverStreet = 100.0
    /// Metres from the street's nearest known number beyond which the grid is not read.
    static let gridFarthest = 8000.0

    /// The grid is read only for a street matched with less than this off (a typo, another type):
    /// a street matched more loosely cannot reach a score of 60 with a number placed at 15 or
    /// more off, and such streets were 95 % of the grid's readings (8.4 a query on the dev
    /// addresses that are no point, every one a few hundred numbers' points read).
    static let gridPenaltyLimit = 25.0
    /// Metres between the grid's place and the street's own line (an extrapolation) beyond which
    /// the line is kept: a street that jogs between its stretches ("2525 SW 3rd Ave": downtown's
    /// points stand 700 m east of the stretch the number is on) is across from its nearest points.
    /// Measured on the dev street trees, extrapolations the grid moved by 100–400 m: the grid right
    /// for 368 trees, the line for 25; by more than 400 m: the grid 5, the line 22.
    static let gridDisagreement = 400.0
    /// Metres about a grid-placed number within which its neighbours' place (ZIP code) is read.
    static let gridPlaceReach = 300.0

    /// A number placed by the city's grid (`gridPlace`) on street place `k`, when the estimates agree
    /// within `spread` metres and it lies within `gridFarthest` of the street's nearest known number:
    /// scored as an extrapolation that far. Measured on the dev street trees (addresses not among
    /// the index points, trees within 75 m; halves of the neighbourhoods by a hash of the name):
    /// extrapolations 100 or more numbers beyond the last known one replaced, and street answers
    /// placed, +288 / +542 trees (`locus eval`: 55.94 → 59.35 %); in a first sketch, replacing
    /// extrapolations within 100 numbers too did worse on both halves, and replacing
    /// interpolations lost 1,376 trees for 575.
    func gridPlaced(_ number: HouseNumber, street: Int32, place k: Int, members: [Int32], q: ParsedAddress, penalty: Double,
                    notes: [String], spread: Double, line: ScoredMatch? = nil, memo: QueryMemo? = nil) -> ScoredMatch? {
        // The line's key ("e" street:number:from:to) names the fit the grid was checked against.
        let fit = line.map { $0.key.split(separator: ":").dropFirst(2) } ?? []
        guard line == nil || (line?.key.first == "e" && fit.count == 2),
              k >= 0, k < streetPlaces.count, gridHolds(in: streetPlaces[k].locality) else { return nil }
        let reading = if let memo {
            memo.gridPlace(number.value, street: street, place: k, members: members, in: self)
        } else {
            gridPlace(number.value, street: street, place: k, members: members)
        }
        guard let (location, found) = reading, found < spread,
              (line?.location.metres(to: location) ?? 0) <= Self.gridDisagreement else { return nil }
        guard let (anchor, distance) = nearest(of: members, to: location) else { return nil }
        let a = addresses.points[Int(anchor)]
        guard distance <= Self.gridFarthest, !gridPlacedBackwards(number.value, at: location, place: k, members: members) else { return nil }
        let cost = min(15 + distance / 200, Self.numberNotPlacedPenalty)
        let place = placeNamed(near: location, GeoPoint(x: a.lon, y: a.lat), anchor: neighboursPlace(at: location, of: anchor), q)
        return placed(number, at: location, in: place, from: anchor, q: q, penalty: penalty, cost: cost, cap: 100 - cost,
                      type: .extrapolated, key: "g\(street):\(number.value):\(k)" + fit.map { ":\($0)" }.joined(), notes: notes,
                      how: "house number \(number.text) placed by the numbers of the parallel streets, \(Int(distance.rounded())) m from \(HouseNumber.digits(of: Int(a.number))) (−\(Int(cost.rounded())))")
    }

    /// Of `members` (addresses), the one nearest `location`, and how many metres off it is.
    func nearest(of members: [Int32], to location: GeoPoint) -> (address: Int32, metres: Double)? {
        let points = addresses.points
        let s = LocalMetricScale(latitude: location.y)
        func squared(_ i: Int32) -> Double {
            let dx = (points[Int(i)].lon - location.x) * s.metresPerDegreeX, dy = (points[Int(i)].lat - location.y) * s.metresPerDegreeY
            return dx * dx + dy * dy
        }
        guard let anchor = members.min(by: { squared($0) < squared($1) }) else { return nil }
        let a = points[Int(anchor)]
        return (anchor, GeoPoint(x: a.lon, y: a.lat).metres(to: location))
    }

    /// Metres a number below (above) all of its street's known numbers may be read past the end
    /// of the lowest (highest) along the street's way before the reading is taken as backwards.
    static let gridBackwardsSlack = 100.0

    /// Whether the grid put a number below all of street place `k`'s known numbers (`members`, in
    /// number order) beyond the other end of them, where the numbers are higher (or one above them
    /// beyond the low end): the parallels read were of another stretch of the grid ("123 NW
    /// Flanders St", whose points are all in the 1800s–2300s, was read from the West Hills' short
    /// streets numbered on their own, 2.6 km west of where NW Flanders St's low numbers are).
    func gridPlacedBackwards(_ number: Int, at location: GeoPoint, place k: Int, members: [Int32]) -> Bool {
        let table = gridTable
        let points = addresses.points
        guard k >= 0, k < table.axes.count, let own = table.axes[k], let low = members.first, let high = members.last else { return false }
        let (l, h) = (points[Int(low)], points[Int(high)])
        let here = own.along(location.x, location.y)
        if number < Int(l.number) { return here > own.along(l.lon, l.lat) + Self.gridBackwardsSlack }
        if number > Int(h.number) { return here < own.along(h.lon, h.lat) - Self.gridBackwardsSlack }
        return false
    }

    /// The place (city, ZIP code) of the addresses of `anchor`'s city within `gridPlaceReach` of a
    /// number the grid placed, else `anchor`'s: not that of a known number kilometres off.
    func neighboursPlace(at location: GeoPoint, of anchor: Int32) -> Int32 {
        let a = addresses.points[Int(anchor)]
        let locality = self.locality(ofPlace: Int32(a.place))
        return addresses.nearest(lon: location.x, lat: location.y, maxDistance: Self.gridPlaceReach, count: Self.placeNearCount)
            .lazy.map { Int32(self.addresses.points[$0.0].place) }.first { self.locality(ofPlace: $0) == locality } ?? Int32(a.place)
    }

    /// What the grid reads of every street place, worked out on first use (with Portland's own
    /// check, `gridHolds`, 0.09 s for its 435,000 addresses: `locus geocode` of a number the grid
    /// places against one that is a point): looking each candidate's street place, directional
    /// and line up by name as it was found made `locus eval` on the dev trees 174 s, not 92 s.
    struct GridTable: Sendable {
        /// Each street place's axis (nil for one with fewer than three points, no spread, or
        /// numbers that do not run along it).
        var axes: [StreetAxis?]
        /// Each address's street place.
        var placeOfAddress: [Int32]
        /// Each street place's leading directional, numbered (-1: none).
        var directional: [Int32]
        /// The addresses of each city, leading directional and way the numbers run (`groupKey`), in
        /// number order, with their numbers and street places: what a number's parallel streets
        /// are looked for in. Scanning all the region's addresses of those 600 numbers made that
        /// evaluation 92 s, not 18 s (before `gridPenaltyLimit`, which made it 9.4 s, as before).
        var groups: [Int64: GridGroup]
        /// Each group's way, its streets' directions weighted by length (a unit vector, east and
        /// north), and how many street places it has: the ways a street of a point or two may run
        /// (`gridPlaceSparse`).
        var headings: [Int64: (east: Double, north: Double, places: Int)]
        /// Each leading directional's number in `directional` (its canonical word: "northwest").
        var directionalIDs: [String: Int32] = [:]

        /// One group's addresses in number order, each field in an array of its own. The points'
        /// coordinates and streets are kept here rather than read from the address table: a reading
        /// scans a few thousand of them to keep those within reach, and reading each from the
        /// mapped table, in no order, was a fifth of a query's time (`perf`, "3000 mlk jr blvt");
        /// from these arrays that query took a quarter less (7 MB more in memory for Portland).
        struct GridGroup: Sendable {
            var numbers: [Int32] = []
            var places: [Int32] = []
            var lon: [Double] = []
            var lat: [Double] = []
            var streets: [UInt32] = []
        }

        static func groupKey(locality: Int32, directional: Int32, sector: Int) -> Int64 {
            Int64(locality) << 32 | Int64(UInt16(truncatingIfNeeded: directional)) << 8 | Int64(sector & 0xff)
        }
    }

    /// How many ways a street's numbers may run that the groups are split by (30° each).
    static let gridSectors = 12

    /// Whether any street of the town's grid in quarter `directional` has a point numbered within
    /// `gridNumberWindow` of `number`: where none has, no grid reading (`gridReading`) can place it.
    /// Asked before the readings that cost most to set up: "67647 ne 17t h", a number beyond every
    /// house of the town on a fuzzy street that each quarter's namesake matches, set up a
    /// numbered-neighbour placement for each of them to find no parallel number (2.8 ms a query
    /// in a release build, 11 ms in the fuzzer's; every other query pays 12 binary searches).
    func gridHasNumbers(near number: Int, locality: Int32, directional: Int32) -> Bool {
        let window = Self.gridNumberWindow
        guard number > Int(Int32.min) + window, number < Int(Int32.max) - window else { return false }
        let groups = gridTable.groups
        for sector in 0..<Self.gridSectors {
            guard let numbers = groups[GridTable.groupKey(locality: locality, directional: directional, sector: sector)]?.numbers else { continue }
            var lo = 0, hi = numbers.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if Int(numbers[mid]) < number - window { lo = mid + 1 } else { hi = mid }
            }
            if lo < numbers.count, Int(numbers[lo]) <= number + window { return true }
        }
        return false
    }

    static func sector(ofDegrees degrees: Double) -> Int {
        guard degrees.isFinite else { return 0 }
        let d = degrees.truncatingRemainder(dividingBy: 360)
        let turned = d < 0 ? d + 360 : d
        return min(gridSectors - 1, max(0, Int((turned / (360 / Double(gridSectors))).rounded(.down))))
    }

    static func degrees(_ axis: StreetAxis) -> Double { atan2(axis.north, axis.east) * 180 / .pi }

    var gridTable: GridTable {
        streetAxisTable.value {
            var table = GridTable(axes: .init(repeating: nil, count: streetPlaces.count),
                                  placeOfAddress: .init(repeating: -1, count: addresses.count),
                                  directional: .init(repeating: -1, count: streetPlaces.count), groups: [:], headings: [:])
            var members: [Int64: [Int32]] = [:]
            var directionals: [String: Int32] = [:]
            let points = addresses.points
            for s in 0..<Int32(streets.count) {
                let d = streets[Int(s)].parts.predirectional.map { name in
                    directionals[name] ?? { directionals[name] = Int32(directionals.count); return Int32(directionals.count - 1) }()
                } ?? -1
                for (k, run) in zip(places(ofStreet: s), addressRuns(onStreet: s)) {
                    table.directional[k] = d
                    for a in run where Int(a) < table.placeOfAddress.count { table.placeOfAddress[Int(a)] = Int32(k) }
                    guard run.count >= 3, let axis = Self.axis(run.map({ points[Int($0)] })) else { continue }
                    table.axes[k] = axis
                    let key = GridTable.groupKey(locality: streetPlaces[k].locality, directional: d, sector: Self.sector(ofDegrees: Self.degrees(axis)))
                    members[key, default: []].append(contentsOf: run)
                    let sum = table.headings[key] ?? (0, 0, 0)
                    table.headings[key] = (sum.east + axis.east * axis.span, sum.north + axis.north * axis.span, sum.places + 1)
                }
            }
            table.directionalIDs = directionals
            for (key, sum) in table.headings {
                let length = (sum.east * sum.east + sum.north * sum.north).squareRoot()
                table.headings[key] = length > 0 ? (sum.east / length, sum.north / length, sum.places) : nil
            }
            for (key, group) in members {
                let sorted = group.map { (points.number(Int($0)), $0) }.sorted { ($0.0, $0.1) < ($1.0, $1.1) }
                var g = GridTable.GridGroup()
                g.numbers.reserveCapacity(sorted.count)
                g.places.reserveCapacity(sorted.count)
                g.lon.reserveCapacity(sorted.count)
                g.lat.reserveCapacity(sorted.count)
                g.streets.reserveCapacity(sorted.count)
                for (number, a) in sorted {
                    let p = points[Int(a)]
                    g.numbers.append(number)
                    g.places.append(table.placeOfAddress[Int(a)])
                    g.lon.append(p.lon)
                    g.lat.append(p.lat)
                    g.streets.append(p.street)
                }
                table.groups[key] = g
            }
            return table
        }
    }

    /// The way the points' numbers run: metres per number east and north by least squares, each
    /// side of the street (odd, even) about its own centre, its length the pace. The principal
    /// direction of the points, a first version, is the street's only where it is long: a short
    /// street's houses on both sides (five points over 32 m, 20 m apart across) read 29° off, no
    /// parallel of anything; one least-squares fit over both sides, 14° (three even numbers to two
    /// odd ones, the sides' offset read as a slant). Each side about its own centre reads it exactly.
    static func axis(_ run: [AddressIndex.Point]) -> StreetAxis? {
        let n = Double(run.count)
        let lon = run.reduce(0) { $0 + $1.lon } / n, lat = run.reduce(0) { $0 + $1.lat } / n
        let s = LocalMetricScale(latitude: lat)
        let xy = run.map { (($0.lon - lon) * s.metresPerDegreeX, ($0.lat - lat) * s.metresPerDegreeY, Double($0.number), Int($0.number & 1)) }
        var xv = 0.0, yv = 0.0, vv = 0.0
        for side in 0...1 {
            let mine = xy.filter { $0.3 == side }
            guard mine.count >= 2 else { continue }
            let c = Double(mine.count)
            let mx = mine.reduce(0) { $0 + $1.0 } / c, my = mine.reduce(0) { $0 + $1.1 } / c, mv = mine.reduce(0) { $0 + $1.2 } / c
            for (x, y, v, _) in mine { xv += (x - mx) * (v - mv); yv += (y - my) * (v - mv); vv += (v - mv) * (v - mv) }
        }
        guard vv > 0 else { return nil }
        let pace = (xv * xv + yv * yv).squareRoot() / vv
        guard pace > 0, pace.isFinite else { return nil }
        let east = xv / vv / pace, north = yv / vv / pace
        let along = xy.map { $0.0 * east + $0.1 * north }
        guard let lo = along.min(), let hi = along.max(), hi - lo > 0 else { return nil }
        return StreetAxis(lon: lon, lat: lat, east: east, north: north, pace: pace, span: hi - lo)
    }

    /// Where `number` lies on street place `k` (whose points are `members`) by the grid of the
    /// parallel streets of its city with the same leading directional: each of their points within
    /// `gridNumberWindow` numbers says where the number lies along (its own place, moved by its
    /// street's pace), the median of those is taken along a direction averaged over the streets
    /// (weighted by length: a short street's own direction is a few degrees off, 200 m over 4 km),
    /// and the street's own points nearest that place say where across. With the spread (metres)
    /// of the middle half of the estimates; nil with fewer than `gridEstimates`. A street place with
    /// no line of its own is read along the way the grid runs there (`gridPlaceSparse`).
    func gridPlace(_ number: Int, street: Int32, place k: Int, members: [Int32]) -> (location: GeoPoint, spread: Double)? {
        let table = gridTable
        guard k >= 0, k < table.axes.count, !members.isEmpty else { return nil }
        guard let own = table.axes[k] else { return gridPlaceSparse(number, street: street, place: k, members: members) }
        return gridPlace(number, street: street, place: k, members: members, axis: own)
    }

    /// Street places of the grid's groups a street of a point or two is tried along, at the least:
    /// a way few streets run is no way of the grid.
    static let gridSparseHeadingPlaces = 5
    /// Metres from its own point within which a sparse street's known number must be placed by a
    /// way of the grid for that way to be the street's.
    static let gridSparseCheck = 50.0

    /// Where `number` lies on a street place too short for a line of its own (a point or two, or
    /// numbers that do not run): of the ways the streets of its city and directional run, the one
    /// whose grid places the street's known number (the one nearest the wanted) where it stands,
    /// within `gridSparseCheck` — a way across the street reads numbers of another kind, kilometres
    /// off — and the number placed that way, moved as the known one's place was to its point.
    func gridPlaceSparse(_ number: Int, street: Int32, place k: Int, members: [Int32]) -> (location: GeoPoint, spread: Double)? {
        let table = gridTable
        let points = addresses.points
        guard k >= 0, k < streetPlaces.count,
              let anchor = members.min(by: { abs(Int(points.number(Int($0))) - number) < abs(Int(points.number(Int($1))) - number) })
        else { return nil }
        let a = points[Int(anchor)]
        let known = Int(a.number)
        guard known != number else { return nil }
        let point = GeoPoint(x: a.lon, y: a.lat)
        let locality = streetPlaces[k].locality, prefix = table.directional[k]
        var best: (error: Double, location: GeoPoint, spread: Double)?
        for sector in 0..<Self.gridSectors {
            guard let way = table.headings[GridTable.groupKey(locality: locality, directional: prefix, sector: sector)],
                  way.places >= Self.gridSparseHeadingPlaces else { continue }
            let axis = StreetAxis(lon: a.lon, lat: a.lat, east: way.east, north: way.north, pace: 1, span: 0)
            guard let (at, _) = gridPlace(known, street: street, place: k, members: [anchor], axis: axis) else { continue }
            let error = at.metres(to: point)
            guard error < Self.gridSparseCheck, error < best?.error ?? .infinity,
                  let (there, spread) = gridPlace(number, street: street, place: k, members: [anchor], axis: axis) else { continue }
            // No faster than streets' numbers run: the streets read for a number far off may be of
            // another stretch of the grid ("87 SW Stark St", 713 numbers from its one point, read
            // from the hills' short streets 5 km west).
            let location = GeoPoint(x: there.x + point.x - at.x, y: there.y + point.y - at.y)
            guard location.metres(to: point) <= Self.fastestPace * Double(abs(number - known)) else { continue }
            best = (error, location, spread)
        }
        return best.map { ($0.location, $0.spread) }
    }

    /// `gridPlace` along `own`, street place `k`'s axis (or the way it is taken to run).
    func gridPlace(_ number: Int, street: Int32, place k: Int, members: [Int32], axis own: StreetAxis) -> (location: GeoPoint, spread: Double)? {
        gridReading(number, street: street, place: k, members: members, axis: own).map { ($0.location, $0.spread) }
    }

    /// `gridPlace` along `own`, with the way the streets read run there (a unit vector, east and
    /// north). The parallel streets are those of `directional` (default: street place `k`'s own)
    /// within `reach` metres across; `sided` reads the street's points from the number's side of
    /// it (`onSide`), else as they stand; `ownWeight`: `own` counts towards the way, by its
    /// length, as the parallels do.
    ///
    /// With `onLine`, the number is placed on `own`'s line (through its centre) rather than across
    /// at the street's own points: for a street that has none (`numberedPlacement`).
    func gridReading(_ number: Int, street: Int32, place k: Int, members: [Int32], axis own: StreetAxis, directional: Int32? = nil,
                     reach: Double = gridReach, sided: Bool = true, ownWeight: Bool = true, onLine: Bool = false)
        -> (location: GeoPoint, spread: Double, east: Double, north: Double)? {
        let table = gridTable
        let axes = table.axes
        guard k >= 0, k < axes.count, !members.isEmpty || onLine else { return nil }
        let points = addresses.points
        let s = LocalMetricScale(latitude: own.lat)
        func metres(_ lon: Double, _ lat: Double) -> (x: Double, y: Double) {
            ((lon - own.lon) * s.metresPerDegreeX, (lat - own.lat) * s.metresPerDegreeY)
        }
        var found: [(x: Double, y: Double, dv: Double, pace: Double)] = []
        var others: [Int] = []
        let window = Self.gridNumberWindow
        guard number > Int(Int32.min) + window, number < Int(Int32.max) - window else { return nil }
        parallelPoints(to: k, east: own.east, north: own.north, numbers: (number - window)...(number + window),
                       street: UInt32(bitPattern: street), directional: directional) { p, t, axis in
            let (x, y) = metres(p.lon, p.lat)
            guard abs(-x * own.north + y * own.east) <= reach else { return }
            found.append((x, y, Double(number - Int(p.number)), axis.pace))
            others.append(t)
        }
        guard found.count >= Self.gridEstimates else { return nil }
        var east = ownWeight ? own.east * own.span : 0, north = ownWeight ? own.north * own.span : 0
        for t in Set(others).sorted() {
            guard let axis = axes[t] else { continue }
            east += axis.east * axis.span
            north += axis.north * axis.span
        }
        let length = (east * east + north * north).squareRoot()
        guard length > 0 else { return nil }
        east /= length
        north /= length
        let estimates = found.map { $0.x * east + $0.y * north + $0.dv * $0.pace }.sorted()
        let c = estimates.count
        let along = c % 2 == 1 ? estimates[c / 2] : (estimates[c / 2 - 1] + estimates[c / 2]) / 2
        let spread = estimates[3 * c / 4] - estimates[c / 4]
        // Across: where the street's own points nearest that place along it stand, as seen from
        // the number's side (`onSide`).
        // (The four nearest kept as the members go: sorting a long street's thousand points for
        // them was a tenth of a grid reading.)
        var nearest: [(off: Double, across: Double)] = []
        for a in members where !onLine {
            let (x, y) = metres(points[Int(a)].lon, points[Int(a)].lat)
            let off = abs(x * east + y * north - along)
            guard nearest.count < 4 || off < nearest[3].off else { continue }
            let at = nearest.firstIndex { off < $0.off } ?? nearest.count
            let side = sided ? onSide(of: number, a) : GeoPoint(x: points[Int(a)].lon, y: points[Int(a)].lat)
            let (sx, sy) = metres(side.x, side.y)
            nearest.insert((off, -sx * north + sy * east), at: at)
            if nearest.count > 4 { nearest.removeLast() }
        }
        let own4 = nearest.map(\.across).sorted()
        let across = onLine || own4.isEmpty ? 0 : own4.count % 2 == 1 ? own4[own4.count / 2] : (own4[own4.count / 2 - 1] + own4[own4.count / 2]) / 2
        let x = along * east - across * north, y = along * north + across * east
        return (GeoPoint(x: own.lon + x / s.metresPerDegreeX, y: own.lat + y / s.metresPerDegreeY), spread, east, north)
    }

    /// A parallel street's point as a grid reading sees it.
    struct GridPoint {
        var lon: Double
        var lat: Double
        var number: Int32
    }

    /// Each point of the streets of street place `k`'s city and leading directional (or
    /// `directional`) that run within
    /// `gridAngle` of the way (`east`, `north`), whose number is in `numbers`, other than of street
    /// place `k` and street `street`: with its street place and that place's axis. What the grid's
    /// readings (`gridPlace`, `gridBetween`) are made of.
    func parallelPoints(to k: Int, east: Double, north: Double, numbers: ClosedRange<Int>, street: UInt32, directional: Int32? = nil,
                        _ body: (GridPoint, Int, StreetAxis) -> Void) {
        let table = gridTable
        let parallel = cos(Self.gridAngle * .pi / 180)
        let heading = atan2(north, east) * 180 / .pi
        let sectors = Set([Self.sector(ofDegrees: heading - Self.gridAngle), Self.sector(ofDegrees: heading + Self.gridAngle)]).sorted()
        for sector in sectors {
            guard let group = table.groups[GridTable.groupKey(locality: streetPlaces[k].locality, directional: directional ?? table.directional[k],
                                                              sector: sector)] else { continue }
            var lo = 0, hi = group.numbers.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if Int(group.numbers[mid]) < numbers.lowerBound { lo = mid + 1 } else { hi = mid }
            }
            for i in lo..<group.numbers.count {
                guard Int(group.numbers[i]) <= numbers.upperBound else { break }
                let t = Int(group.places[i])
                guard t >= 0, t < table.axes.count, t != k, let axis = table.axes[t],
                      axis.east * east + axis.north * north >= parallel, group.streets[i] != street else { continue }
                body(GridPoint(lon: group.lon[i], lat: group.lat[i], number: group.numbers[i]), t, axis)
            }
        }
    }

    /// Metres between a number's two known neighbours on its side from which the grid says where
    /// between them it lies (`gridInterpolated`): nearer, the straight line between them does as
    /// well (on the dev street trees, neighbours 150–300 m apart: 2,470 trees within 75 m by the
    /// line, 2,461 by the grid).
    static let gridBetweenSpan = 300.0
    /// Metres across from the line between the neighbours within which the parallel streets'
    /// points count: a few blocks (`locus eval`, dev trees not among the index points, within
    /// 75 m: 200 / 300 / 450 / 600 m 59.93 / 60.25 / 60.27 / 60.21 %, before 59.45 %).
    static let gridBetweenReach = 450.0
    /// Metres apart beyond which two known numbers are not read between: further than a plain
    /// interpolation spans (`interpolationSpan`), as the grid, not the line, says where between
    /// (at 600 m across: 1,500 / 3,000 / 6,000 / 10,000 m 59.90 / 60.06 / 60.21 / 60.09 %).
    static let gridBetweenLongest = 6000.0

    /// A number between two known numbers of its street (`below`, `above`: its side's, else either
    /// side's) that stand `gridBetweenSpan` or more apart, several blocks: a straight line between
    /// them has every block as long as every other, and numbers jump at each cross street. The parallel streets'
    /// points of its hundred — its block, on the streets beside it — say where along it lies, each
    /// moved by its own street's pace (`gridBetween`); it is placed that far between the two, on
    /// the line joining them. Scored as an interpolation; key `h…`.
    func gridInterpolated(_ below: Int32, _ above: Int32, number: HouseNumber, street: Int32, q: ParsedAddress, penalty: Double,
                          notes: [String]) -> ScoredMatch? {
        let points = addresses.points
        guard below >= 0, above >= 0, Int(below) < points.count, Int(above) < points.count else { return nil }
        let a = points[Int(below)], b = points[Int(above)]
        let n = number.value
        let from = GeoPoint(x: a.lon, y: a.lat), to = GeoPoint(x: b.lon, y: b.lat)
        let span = from.metres(to: to)
        // As `gridPlaced`: a street matched more loosely than `gridPenaltyLimit` is not worth the reading.
        guard penalty < Self.gridPenaltyLimit, a.street == UInt32(street), b.street == UInt32(street), Int(a.number) < n, n < Int(b.number),
              span <= Self.gridBetweenLongest, let t = gridBetween(n, from: below, to: above) else { return nil }
        let location = onSide(of: n, between: below, and: above, at: t)
        // As `interpolated` where one would reach (between numbers of both sides, the side is a
        // guess); further apart, as the grid's number beyond a street's known ones, that far from
        // the nearer: "905 NE 11th Ave" between Canby's 179 and 1323 scored as an interpolation
        // put Canby before Portland's, placed 712 m from its 1803.
        let sameSide = (Int(a.number) - n) % 2 == 0 && (Int(b.number) - n) % 2 == 0
        let (cost, place) = span <= Self.interpolationSpan
            ? (sameSide ? 10.0 : 12.0, placeNamed(near: location, from, to, anchor: Int32(a.place), or: Int32(b.place), q))
            : acrossGap(location, between: below, and: above, q)
        return placed(number, at: location, in: place, from: below, q: q, penalty: penalty, cost: cost, cap: 100 - cost - 1,
                      type: .interpolated, key: "h\(street):\(n):\(below):\(above)", notes: notes,
                      how: "house number \(number.text) placed between \(HouseNumber.digits(of: Int(a.number))) and \(HouseNumber.digits(of: Int(b.number)))\(sameSide ? "" : " (numbers of both sides)") where the parallel streets have its block (−\(Int(cost)))")
    }

    /// What a number placed at `location` between known addresses `below` and `above`, further
    /// apart than an interpolation spans, costs and where it is: as a number extrapolated as far
    /// from the nearer of them (`extrapolated`), in the town of that one's neighbours there.
    func acrossGap(_ location: GeoPoint, between below: Int32, and above: Int32, _ q: ParsedAddress) -> (cost: Double, place: Int32) {
        let points = addresses.points
        let a = points[Int(below)], b = points[Int(above)]
        let from = GeoPoint(x: a.lon, y: a.lat), to = GeoPoint(x: b.lon, y: b.lat)
        let (toFrom, toTo) = (location.metres(to: from), location.metres(to: to))
        let cost = min(15 + min(toFrom, toTo) / 200, Self.numberNotPlacedPenalty)
        return (cost, placeNamed(near: location, from, to, anchor: neighboursPlace(at: location, of: toFrom <= toTo ? below : above), q))
    }

    /// How far (0–1) from `below` to `above`, known addresses of one street place `gridBetweenSpan`
    /// or more apart, `number` lies by the grid of the streets beside them (see `gridInterpolated`);
    /// nil where the town is no grid or fewer than `gridEstimates` points say.
    func gridBetween(_ number: Int, from below: Int32, to above: Int32) -> Double? {
        let table = gridTable
        let points = addresses.points
        let a = points[Int(below)], b = points[Int(above)]
        let k = Int(table.placeOfAddress[Int(below)])
        let s = LocalMetricScale(latitude: a.lat)
        let dx = (b.lon - a.lon) * s.metresPerDegreeX, dy = (b.lat - a.lat) * s.metresPerDegreeY
        let length = (dx * dx + dy * dy).squareRoot()
        // The length first: most pairs are a block or less apart, and the town's trust is behind a lock.
        guard length >= Self.gridBetweenSpan, k >= 0, k < streetPlaces.count, Int(table.placeOfAddress[Int(above)]) == k,
              gridHolds(in: streetPlaces[k].locality) else { return nil }
        let east = dx / length, north = dy / length
        let first = HouseNumber.hundred(of: number) * 100
        var estimates: [Double] = []
        parallelPoints(to: k, east: east, north: north, numbers: first...(first + 99), street: a.street) { p, _, axis in
            let x = (p.lon - a.lon) * s.metresPerDegreeX, y = (p.lat - a.lat) * s.metresPerDegreeY
            let along = x * east + y * north
            guard abs(-x * north + y * east) <= Self.gridBetweenReach, along >= -50, along <= length + 50 else { return }
            estimates.append(along + Double(number - Int(p.number)) * axis.pace)
        }
        guard estimates.count >= Self.gridEstimates else { return nil }
        estimates.sort()
        let c = estimates.count
        let along = c % 2 == 1 ? estimates[c / 2] : (estimates[c / 2 - 1] + estimates[c / 2]) / 2
        return min(1, max(0, along / length))
    }

    /// The addresses of street place `k` in number order (its run of its street's list); nil for
    /// no street place.
    func addresses(ofStreetPlace k: Int) -> Slice<StoredIDs>? {
        guard k >= 0, k < streetPlaces.count else { return nil }
        let s = streetPlaces[k].street
        return zip(places(ofStreet: s), addressRuns(onStreet: s)).first { $0.0 == k }?.1
    }

    /// Addresses of a city whose own places the grid is asked for (`gridHolds`).
    static let gridCheckSample = 150
    /// Of those the grid places, the share within 75 m of their own point below which a city is
    /// no grid. Portland's: 0.93 (120 of 129, its streets left out in turn); its suburbs'
    /// 0.84–0.90 where streets run straight (Beaverton, Gresham, Milwaukie), 0.54–0.57 where they
    /// wind (Lake Oswego, Oregon City, Wilsonville), 0.10–0.47 in the hills and farmland (West
    /// Linn, Gaston, Corbett, Eagle Creek). A town numbered street by street, not on a grid, reads
    /// as the last (`AddressGridTests`).
    static let gridTrustedShare = 0.5
    /// Cities asked, at the least.
    static let gridCheckAnswers = 20

    /// Whether the city's grid places its own addresses well enough to place others: a sample of
    /// them (every so many of its street places' points), each placed by the grid of the streets
    /// other than its own. Worked out once per city, on its first reading (a few milliseconds).
    func gridHolds(in locality: Int32) -> Bool {
        if let known = gridTrust.withLock({ $0[locality] }) { return known }
        let (answered, near) = gridCheck(in: locality)
        let holds = answered >= Self.gridCheckAnswers && Double(near) >= Self.gridTrustedShare * Double(answered)
        gridTrust.withLock { $0[locality] = holds }
        return holds
    }

    /// Of a city's sample (`gridHolds`), how many the grid placed and how many of those within
    /// 75 m of their own point.
    func gridCheck(in locality: Int32) -> (answered: Int, near: Int) {
        let table = gridTable
        let points = addresses.points
        var places: [(k: Int, run: [Int32])] = []
        var total = 0
        for k in streetPlaces.indices where streetPlaces[k].locality == locality && table.axes[k] != nil {
            guard let run = addresses(ofStreetPlace: k) else { continue }
            places.append((k, Array(run)))
            total += run.count
        }
        let stride = max(1, total / Self.gridCheckSample)
        var seen = 0, answered = 0, near = 0
        for (k, run) in places {
            for a in run {
                defer { seen += 1 }
                guard seen % stride == 0 else { continue }
                let p = points[Int(a)]
                guard let (location, spread) = gridPlace(Int(p.number), street: streetPlaces[k].street, place: k, members: run),
                      spread < Self.gridSpreadOverStreet else { continue }
                answered += 1
                if location.metres(to: GeoPoint(x: p.lon, y: p.lat)) <= 75 { near += 1 }
            }
        }
        return (answered, near)
    }
}
