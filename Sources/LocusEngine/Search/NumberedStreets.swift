import Foundation
import LocusCore

/// A numbered street that has no points in a town or quarter, placed between the town's numbered
/// streets either side of it. US towns number streets in order across their grids ("11th Ave",
/// "12th Ave", "13th Ave", a block apart), so where a building import lacks a whole street, the
/// streets numbered next to it say where across it runs, and the parallel streets' numbers where
/// along it a house number lies (the city's grid, `gridReading`).
///
/// Two ways in: a quarter lacking a street that another quarter has ("NW 12th Ave" in Portland,
/// whose points have SW and NE 12th Ave but no NW 12th Ave: `continued`), and a town lacking a
/// street that no quarter of it has ("19th Ave, Forest Grove", when its points lack it: every such
/// address went to another town's 19th Ave, Portland's NE 19th Ave among them).
extension AddressSearch {
    /// Ordinals either side of a numbered street's own that its quarter's numbered streets are
    /// looked for at: the Pearl's NW 12th Ave lies between NW 11th Ave's two points and NW 16th
    /// Ave's nine (NW 13th–15th Ave have none in Portland's import).
    static let numberedNeighbourReach = 4
    /// Metres a numbered street may lie from the next number's (across, per ordinal): a block,
    /// from a short one to a long one. Outside it the two are no neighbours on one grid.
    static let numberedSpacing = 40.0...250.0
    /// What placing a street between its numbered neighbours costs at the least, more than a
    /// carried line's 15: no point of the street itself says where across it lies.
    static let numberedNeighbourCost = 17.0
    /// Points of each neighbour nearest the number's block that say where across it lies.
    static let numberedNearestPoints = 4

    /// Where `number` lies on numbered street `n` of `kind` (its directionals and type) in
    /// `locality`, by the town's numbered streets of the kind within `numberedNeighbourReach`
    /// (those of their points that `keep`) and the parallel streets' numbers.
    struct NumberedPlacement {
        var location: GeoPoint
        /// The known address nearest the place, of one of the two neighbours read.
        var anchor: Int32
        var distance: Double
        var cost: Double
        var below: Int32
        var above: Int32
        /// A known address of the lower neighbour: its name, renumbered, is the answer's.
        var belowAddress: Int32
        var between: Bool
    }

