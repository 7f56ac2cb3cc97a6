import Foundation
import LocusCore

/// A street that has no houses in the data on one side of a city's baseline, placed as the
/// continuation of its namesake on the other side. US cities split by a baseline name a street
/// that crosses it twice ("SW 6th Ave" south of Portland's Burnside, "NW 6th Ave" north of it;
/// "NE Davis St" east of the river, "NW Davis St" west of it), and its numbers start again at the
/// line and rise away from it on both sides. A building import that lacks a quarter's blocks
/// (Portland's has 4 points in Old Town/Chinatown, none on NW 1st–5th, 7th, 8th, 10th or 12th–14th
/// Ave, nor on SE 1st, 4th or 5th Ave) leaves such a street with no points there, or only a
/// stretch of another street of the name kilometres off; "800 NW 6th Ave, Portland, OR 97209"
/// went to Canby's NW 6th Ave.
///
/// The namesake's own points say where across the street lies (its line goes on across the
/// baseline), and the parallel streets of the asked quarter's grid say where along it the number
/// lies (`gridPlace` with the quarter's directional, along the namesake's axis turned round, as
/// the numbers rise the other way).
extension AddressSearch {
    /// Metres from the namesake's nearest point within which a continuation is placed: Portland's
    /// central quarters span about 3 km from their baselines.
    static let continuationReach = 4000.0
    /// Metres across from the continuation's line within which the quarter's parallel streets
    /// count: wider than `gridReach`, as a quarter that lacks its blocks near the baseline has its
    /// nearest parallels further off (Old Town's NW 1st Ave: NW 16th Ave is 1.3 km west).
    static let continuationGridReach = 2000.0
    /// The most a continuation scores: a number the grid placed next to the namesake's point.
    static let continuationBest = 85.0
    /// Degrees the way of a quarter's streets may lie off its namesake's line for the one to be
    /// read as the continuation of the other (downtown Portland's avenues: 18° off Old Town's).
    static let continuationTurn = 30.0
    /// Metres between the middle half of the grid's estimates above which it says no place.
    static let continuationSpread = 150.0
    /// Metres off across that carrying the namesake's line over may cost (see `continued`): what
    /// an answer may be off and still stand at its lot's trees (`locus eval`'s 75 m).
    static let continuationDrift = 75.0

    /// Whether a street of leading directional `a` may continue as one of `b` across a baseline:
    /// the two differ in one sense only ("northwest" and "southwest", "northwest" and
    /// "northeast", "north" and "northeast"), not in both ("southeast" is no continuation of
    /// "northwest": it is across two baselines, and a street found there is another).
    static func continues(_ a: String, as b: String) -> Bool {
        func senses(_ d: String) -> (Character?, Character?) {
            let ns: Character? = d.hasPrefix("north") ? "n" : (d.hasPrefix("south") ? "s" : nil)
            let ew: Character? = d.hasSuffix("east") ? "e" : (d.hasSuffix("west") ? "w" : nil)
            return (ns, ew)
        }
        let (x, y) = (senses(a), senses(b))
        return (x.0 == y.0) != (x.1 == y.1)
    }

    /// Answers on the asked street (`asked`, its leading directional given) placed as the
    /// continuation of each namesake street in `found` (the same name with another leading
    /// directional, `continues`), in each city where no house of the asked street was placed
    /// (`placedIn`, localities): the best per city. `found` is `matchStreets`' list; a namesake's
    /// penalty there includes its directional's (`otherDirectionalPenalty`), taken off here.
    func continuationMatches(_ number: HouseNumber, asked: StreetNameParts, found: [(Int32, Double, [String])],
                             placedIn: Set<Int32>, q: ParsedAddress) -> [ScoredMatch] {
        guard let wanted = asked.predirectional, number.value > 0 else { return [] }
        var best: [Int32: ScoredMatch] = [:]
        for (s, penalty, notes) in found {
            let parts = streets[Int(s)].parts
            guard let theirs = parts.predirectional, theirs != wanted, Self.continues(theirs, as: wanted),
                  parts.postdirectional == asked.postdirectional, asked.type == nil || parts.type == asked.type else { continue }
            let kept = notes.filter { !$0.hasPrefix("prefix direction ") }
            for k in places(ofStreet: s) where !placedIn.contains(streetPlaces[k].locality) {
                guard let m = continued(number, of: s, place: k, as: wanted, q: q, penalty: max(0, penalty - Self.otherDirectionalPenalty), notes: kept),
                      m.score > best[streetPlaces[k].locality]?.score ?? -1 else { continue }
                best[streetPlaces[k].locality] = m
            }
        }
        return best.values.sorted { $0.key < $1.key }
    }

