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
    /// Metres a namesake's line may be followed back to its baseline to bend there
    /// (`bentAtBaseline`). Portland's SW avenues stop 0.9–2.3 km short of Burnside: followed back
    /// 0.9–1.1 km, NW 4th and 5th Ave land within 75 m of their trees; 1.8 and 2.3 km, NW 1st and
    /// 2nd Ave 350–460 m off (their line near their points is not their line near Burnside),
    /// which is still their street in their town, where Canby's was 29 km off.
    static let continuationBend = 3000.0

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
        func read(_ n: Int) -> (location: GeoPoint, spread: Double, east: Double, north: Double)? {
            [Self.gridReach, Self.continuationGridReach].lazy.compactMap({ reach in
                self.gridReading(n, street: s, place: k, members: nearBaseline, axis: turned, directional: quarter,
                                 reach: reach, sided: false, ownWeight: false)
            }).first(where: { $0.spread < Self.continuationSpread })
        }
        guard let reading = read(number.value) else { return nil }
        var location = reading.location
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
        // Scored as a number the grid placed on a street with points (`gridPlaced`), by its
        // distance from the nearest known one: that is where its doubt is. Bent at the baseline,
        // the doubt is what the bend changed (`drift`) and the way beyond it.
        var cost = min(15 + distance / 200, Self.numberNotPlacedPenalty)
        var bentThere = false
        if drift <= Self.continuationDrift {
            // Carried straight, the place is about the namesake's own distance from the baseline
            // and the number's beyond it, by the namesake's pace (within half of it): NE
            // Broadway, running east to west, is no line of NW Broadway, which runs north to
            // south, and the quarter's grid read for "2 NW Broadway" 2 km west of the river.
            let expected = Double(Int(a.number) + number.value) * pace
            guard abs(distance - expected) <= max(Self.continuationSpread, expected / 2) else { return nil }
        } else {
            guard runsItsQuarterWay(k, street: s, near: a, east: east, north: north), let baseline = read(0),
                  let bent = bentAtBaseline(number.value, at: location, baseline: baseline.location, namesake: nearBaseline,
                                            east: east, north: north, pace: pace, way: (reading.east, reading.north)) else { return nil }
            location = bent.location
            cost = min(15 + (drift + bent.beyond) / 200, Self.numberNotPlacedPenalty)
            bentThere = true
        }
        let place = placeNamed(near: location, GeoPoint(x: a.lon, y: a.lat), anchor: neighboursPlace(at: location, of: anchor), q)
        return placed(number, at: location, in: place, from: anchor, q: q, penalty: penalty, cost: cost, cap: 100 - cost,
                      type: .extrapolated, key: "v\(s):\(number.value):\(k):\(letters.lowercased())", notes: notes,
                      how: "street placed as \(addresses.streetDisplay[Int(s)]) continued across its baseline\(bentThere ? ", turned there to the quarter's way" : ""), house number \(number.text) by the numbers of the parallel streets, \(Int(distance.rounded())) m from \(HouseNumber.digits(of: Int(a.number))) (−\(Int(cost.rounded())))")
    }

    /// A continuation's place where the namesake's line bends at the baseline, and its metres
    /// beyond the baseline. Downtown Portland's avenues run 18° off Old Town's and their points
    /// nearest Burnside are 1–2.7 km from it: carried over straight, "333 NW 4th Ave" went 560 m
    /// off its trees, and NW 4th and 5th Ave went to Canby's streets of the name.
    ///
    /// The bend is where the namesake's line (its block nearest the baseline, `members`, along
    /// `east`, `north`: its way as numbers rise) meets the quarter's number 0 (`baseline`, read
    /// by the quarter's grid as `location` was for the number); from there the street runs the
    /// quarter's way (`way`) to where the grid placed the number. Followed back by the namesake's
    /// own numbers instead (a metre a number at its pace), SW 5th Ave's 1220 put Burnside 240 m
    /// north of it: its blocks near the baseline are shorter than those its pace was read from.
    ///
    /// Nil where the bend is over `continuationBend` back from the namesake's points, or where the
    /// number's place is not about its own distance beyond the bend at the namesake's `pace`
    /// (within half of it, or `continuationSpread`): a grid that reads the quarter otherwise.
    func bentAtBaseline(_ number: Int, at location: GeoPoint, baseline: GeoPoint, namesake members: [Int32], east: Double,
                        north: Double, pace: Double, way: (east: Double, north: Double)) -> (location: GeoPoint, beyond: Double)? {
        let points = addresses.points
        guard let first = members.first, pace > 0, pace.isFinite else { return nil }
        let origin = points[Int(first)]
        let s = LocalMetricScale(latitude: origin.lat)
        func metres(_ lon: Double, _ lat: Double) -> (x: Double, y: Double) {
            ((lon - origin.lon) * s.metresPerDegreeX, (lat - origin.lat) * s.metresPerDegreeY)
        }
        // The middle of the namesake's block: the two sides' points averaged.
        var px = 0.0, py = 0.0
        for m in members {
            let (x, y) = metres(points[Int(m)].lon, points[Int(m)].lat)
            px += x / Double(members.count)
            py += y / Double(members.count)
        }
        // The quarter lies away from the namesake: its way told in that sense.
        let sense = way.east * east + way.north * north > 0 ? -1.0 : 1.0
        let u = (east: way.east * sense, north: way.north * sense)
        let turn = east * u.east + north * u.north
        guard turn < -0.5 else { return nil }
        let zero = metres(baseline.x, baseline.y), at = metres(location.x, location.y)
        let along0 = zero.x * u.east + zero.y * u.north
        // Back along the namesake's line (negative: against its rising numbers) to the baseline.
        let back = (along0 - (px * u.east + py * u.north)) / turn
        guard back < 0, -back <= Self.continuationBend else { return nil }
        let (bx, by) = (px + back * east, py + back * north)
        let beyond = at.x * u.east + at.y * u.north - along0
        let expected = Double(number) * pace
        guard beyond > 0, abs(beyond - expected) <= max(Self.continuationSpread, expected / 2) else { return nil }
        let (x, y) = (bx + beyond * u.east, by + beyond * u.north)
        return (GeoPoint(x: origin.lon + x / s.metresPerDegreeX, y: origin.lat + y / s.metresPerDegreeY), beyond)
    }

    /// Whether streets of the namesake's own quarter near its point `a` run its way (`east`,
    /// `north`), two or more: then its quarter's grid is turned, and its line runs on to the
    /// baseline (downtown Portland's avenues beside SW 4th Ave). Else the namesake's stretch is
    /// what runs another way, and where it bends is unknown: no bend.
    func runsItsQuarterWay(_ k: Int, street s: Int32, near a: AddressIndex.Point, east: Double, north: Double) -> Bool {
        let scale = LocalMetricScale(latitude: a.lat)
        let n = Int(a.number), window = Self.gridNumberWindow
        guard n < Int(Int32.max) - window else { return false }
        var streets = Set<Int>()
        parallelPoints(to: k, east: east, north: north, numbers: max(0, n - window)...(n + window), street: UInt32(bitPattern: s)) { p, t, _ in
            let dx = (p.lon - a.lon) * scale.metresPerDegreeX, dy = (p.lat - a.lat) * scale.metresPerDegreeY
            if dx * dx + dy * dy <= Self.gridReach * Self.gridReach { streets.insert(t) }
        }
        return streets.count >= 2
    }

    /// A street's name with its leading directional word replaced ("SW 6th Ave" → "NW 6th Ave").
    static func renamed(_ street: String, to directional: String) -> String {
        var words = street.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard words.count >= 2 else { return street }
        words[0] = directional
        return words.joined(separator: " ")
    }
}