    /// `hint`: the way a namesake runs (another quarter's street of the number), which neighbours
    /// must run along and which says the way where no neighbour has a line of its own.
    func numberedPlacement(_ number: HouseNumber, ordinal n: Int, kind: StreetNameParts, locality: Int32, hint: StreetAxis?,
                           keep: (AddressIndex.Point) -> Bool) -> NumberedPlacement? {
        let table = gridTable
        let points = addresses.points
        guard number.value > 0, n > 0, n < 100_000, gridHolds(in: locality) else { return nil }
        let quarter = kind.predirectional.flatMap { table.directionalIDs[$0] } ?? -1
        guard gridHasNumbers(near: number.value, locality: locality, directional: quarter) else { return nil }
        let turn = cos(Self.continuationTurn * .pi / 180)
        // The town's numbered streets of the kind near the number: one place each, its points
        // kept, its line (if it has one) along the namesake's.
        var neighbours: [Int: (street: Int32, place: Int, members: [Int32])] = [:]
        for (m, t) in numberedStreets[kind] ?? [] where m != n && abs(m - n) <= Self.numberedNeighbourReach && neighbours[m] == nil {
            for j in places(ofStreet: t) where streetPlaces[j].locality == locality {
                if let axis = table.axes[j], let theirs = hint, abs(axis.east * theirs.east + axis.north * theirs.north) < turn { continue }
                guard let members = addresses(ofStreetPlace: j)?.filter({ keep(points[Int($0)]) }), !members.isEmpty else { continue }
                neighbours[m] = (t, j, members)
                break
            }
        }
        // Two to read across from: either side of the number, else the two nearest on one side
        // (NW 1st–8th Ave have no points in Portland's import below NW 9th Ave).
        let ordinals = neighbours.keys.sorted()
        let below: Int, above: Int
        if let b = ordinals.last(where: { $0 < n }), let a = ordinals.first(where: { $0 > n }) {
            (below, above) = (b, a)
        } else if ordinals.count >= 2 {
            let two = ordinals.sorted { abs($0 - n) < abs($1 - n) }.prefix(2).sorted()
            (below, above) = (two[0], two[1])
        } else {
            return nil
        }
        guard let low = neighbours[below], let high = neighbours[above], let first = low.members.first else { return nil }
        // The way the streets run: their lines' own, weighted by length.
        var east = 0.0, north = 0.0
        for (_, place, _) in neighbours.values {
            guard let axis = table.axes[place] else { continue }
            east += axis.east * axis.span
            north += axis.north * axis.span
        }
        // Neighbours of a point or two have no line: the way most of the quarter's streets run
        // near the namesake's (NW 9th and 11th Ave, with three points between them, for NW 10th).
        if east == 0, north == 0, let theirs = hint,
           let way = (0..<Self.gridSectors).compactMap({ table.headings[GridTable.groupKey(locality: locality, directional: quarter, sector: $0)] })
            .filter({ $0.places >= Self.gridSparseHeadingPlaces && abs($0.east * theirs.east + $0.north * theirs.north) >= turn })
            .max(by: { $0.places < $1.places }) {
            (east, north) = (way.east, way.north)
        }
        let length = (east * east + north * north).squareRoot()
        guard length > 0, length.isFinite else { return nil }
        (east, north) = (east / length, north / length)
        // Each neighbour's place across that way, from one origin.
        let origin = points[Int(first)]
        let scale = LocalMetricScale(latitude: origin.lat)
        func metres(_ lon: Double, _ lat: Double) -> (along: Double, across: Double) {
            let x = (lon - origin.lon) * scale.metresPerDegreeX, y = (lat - origin.lat) * scale.metresPerDegreeY
            return (x * east + y * north, -x * north + y * east)
        }
        let framed = neighbours.mapValues { $0.members.map { metres(points[Int($0)].lon, points[Int($0)].lat) } }
        // The median across of the points nearest `along` (of all of them with none given): a
        // street kilometres long is not quite straight, and the number's block is where it counts.
        func across(_ ordinal: Int, near along: Double? = nil) -> Double? {
            guard var placed = framed[ordinal] else { return nil }
            if let along { placed = Array(placed.sorted { abs($0.along - along) < abs($1.along - along) }.prefix(Self.numberedNearestPoints)) }
            let values = placed.map(\.across).sorted()
            return values.isEmpty ? nil : values[values.count / 2]
        }
        let ordered = ordinals.compactMap { m in across(m).map { (m, $0) } }
        // One grid: every step from one ordinal to the next the same way across and no longer than
        // a long block (a few points' median is a side of the street off: a step may read short).
        let steps = zip(ordered, ordered.dropFirst()).map { ($1.1 - $0.1) / Double($1.0 - $0.0) }
        guard let way = steps.first.map({ $0 > 0 }), steps.allSatisfy({ ($0 > 0) == way && abs($0) <= Self.numberedSpacing.upperBound }),
              let lowAcross = across(below), let highAcross = across(above),
              Self.numberedSpacing.contains(abs(highAcross - lowAcross) / Double(above - below)) else { return nil }
        let share = Double(n - below) / Double(above - below)
        let c = lowAcross + (highAcross - lowAcross) * share
        let line = StreetAxis(lon: origin.lon - c * north / scale.metresPerDegreeX, lat: origin.lat + c * east / scale.metresPerDegreeY,
                              east: east, north: north, pace: 1, span: 0)
        guard let reading = [Self.gridReach, Self.continuationGridReach].lazy.compactMap({ reach in
            self.gridReading(number.value, street: low.street, place: low.place, members: [], axis: line, directional: quarter,
                             reach: reach, sided: false, ownWeight: false, onLine: true)
        }).first(where: { $0.spread < Self.continuationSpread }) else { return nil }
        // Across again from the neighbours' points about the number's block.
        let at = metres(reading.location.x, reading.location.y)
        guard let lowHere = across(below, near: at.along), let highHere = across(above, near: at.along),
              Self.numberedSpacing.contains(abs(highHere - lowHere) / Double(above - below)) else { return nil }
        var here = lowHere + (highHere - lowHere) * share
        // Where the cross streets' numbers turn to the number's hundred, if that is where they
        // turn to its neighbours' (Portland's east side: NE 33rd Ave is where 3300 begins on NE
        // Shaver St, 35 m from NE 34th Ave and 160 m from NE 32nd Ave, NE 32nd Pl between).
        let rise: Double = way ? 1 : -1
        func hundred(_ m: Int, near: Double) -> Double? {
            hundredLine(m, at: at.along, near: near, place: low.place, street: low.street, directional: quarter, way: (east, north),
                        metres: metres, rise: rise)
        }
        if let turn = hundred(n, near: here) {
            let checks = [(below, lowHere), (above, highHere)].compactMap { m, a in hundred(m, near: a).map { a - $0 } }
            if !checks.isEmpty, checks.allSatisfy({ abs($0) <= Self.hundredLineAgreement }) {
                here = turn + checks.reduce(0, +) / Double(checks.count)
            }
        }
        let location = GeoPoint(x: reading.location.x - (here - c) * north / scale.metresPerDegreeX,
                                y: reading.location.y + (here - c) * east / scale.metresPerDegreeY)
        guard let (anchor, distance) = nearest(of: low.members + high.members, to: location), distance <= Self.continuationReach else { return nil }
        // Beyond both neighbours, each ordinal further out is a block more of doubt.
        let between = below < n && n < above
        let beyond = between ? 0 : Double(min(abs(n - below), abs(n - above)))
        let cost = min(Self.numberedNeighbourCost + beyond + distance / 200, Self.numberNotPlacedPenalty)
        return NumberedPlacement(location: location, anchor: anchor, distance: distance, cost: cost, below: low.street, above: high.street,
                                 belowAddress: first, between: between)
    }