    /// `number` on the street of directional `wanted` that continues street `s` (street place
    /// `k`) across its baseline; nil where the grid cannot say, the place is not beyond the
    /// namesake's low end, or it is over `continuationReach` from the namesake's points. Key
    /// `v` street:number:place:directional (the directional's USPS letters).
    ///
    /// A numbered street is placed between its quarter's numbered streets first, the namesake's
    /// line carried across only where they cannot say: Portland's numbered avenues taken out of
    /// the index (20 streets, 612 of their addresses with "Portland, OR"), within 75 m of
    /// their points 284 before either (mostly other towns' streets of the name), 442 with the
    /// carried line first, 496 with the neighbours first (EVALUATION.md, "a numbered street
    /// missing from its quarter").
    func continued(_ number: HouseNumber, of s: Int32, place k: Int, as wanted: String, q: ParsedAddress, penalty: Double,
                   notes: [String]) -> ScoredMatch? {
        guard let letters = StreetStyle.directionals[wanted],
              var m = placedBetweenNumberedNeighbours(number, of: s, place: k, as: wanted, q: q, penalty: penalty, notes: notes)
                ?? carriedAcross(number, of: s, place: k, as: wanted, q: q, penalty: penalty, notes: notes)
        else { return nil }
        m.components.street = Self.renamed(m.components.street, to: letters)
        m.components.streetFull = Self.renamed(m.components.streetFull, to: wanted.prefix(1).uppercased() + wanted.dropFirst())
        return m
    }