    /// Metres within which the cross streets' hundred must meet a neighbour's own line for it to
    /// say where the numbered street asked lies.
    static let hundredLineAgreement = 25.0
    /// Metres along the asked street within which the cross streets' points are read.
    static let hundredLineReach = 400.0

    /// Across (in `metres`' frame) where the cross streets' numbers turn from `m` − 1 hundreds to
    /// `m` hundreds, near `along` and within a block of `near`; nil where fewer than two points
    /// either side say, or they overlap. The cross streets are the grid's streets whose numbers
    /// rise the way the ordinals do across (`parallelPoints` along that way, from street place `k`
    /// of the quarter: `rise` 1 where across grows with the ordinal, −1 where it falls).
    func hundredLine(_ m: Int, at along: Double, near: Double, place k: Int, street: Int32, directional quarter: Int32,
                     way: (east: Double, north: Double), metres: (Double, Double) -> (along: Double, across: Double),
                     rise: Double) -> Double? {
        let first = m * 100
        guard first >= 100, first < 10_000_000 else { return nil }
        var lower: [Double] = [], higher: [Double] = []
        parallelPoints(to: k, east: -way.north * rise, north: way.east * rise, numbers: (first - 100)...(first + 99),
                       street: UInt32(bitPattern: street), directional: quarter) { p, _, _ in
            let (a, c) = metres(p.lon, p.lat)
            guard abs(a - along) <= Self.hundredLineReach, abs(c - near) <= Self.numberedSpacing.upperBound else { return }
            if Int(p.number) < first { lower.append(c * rise) } else { higher.append(c * rise) }
        }
        guard lower.count >= 2, higher.count >= 2, let top = lower.max(), let bottom = higher.min(), top <= bottom else { return nil }
        return (top + bottom) / 2 * rise
    }

    /// How a numbered placement's answer says where it came from.
    func numberedHow(_ p: NumberedPlacement, _ number: HouseNumber) -> String {
        "street placed \(p.between ? "between" : "beyond") \(addresses.streetDisplay[Int(p.below)]) and \(addresses.streetDisplay[Int(p.above)]), house number \(number.text) by the numbers of the parallel streets, \(Int(p.distance.rounded())) m from the nearer's \(HouseNumber.digits(of: Int(addresses.points[Int(p.anchor)].number))) (−\(Int(p.cost.rounded())))"
    }