    /// `continued` by the namesake's own line carried across the baseline.
    func carriedAcross(_ number: HouseNumber, of s: Int32, place k: Int, as wanted: String, q: ParsedAddress, penalty: Double,
                       notes: [String]) -> ScoredMatch? {
        let table = gridTable
        let points = addresses.points
        guard number.value > 0, k >= 0, k < streetPlaces.count, k < table.axes.count, streetPlaces[k].street == s,
              let own = table.axes[k], let quarter = table.directionalIDs[wanted], quarter != table.directional[k],
              let letters = StreetStyle.directionals[wanted], let run = addresses(ofStreetPlace: k),
              gridHolds(in: streetPlaces[k].locality),
              gridHasNumbers(near: number.value, locality: streetPlaces[k].locality, directional: quarter) else { return nil }
        let members = Array(run)
        // Only the namesake's block nearest the baseline says where across its line goes on: its
        // points further along may run another way. (`members` are in number order.)
        guard let first = members.first else { return nil }
        let lowest = Int(points[Int(first)].number)
        let nearBaseline = Array(members.prefix { Int(points[Int($0)].number) < lowest + 100 })
        // Turned round: the asked street's numbers rise away from the baseline, as the
        // namesake's fall towards it. Read along the namesake's own line where a way the quarter's
        // streets run is within `gridAngle` of it, else along that way (a namesake whose whole
        // line runs further off than the parallels are read at). Along the quarter's way every
        // time, "2174 NW Davis St", carried 3.3 km from NE Davis St's 1100, went 50 m off its trees
        // (the dev trees by `locus enrich` with their ZIP codes: 9 fewer within 75 m).
        let back = (east: -own.east, north: -own.north)
        let degrees = atan2(back.north, back.east) * 180 / .pi
        let locality = streetPlaces[k].locality
        guard let way = Set([-1, 0, 1].map { Self.sector(ofDegrees: degrees + Double($0) * Self.continuationTurn) })
            .compactMap({ table.headings[GridTable.groupKey(locality: locality, directional: quarter, sector: $0)] })
            .filter({ $0.places >= Self.gridSparseHeadingPlaces })
            .max(by: { $0.east * back.east + $0.north * back.north < $1.east * back.east + $1.north * back.north }),
              way.east * back.east + way.north * back.north >= cos(Self.continuationTurn * .pi / 180) else { return nil }
        let straight = way.east * back.east + way.north * back.north >= cos(Self.gridAngle * .pi / 180)
        let turned = StreetAxis(lon: own.lon, lat: own.lat, east: straight ? back.east : way.east, north: straight ? back.north : way.north,
                                pace: own.pace, span: own.span)
        // The parallels of the usual reach first; further off where the quarter lacks the
        // blocks beside the street (a wider reading is the less sure, its spread larger).
        guard let reading = [Self.gridReach, Self.continuationGridReach].lazy.compactMap({ reach in
            self.gridReading(number.value, street: s, place: k, members: nearBaseline, axis: turned, directional: quarter,
                             reach: reach, sided: false, ownWeight: false)
        }).first(where: { $0.spread < Self.continuationSpread }) else { return nil }
        let location = reading.location
        // Beyond the namesake's low end, where its numbers reach the baseline; not back along it
        // (a quarter's grid read for a number the namesake's own stretch has).
        guard let end = members.lazy.map({ turned.along(points[Int($0)].lon, points[Int($0)].lat) }).max(),
              turned.along(location.x, location.y) > end,
              let (anchor, distance) = nearest(of: nearBaseline, to: location), distance <= Self.continuationReach else { return nil }
        let a = points[Int(anchor)]
        // The namesake's line is carried across from its point nearest the place, on the way the
        // quarter's streets run; where the namesake runs another way (downtown Portland's avenues
        // lie 18° off Old Town's), it says where across only near the baseline: the point's
        // distance from it (its number at the street's pace) times the sine of the angle between.
        // The namesake's way near that point: its own numbers beyond it (`extrapolationLine`), else
        // its whole line's.
        var (east, north, pace) = (own.east, own.north, own.pace)
        if let i = members.firstIndex(of: anchor), let line = extrapolationLine(members, anchor: i, step: 1) {
            let rate = (line.east * line.east + line.north * line.north).squareRoot()
            if rate > 0, rate.isFinite { (east, north, pace) = (line.east / rate, line.north / rate, rate) }
        }
        let cosine = max(-1, min(1, -(reading.east * east + reading.north * north)))
        let drift = Double(a.number) * pace * (1 - cosine * cosine).squareRoot()
        guard drift <= Self.continuationDrift else { return nil }
        // Scored as a number the grid placed on a street with points (`gridPlaced`), by its
        // distance from the nearest known one: that is where its doubt is.
        let cost = min(15 + distance / 200, Self.numberNotPlacedPenalty)
        let place = placeNamed(near: location, GeoPoint(x: a.lon, y: a.lat), anchor: neighboursPlace(at: location, of: anchor), q)
        return placed(number, at: location, in: place, from: anchor, q: q, penalty: penalty, cost: cost, cap: 100 - cost,
                      type: .extrapolated, key: "v\(s):\(number.value):\(k):\(letters.lowercased())", notes: notes,
                      how: "street placed as \(addresses.streetDisplay[Int(s)]) continued across its baseline, house number \(number.text) by the numbers of the parallel streets, \(Int(distance.rounded())) m from \(HouseNumber.digits(of: Int(a.number))) (−\(Int(cost.rounded())))")
    }

    /// A street's name with its leading directional word replaced ("SW 6th Ave" → "NW 6th Ave").
    static func renamed(_ street: String, to directional: String) -> String {
        var words = street.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard words.count >= 2 else { return street }
        words[0] = directional
        return words.joined(separator: " ")
    }
}