    /// `continued` by the numbered streets of the quarter asked (`wanted`) about where street place
    /// `k`, a namesake of another quarter, meets their baseline (Portland's three points of NW 6th
    /// Ave are 16 km north, in Linnton: its neighbours are read near Burnside, not there).
    func placedBetweenNumberedNeighbours(_ number: HouseNumber, of s: Int32, place k: Int, as wanted: String, q: ParsedAddress,
                                         penalty: Double, notes: [String]) -> ScoredMatch? {
        let points = addresses.points
        let parts = streets[Int(s)].parts
        guard k >= 0, k < streetPlaces.count, streetPlaces[k].street == s, let n = Self.ordinal(parts.core),
              let letters = StreetStyle.directionals[wanted], let run = addresses(ofStreetPlace: k), let namesake = run.first else { return nil }
        // Where the namesake meets the baseline: the box of its lowest hundred's points,
        // `continuationReach` wider each way. (Measuring every neighbour's every point against
        // each of them, `locus-bench geocode` ran at 0.94 of the throughput without this
        // placement, four rounds alternated; with the box, 1.0.)
        let lowest = Int(points[Int(namesake)].number)
        let baseline = run.prefix { Int(points[Int($0)].number) < lowest + 100 }.map { points[Int($0)] }
        let scale = LocalMetricScale(latitude: points[Int(namesake)].lat)
        let (dx, dy) = (Self.continuationReach / scale.metresPerDegreeX, Self.continuationReach / scale.metresPerDegreeY)
        let (west, east) = ((baseline.map(\.lon).min() ?? 0) - dx, (baseline.map(\.lon).max() ?? 0) + dx)
        let (south, north) = ((baseline.map(\.lat).min() ?? 0) - dy, (baseline.map(\.lat).max() ?? 0) + dy)
        guard let p = numberedPlacement(number, ordinal: n, kind: Self.numberedKind(wanted, parts.type, parts.postdirectional),
                                        locality: streetPlaces[k].locality, hint: gridTable.axes[k],
                                        keep: { $0.lon >= west && $0.lon <= east && $0.lat >= south && $0.lat <= north }) else { return nil }
        let place = placeNamed(near: p.location, anchor: neighboursPlace(at: p.location, of: p.anchor), q)
        var m = placed(number, at: p.location, in: place, from: p.anchor, q: q, penalty: penalty, cost: p.cost, cap: 100 - p.cost,
                       type: .extrapolated, key: "v\(s):\(number.value):\(k):\(letters.lowercased())", notes: notes, how: numberedHow(p, number))
        let own = addresses.components(of: Int(namesake))
        (m.components.street, m.components.streetFull) = (own.street, own.streetFull)
        return m
    }

    /// A numbered street no place of which is in a town named (city or ZIP code) placed there
    /// between the town's numbered streets of its kind. Key `o` locality:number:ordinal:street,
    /// the street one of the kind (a neighbour), read for its directionals and type.
    /// With whether it lies between two of them (not beyond both).
    func numberedInTown(_ number: HouseNumber, asked: StreetNameParts, locality: Int32, q: ParsedAddress) -> (match: ScoredMatch, between: Bool)? {
        guard let n = Self.ordinal(asked.core), let type = asked.type,
              let p = numberedPlacement(number, ordinal: n, kind: Self.numberedKind(asked.predirectional, type, asked.postdirectional),
                                        locality: locality, hint: nil, keep: { _ in true }) else { return nil }
        let place = placeNamed(near: p.location, anchor: neighboursPlace(at: p.location, of: p.anchor), q)
        var m = placed(number, at: p.location, in: place, from: p.anchor, q: q, penalty: 0, cost: p.cost, cap: 100 - p.cost,
                       type: .extrapolated, key: "o\(locality):\(number.value):\(n):\(p.below)", notes: [], how: numberedHow(p, number))
        let from = Self.ordinal(streets[Int(p.below)].parts.core) ?? 0
        let named = addresses.components(of: Int(p.belowAddress))
        m.components.street = Self.renumbered(named.street, from: from, to: n)
        m.components.streetFull = Self.renumbered(named.streetFull, from: from, to: n)
        return (m, p.between)
    }

    /// `numberedStreetTable`, made on first use: reading every street's name for each placement
    /// made 4,000 numbered addresses in quarters without their points 14 s, not 1.2 s.
    var numberedStreets: [StreetNameParts: [(ordinal: Int, street: Int32)]] {
        numberedStreetTable.value {
            var table: [StreetNameParts: [(ordinal: Int, street: Int32)]] = [:]
            for (t, street) in streets.enumerated() {
                let p = street.parts
                guard let m = Self.ordinal(p.core) else { continue }
                table[Self.numberedKind(p.predirectional, p.type, p.postdirectional), default: []].append((m, Int32(t)))
            }
            return table
        }
    }

    /// A numbered street's parts but its number: the key of `numberedStreets`.
    static func numberedKind(_ predirectional: String?, _ type: String?, _ postdirectional: String?) -> StreetNameParts {
        var kind = StreetNameParts(tokens: [])
        (kind.predirectional, kind.type, kind.postdirectional) = (predirectional, type, postdirectional)
        return kind
    }

    /// The number of a numbered street's name ("12th"); nil for any other name.
    static func ordinal(_ core: [String]) -> Int? {
        guard core.count == 1, let digits = AddressText.ordinalNumber(core[0]), digits.count <= 5 else { return nil }
        return Int(digits)
    }


    /// A numbered street's name with its number replaced ("18th Ave" → "19th Ave").
    static func renumbered(_ name: String, from m: Int, to n: Int) -> String {
        let old = AddressText.ordinal(m).lowercased()
        return name.split(separator: " ", omittingEmptySubsequences: false)
            .map { $0.lowercased() == old ? AddressText.ordinal(n) : String($0) }.joined(separator: " ")
    }
}
