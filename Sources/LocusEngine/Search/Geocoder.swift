import LocusCore

/// Arguments of a geocode, validated.
public struct GeocodeRequest: Sendable {
    public enum Input: Sendable {
        /// Free text, as typed.
        case text(String)
        /// A suggestion's key.
        case key(String)
        /// Separate fields, as an analyst's spreadsheet has them.
        case fields(number: String?, street: String?, city: String?, postcode: String?)
    }

    public var input: Input
    /// At most this many candidates. Default 5.
    public var maxResults = 5
    /// Prefer candidates near this lon/lat point. Default: none.
    public var near: GeoPoint? = nil
    /// Leave out candidates scoring below this. Default 60.
    public var minScore = GeocodeRequest.defaultMinScore
    /// What a request shows by default: an answer scoring below it is no answer a user sees.
    public static let defaultMinScore = 60.0
    /// Say why each candidate scored what it did. Default off.
    public var explain = false

    public init(_ input: Input) { self.input = input }
}

/// A candidate before it is formatted: where, what and why.
struct ScoredMatch {
    var score: Double
    var matchType: MatchType
    var location: GeoPoint
    var key: String
    var notes: [String]
    var components: AddressComponents
    var distanceToNear: Double = 0
    /// How many addresses the answer was placed from (its street in its city): among equal
    /// answers without a city given, the street's main stretch ("SE 10th Ave" of Portland, not of
    /// a suburb with a few houses on one of the same name) comes first.
    var support = 0
    /// The place of the address the answer was found at, placed from or (a street, a crossing)
    /// stands for (-1: an area): whether it lies where the query said (`isInNamedPlace`), and in
    /// which city of which state (`rankCitiesBySize`).
    var place: Int32 = -1
    /// The answer's one-line text where its components do not say it all (a neighbourhood's
    /// name); nil: the components, formatted.
    var label: String?
}

extension AddressSearch {
    /// Among equal scores, the more precise kind of answer first.
    static func matchTypeRank(_ type: MatchType) -> Int {
        switch type {
        case .pointAddress: 0
        case .interpolated: 1
        case .extrapolated: 2
        case .block: 3
        case .intersection: 4
        case .street: 5
        case .postcode: 6
        case .neighbourhood: 7
        case .locality: 8
        }
    }

    /// Candidates for a request, best first. Nonsense and places outside the index give none; so
    /// does a key that names nothing here (`candidates(for:)` tells it apart).
    public func geocode(_ request: GeocodeRequest) -> [GeocodeCandidate] {
        candidates(for: request) ?? []
    }

    /// Candidates for a request, best first; nil when it is a key that names nothing in this index
    /// (another index's, one built before, or no key at all), which the protocol answers
    /// `not_found` rather than with no candidates: a client holding a stale key must learn it.
    public func candidates(for request: GeocodeRequest) -> [GeocodeCandidate]? {
        var matches: [ScoredMatch]
        var unit: String?
        switch request.input {
        case .key(let key):
            guard let found = lookup(key: key) else { return nil }
            matches = [found]
        case .text(let typed):
            let text = AddressParser.linesAsParts(typed)
            let memo = QueryMemo()
            func answers(_ parsed: ParsedAddress, _ text: String) -> [ScoredMatch] {
                var found = geocode(parsed, rawText: text, memo: memo)
                if parsed.city == nil, parsed.postcode == nil, request.near == nil { rankCitiesBySize(&found) }
                return found
            }
            func read(_ text: String) -> (ParsedAddress, [ScoredMatch]) {
                let parsed = parser.parse(text)
                return (parsed, answers(parsed, text))
            }
            let parsed: ParsedAddress
            (parsed, matches) = read(text)
            // Each further reading is tried only while nothing read so far is good.
            func nothingGood() -> Bool { matches.allSatisfy { $0.score < Self.setAsideBelow } }
            unit = parsed.unit
            // A landmark's name before the address or a remark in brackets: read without them
            // when the whole text finds nothing good, and let both readings compete.
            // A town the index knows is no landmark's name: "1700 8th St, Lake Oswego, OR" read
            // without "Lake Oswego" (a second reading costs 2) went to Gresham's NE 8th St.
            if nothingGood(), let (address, aside) = AddressParser.setAside(text),
               !aside.split(separator: ";").contains(where: { parser.isKnownCity($0) }) {
                let (rest, found) = read(address)
                matches += Self.secondReading(found, "\"\(aside)\" read as no part of the address")
                unit = unit ?? rest.unit
            }
            // "17175 SW TVH aloha OR": a town the index does not know, after a street typed without
            // its type and no comma, was read as the street's last words. When nothing good was
            // found, the last one or two words are read as the town too, and compete (not for a
            // street of more words than any street's name and a town: the worst case's text of 24
            // nonsense words took 0.43 ms where it took 0.23).
            if nothingGood(), parsed.city == nil, parsed.crossStreet == nil,
               parsed.street.count <= Self.streetWithTownWords {
                for k in 1...2 where parsed.street.count >= k + 2 {
                    // A town's last word may be a street type ("Raleigh Hills"), its first not.
                    let town = Array(parsed.street.suffix(k))
                    guard let first = town.first, town.allSatisfy({ $0.allSatisfy(\.isLetter) }),
                          !StreetNameParts.types.contains(first), !StreetNameParts.directionals.contains(first) else { continue }
                    var q = parsed
                    q.street.removeLast(k)
                    q.city = town
                    matches += Self.secondReading(geocode(q, rawText: text, memo: memo), "\"\(town.joined(separator: " "))\" read as the town")
                }
            }
            // "203 N Wabash 608", "101 W Grand Ave 600": a unit written without its designator
            // after the street, read as the street's last word (a street "Wabash 608th"). When
            // nothing good was found, the last word is read as the unit too, and competes.
            if nothingGood(), parsed.unit == nil, parsed.number != nil,
               parsed.crossStreet == nil, let trailing = Self.unitAfterStreet(parsed.street) {
                var q = parsed
                q.street.removeLast()
                q.unit = trailing
                let found = Self.secondReading(Self.housesPlaced(geocode(q, rawText: text, memo: memo)), "\"\(trailing.dropFirst(2))\" read as the unit")
                if let best = found.max(by: { $0.score < $1.score }), best.score > matches.map(\.score).max() ?? 0 { unit = trailing }
                matches += found
            }
            // "2350 Washington NE Pl", "425 Avalon Park South Blvd": a directional between the name
            // and the type, as some county files write one that follows the type ("Washington Pl
            // NE"), or the other way round. When nothing good was found, the two last words are
            // read swapped too, and compete with what they name on the street: the town or ZIP
            // code the swapped reading falls back to is the first reading's already. Not for a street
            // of more words than a street and a town (the worst case's 24 nonsense words).
            if nothingGood(), parsed.crossStreet == nil, parsed.street.count <= Self.streetWithTownWords,
               let swapped = Self.directionalAndTypeSwapped(parsed.street) {
                var q = parsed
                q.street = swapped
                matches += Self.secondReading(Self.onTheStreet(geocode(q, rawText: text, memo: memo)),
                                              "the directional and the type read the other way round")
            }
            // "1666 SE Lambert St Steeple Townhomes, Portland": a building's or complex's name
            // between the street and the town. When nothing good was found, the street is read to
            // its type (and a directional after it) too, and competes.
            if nothingGood(), parsed.number != nil, parsed.crossStreet == nil,
               parsed.city != nil || parsed.postcode != nil || parsed.state != nil,
               let cut = Self.streetBeforeBuildingName(parsed.street) {
                var q = parsed
                let name = q.street[cut...].joined(separator: " ")
                q.street.removeSubrange(cut...)
                matches += Self.secondReading(Self.housesPlaced(geocode(q, rawText: text, memo: memo)), "\"\(name)\" read as no part of the address")
            }
            // "100 Truck and Trailer Way", "514 Peace & Plenty Ln": a street whose name has "and"
            // or "&" in it was read as the crossing of "100 Truck" and "Trailer Way", and found
            // nothing. When a crossing found nothing good, the text is read as one street too, and
            // competes ("4381 Lassiter at North Hills Ave" too). Not for a slash or "@", which no
            // name has (the bounded fuzz's slowest geocode is a slash crossing of junk), nor for a
            // name of more words than a street and a town.
            if nothingGood(), parsed.crossStreet != nil, parsed.crossStreetTo == nil,
               AddressText.tokens(text).contains(where: { $0 == "and" || $0 == "&" || $0 == "at" }) {
                let whole = parser.parse(text, readingCrossing: false)
                if whole.crossStreet == nil, !whole.street.isEmpty, whole.street.count <= Self.streetWithTownWords {
                    matches += Self.secondReading(answers(whole, text), "the crossing's word read as part of the street's name")
                    unit = unit ?? whole.unit
                }
            }
            // "1000 Cathedral Pl 925 W Georgia St": a building's own number and name before the
            // street address.
            if nothingGood(), let address = AddressParser.addressAfterBuilding(text) {
                let (rest, found) = read(String(address))
                let aside = text[..<address.startIndex]
                matches += Self.secondReading(Self.housesPlaced(found), "\"\(aside.trimmingCharacters(in: .whitespaces))\" read as no part of the address")
                unit = unit ?? rest.unit
            }
        case .fields(let number, let street, let city, let postcode):
            var parsed = ParsedAddress()
            if let number, !number.trimmingWhitespace().isEmpty { parsed.number = HouseNumber(parsing: number) }
            if let street { parsed.street = AddressText.streetTokens(AddressText.tokens(street)) }
            if let city, !city.trimmingWhitespace().isEmpty { parsed.city = AddressText.tokens(city) }
            if let postcode, let (zip, ext) = AddressParser.postcodeFields(postcode) {
                parsed.postcode = zip
                parsed.postcodeExtension = ext
            }
            matches = geocode(parsed, rawText: [number, street, city, postcode].compactMap { $0 }.joined(separator: " "),
                              memo: QueryMemo())
            if parsed.city == nil, parsed.postcode == nil, request.near == nil { rankCitiesBySize(&matches) }
        }
        if let near = request.near {
            let s = LocalMetricScale(latitude: near.y)
            for i in matches.indices {
                let dx = (matches[i].location.x - near.x) * s.metresPerDegreeX, dy = (matches[i].location.y - near.y) * s.metresPerDegreeY
                matches[i].distanceToNear = (dx * dx + dy * dy).squareRoot()
            }
        }
        matches = matches.filter { $0.score >= request.minScore }
        matches.sort { a, b in
            if a.score != b.score { return a.score > b.score }
            if a.distanceToNear != b.distanceToNear { return a.distanceToNear < b.distanceToNear }
            let ra = Self.matchTypeRank(a.matchType), rb = Self.matchTypeRank(b.matchType)
            if ra != rb { return ra < rb }
            if a.support != b.support { return a.support > b.support }
            return a.key < b.key
        }
        var seen = Set<String>()
        var out: [GeocodeCandidate] = []
        for m in matches where seen.insert(m.key).inserted {
            out.append(GeocodeCandidate(address: m.label ?? m.components.formatted, components: m.components,
                                        location: Location(x: m.location.x, y: m.location.y, wkid: 4326),
                                        score: (m.score * 100).rounded() / 100, matchType: m.matchType, key: m.key,
                                        explain: request.explain ? m.notes : nil, unit: unit))
            if out.count >= request.maxResults { break }
        }
        return out
    }

    /// A street's words with its last two, a directional and a type in either order, swapped
    /// ("washington ne pl" → "washington pl ne"); nil unless a word of a name comes before them
    /// ("avalon park south blvd": "park" is a type too).
    static func directionalAndTypeSwapped(_ street: [String]) -> [String]? {
        guard street.count >= 3, case let (a, b) = (AddressText.canonical(street[street.count - 2]), AddressText.canonical(street[street.count - 1])),
              StreetNameParts.directionals.contains(a) && StreetNameParts.types.contains(b)
                || StreetNameParts.types.contains(a) && StreetNameParts.directionals.contains(b),
              street.dropLast(2).contains(where: { isNameWord(AddressText.canonical($0)) }) else { return nil }
        var out = street
        out.swapAt(out.count - 2, out.count - 1)
        return out
    }

    /// The unit a street's last word may be ("# 608", "# 1a", "# b6-347b"), when what is before it
    /// still names a street: a word that is no directional or type, and, before a lone letter, a
    /// type or a directional after one ("720 10th Ave SW A"). A route's number ("Highway 26",
    /// "US 26") and a numbered street after a directional ("NE 19") are no unit.
    static func unitAfterStreet(_ street: [String]) -> String? {
        guard street.count >= 2, let last = street.last, last.utf8.count <= 8,
              last.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else { return nil }
        let rest = street.dropLast()
        guard rest.contains(where: Self.isNameWord),
              !AddressParser.endsWithRouteNumber(Array(street)) else { return nil }
        if last.contains(where: \.isNumber) {
            guard last.first?.isNumber == true || last.first?.isLetter == true && last.count >= 2 else { return nil }
            return "# " + (AddressText.ordinalNumber(last) ?? last)
        }
        guard last.count == 1, let before = rest.last else { return nil }
        let afterType = StreetNameParts.types.contains(before)
            || (StreetNameParts.directionals.contains(before) && rest.dropLast().last.map(StreetNameParts.types.contains) == true)
        return afterType ? "# " + last : nil
    }

    /// A word of a street's name that is neither a directional nor a type.
    static func isNameWord(_ t: String) -> Bool {
        !StreetNameParts.types.contains(t) && !StreetNameParts.directionals.contains(t)
    }

    /// Where a building's name after the street begins: after the first type that follows a word
    /// of the name (and a directional after that type), when a word that is no type or
    /// directional follows ("Ashbourne Rd Lynnewood Gardens", "Martin Luther King Jr Ave SE Maple
    /// View Flats"). Nil when the street has no words after its type.
    static func streetBeforeBuildingName(_ street: [String]) -> Int? {
        var named = false
        for (k, t) in street.enumerated() {
            if StreetNameParts.types.contains(t), named {
                var cut = k + 1
                if cut < street.count, StreetNameParts.directionals.contains(street[cut]) { cut += 1 }
                let rest = street[cut...]
                guard rest.contains(where: Self.isNameWord) else { return nil }
                return cut
            }
            if Self.isNameWord(t) { named = true }
        }
        return nil
    }

    /// The answers that place the house typed. A reading that sets words aside is a guess that
    /// only a house found on the street it leaves confirms: "2320 West Lake Shore Drive 6 Waco
    /// Texas" read from its "6" on was S 6th St of another town at 85, "3590 South State Road 7
    /// Suite 28" read to "Road" was a street "S State" without the house at 70.
    static func housesPlaced(_ found: [ScoredMatch]) -> [ScoredMatch] {
        found.filter { [.pointAddress, .interpolated, .extrapolated].contains($0.matchType) }
    }

    /// The answers on a street: its houses placed, a block of it, or the street itself (not the
    /// town or ZIP code a reading falls back to).
    static func onTheStreet(_ found: [ScoredMatch]) -> [ScoredMatch] {
        found.filter { [.pointAddress, .interpolated, .extrapolated, .block, .street].contains($0.matchType) }
    }

    /// Answers of a second reading of the text, `setAsidePenalty` lower, with a note of what it
    /// read otherwise.
    static func secondReading(_ found: [ScoredMatch], _ how: String) -> [ScoredMatch] {
        found.map { m in
            var m = m
            m.score -= setAsidePenalty
            m.notes.append("\(how) (−\(Int(setAsidePenalty)))")
            return m
        }
    }

    /// With no city, ZIP code or point to go by, a street name that several cities have most
    /// likely means the larger city's: an answer in a city with fewer addresses than another
    /// answer's loses `cityPriorWeight` points per tenfold fewer, at most `cityPriorLimit`. Ties
    /// in match quality (a number interpolated here, extrapolated there) then go to the larger
    /// city; an exact address in a small town still beats a guess in the big one.
    func rankCitiesBySize(_ matches: inout [ScoredMatch]) {
        guard matches.count > 1 else { return }
        let byLocality = localityAddressCounts
        // By city *and state*: the Springfields of two states are two towns of their own sizes.
        let counts = matches.map { m -> Int in
            let l = Int(locality(ofPlace: m.place))
            return l >= 0 && l < byLocality.count ? byLocality[l] : 0
        }
        guard let largest = counts.max(), largest > 0 else { return }
        for i in matches.indices where counts[i] > 0 && counts[i] < largest {
            let penalty = min(Self.cityPriorLimit, Self.cityPriorWeight * log10(Double(largest) / Double(counts[i])))
            guard penalty >= 0.01 else { continue }
            matches[i].score = max(0, matches[i].score - penalty)
            matches[i].notes.append("no city given: \(matches[i].components.city) has fewer addresses than another answer's city (−\((penalty * 10).rounded() / 10))")
        }
    }

    /// Measured on the dev street trees (no city in their addresses): 0 / 2 / 3 / 4 / 6 points per
    /// tenfold gave 54.31 / 54.55 / 54.58 / 54.58 / 54.66 % of the addresses not among the index
    /// points within 75 m (and 97.43 → 97.53 % of those among them); most answers in another town
    /// are for streets whose Portland stretch has no points near the number at all. Measured again
    /// once Portland's own numbers were placed across long gaps and continuations (weight / limit):
    /// 3 / 6, 3 / 10 61.63 %; 4 / 8 61.81 %; 5 / 10, 6 / 12, 8 / 16 61.92–61.93 %. At 5 / 10, +77
    /// trees, −6 (Old Town's NW 3rd and 6th Ave, SE Bush St: Canby's or Hillsboro's number
    /// interpolated, 2 points above Portland's extrapolated); a town's point still beats a
    /// Portland guess (100 − 10 against 89 at most). Letting only answers above a number not
    /// placed (80) make other cities smaller kept "3321 SE Harney Ct" Milwaukie's (2 m beyond its
    /// 3326; Portland's is the grid's, 4.7 km from its street's numbers) but lost 48 trees, 36 of
    /// them 1232 NE 6th Ave, Portland's right at 80 and Hillsboro's interpolated (61.75 %).
    static let cityPriorWeight = 5.0
    static let cityPriorLimit = 10.0

    /// Whether an answer lies in the city, ZIP code and state the query named: its place costs no
    /// region penalty.
    func isInNamedPlace(_ m: ScoredMatch, _ q: ParsedAddress) -> Bool {
        m.place >= 0 && Int(m.place) < addresses.places.count && regionPenalty(q, place: m.place).0 == 0
    }

    // MARK: Keys

    func lookup(key: String) -> ScoredMatch? {
        guard let kind = key.first else { return nil }
        let rest = key.dropFirst()
        switch kind {
        case "a":
            guard let i = Int32(rest), i >= 0, Int(i) < addresses.count else { return nil }
            return addressMatch(i, score: 100, type: .pointAddress, notes: ["the suggested address"])
        case "s":
            guard let i = Int(rest), i >= 0, i < streetPlaces.count else { return nil }
            return streetMatch(i, score: 100, notes: ["the suggested street"])
        case "z":
            guard let area = postcodes.first(where: { $0.name == rest }) else { return nil }
            return areaMatch(area, type: .postcode, key: key, score: 100, notes: ["the suggested postcode"])
        case "c":
            guard let i = Int(rest), i >= 0, i < cities.count else { return nil }
            return areaMatch(cities[i], type: .locality, key: key, score: 100, notes: ["the suggested city"])
        case "x":
            // street:cross, or street:cross:cross for the block between two crossings; "@point" for
            // a crossing other than the first (`intersectionMatches`). Every part a number.
            let at = rest.split(separator: "@", omittingEmptySubsequences: false)
            let fields = at[0].split(separator: ":", omittingEmptySubsequences: false)
            let ids = fields.compactMap { Int32($0) }
            let anchor = at.count == 2 ? Int32(at[1]) : nil
            guard at.count <= 2, at.count == 1 || anchor != nil, ids.count == fields.count, (2...3).contains(ids.count),
                  ids.allSatisfy({ $0 >= 0 && Int($0) < streets.count }) else { return nil }
            let firstKey = "x\(ids[0]):\(ids[1])" + (anchor.map { "@\($0)" } ?? "")
            guard let first = intersectionMatches(ids[0], ids[1], penalty: 0, notes: ["the intersection of the key"], ParsedAddress())
                .first(where: { $0.key == firstKey }) else { return nil }
            guard ids.count == 3 else { return first }
            return blockMatch(first, among: intersectionMatches(ids[0], ids[2], penalty: 0, notes: [], ParsedAddress()),
                              street: ids[0], ids[1], ids[2], ParsedAddress())
        case "i", "e", "b", "h":
            // street:number:from:to — the two known addresses the number was placed from (interpolated
            // between; extrapolated beyond the first, away from the second; "b": so within its block;
            // "h": between, where the parallel streets have its block).
            let parts = rest.split(separator: ":").compactMap { Int32($0) }
            // A number as a query may write it (nine digits, a leading zero held negative).
            guard parts.count == 4, parts[0] >= 0, Int(parts[0]) < streets.count, parts[1].magnitude <= 999_999_999,
                  parts[2...].allSatisfy({ $0 >= 0 && Int($0) < addresses.count }) else { return nil }
            let number = HouseNumber(value: Int(parts[1]))
            if kind == "i" {
                return interpolated(parts[2], parts[3], number: number, street: parts[0], q: ParsedAddress(), penalty: 0, notes: [])
            }
            if kind == "h" {
                return gridInterpolated(parts[2], parts[3], number: number, street: parts[0], q: ParsedAddress(), penalty: 0, notes: [])
            }
            // The fit is worked out again from the street's numbers, as when the key was made.
            guard let members = addressesByStreetPlace(parts[0]).first(where: { $0.contains(parts[2]) }),
                  let anchor = members.firstIndex(of: parts[2]), let far = members.firstIndex(of: parts[3]), far != anchor,
                  case let step = far > anchor ? 1 : -1,
                  let line = [extrapolationLine(members, anchor: anchor, step: step, sameHundred: kind == "b"),
                              kind == "e" ? extrapolationLine(members, anchor: anchor, step: step, side: Int(parts[1])) : nil]
                      .lazy.compactMap({ $0 }).first(where: { $0.reference == parts[3] }) else { return nil }
            return extrapolated(from: parts[2], line: line, number: number, street: parts[0], q: ParsedAddress(), penalty: 0,
                                notes: [], withinKnownNumbers: kind == "b")
        case "g":
            // street:number:place — a number placed by the city's grid on the street place; then
            // from:to when it was checked against the street's own line (an "e" key's fit).
            let parts = rest.split(separator: ":").compactMap { Int32($0) }
            guard parts.count == 3 || parts.count == 5, parts[0] >= 0, Int(parts[0]) < streets.count,
                  parts[1].magnitude <= 999_999_999, places(ofStreet: parts[0]).contains(Int(parts[2])),
                  let run = addresses(ofStreetPlace: Int(parts[2]))
            else { return nil }
            let members = Array(run)
            var line: ScoredMatch?
            if parts.count == 5 {
                guard let found = lookup(key: "e\(parts[0]):\(parts[1]):\(parts[3]):\(parts[4])") else { return nil }
                line = found
            }
            return gridPlaced(HouseNumber(value: Int(parts[1])), street: parts[0], place: Int(parts[2]), members: members,
                              q: ParsedAddress(), penalty: 0, notes: [],
                              spread: line == nil ? Self.gridSpreadOverStreet : Self.gridSpreadOverLine, line: line)
        case "v":
            // street:number:place:directional — a number on the continuation of the street's
            // place across its baseline, on the street of that directional (USPS letters).
            let parts = rest.split(separator: ":", omittingEmptySubsequences: false)
            let ids = parts.prefix(3).compactMap { Int32($0) }
            guard parts.count == 4, ids.count == 3, ids[0] >= 0, Int(ids[0]) < streets.count, ids[1] > 0, ids[1] <= 999_999_999,
                  places(ofStreet: ids[0]).contains(Int(ids[2])),
                  let wanted = AddressVocabulary.directionalNames[String(parts[3])] else { return nil }
            return continued(HouseNumber(value: Int(ids[1])), of: ids[0], place: Int(ids[2]), as: wanted, q: ParsedAddress(),
                             penalty: 0, notes: [])
        case "o":
            // locality:number:ordinal:street — a numbered street placed in a town between its
            // numbered streets (`numberedInTown`); the street one of its kind.
            let parts = rest.split(separator: ":", omittingEmptySubsequences: false).compactMap { Int32($0) }
            guard parts.count == 4, parts[0] >= 0, Int(parts[0]) < localityCityKeys.count, parts[1] > 0, parts[1] <= 999_999_999,
                  parts[2] > 0, parts[2] < 100_000, parts[3] >= 0, Int(parts[3]) < streets.count else { return nil }
            var asked = streets[Int(parts[3])].parts
            asked.core = [AddressText.ordinal(Int(parts[2])).lowercased()]
            return numberedInTown(HouseNumber(value: Int(parts[1])), asked: asked, locality: parts[0], q: ParsedAddress())?.match
        case "k":
            // street:number:at — a number placed at a known number of its block.
            let parts = rest.split(separator: ":").compactMap { Int32($0) }
            guard parts.count == 3, parts[0] >= 0, Int(parts[0]) < streets.count, parts[1].magnitude <= 999_999_999,
                  parts[2] >= 0, Int(parts[2]) < addresses.count else { return nil }
            return placedInBlock(HouseNumber(value: Int(parts[1])), at: parts[2], street: parts[0], q: ParsedAddress(), penalty: 0,
                                 notes: [])
        case "m":
            // first:last:key — a block of numbers, the key its middle number's placement.
            let parts = rest.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3, let first = Int(parts[0]), let last = Int(parts[1]), first >= 0, last >= first,
                  last - first < 100_000, last <= 999_999_999, parts[2].first != "m",
                  let house = lookup(key: String(parts[2])),
                  HouseNumber(parsing: house.components.number)?.value == Self.middle(ofBlock: first, last) else { return nil }
            return asBlock(house, first, last)
        case "n":
            guard let i = Int(rest), i >= 0, i < neighbourhoods.count else { return nil }
            return neighbourhoodMatch(i, score: 100, notes: ["the suggested area"])
        default:
            return nil
        }
    }

    /// The number a block of numbers is placed by: its middle ("3900 block": 3950).
    static func middle(ofBlock first: Int, _ last: Int) -> Int { first + (last - first + 1) / 2 }

    /// A house placed for a block's middle number, answered as the block ("3900 block of SE
    /// Hawthorne Blvd, Portland, OR 97214", no house number); nil for an answer that placed no
    /// number (the street alone stays the street).
    func asBlock(_ house: ScoredMatch, _ first: Int, _ last: Int) -> ScoredMatch? {
        guard house.matchType == .pointAddress || house.matchType == .interpolated || house.matchType == .extrapolated else { return nil }
        var m = house
        let blocks = last - first < 100 ? "\(first)" : "\(first)-\(last - last % 100)"
        m.matchType = .block
        m.key = "m\(first):\(last):\(house.key)"
        m.components.number = ""
        m.label = "\(blocks) block of \(m.components.formatted)"
        m.notes.append("the \(blocks) block, where its middle number is (\(house.matchType.rawValue))")
        return m
    }

    func addressMatch(_ i: Int32, score: Double, type: MatchType, notes: [String]) -> ScoredMatch {
        let p = addresses.points[Int(i)]
        return ScoredMatch(score: score, matchType: type, location: GeoPoint(x: p.lon, y: p.lat),
                           key: "a\(i)", notes: notes, components: addresses.components(of: Int(i)), place: Int32(p.place))
    }

    func streetMatch(_ i: Int, score: Double, notes: [String]) -> ScoredMatch {
        let sp = streetPlaces[i]
        let rep = addresses.points[Int(sp.representative)]
        let street = addresses.streets[Int(sp.street)]
        let locality = localities[Int(sp.locality)]
        let components = AddressComponents(number: "", street: addresses.streetDisplay[Int(sp.street)], streetFull: street,
                                           city: locality.city, state: locality.state, postcode: "")
        return ScoredMatch(score: score, matchType: .street, location: GeoPoint(x: rep.lon, y: rep.lat),
                           key: "s\(i)", notes: notes, components: components, place: Int32(rep.place))
    }

    func areaMatch(_ area: Area, type: MatchType, key: String, score: Double, notes: [String]) -> ScoredMatch {
        var components = AddressComponents(number: "", street: "", streetFull: "", city: "", state: "", postcode: "")
        switch type {
        case .postcode:
            components.postcode = area.name
            let parts = area.detail.split(separator: ",").map { $0.trimmingWhitespace() }
            if parts.count >= 3 { components.city = parts[1]; components.state = parts[2] }
        case .locality:
            // With its state ("Portland, OR"): the city's name alone was no place on a map of the
            // country, nor what its suggestion said.
            components.city = area.name
            let parts = area.detail.split(separator: ",").map { $0.trimmingWhitespace() }
            if parts.count >= 2 { components.state = parts[1] }
        default:
            break
        }
        return ScoredMatch(score: score, matchType: type, location: area.location, key: key, notes: notes, components: components)
    }

    /// A layer's polygon as the answer, named with its town: "Concordia, Portland, OR" (the
    /// components carry the town; the name alone was an answer of no text at all).
    func neighbourhoodMatch(_ i: Int, score: Double, notes: [String]) -> ScoredMatch {
        let n = neighbourhoods[i]
        let components = AddressComponents(number: "", street: "", streetFull: "", city: n.place?.city ?? "",
                                           state: n.place?.state ?? "", postcode: "")
        var m = ScoredMatch(score: score, matchType: .neighbourhood, location: n.area.location, key: "n\(i)", notes: notes,
                            components: components)
        m.label = [n.area.name, components.formatted].filter { !$0.isEmpty }.joined(separator: ", ")
        return m
    }

    /// A neighbourhood the text names, by all its name or by its first words.
    func neighbourhoodMatch(_ i: Int, begun: Bool) -> ScoredMatch {
        let n = neighbourhoods[i]
        let notes = ["\(n.layer) \(n.area.name)"] + (begun ? ["the first words of its name (−\(Int(Self.neighbourhoodBegunPenalty)))"] : [])
        return neighbourhoodMatch(i, score: 100 - (begun ? Self.neighbourhoodBegunPenalty : 0), notes: notes)
    }

    /// The neighbourhoods a text names: a layer's name alone, or followed by its town, then
    /// its state and a ZIP code of the index, as people write a place ("Concordia, Portland,
    /// OR 97211"; "Hollywood Portland Oregon"). Another town after the name is no match.
    func namedNeighbourhoods(_ tokens: [String], city typed: [String]? = nil, afterComma: [String] = []) -> [(index: Int, begun: Bool)] {
        /// State, ZIP and country, each optional, and nothing else.
        func isStateOn(_ rest: ArraySlice<String>, state: String) -> Bool {
            var rest = rest
            for k in [3, 2, 1] where rest.count >= k {
                guard let s = AddressVocabulary.states[rest.prefix(k).joined(separator: " ")], state.isEmpty || s == state else { continue }
                rest = rest.dropFirst(k)
                break
            }
            if let zip = rest.first, zip.count == 5, postcodes.contains(where: { $0.name == zip }) { rest = rest.dropFirst() }
            return rest.isEmpty || Self.countryWords.contains { rest.elementsEqual($0) }
        }
        func isRegion(_ rest: ArraySlice<String>, of n: Neighbourhood) -> Bool {
            if rest.isEmpty { return true }
            let city = n.town.dropLast(n.stateWords)
            let state = n.place?.state.lowercased() ?? ""
            if !city.isEmpty {
                return rest.starts(with: city) && isStateOn(rest.dropFirst(city.count), state: state)
            }
            // Points with no town (a city's own file, no city column): a town the text names is
            // unknown here, not another town ("Noe Valley, San Francisco" found nothing on San
            // Francisco's file). A town after a comma, or the one the parser read followed by a
            // state or ZIP: the last word of "Noe Valley Bakery" is read as a town too.
            if rest.elementsEqual(afterComma) {
                return (0...min(3, rest.count)).contains { t in
                    rest.prefix(t).allSatisfy { $0.allSatisfy(\.isLetter) } && isStateOn(rest.dropFirst(t), state: state)
                }
            }
            if let typed, !typed.isEmpty, rest.starts(with: typed), rest.count > typed.count {
                return isStateOn(rest.dropFirst(typed.count), state: state)
            }
            return isStateOn(rest, state: state)
        }
        var out: [(index: Int, begun: Bool)] = []
        for i in neighbourhoods.indices {
            let name = neighbourhoods[i].area.tokens
            guard let first = name.first, tokens.first == first else { continue }
            // The whole name, or its first words where they begin no other neighbourhood's name
            // ("Cully" for "Cully Association of Neighbors", "Old Town" for "Old Town Community
            // Association": what people and the city's own records call them), and not a
            // directional or a type alone ("West" of "West Portland Park") nor a town's name
            // ("Portland" of "Portland Downtown").
            for k in stride(from: name.count, through: 1, by: -1) where tokens.starts(with: name.prefix(k)) {
                let words = name.prefix(k)
                if k < name.count {
                    guard words.joined().count >= 4, !StreetNameParts.directionals.contains(first), !StreetNameParts.types.contains(first),
                          !localityCityKeys.contains(words.joined(separator: " ")),
                          !neighbourhoods.indices.contains(where: { $0 != i && neighbourhoods[$0].area.tokens.starts(with: words) }) else { continue }
                }
                if isRegion(tokens[k...], of: neighbourhoods[i]) { out.append((i, k < name.count)) }
                break
            }
        }
        return out
    }

    /// The words after the first comma of `text`; none without one.
    static func wordsAfterComma(_ text: String) -> [String] {
        guard let comma = text.firstIndex(of: ",") else { return [] }
        return AddressText.tokens(String(text[comma...]))
    }

    /// The parser's country names as words ("usa", "united states"), as a text may end with one.
    static let countryWords = AddressParser.countryNames.map { AddressText.tokens($0) }

    /// A neighbourhood found by the first words of its name (`namedNeighbourhoods`) scores this
    /// much less than by all of it.
    static let neighbourhoodBegunPenalty = 2.0

    // MARK: Free text

    func geocode(_ q: ParsedAddress, rawText: String, memo: QueryMemo) -> [ScoredMatch] {
        if let last = q.blockEnd, let first = q.number?.value, q.crossStreet == nil {
            var house = q
            house.blockEnd = nil
            house.number = HouseNumber(value: Self.middle(ofBlock: first, last))
            return geocode(house, rawText: rawText, memo: memo).map { asBlock($0, first, last) ?? $0 }
        }
        var q = q
        if let n = q.number { q.number?.value = numberAsIndexed(n.value) }
        if let cross = q.crossStreet {
            var found = q.crossStreetTo.map { blocks(q.street, between: cross, and: $0, q, memo: memo) }
                ?? intersections(q.street, cross, q, memo: memo)
            addPlaceOfUnknownStreet(to: &found, q, why: "no crossing of \(([q.street, cross] + (q.crossStreetTo.map { [$0] } ?? [])).map { "\"\($0.joined(separator: " "))\"" }.joined(separator: " and ")) found in the town named")
            return found
        }
        if q.street.isEmpty {
            return areaOnly(q, rawText: rawText)
        }
        var out: [ScoredMatch] = []
        let asked = StreetNameParts(tokens: q.street)
        // Exact names first; a misspelling of another street is tried when they place no house
        // ("Cannon Ln" exists, but the house is on "Canyon Ln"), or when no street of the name
        // has the type and directionals typed: "Hawthorn Blvd" is Hillsboro's NE Hawthorn Ave or
        // Estacada's SW Hawthorn Rd as typed, and SE Hawthorne Blvd one letter off; that street
        // had been no candidate at all. Only misspellings that agree with everything typed are
        // then taken, `namedOtherwisePenalty` below their own score; where the name as
        // typed placed nothing, every misspelling is, as before.
        var namedOnlyOtherwise = false
        for fuzzy in [false, true] {
            // A house placed only below what a request shows (`defaultMinScore`) is none: "4132 SE
            // Howell" had 4132 SW Howell Ave, Troutdale at 37, and so never SE Powell Blvd's point.
            let placed = q.number == nil ? !out.isEmpty : out.contains(where: { $0.matchType != .street && $0.score >= GeocodeRequest.defaultMinScore })
            if fuzzy, placed, !namedOnlyOtherwise { break }
            var found = matchStreets(q.street, fuzzyOnly: fuzzy, memo: memo)
            if fuzzy, placed {
                found = found.compactMap { s, p, n in
                    contradicts(asked, streets[Int(s)].parts) ? nil
                        : (s, p + Self.namedOtherwisePenalty, n + ["the name as typed is only streets of another type or directional (−\(Int(Self.namedOtherwisePenalty)))"])
                }
            }
            // A directional or type the user gave is evidence: when a street agrees with all of it,
            // a street that contradicts it answers only below that street's own fallback.
            let agreeing = Set(found.filter { !contradicts(asked, streets[Int($0.0)].parts) }.map(\.0))
            if !fuzzy { namedOnlyOtherwise = (asked.type != nil || asked.predirectional != nil) && !found.isEmpty && agreeing.isEmpty }
            // No type given, and a street of the name has none ("SW Broadway"): that street is the
            // one named, and one with a type is a guess at another ("SW Broadway Dr", in the hills
            // 1.5 km off, interpolated where SW Broadway's number is extrapolated), as far off as
            // a type that differs. Only a typeless street in the city or ZIP named counts: "1000
            // SW Broadway, Beaverton" is Beaverton's SW Broadway St.
            //
            // A type added to a name that has none ("Broadway St", as people write Broadway) with
            // a town named where no street agrees: the town's typeless street is the one meant,
            // and another town's street that agrees is no evidence against it ("1000 SW Broadway
            // St, Portland" is Portland's SW Broadway, not Beaverton's SW Broadway St, nor
            // Portland's SW Broadway Dr). A type that differs stays evidence: "1640 NW 19th Ave,
            // Gresham" is Portland's NW 19th Ave, not Gresham's NW 19th St.
            let named = isNamed(by: q)
            let townNamed = q.city != nil || q.postcode != nil
            func here(_ s: Int32) -> Bool { !townNamed || runs(s, through: named) }
            let agreeingHere = townNamed ? agreeing.filter(here) : agreeing
            let typeless = (asked.type == nil || agreeingHere.isEmpty) && found.contains { s, penalty, _ in
                streets[Int(s)].parts.type == nil && here(s)
                    && penalty < Self.typelessNameAt + (asked.type == nil ? 0 : Self.typeGivenForTypelessPenalty)
            }
            func typeAddedHere(_ s: Int32) -> Bool {
                townNamed && agreeingHere.isEmpty && streets[Int(s)].parts.type == nil && here(s)
            }
            // The cities where a house of the street as asked (its leading directional) was placed.
            var placedIn = Set<Int32>()
            for (street, penalty, notes) in found {
                var p = penalty
                var n = notes
                if !agreeing.isEmpty, !agreeing.contains(street), !typeAddedHere(street) {
                    p += Self.contradictionPenalty
                    n.append("a street named as given exists (−\(Int(Self.contradictionPenalty)))")
                }
                if typeless, let t = streets[Int(street)].parts.type, t != asked.type {
                    p += Self.typeNotNamedPenalty
                    n.append("a street of the name has no type, this one is \(t) (−\(Int(Self.typeNotNamedPenalty)))")
                }
                guard let number = q.number else {
                    out.append(contentsOf: streetMatches(street: street, q: q, penalty: p, notes: n))
                    continue
                }
                let houses = houseMatches(street: street, number: number, q: q, penalty: p, notes: n, memo: memo)
                if houses.isEmpty {
                    // The street is right even where its numbers cannot place the house: say so
                    // rather than offer another street that has the number.
                    out.append(contentsOf: streetMatches(street: street, q: q, penalty: p + Self.numberNotPlacedPenalty,
                                                         notes: n + ["house number \(number.text) not placed on this street (−\(Int(Self.numberNotPlacedPenalty)))"],
                                                         near: number))
                } else {
                    out.append(contentsOf: houses)
                    // A house of another type's street ("SE 33rd Pl" for SE 33rd Ave) is no house
                    // of the street asked: its town may still have the asked one across a baseline.
                    if streets[Int(street)].parts.predirectional == asked.predirectional,
                       asked.type == nil || streets[Int(street)].parts.type == asked.type {
                        for h in houses where h.matchType != .street { placedIn.insert(locality(ofPlace: h.place)) }
                    }
                    // Placed only in other cities than the one named ("230 SW 2nd Ave, Portland",
                    // placed in Canby): the named city's stretch of the street is offered too,
                    // rather than leaving only the other towns' houses.
                    if q.city != nil || q.postcode != nil, !houses.contains(where: { isInNamedPlace($0, q) }) {
                        out.append(contentsOf: streetMatches(street: street, q: q, penalty: p + Self.numberNotPlacedPenalty,
                                                             notes: n + ["house number \(number.text) not placed on this street here (−\(Int(Self.numberNotPlacedPenalty)))"],
                                                             near: number))
                    }
                }
            }
            // A continuation scores 85 at best (`continued`): looked for only when nothing found
            // scores that, or with no town named, that and what the city-size prior may take off
            // another town's answer (`rankCitiesBySize`). The synthetic mix of `locus-bench
            // geocode`, mostly addresses that are points, lost 9 % of its throughput looking every time.
            let beyond = Self.continuationBest + (townNamed ? 0 : Self.cityPriorLimit)
            if !fuzzy, let number = q.number, out.allSatisfy({ $0.score < beyond }) {
                out.append(contentsOf: continuationMatches(number, asked: asked, found: found, placedIn: placedIn, q: q))
            }
            // A numbered street no quarter of the town named has ("3142 22nd Ave, Forest Grove",
            // its points lacking it): between the town's numbered streets, where no continuation
            // put it and nothing of the town named scores what a continuation can. Placed between
            // two of them, it outranks another town's answer: "3142 22nd Ave, Forest Grove, OR"
            // was Portland's point 3142 NE 22nd Ave (89, a wrong city's 10 and a directional's 1 off).
            if !fuzzy, let number = q.number, townNamed, asked.type != nil, Self.ordinal(asked.core) != nil {
                let named = self.townNamed(by: q)
                let has = Set(found.filter { streets[Int($0.0)].parts == asked }.flatMap { places(ofStreet: $0.0).map { streetPlaces[$0].locality } })
                let covered = Set(out.filter { $0.key.hasPrefix("v") || $0.score >= beyond }.map { locality(ofPlace: $0.place) })
                var placedBetween: Double?
                for l in 0..<Int32(localityCityKeys.count) where named(l) && !has.contains(l) && !covered.contains(l) {
                    guard let (m, between) = numberedInTown(number, asked: asked, locality: l, q: q) else { continue }
                    out.append(m)
                    if between { placedBetween = max(placedBetween ?? 0, m.score) }
                }
                if let best = placedBetween {
                    for i in out.indices where !named(locality(ofPlace: out[i].place)) && out[i].score >= best {
                        out[i].score = max(0, best - 1)
                        out[i].notes.append("house number \(number.text) placed in the town named, between its numbered streets (below it)")
                    }
                }
            }
        }
        if q.number == nil, q.postcode == nil {
            // "Concordia" may be a neighbourhood as well as "NW Concordia Ct": offer both.
            out.append(contentsOf: areaOnly(q, rawText: rawText))
        } else if q.number == nil {
            // "Concordia, Portland, OR 97211": the ZIP code is the region, not the answer.
            for (i, begun) in namedNeighbourhoods(AddressText.tokens(rawText), city: q.city, afterComma: Self.wordsAfterComma(rawText)) {
                out.append(neighbourhoodMatch(i, begun: begun))
            }
        }
        addPlaceOfUnknownStreet(to: &out, q, why: "street \"\(q.street.joined(separator: " "))\" not found in the town named")
        return out
    }

    /// The ZIP code and town named, where no answer lies in that town (the city named, else the
    /// ZIP code's towns: `townNamed`): as far as the index can tell, that is where the address is
    /// (Esri's postal and locality matches). "1234 New Development Way, Portland, OR 97211", a
    /// street newer than the points, had no candidate, while the same text without the number had
    /// the town. Scored `streetNotFoundPenalty` below an answer of the text and below every answer
    /// found in another town (a town's streets are often filed under the next town's name), the
    /// ZIP code (the finer place) first. An answer in the town that a request shows by default
    /// (`GeocodeRequest.minScore`) is the street found, whatever its score against the ZIP code's:
    /// on the distinct dev street-tree addresses with city and ZIP code, "920 NW Kearney,
    /// Portland, OR 97210" (the street extrapolated at 68, another ZIP code's) went to 97210's
    /// centre; "W Stark St, Beaverton" at 40 for "1234 SE Stark St, Beaverton" is no street found.
    ///
    /// `why` is an autoclosure: most texts that name a town find an answer there, and the note's
    /// text is made only for those that do not.
    func addPlaceOfUnknownStreet(to found: inout [ScoredMatch], _ q: ParsedAddress, why: @autoclosure () -> String) {
        guard q.city != nil || q.postcode != nil else { return }
        let shown = GeocodeRequest.defaultMinScore
        // Most answers lie where the text says: told without building the town's test.
        let city = q.city?.joined(separator: " ")
        if found.contains(where: { m in
            m.score >= shown && m.place >= 0 && Int(m.place) < addresses.places.count
                && Self.cost(of: regionMismatch(q, city: city, place: m.place)) == 0
        }) { return }
        let named = townNamed(by: q)
        var best: Double?
        for m in found where m.place >= 0 {
            if m.score >= shown, named(locality(ofPlace: m.place)) { return }
            // Only an answer shown by default, that places the house by its street's own numbers
            // where a number was given, may be the town's street filed under another town. Below
            // it, the place named was shown below a hidden answer: "100 SW Ashe St, Portland, OR
            // 97204" had no candidate. Another town's street that cannot place the number is the
            // name alone: "100 SW Ash St, Portland, OR 97204" was Sherwood's SW Ash St (its numbers
            // 22,000 and up), 20 km off. A continuation (`v`) is placed by another street's line:
            // "50 SW Pine St, Portland, OR 97204" was Hillsboro's SE Pine St carried across.
            guard m.score >= shown, q.number == nil || (m.matchType != .street && !m.key.hasPrefix("v")) else { continue }
            best = max(best ?? m.score, m.score)
        }
        let score = max(0, min(100 - Self.streetNotFoundPenalty, (best ?? 100) - 1))
        let place = placeOfUnknownStreet(q, score: score, why: why())
        // The name alone in another town ties the town named (a wrong town's 10 and an unplaced
        // number's 20 are the 30 of a street not found): "100 SW Ash St, Portland" had Sherwood's
        // SW Ash St, 20 km off, first, and Portland second at the same 70.
        if !place.isEmpty, let number = q.number {
            for i in found.indices where found[i].score >= score && (found[i].matchType == .street || found[i].key.hasPrefix("v")) {
                found[i].score = max(0, score - 1)
                found[i].notes.append("house number \(number.text) not placed, in another town than the one named: below it (−1)")
            }
        }
        found += place
    }

    func placeOfUnknownStreet(_ q: ParsedAddress, score: Double, why: String) -> [ScoredMatch] {
        let note = "\(why) (−\(Int((100 - score).rounded())))"
        var out: [ScoredMatch] = []
        if let zip = q.postcode, let area = postcodes.first(where: { $0.name == zip }) {
            out.append(areaMatch(area, type: .postcode, key: "z\(zip)", score: score, notes: [note, "postcode \(zip)"]))
        }
        if let city = q.city {
            for (i, c) in cities.enumerated() where c.tokens == city {
                out.append(areaMatch(c, type: .locality, key: "c\(i)", score: score, notes: [note, "city \(c.name)"]))
            }
        }
        return out
    }

    /// Postcode, city or neighbourhood alone.
    func areaOnly(_ q: ParsedAddress, rawText: String) -> [ScoredMatch] {
        let tokens = AddressText.tokens(rawText)
        if tokens.count == 1, let (zip, _) = AddressParser.postcodeFields(tokens[0]) ?? q.postcode.map({ ($0, nil) }),
           let area = postcodes.first(where: { $0.name == zip }) {
            return [areaMatch(area, type: .postcode, key: "z\(zip)", score: 100, notes: ["postcode \(zip)"])]
        }
        var out: [ScoredMatch] = []
        // A ZIP code with no street is the finest place the text names ("PO Box 12, Portland OR
        // 97211"); the city follows it.
        if let zip = q.postcode, q.street.isEmpty, let area = postcodes.first(where: { $0.name == zip }) {
            out.append(areaMatch(area, type: .postcode, key: "z\(zip)", score: 100, notes: ["postcode \(zip)"]))
            if q.city == nil { return out }
        }
        for (i, begun) in namedNeighbourhoods(tokens, city: q.city, afterComma: Self.wordsAfterComma(rawText)) {
            out.append(neighbourhoodMatch(i, begun: begun))
        }
        // A city named after a street that was not found is where to look, not an answer to the
        // text ("Hollywood Transit Center, 4201 NE Halsey St, Portland" was Portland at 100).
        let (cityTokens, cityScore, cityNote): ([String], Double, [String]) = if let city = q.city, !q.street.isEmpty {
            (city, 100 - Self.streetNotFoundPenalty, ["street \"\(q.street.joined(separator: " "))\" not found (−\(Int(Self.streetNotFoundPenalty)))"])
        } else {
            (q.city ?? tokens, 100, [])
        }
        for (i, c) in cities.enumerated() where c.tokens == cityTokens {
            out.append(areaMatch(c, type: .locality, key: "c\(i)", score: cityScore, notes: cityNote + ["city \(c.name)"]))
        }
        return out
    }

    /// Streets whose name matches, with a penalty for each way the query's directionals and type
    /// differ from the street's, and the notes that explain it.
    ///
    /// A synonym's street competes with what the text names as typed (an old name may still be a
    /// street elsewhere), one point behind it.
    func matchStreets(_ typed: [String], fuzzyOnly: Bool = false, typos: Bool = true, memo: QueryMemo? = nil) -> [(Int32, Double, [String])] {
        guard let replaced = synonyms.apply(typed) else { return matchStreetNames(typed, fuzzyOnly: fuzzyOnly, typos: typos, memo: memo) }
        let note = "\"\(typed.joined(separator: " "))\" read as \"\(replaced.joined(separator: " "))\" (synonym, −1)"
        var best: [Int32: (Double, [String])] = [:]
        for (s, p, n) in matchStreetNames(replaced, fuzzyOnly: fuzzyOnly, typos: typos, memo: memo) { best[s] = (p + 1, [note] + n) }
        for (s, p, n) in matchStreetNames(typed, fuzzyOnly: fuzzyOnly, typos: typos, memo: memo) where p < best[s]?.0 ?? .infinity { best[s] = (p, n) }
        return best.sorted { $0.key < $1.key }.map { ($0.key, $0.value.0, $0.value.1) }
    }

    /// The published names of the streets a typed street name (its tokens, as the parser gives
    /// them) reads as with no typo: as typed, through the dataset's synonyms, a route's other
    /// names, without a middle initial or Jr, as initials or as an unambiguous word's prefix.
    /// Whatever its directional and type. The evaluation judges a candidate's street by it: the
    /// city's "NE M L KING BLVD" names NE Martin Luther King Jr Blvd, "NE PORTLAND BLVD" NE Rosa
    /// Parks Way, and neither is another street; "SW LOOP DR" (a typo of SW Loon Dr's name) is.
    public func streetsNamedWithoutTypo(_ tokens: [String]) -> Set<String> {
        Set(matchStreets(tokens, typos: false).compactMap { s, _, _ in addresses.streets.indices.contains(Int(s)) ? addresses.streets[Int(s)] : nil })
    }

    /// The street a typed name stands for in the dataset's synonyms, directional and type
    /// included ("ne portland blvd" → "ne rosa parks way"); nil when it has none.
    public func synonym(of tokens: [String]) -> [String]? {
        synonyms.apply(tokens)
    }

    /// A compass direction after a route's number as the letter of the number ("99 E" → 99e).
    static let routeLetters = ["east": "e", "west": "w", "north": "n", "south": "s"]

    /// `typos`: false leaves out the names within the typo allowance (nothing else reads typos).
    func matchStreetNames(_ tokens: [String], fuzzyOnly: Bool, typos: Bool = true, memo: QueryMemo? = nil) -> [(Int32, Double, [String])] {
        var baseNotes: [String] = []
        var parts = StreetNameParts(tokens: tokens)
        var basePenalty = 0.0
        // A misspelt street type ("avenu") is still a type, unless the name as typed is a street's
        // ("Via de la Valle": read as "Via de la" Valley, it scored 87 through a whole-text reading).
        if parts.type == nil, parts.core.count >= 2, let last = parts.core.last, last.count >= 4,
           let t = AddressVocabulary.fullStreetTypes.first(where: { EditDistance.distance(last, $0, limit: 1) != nil }),
           streets(withCore: parts.coreKey) == nil {
            parts.type = t
            parts.core.removeLast()
            basePenalty += 2
            baseNotes.append("street type \"\(last)\" read as \(t) (−2)")
        }
        var found: [(Int32, Double, [String])] = []
        // A route whose number has a letter typed apart from it: "S Hwy 99 E", "Highway 99 W" for
        // Oregon's and California's 99E and 99W ("US 1 A" is another road). Read as route 99 with
        // a suffix direction, "S Hwy 99 E" was SE East Ave (75) above S Highway 99e (74).
        if !fuzzyOnly, let direction = parts.postdirectional, let letter = Self.routeLetters[direction],
           let route = RouteName(core: parts.core), route.rest.isEmpty, route.number.allSatisfy(\.isNumber),
           coresByRoute[route.number + letter] != nil {
            let joined = parts.core.dropLast() + [route.number + letter]
            let alternative = [parts.predirectional].compactMap { $0 } + joined + [parts.type].compactMap { $0 }
            let note = "\"\(route.number) \(direction)\" read as route \(route.number)\(letter.uppercased()) (−1)"
            for (s, p, n) in matchStreetNames(alternative, fuzzyOnly: false, typos: typos, memo: memo) { found.append((s, p + basePenalty + 1, baseNotes + [note] + n)) }
        }
        func collect(_ core: String, penalty: Double, note: String?, loose: Bool = false) {
            let list = loose ? streetsByLooseCore[core] ?? [] : streets(withCore: core).map(Array.init) ?? []
            // The name's usual type ranks its streets where the text gives no type, or a type no
            // street of the name and direction has: "NW 20th Pl", where the data has none, is beside
            // NW 20th Ave far more often than beside a town's NW 20th St.
            let typeExists = parts.type.map { t in
                list.contains {
                    let sp = streets[Int($0)].parts
                    return sp.type == t && (parts.predirectional == nil || sp.predirectional == parts.predirectional)
                }
            } ?? false
            let usualType = typeExists ? nil : dominantType(list)
            for s in list {
                var p = penalty
                var notes = baseNotes + (note.map { [$0] } ?? [])
                let sp = streets[Int(s)].parts
                switch (parts.predirectional, sp.predirectional) {
                case let (q?, d?) where q != d:
                    p += Self.otherDirectionalPenalty
                    notes.append("prefix direction \(q) ≠ \(d) (−\(Int(Self.otherDirectionalPenalty)))")
                case (_?, nil): p += 10; notes.append("street has no prefix direction (−10)")
                case (nil, _?): p += 1; notes.append("prefix direction not given (−1)")
                default: break
                }
                switch (parts.type, sp.type) {
                case let (q?, t?) where q != t && usualType != nil && t != usualType:
                    p += 15; notes.append("street type \(q) ≠ \(t), not the name's usual \(usualType ?? "") (−15)")
                case let (q?, t?) where q != t: p += 12; notes.append("street type \(q) ≠ \(t) (−12)")
                case (_?, nil): p += Self.typeGivenForTypelessPenalty; notes.append("street has no type (−\(Int(Self.typeGivenForTypelessPenalty)))")
                case (nil, let t?) where usualType != nil && t != usualType:
                    // "NE 19" is NE 19th Ave more often than NE 19th Pl: the name's usual type first.
                    p += 3; notes.append("street type not given, and \(t) is not the usual one (−3)")
                case (nil, _?): p += 2; notes.append("street type not given (−2)")
                default: break
                }
                switch (parts.postdirectional, sp.postdirectional) {
                case let (q?, d?) where q != d: p += 20; notes.append("suffix direction \(q) ≠ \(d) (−20)")
                case (_?, nil): p += 10; notes.append("street has no suffix direction (−10)")
                case (nil, _?): p += 2; notes.append("suffix direction not given (−2)")
                default: break
                }
                found.append((s, p + basePenalty, notes))
            }
        }
        let key = parts.coreKey
        if !fuzzyOnly { collect(key, penalty: 0, note: nil) }
        // A numbered route goes by several names ("NY 9", "Route 9", "State Route 9"): each of the
        // index's names for it competes with the name as typed, a point or three behind.
        if !fuzzyOnly, let route = RouteName(core: parts.core) {
            for (core, other) in coresByRoute[route.lookupKey] ?? [] where core != key {
                guard let cost = route.cost(naming: other) else { continue }
                collect(core, penalty: cost, note: "\"\(key)\" read as the route \"\(core)\" (−\(Int(cost)))")
            }
        }
        if found.isEmpty, !fuzzyOnly {
            collect(Self.looseKey(parts.core), penalty: 2, note: "name matched without its middle initial or Jr (−2)", loose: true)
        }
        if found.isEmpty, !fuzzyOnly {
            for core in initialsCores(parts.core, type: parts.type) {
                collect(core, penalty: 3, note: "\"\(key)\" read as the initials of \"\(core)\" (−3)")
            }
        }
        if found.isEmpty, !fuzzyOnly, let core = prefixCore(parts.core, type: parts.type) {
            collect(core, penalty: 5, note: "\"\(key)\" read as short for \"\(core)\" (−5)")
        }
        if found.isEmpty, typos {
            for (candidate, distance) in memo?.fuzzyCores(key, in: self) ?? fuzzyCores(key) {
                collect(candidate, penalty: Double(8 * distance), note: "name \"\(key)\" matched \"\(candidate)\" with \(distance) edit\(distance > 1 ? "s" : "") (−\(8 * distance))")
            }
        }
        if found.isEmpty, !fuzzyOnly, parts.predirectional != nil || parts.type != nil {
            // The directional or the type may belong to the name ("North Court", "Avenue A").
            collect(tokens.joined(separator: " "), penalty: 3, note: "whole text read as the street's name (−3)")
        }
        return found
    }

    /// The place of a location placed along a street (between numbers, beyond them, at a
    /// crossing), as the query would have it: the anchor's, unless the query names a city or ZIP
    /// code the anchor's place is not and an address near the location is in one that is. Town
    /// lines and ZIP code boundaries run down streets and between blocks: a number placed from a
    /// lot in one ZIP code may stand in the next (downtown's blocks alternate between two), and the
    /// line is no reason to doubt the number. Measured in `placeNearReach`.
    ///
    /// The addresses it was placed from are asked too: a number placed beyond a lot whose
    /// neighbours are in the ZIP code named is no further from it than the street answer located
    /// at that lot. Only a town the query names is looked about in: another town's street of the
    /// name is there for want of one in the town named (looking about every town's street, as a
    /// first version did, cost 15 % of `locus-bench geocode`'s throughput; this costs 2–4 %).
    func placeNamed(near location: GeoPoint, _ second: GeoPoint? = nil, _ third: GeoPoint? = nil, anchor: Int32, or other: Int32? = nil,
                    _ q: ParsedAddress) -> Int32 {
        guard q.city != nil || q.postcode != nil else { return anchor }
        let city = q.city?.joined(separator: " ")
        var best = anchor, least = regionCost(q, city: city, place: anchor)
        guard least > 0, isInTownNamed(anchor, q, city: city) else { return anchor }
        if let other, other != anchor, regionCost(q, city: city, place: other) == 0 { return other }
        for location in [location, second, third] where least > 0 {
            guard let location else { continue }
            for (i, _) in addresses.nearest(lon: location.x, lat: location.y, maxDistance: Self.placeNearReach, count: Self.placeNearCount) {
                let place = Int32(addresses.points[i].place)
                guard place != best else { continue }
                let p = regionCost(q, city: city, place: place)
                if p < least { (best, least) = (place, p) }
            }
        }
        return best
    }

    /// Whether a place is in a town the query names: its city, or (no city named) a town with
    /// the ZIP code named.
    func isInTownNamed(_ place: Int32, _ q: ParsedAddress, city: String?) -> Bool {
        if let city { return city == placeCityKey[Int(place)] }
        guard Int(place) < placeLocality.count, let zip = q.postcode else { return false }
        return localitiesByPostcode[zip]?.contains(placeLocality[Int(place)]) ?? false
    }

    /// What of the region the query names an address's place contradicts; `city` is the query's
    /// city joined as `placeCityKey` is. The one rule `regionCost` and `regionPenalty` price.
    /// A city, ZIP code or state the address file does not give (many cities' files have no state
    /// column, San Francisco's no city) is unknown, not another: "2410 Mission St, San Francisco,
    /// CA 94110" on such an index scored 50 and had no candidate.
    private func regionMismatch(_ q: ParsedAddress, city: String?, place index: Int32) -> RegionMismatch {
        let place = addresses.places[Int(index)]
        return (city: city.map { !place.city.isEmpty && $0 != placeCityKey[Int(index)] } ?? false,
                postcode: q.postcode.map { !place.postcode.isEmpty && $0 != place.postcode } ?? false,
                state: q.state.map { !place.state.isEmpty && $0 != place.state.lowercased() } ?? false)
    }

    private typealias RegionMismatch = (city: Bool, postcode: Bool, state: Bool)

    private static func cost(of m: RegionMismatch) -> Double {
        (m.city ? 10 : 0) + (m.postcode ? 10 : 0) + (m.state ? 40 : 0)
    }

    /// `regionPenalty` without its notes.
    func regionCost(_ q: ParsedAddress, city: String?, place index: Int32) -> Double {
        Self.cost(of: regionMismatch(q, city: city, place: index))
    }

    /// How far from a placed location (metres) an address may be to show which place it is in,
    /// and how many of the nearest are asked. Measured on the distinct dev street-tree addresses
    /// with "Portland, OR" and the ZIP code of the address point nearest their trees
    /// (`scripts/tree_addresses_with_zip.py`), trees within 75 m of answers other than an address
    /// point: 13,398 with the anchor's place alone; the addresses placed from only 13,421, and
    /// within 50 m 13,417, 100 m 13,428, 200 m 13,425, 400 m 13,407 of the location (a location
    /// that far from the ZIP code named is more often misplaced); the nearest 4 at 100 m 13,427
    /// (the 8 nearest: 13,428, slower).
    static let placeNearReach = 100.0
    static let placeNearCount = 4

    /// An address's parts, in the place `place` rather than its own.
    func components(of i: Int32, in place: Int32) -> AddressComponents {
        var c = addresses.components(of: Int(i))
        let p = addresses.places[Int(place)]
        (c.city, c.state, c.postcode) = (p.city, p.state, p.postcode)
        return c
    }

    /// Penalties for the city, postcode and state the query names, against one address.
    func regionPenalty(_ q: ParsedAddress, place index: Int32) -> (Double, [String]) {
        let place = addresses.places[Int(index)]
        let m = regionMismatch(q, city: q.city?.joined(separator: " "), place: index)
        var notes: [String] = []
        if m.city, let city = q.city { notes.append("city \(city.joined(separator: " ")) ≠ \(place.city) (−10)") }
        if m.postcode, let zip = q.postcode { notes.append("postcode \(zip) ≠ \(place.postcode) (−10)") }
        if m.state, let state = q.state { notes.append("state \(state.uppercased()) ≠ \(place.state) (−40)") }
        return (Self.cost(of: m), notes)
    }

    func houseMatches(street: Int32, number: HouseNumber, q: ParsedAddress, penalty: Double, notes: [String],
                      memo: QueryMemo? = nil) -> [ScoredMatch] {
        let runs = addressRuns(onStreet: street)
        let points = addresses.points
        var out: [ScoredMatch] = []
        // How far each house's digits after the hyphen are from those typed (twice the difference,
        // one more for the other side of the street), by its index in `out`.
        var tailDistance: [Int: Int] = [:]
        // Every city's house of this number, however many cities share the street's name: they
        // are few (one per city at most, but for suffixes), and the one asked for may be in the
        // smallest. Only placing a number between others is limited to some of its cities.
        for list in runs {
            // Each address found by the numbers beside the list is checked on its point (a
            // damaged table finds nothing, never another number).
            var i = firstAddress(numbered: number.value, in: list)
            while i < list.endIndex, Int(streetNumbers.i32(i, 0)) == number.value {
                let a = list[i]
                i += 1
                guard Int(points.number(Int(a))) == number.value else { continue }
                let suffix = addresses.suffixes[Int(points[Int(a)].suffix)]
                var p = penalty
                var n = notes
                // "37-13 74th St" where the index has Queens's 37-13 (and 37-01, 37-15 …): that
                // one; where it has 5331 alone, "5331-5337" is a range named by its first.
                if let tail = q.numberTail, number.suffix.isEmpty, suffix.hasPrefix("-") {
                    if HyphenatedNumber.relation(tail: tail, toSuffix: suffix) != .same {
                        p += 8
                        n.append("house number \(number.text)-\(tail) ≠ \(number.text)\(suffix) (−8)")
                        if let typed = HouseNumber.value(ofDigits: tail), let own = HouseNumber.value(ofDigits: suffix.dropFirst()) {
                            tailDistance[out.count] = abs(typed - own) * 2 + (abs(typed - own) % 2)
                        }
                    }
                } else if suffix.uppercased() != number.suffix.uppercased() {
                    let cost = number.suffix.isEmpty ? 4.0 : (suffix.isEmpty ? 6.0 : 8.0)
                    p += cost
                    n.append("house number suffix \"\(number.suffix)\" ≠ \"\(suffix)\" (−\(Int(cost)))")
                }
                let (rp, rn) = regionPenalty(q, place: Int32(points[Int(a)].place))
                out.append(addressMatch(a, score: max(0, 100 - p - rp), type: .pointAddress, notes: n + rn + ["house number \(number.text) found"]))
            }
        }
        // A hyphenated number that is no point ("91-1030" where Honolulu's street has 91-1020,
        // 91-1040 … and 91-1380 two kilometres on): its neighbours are the houses whose digits
        // after the hyphen are nearest, not any house of the first number (all scored 92, and
        // the index's first, 91-1380, came first).
        if let nearest = tailDistance.values.min(), let tail = q.numberTail {
            for (i, d) in tailDistance where d > nearest {
                out[i].score = max(0, out[i].score - 1)
                out[i].notes.append("house number \(number.text)-\(tail): another house's digits after the hyphen are nearer (−1)")
            }
        }
        // A point of the number in another town than the one named is no reason not to place it in
        // the named town: "213 SE 3rd Ave, Portland, OR 97214" lies between Portland's 201 and 223,
        // not at Canby's 213 (which scored 80 after its city and ZIP code penalties, 90 with the
        // city alone, and Portland's SE 3rd Ave came only as the street). Then the number is placed
        // only in the towns named, and where it is, the other towns' points rank below it.
        let elsewhere = out.count
        var named: (Int32) -> Bool = { _ in true }
        if elsewhere > 0 {
            guard q.city != nil || q.postcode != nil else { return out }
            named = townNamed(by: q)
            if out.contains(where: { named(locality(ofPlace: $0.place)) }) { return out }
        }
        // Not a point of the index: placed from the street's other numbers, separately in each city
        // the street runs through (numbers restart at city limits).
        for (k, members) in zip(places(ofStreet: street), addressesByStreetPlace(street, considering: q, runs: runs))
        where !members.isEmpty && named(streetPlaces[k].locality) {
            if var m = placeNumber(number, among: members, street: street, place: k, q: q, penalty: penalty, notes: notes, memo: memo) {
                m.support = members.count
                out.append(m)
            }
        }
        if elsewhere > 0, out.count > elsewhere {
            for i in 0..<elsewhere {
                out[i].score = max(0, out[i].score - Self.placedInNamedTownPenalty)
                out[i].notes.append("house number \(number.text) placed in the town named (−\(Int(Self.placedInNamedTownPenalty)))")
            }
        }
        return out
    }

    /// A street's addresses split by the city and state they are in: one run per street place of
    /// the street (`streetPlaceStart`), each in number order. With a query, only the street places
    /// it considers (`consideredLocalities`) have their runs.
    func addressesByStreetPlace(_ street: Int32, considering q: ParsedAddress? = nil, runs: [Slice<StoredIDs>]? = nil) -> [[Int32]] {
        let range = places(ofStreet: street)
        let considered = q.flatMap { consideredLocalities(ofStreet: street, $0) }
        return zip(range, runs ?? addressRuns(onStreet: street)).map { k, run in
            considered?.contains(streetPlaces[k].locality) ?? true ? Array(run) : []
        }
    }

    /// A street is placed in at most this many of its cities per query: a name shared by many
    /// cities (thirty synthetic ones at 30× Portland, "Main St" in a country) made every query on
    /// it rank every city's numbers. Portland's streets are in at most 6.
    static let streetPlaceCap = 8

    /// The localities of a street's places that a query considers; nil for all of them (no more
    /// than `streetPlaceCap`). Beyond that: those the query's city or ZIP code names, when the
    /// street is in any of them (the others would only follow at a city's penalty, and placing a
    /// number in 7 more of them was a third of a geocode at 30× Portland); else those with the
    /// most addresses.
    func consideredLocalities(ofStreet street: Int32, _ q: ParsedAddress) -> Set<Int32>? {
        let range = places(ofStreet: street)
        guard range.count > Self.streetPlaceCap else { return nil }
        let named = isNamed(by: q)
        let chosen = range.map { (k: $0, named: named(streetPlaces[$0].locality), count: streetPlaces[$0].count) }
            .sorted { ($0.named ? 0 : 1, -$0.count, $0.k) < ($1.named ? 0 : 1, -$1.count, $1.k) }
            .prefix(Self.streetPlaceCap)
        let inNamed = chosen.filter(\.named)
        return Set((inNamed.isEmpty ? chosen[...] : inNamed[...]).map { streetPlaces[$0.k].locality })
    }

    /// Whether a street has addresses in a locality `named` (`isNamed(by:)`) names.
    func runs(_ street: Int32, through named: (Int32) -> Bool) -> Bool {
        places(ofStreet: street).contains { named(streetPlaces[$0].locality) }
    }

    /// Whether a locality is one the query's city or ZIP code names (none, when it names neither).
    func isNamed(by q: ParsedAddress) -> (Int32) -> Bool {
        let city = q.city?.joined(separator: " ")
        let zipLocalities = q.postcode.flatMap { localitiesByPostcode[$0] } ?? []
        let keys = localityCityKeys
        return { l in zipLocalities.contains(l) || (city != nil && Int(l) < keys.count && keys[Int(l)] == city) }
    }

    /// Whether a locality is the town a query names: the city named where the index knows it, else
    /// the ZIP code's towns. A point in the city named but of another ZIP code is that city's (ZIP
    /// codes cross streets), and a ZIP code two towns share names neither when the city is given
    /// ("7805 SW Gearhart Dr, Tigard, OR 97007" is not Beaverton's 7805, though 97007 is
    /// Beaverton's too).
    func townNamed(by q: ParsedAddress) -> (Int32) -> Bool {
        let keys = localityCityKeys
        guard let city = q.city?.joined(separator: " "), keys.contains(city) else { return isNamed(by: q) }
        return { l in Int(l) < keys.count && keys[Int(l)] == city }
    }

    /// Interpolation never spans more than this (metres): neighbours further apart are separate
    /// stretches of the street, and a guess between them could be anywhere.
    static let interpolationSpan = 1000.0
    /// Metres apart, at the most, of two known numbers a number between them is interpolated
    /// across when they stand further apart than `interpolationSpan` and the city's grid cannot
    /// place it (see `placeNumber`). On the 48,763 distinct dev street-tree addresses (trees within
    /// 75 m, against an extrapolation from one of them): +142 / −24 trees (each half of the
    /// neighbourhoods gaining). Tried before the grid too: 1,500 / 3,000 / 6,000 m +105 / −42,
    /// +199 / −70, +189 / −114 (the grid's placements lost more than the line's gained).
    static let gapInterpolationSpan = 3000.0
    /// Extrapolation goes at most this far (metres) beyond the last known number. Streets whose
    /// points stop short of whole districts (Portland's central city has almost none) are right
    /// more often placed far along their own line than left at a street answer or sent to a town
    /// whose street of the name has the number. Measured on the distinct dev street-tree
    /// addresses (trees within 75 m, against 1,000 m): 1,500 m +76 / −3 trees, 2,000 m +95 / −12,
    /// 2,500 m +95 / −16, 3,000 m +95 / −16, 5,000 m +95 / −20; 2,000 m with the cost capped at a
    /// street answer's (see `extrapolated`) +90 / −12.
    static let extrapolationReach = 2000.0
    /// Metres east or west and north or south of a crossing at which a named corner's lot is placed.
    /// Measured on the dev street trees' corner rows within 75 m: 0 / 8 / 12 / 16 / 22 m gave
    /// 30.95 / 32.54 / 33.56 / 34.13 / 34.24 %.
    static let cornerOffset = 16.0
    /// Metres between two streets' nearest address points beyond which they do not meet.
    static let crossingGap = 300.0
    /// Known numbers the street's line beyond the last one is fitted to (see `extrapolationLine`).
    static let extrapolationNeighbours = 24
    /// Root-mean-square distance (metres) of those numbers from the fitted line above which it is
    /// no line.
    static let extrapolationScatter = 60.0
    /// Known numbers a line is fitted to, at the least, before the fit stops at the interpolation
    /// span: a street whose points stop short of a district (Portland's Lloyd District and
    /// downtown have a few addresses a street) has one or two numbers within 1 km of its last one,
    /// and read a line pointing anywhere, or none. Its numbers are then read up to `sparseFitReach`
    /// away. Measured on the 48,763 distinct dev street-tree addresses (trees within 75 m, against
    /// no reach past the span): 3 / 4 / 6 / 10 numbers within 3 km +20 / +111 / +139 / +135
    /// trees; 6 within 2 / 3 / 5 / 10 km +109 / +139 / +156 / +156; 5 and 8 within 5 km +158 /
    /// +153. Every number within 5 km, however many within 1 km: +117 (a river road's bends read
    /// as its line). "1120 SW 5th Ave" (one address of the street downtown, the next 1 km south) is
    /// placed in Portland 92 m beyond 1220, where it answered Canby's SW 5th Ave, 29 km off.
    static let sparseFitNumbers = 6
    /// How far (metres) the numbers of a sparse street's line are read (see `sparseFitNumbers`).
    static let sparseFitReach = 5000.0

    /// Where a house number that is no point of the index lies along its street, from the numbers
    /// that are: between the nearest numbers below and above on the same side (parity), else on
    /// either side (the two sides of a US street are numbered in step), else beyond the nearest
    /// known number at the rate the street's numbers run there, a bounded distance; far beyond it,
    /// or where the street has no line, by the city's grid (`gridPlaced`). `k` is the street place
    /// whose addresses `members` are.
    func placeNumber(_ number: HouseNumber, among members: [Int32], street: Int32, place k: Int, q: ParsedAddress, penalty: Double,
                     notes: [String], memo: QueryMemo? = nil) -> ScoredMatch? {
        let points = addresses.points
        let n = number.value
        var lowerSame: Int?, upperSame: Int?, lowerAny: Int?, upperAny: Int?
        for (k, a) in members.enumerated() {
            let v = Int(points.number(Int(a)))
            if v < n {
                lowerAny = k
                if (v - n) % 2 == 0 { lowerSame = k }
            } else if v > n {
                if upperAny == nil { upperAny = k }
                if upperSame == nil, (v - n) % 2 == 0 { upperSame = k }
            }
        }
        // The same side's neighbours first (measured on the dev street trees: preferring the other
        // side's when much closer in number placed fewer within 75 m, 37.5 % against 38.2 %).
        var pairs: [(Int, Int)] = []
        if let a = lowerSame, let b = upperSame { pairs.append((a, b)) }
        if let c = lowerAny, let d = upperAny { pairs.append((c, d)) }
        for (a, b) in pairs {
            // Several blocks apart, where between them the streets beside it say (`gridInterpolated`).
            // (The same side's first, however far apart: on the dev street trees, a pair of both
            // sides within an interpolation's reach first placed 102 fewer trees within 75 m.)
            if let m = gridInterpolated(members[a], members[b], number: number, street: street, q: q, penalty: penalty, notes: notes) {
                return m
            }
            // US numbers start a new hundred at each cross street, so a number in the same hundred
            // as one neighbour lies in that neighbour's block: placed from it at that block's own
            // pace rather than on a straight line across the jump.
            let na = Int(points.number(Int(members[a]))), nb = Int(points.number(Int(members[b])))
            if HouseNumber.hundred(of: na) != HouseNumber.hundred(of: nb) {
                let hundred = HouseNumber.hundred(of: n)
                let (anchor, step) = hundred == HouseNumber.hundred(of: nb) ? (b, 1) : (hundred == HouseNumber.hundred(of: na) ? (a, -1) : (-1, 0))
                if anchor >= 0, let line = extrapolationLine(members, anchor: anchor, step: step, sameHundred: true),
                   let m = extrapolated(from: members[anchor], line: line, number: number, street: street, q: q, penalty: penalty,
                                        notes: notes, withinKnownNumbers: true) {
                    return m
                }
            }
            if let m = interpolated(members[a], members[b], number: number, street: street, q: q, penalty: penalty, notes: notes,
                                    acrossGaps: false) {
                return m
            }
        }
        // Beyond the known numbers (or across a gap too long to interpolate): from whichever known
        // number is nearer in distance, with the rate taken from that end's own numbers.
        var best: ScoredMatch?
        for (end, step) in [(lowerAny, -1), (upperAny, 1)] {
            guard let end, let m = extrapolated(fromEnd: end, step: step, of: members, number: number, street: street, q: q,
                                                penalty: penalty, notes: notes), m.score > best?.score ?? -1 else { continue }
            best = m
        }
        // Hundreds of numbers beyond the street's last known one, its own line is a guess the
        // city's grid betters; with no line at all, the grid is the only place there is.
        // (The nearest known numbers are those either side of it, the members being in number order.)
        let gap = [lowerAny, upperAny].compactMap { $0.map { abs(Int(points.number(Int(members[$0]))) - n) } }.min() ?? 0
        if penalty < Self.gridPenaltyLimit, best == nil || gap >= Self.gridBeyondNumbers,
           let m = gridPlaced(number, street: street, place: k, members: members, q: q, penalty: penalty, notes: notes,
                              spread: best == nil ? Self.gridSpreadOverStreet : Self.gridSpreadOverLine, line: best, memo: memo) {
            return m
        }
        // Between two known numbers further apart than an interpolation spans, where the grid
        // cannot say: read between them rather than from one along the line of the numbers
        // beyond it (see `gapInterpolationSpan`).
        for (a, b) in pairs {
            if let m = interpolated(members[a], members[b], number: number, street: street, q: q, penalty: penalty, notes: notes) {
                return m
            }
        }
        if let best { return best }
        // No line to place it along (a street of one or two points, a block's numbers on one
        // spot), but a known number in its block: the number is in that block, where along it
        // unknown. Of the 382 dev street-tree addresses answered as the street alone, 28 have one
        // (SE Lee Ln's 2326 beside 2333); the street answer stood at that same number, without
        // the number asked.
        let inBlock = members.filter { HouseNumber.hundred(of: Int(points.number(Int($0)))) == HouseNumber.hundred(of: n) }
        guard let nearest = inBlock.min(by: { a, b in
            let da = Int(points.number(Int(a))) - n, db = Int(points.number(Int(b))) - n
            return (da % 2 != 0 ? 1 : 0, abs(da)) < (db % 2 != 0 ? 1 : 0, abs(db))
        }) else { return nil }
        return placedInBlock(number, at: nearest, street: street, q: q, penalty: penalty, notes: notes)
    }

    /// What a number placed at a known number of its block loses: as much as an extrapolation
    /// that went furthest (`extrapolated`), less than the street alone.
    static let placedInBlockCost = 18.0

    /// A number at `anchor`, a known number of its block (see `placeNumber`).
    func placedInBlock(_ number: HouseNumber, at anchor: Int32, street: Int32, q: ParsedAddress, penalty: Double,
                       notes: [String]) -> ScoredMatch? {
        let a = addresses.points[Int(anchor)]
        guard a.street == UInt32(street), Int(a.number) != number.value,
              HouseNumber.hundred(of: Int(a.number)) == HouseNumber.hundred(of: number.value) else { return nil }
        let location = GeoPoint(x: a.lon, y: a.lat)
        let cost = Self.placedInBlockCost
        return placed(number, at: location, in: placeNamed(near: location, anchor: Int32(a.place), q), from: anchor, q: q,
                      penalty: penalty, cost: cost, cap: 100 - cost, type: .extrapolated, key: "k\(street):\(number.value):\(anchor)",
                      notes: notes, how: "house number \(number.text) placed at \(HouseNumber.digits(of: Int(a.number))), the known number of its block nearest it (−\(Int(cost)))")
    }

    /// Stray points at a street's end that may be passed over. A stray point (one address of NE
    /// 11th Ave, Portland, lies 4 km off across the river) ends the street's numbers with no
    /// neighbour within an interpolation's span: no line could be read from it, and the number fell
    /// to the street alone, or to a town's street of the name.
    static let strayEndPoints = 2
    /// Metres per number beyond which no street's numbers run (US grids run about 0.3–2).
    static let fastestPace = 3.0

    /// The number extrapolated from the end of the known numbers nearest it (`members[end]`, the
    /// line read from the numbers further on by `step`); when no line can be read there and that
    /// end is a stray point, from the next known number. A point that is merely alone (one
    /// address of SW 5th Ave downtown, 1 km before the street's next) is no stray: its numbers
    /// and the next's run at a street's pace, and the line read through it and the numbers
    /// beyond (`sparseFitNumbers`) places the number from it.
    func extrapolated(fromEnd end: Int, step: Int, of members: [Int32], number: HouseNumber, street: Int32, q: ParsedAddress,
                      penalty: Double, notes: [String]) -> ScoredMatch? {
        let points = addresses.points
        var anchor = end
        while anchor >= 0, anchor < members.count, abs(anchor - end) <= Self.strayEndPoints {
            if let line = extrapolationLine(members, anchor: anchor, step: step) {
                return extrapolated(from: members[anchor], line: line, number: number, street: street, q: q, penalty: penalty,
                                    notes: notes)
            }
            // A wide street's two sides (industrial lots, buildings set far back) lie too far apart
            // for one line through both; the wanted number's own side may still make one.
            if let side = sequence(first: anchor, next: { $0 + step }).prefix(while: { $0 >= 0 && $0 < members.count })
                .first(where: { (Int(points.number(Int(members[$0]))) - number.value) % 2 == 0 }),
               let line = extrapolationLine(members, anchor: side, step: step, side: number.value) {
                return extrapolated(from: members[side], line: line, number: number, street: street, q: q, penalty: penalty,
                                    notes: notes)
            }
            // A stray: further from the next known number than any street's numbers run apart.
            let next = anchor + step
            guard next >= 0, next < members.count else { return nil }
            let a = points[Int(members[anchor])], b = points[Int(members[next])]
            let apart = GeoPoint(x: a.lon, y: a.lat).metres(to: GeoPoint(x: b.lon, y: b.lat))
            guard apart > Self.interpolationSpan, apart > Self.fastestPace * Double(abs(Int(a.number) - Int(b.number))) else { return nil }
            anchor = next
        }
        return nil
    }

    /// How a street's numbers run beyond `members[anchor]`: metres per number (a vector, east and
    /// north) fitted by least squares over the anchor and up to `extrapolationNeighbours` known
    /// numbers next to it on the side away from the wanted number (stepping by `step`), within the
    /// interpolation span (further for a sparse street, `sparseFitNumbers`). A fit over many
    /// neighbours reads the street's direction and pace through the noise of single points (two
    /// addresses of one building on one spot, a house set back, the other side of the street),
    /// where one reference point gave wild directions. `reference`
    /// is the farthest number used: with the anchor, it names the fit in a key.
    /// Measured on the dev street trees (addresses not among the index points, within 75 m): one
    /// reference and a 400 m reach 51.63 %; the fit over 2, 4, 8, 16, 24 neighbours within 250 m,
    /// 100 m, 400 m, 600 m, 1 km: 51.2–53.1 %, rising with both; reach 300 / 600 / 1,000 m: 52.7 /
    /// 53.5 / 53.8 %. The gain holds on both halves of the neighbourhoods (43.8 → 45.2 %,
    /// 54.7 → 57.1 %).
    /// With `side`, only numbers of its parity are read.
    func extrapolationLine(_ members: [Int32], anchor: Int, step: Int, sameHundred: Bool = false, side: Int? = nil)
        -> (reference: Int32, east: Double, north: Double)? {
        let points = addresses.points
        let a = points[Int(members[anchor])]
        let s = LocalMetricScale(latitude: a.lat)
        var window: [(x: Double, y: Double, dv: Double)] = [(0, 0, 0)]
        var reference: Int32?
        var k = anchor + step
        while k >= 0, k < members.count, window.count <= Self.extrapolationNeighbours {
            let r = points[Int(members[k])]
            if let side, (Int(r.number) - side) % 2 != 0 {
                k += step
                continue
            }
            if sameHundred, HouseNumber.hundred(of: Int(r.number)) != HouseNumber.hundred(of: Int(a.number)) { break }
            let x = (r.lon - a.lon) * s.metresPerDegreeX, y = (r.lat - a.lat) * s.metresPerDegreeY
            let d = (x * x + y * y).squareRoot()
            if d > Self.sparseFitReach || (d > Self.interpolationSpan && window.count >= Self.sparseFitNumbers) { break }
            window.append((x, y, Double(Int(r.number) - Int(a.number))))
            reference = members[k]
            k += step
        }
        guard let reference, window.count >= 2 else { return nil }
        let n = Double(window.count)
        let mv = window.reduce(0) { $0 + $1.dv } / n
        let mx = window.reduce(0) { $0 + $1.x } / n, my = window.reduce(0) { $0 + $1.y } / n
        var vv = 0.0, xv = 0.0, yv = 0.0
        for w in window {
            vv += (w.dv - mv) * (w.dv - mv)
            xv += (w.x - mx) * (w.dv - mv)
            yv += (w.y - my) * (w.dv - mv)
        }
        let spread = window.map { ($0.x * $0.x + $0.y * $0.y).squareRoot() }.max() ?? 0
        let numberSpread = window.map { abs($0.dv) }.max() ?? 0
        guard vv > 0, spread >= 5, numberSpread >= 2 else { return nil }
        let east = xv / vv, north = yv / vv
        // Points scattered about the line by more than a long block are no street line (a street
        // that bends back, two streets of one name).
        var residual = 0.0
        for w in window {
            let ex = w.x - (mx + east * (w.dv - mv)), ey = w.y - (my + north * (w.dv - mv))
            residual += ex * ex + ey * ey
        }
        guard (residual / n).squareRoot() <= Self.extrapolationScatter else { return nil }
        return (reference, east, north)
    }

    /// A number between two known ones of the same street, placed in proportion along the line
    /// between them; nil when they are too far apart. With `acrossGaps`, across a gap longer than
    /// `interpolationSpan` (up to `gapInterpolationSpan`) it is placed so too, scored as a number
    /// extrapolated as far from the nearer of them: downtown Portland's SW 4th Ave has 1024 and
    /// then 2400, 1.26 km on, and "1221 SW 4th Ave" was extrapolated 919 m back from 2400 along
    /// the line of the numbers beyond it, 280 m from City Hall, rather than read between the two.
    func interpolated(_ below: Int32, _ above: Int32, number: HouseNumber, street: Int32, q: ParsedAddress, penalty: Double,
                      notes: [String], acrossGaps: Bool = true) -> ScoredMatch? {
        let points = addresses.points
        let a = points[Int(below)], b = points[Int(above)]
        let from = GeoPoint(x: a.lon, y: a.lat), to = GeoPoint(x: b.lon, y: b.lat)
        let span = from.metres(to: to)
        // Between the two (a key names them; one naming others is no interpolation); across a long
        // gap, only where the numbers between could run along it (no stray point beyond it).
        guard a.street == UInt32(street), b.street == UInt32(street), Int(a.number) < number.value, number.value < Int(b.number),
              span <= Self.interpolationSpan
                  || (acrossGaps && span <= Self.gapInterpolationSpan && span <= Self.fastestPace * Double(Int(b.number) - Int(a.number)))
        else { return nil }
        let n = number.value
        let t = Double(n - Int(a.number)) / Double(Int(b.number) - Int(a.number))
        let location = onSide(of: n, between: below, and: above, at: t)
        let sameSide = (Int(a.number) - n) % 2 == 0 && (Int(b.number) - n) % 2 == 0
        // Between the two sides, the place along the street is as good but the side is a guess.
        let (cost, place) = span > Self.interpolationSpan
            ? acrossGap(location, between: below, and: above, q)
            : (sameSide ? 10.0 : 12.0, placeNamed(near: location, from, to, anchor: Int32(a.place), or: Int32(b.place), q))
        let how = (sameSide ? "" : " (numbers of both sides)") + (span > Self.interpolationSpan ? ", \(Int(span.rounded())) m apart" : "")
        return placed(number, at: location, in: place, from: below, q: q, penalty: penalty, cost: cost, cap: 100 - cost - 1,
                      type: .interpolated, key: "i\(street):\(n):\(below):\(above)",
                      notes: notes, how: "house number \(number.text) interpolated between \(HouseNumber.digits(of: Int(a.number))) and \(HouseNumber.digits(of: Int(b.number)))\(how) (−\(Int(cost.rounded())))")
    }

    /// Where the known address `i` stands as seen from number `n`'s side of the street: its own
    /// point on that side (the same parity), else its mirror across the street's centre line (its
    /// `LotFrontage`), where the houses across from it stand; its own point when no centre line is
    /// known. A number placed from the other side's numbers was placed on the wrong side of the
    /// street, 20–40 m from its lot.
    func onSide(of n: Int, _ i: Int32) -> GeoPoint {
        let points = addresses.points, p = points[Int(i)]
        let own = GeoPoint(x: p.lon, y: p.lat)
        guard (Int(p.number) - n) % 2 != 0, addresses.frontage.count == points.count else { return own }
        let f = addresses.frontage[Int(i)]
        guard f.hasDirection, !f.centre.isNaN, abs(Double(f.centre)) <= Self.mirrorReach else { return own }
        let s = LocalMetricScale(latitude: p.lat), across = 2 * Double(f.centre)
        let mirror = GeoPoint(x: p.lon - Double(f.uy) * across / s.metresPerDegreeX, y: p.lat + Double(f.ux) * across / s.metresPerDegreeY)
        // A damaged file's direction (the mapped tables are not checked at open) must not make a
        // place of no number.
        return mirror.x.isFinite && mirror.y.isFinite ? mirror : own
    }

    /// The place `t` (0–1) of the way from known address `below` to `above`, both as seen from
    /// number `n`'s side of the street (`onSide`): where an interpolation puts `n`.
    func onSide(of n: Int, between below: Int32, and above: Int32, at t: Double) -> GeoPoint {
        let from = onSide(of: n, below), to = onSide(of: n, above)
        return GeoPoint(x: from.x + t * (to.x - from.x), y: from.y + t * (to.y - from.y))
    }

    /// The most (metres) an address's street centre line may lie from it for its mirror to be
    /// taken as where the other side's houses stand (`LotFrontage.acrossReach` reads houses across
    /// up to 90 m away, the centre halfway).
    static let mirrorReach = 45.0

    /// A number placed at `location` from the known address `anchor`: the anchor's components
    /// with the number, in `place`; `cost` and the region's off the score, at most `cap`.
    func placed(_ number: HouseNumber, at location: GeoPoint, in place: Int32, from anchor: Int32, q: ParsedAddress,
                penalty: Double, cost: Double, cap: Double, type: MatchType, key: String, notes: [String], how: String) -> ScoredMatch {
        var components = self.components(of: anchor, in: place)
        components.number = number.text
        let (rp, rn) = regionPenalty(q, place: place)
        return ScoredMatch(score: min(max(0, 100 - penalty - rp - cost), cap), matchType: type, location: location, key: key,
                           notes: notes + rn + [how], components: components, place: place)
    }

    /// A number beyond `anchor`, placed along the street's line there (`extrapolationLine`, the
    /// fit that ends at `reference`); nil beyond `extrapolationReach` or at an implausible rate.
    /// With `withinKnownNumbers`, the number lies between known ones of the street (in the anchor's
    /// block, see `placeNumber`): an interpolation in all but method, scored as one.
    func extrapolated(from anchor: Int32, line: (reference: Int32, east: Double, north: Double), number: HouseNumber, street: Int32,
                      q: ParsedAddress, penalty: Double, notes: [String], withinKnownNumbers: Bool = false) -> ScoredMatch? {
        let points = addresses.points
        let a = points[Int(anchor)], r = points[Int(line.reference)]
        guard a.street == UInt32(street), r.street == UInt32(street), a.number != r.number else { return nil }
        let s = LocalMetricScale(latitude: a.lat)
        // Numbers must run away from the reference towards the wanted one, at a street's pace
        // (US grids run about 0.3–2 m per number).
        guard (number.value - Int(a.number)).signum() == (Int(a.number) - Int(r.number)).signum() else { return nil }
        let rate = (line.east * line.east + line.north * line.north).squareRoot()
        guard (0.1...Self.fastestPace).contains(rate) else { return nil }
        let beyond = Double(number.value - Int(a.number))
        let distance = abs(beyond) * rate
        guard distance <= Self.extrapolationReach else { return nil }
        let start = onSide(of: number.value, anchor)
        let location = GeoPoint(x: start.x + line.east * beyond / s.metresPerDegreeX,
                                y: start.y + line.north * beyond / s.metresPerDegreeY)
        let reference = line.reference
        let place = placeNamed(near: location, GeoPoint(x: a.lon, y: a.lat), anchor: Int32(a.place), q)
        if withinKnownNumbers {
            return placed(number, at: location, in: place, from: anchor, q: q, penalty: penalty, cost: 10, cap: 89,
                          type: .interpolated, key: "b\(street):\(number.value):\(anchor):\(reference)", notes: notes,
                          how: "house number \(number.text) placed \(Int(distance.rounded())) m from \(HouseNumber.digits(of: Int(a.number))) in its block (−10)")
        }
        // Less sure the further it goes: 15 points off and one more per 200 m, but never more than
        // the street alone loses (`numberNotPlacedPenalty`): the number placed on its own street
        // is worth no less than that street without it, and a town's street that has the number
        // must not win for want of a closer one here.
        let cost = min(15 + distance / 200, Self.numberNotPlacedPenalty)
        return placed(number, at: location, in: place, from: anchor, q: q, penalty: penalty, cost: cost, cap: 100 - cost,
                      type: .extrapolated, key: "e\(street):\(number.value):\(anchor):\(reference)", notes: notes,
                      how: "house number \(number.text) extrapolated \(Int(distance.rounded())) m beyond \(HouseNumber.digits(of: Int(a.number))) (−\(Int(cost.rounded())))")
    }

    /// Added to a street with a type when the name was given without one and a street of the name
    /// has none, or with a type that no street of the name has in the town named, and this one is
    /// another: as much as a type that differs (`contradictionPenalty`). At 10, "1825 SW Broadway,
    /// Portland" answered the point 1825 SW Broadway Dr, 1.3 km off in the hills (87), above SW
    /// Broadway's own number extrapolated 100 numbers from its 1924 (84).
    static let typeNotNamedPenalty = 15.0
    /// A type given for a street that has none ("Broadway St"): less than a type that differs.
    static let typeGivenForTypelessPenalty = 8.0
    /// The most a typeless street's name may cost to count as the one named (a directional not
    /// given, −1, is still it; a misspelling, −8, is not).
    static let typelessNameAt = 5.0

    /// Added to a street whose leading directional is another than the one given.
    static let otherDirectionalPenalty = 25.0
    /// Added to a street that contradicts the directional or type the user gave, when another
    /// street agrees with them: below the agreeing street's own fallback.
    static let contradictionPenalty = 15.0
    /// Added to a misspelling of the name typed that has the type and directionals typed, where
    /// the name as typed is only streets with others: the name's 8 against the type's 12–15 or a
    /// directional's 10–25, so the name as typed keeps the lead where only its type differs unless
    /// something else (its town's size, a house not placed) tells against it.
    static let namedOtherwisePenalty = 8.0
    /// A street match for an address whose number cannot be placed: the street is right, the
    /// house is not found.
    static let numberNotPlacedPenalty = 20.0
    /// A point of the number in another town than the one named, where the number was placed in
    /// the named town: below that placement (an interpolation there scores 89 or so; the point, with
    /// a wrong city's penalty alone, scored 90).
    static let placedInNamedTownPenalty = 5.0
    /// What a city answer loses when the text also named a street that none of the city's is: it
    /// says where, not what (below a street found without its number).
    static let streetNotFoundPenalty = 30.0
    /// A text whose best reading scores below this is read again without a leading name or a
    /// bracketed remark (`AddressParser.setAside`); below a typo-free point address with a city
    /// or type missing, so a good answer is never second-guessed.
    static let setAsideBelow = 90.0
    /// The most words a street and a town after it are read from (`geocode(_:)`'s second reading).
    static let streetWithTownWords = 8
    /// What an answer found without part of the text loses: the text held more than it used.
    static let setAsidePenalty = 2.0

    /// Whether a street contradicts a directional or type that was asked for (leaving one out
    /// contradicts nothing).
    func contradicts(_ asked: StreetNameParts, _ street: StreetNameParts) -> Bool {
        func differ(_ a: String?, _ b: String?) -> Bool { a != nil && a != b }
        return differ(asked.predirectional, street.predirectional) || differ(asked.postdirectional, street.postdirectional)
            || differ(asked.type, street.type)
    }

    /// The street in each city it runs through. With `near`, a house number that could not be
    /// placed, each is located at the address whose number is closest to it.
    func streetMatches(street: Int32, q: ParsedAddress, penalty: Double, notes: [String], near number: HouseNumber? = nil) -> [ScoredMatch] {
        var out: [ScoredMatch] = []
        let points = addresses.points
        let range = places(ofStreet: street)
        let considered = consideredLocalities(ofStreet: street, q)
        // With a number: each city's address closest to it in number (the first of equals, the
        // lower on a tie), found by halving its run's numbers.
        let closest: [Int32?] = number.map { n in
            zip(range, addressRuns(onStreet: street)).map { k, run in
                considered?.contains(streetPlaces[k].locality) ?? true ? closestInNumber(run, to: n.value) : nil
            }
        } ?? []
        let runs = number == nil && (q.city != nil || q.postcode != nil) ? addressRuns(onStreet: street) : []
        for i in range where considered?.contains(streetPlaces[i].locality) ?? true {
            // The street is where it is said to be where its address shown is: the one nearest the
            // number, or its representative; without a number, its stretch in the ZIP code or
            // city named ("SW 4th Ave, 97204" is downtown's, not the representative's 8 km south).
            let shown = closest.isEmpty ? nil : closest[i - range.lowerBound]
            var at = points[Int(shown ?? streetPlaces[i].representative)]
            var place = placeNamed(near: GeoPoint(x: at.lon, y: at.lat), anchor: Int32(at.place), q)
            if !runs.isEmpty, regionCost(q, city: q.city?.joined(separator: " "), place: place) > 0, isNamed(by: q)(streetPlaces[i].locality),
               let inNamed = stretchNamed(runs[i - range.lowerBound], q) {
                at = points[Int(inNamed)]
                place = Int32(at.place)
            }
            let (rp, rn) = regionPenalty(q, place: place)
            var m = streetMatch(i, score: max(0, 100 - penalty - rp), notes: notes + rn + [number == nil ? "no house number: the street" : "the street"])
            m.support = Int(streetPlaces[i].count)
            m.place = place
            m.location = GeoPoint(x: at.lon, y: at.lat)
            if let shown {
                m.notes.append("located at \(HouseNumber.digits(of: Int(points[Int(shown)].number))), the nearest number known")
            }
            out.append(m)
        }
        return out
    }

    /// The middle address (in number order) of a street's addresses that lie in the place the
    /// query names, of those that lie in the place nearest it in penalty; nil when none is nearer
    /// than the others.
    func stretchNamed(_ run: Slice<StoredIDs>, _ q: ParsedAddress) -> Int32? {
        let points = addresses.points
        var penalties: [UInt32: Double] = [:]
        let city = q.city?.joined(separator: " ")
        var least = Double.infinity, inLeast: [Int32] = [], anyOther = false
        for a in run {
            let place = points[Int(a)].place
            let p = penalties[place] ?? regionCost(q, city: city, place: Int32(place))
            penalties[place] = p
            if p < least { anyOther = anyOther || !inLeast.isEmpty; (least, inLeast) = (p, [a]) }
            else if p == least { inLeast.append(a) }
            else { anyOther = true }
        }
        return anyOther && !inLeast.isEmpty ? inLeast[inLeast.count / 2] : nil
    }

    /// Where in a run (in number order) the first address numbered `value` or more is, by halving
    /// the numbers beside the street's list: no point read.
    func firstAddress(numbered value: Int, in run: Slice<StoredIDs>) -> Int {
        var lo = run.startIndex, hi = run.endIndex
        while lo < hi {
            let mid = (lo + hi) / 2
            if Int(streetNumbers.i32(mid, 0)) < value { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// The address of a run (in number order) whose number is closest to `value`: the first of
    /// equal numbers, the lower number on a tie.
    func closestInNumber(_ run: Slice<StoredIDs>, to value: Int) -> Int32? {
        guard !run.isEmpty else { return nil }
        func number(_ i: Int) -> Int { Int(streetNumbers.i32(i, 0)) }
        let lo = firstAddress(numbered: value, in: run)
        var best = lo
        if lo == run.endIndex || (lo > run.startIndex && value - number(lo - 1) <= number(lo) - value) {
            best = lo - 1
            while best > run.startIndex, number(best - 1) == number(best) { best -= 1 }
        }
        return run[best]
    }

    /// Where two streets cross, from the address points along each: the closest pair of points,
    /// refined by intersecting lines fitted to each street's points near it.
    func intersections(_ a: [String], _ b: [String], _ q: ParsedAddress, memo: QueryMemo) -> [ScoredMatch] {
        let (ma, mb) = crossingStreets(a, b, memo: memo)
        let first = crossingCandidates(ma, q), second = crossingCandidates(mb, q)
        var out: [ScoredMatch] = []
        for (sa, pa, na) in first {
            for (sb, pb, nb) in second where sa != sb {
                out += intersectionMatches(sa, sb, penalty: pa + pb, notes: na + nb, q, memo: memo)
            }
        }
        return out
    }

    /// The streets of a crossing whose crossings are looked for: the four that could score best
    /// (a street with no address in the city or ZIP code named answers at its penalty, −10),
    /// and the two nearest the name wherever they are (a town's streets of the name may not meet
    /// at all: "Main St & 2nd St, Gresham" is Fairview's, at 90), in the order of `matches` among
    /// equals (a direction taken from the cross street first, see `crossingStreets`).
    func crossingCandidates(_ matches: [(Int32, Double, [String])], _ q: ParsedAddress) -> [(Int32, Double, [String])] {
        let byName = matches.indices.sorted { (matches[$0].1, $0) < (matches[$1].1, $1) }
        guard q.city != nil || q.postcode != nil else { return byName.prefix(4).map { matches[$0] } }
        let named = isNamed(by: q)
        let away = matches.map { m in runs(m.0, through: named) ? 0.0 : 10.0 }
        let bySure = matches.indices.sorted { (matches[$0].1 + away[$0], $0) < (matches[$1].1 + away[$1], $1) }
        var chosen = Array(bySure.prefix(4))
        for i in byName.prefix(2) where !chosen.contains(i) { chosen.append(i) }
        return chosen.map { matches[$0] }
    }

    /// Crossings further apart than this (metres) are not the two ends of one block: a street
    /// that meets a cross street twice, or the names of another stretch.
    static let blockSpan = 1000.0

    /// A place along a street between two of its crossings, as stop and field lists write it
    /// ("SE Division St between SE 82nd Ave and SE 84th Ave"): midway between the two crossings of
    /// the same street, each found as `intersectionMatches` finds them.
    func blocks(_ street: [String], between a: [String], and b: [String], _ q: ParsedAddress, memo: QueryMemo) -> [ScoredMatch] {
        let (streetMatches, firstCrosses) = crossingStreets(street, a, memo: memo)
        let secondCrosses = crossingStreets(street, b, memo: memo).1
        // Each crossing is found without the region; the block is judged by the end in it (a ZIP
        // boundary may run down the street between them).
        var anywhere = q
        (anywhere.city, anywhere.state, anywhere.postcode) = (nil, nil, nil)
        var out: [ScoredMatch] = []
        for (s, ps, ns) in crossingCandidates(streetMatches, q) {
            func ends(_ crosses: [(Int32, Double, [String])]) -> [(matches: [ScoredMatch], cross: Int32)] {
                crossingCandidates(crosses, q).compactMap { c, pc, nc in
                    c == s ? nil : (intersectionMatches(s, c, penalty: ps + pc, notes: ns + nc, anywhere, memo: memo), c)
                }
            }
            let second = ends(secondCrosses)
            for one in ends(firstCrosses) {
                for other in second where other.cross != one.cross {
                    out += one.matches.compactMap { blockMatch($0, among: other.matches, street: s, one.cross, other.cross, q) }
                }
            }
        }
        return out
    }

    /// The middle of the block of `street` between its crossing `first` (with `c1`) and the
    /// nearest of its crossings `seconds` (with `c2`), found without the region: scored as the
    /// worse of them, less what the end nearer the region `q` names loses, and named by the first
    /// end's place whatever the region (as its key, the first crossing's with `c2` added, which
    /// names no region, is); nil when they are not one block's ends.
    func blockMatch(_ first: ScoredMatch, among seconds: [ScoredMatch], street s: Int32, _ c1: Int32, _ c2: Int32,
                    _ q: ParsedAddress) -> ScoredMatch? {
        guard let second = seconds.min(by: { first.location.metres(to: $0.location) < first.location.metres(to: $1.location) })
        else { return nil }
        let apart = first.location.metres(to: second.location)
        guard apart <= Self.blockSpan else { return nil }
        let regions = [first, second].map { regionPenalty(q, place: $0.place) }
        let inRegion = regions[1].0 < regions[0].0 ? 1 : 0
        var m = first
        m.location = GeoPoint(x: (first.location.x + second.location.x) / 2, y: (first.location.y + second.location.y) / 2)
        m.score = max(0, min(first.score, second.score) - regions[inRegion].0)
        m.key = "x\(s):\(c1):\(c2)" + (first.key.firstIndex(of: "@").map { String(first.key[$0...]) } ?? "")
        let display = addresses.streetDisplay, full = addresses.streets
        m.components.street = "\(display[Int(s)]) between \(display[Int(c1)]) & \(display[Int(c2)])"
        m.components.streetFull = "\(full[Int(s)]) between \(full[Int(c1)]) & \(full[Int(c2)])"
        m.notes = first.notes + second.notes.suffix(1) + regions[inRegion].1 + ["midway between the crossings, \(Int(apart.rounded())) m apart"]
        return m
    }

    /// Metres apart beyond which two places where the same two streets meet are two crossings
    /// (the Main St & 2nd Ave of two towns, a street that loops back), not one.
    static let crossingSeparation = 1000.0
    /// Crossings of one pair of streets given at most.
    static let crossingsPerPair = 8

    /// Every place where streets `sa` and `sb` meet (`crossings`), nearest pair of points first,
    /// each found as `intersectionMatch` finds one. The first is keyed `x<sa>:<sb>`, the others
    /// `x<sa>:<sb>@<point>` with the point of `sa` they were found at. A second crossing in the
    /// town of a first must be one by the streets' own lines too: two streets that run side by
    /// side (a block apart) come near each other all along, and meet nowhere.
    func intersectionMatches(_ sa: Int32, _ sb: Int32, penalty: Double, notes: [String], _ q: ParsedAddress,
                             memo: QueryMemo? = nil) -> [ScoredMatch] {
        let la = addresses(onStreet: sa), lb = addresses(onStreet: sb)
        guard !la.isEmpty, !lb.isEmpty else { return [] }
        let s = LocalMetricScale(latitude: addresses.points.lat(Int(la[la.startIndex])))
        var out: [ScoredMatch] = []
        var towns: Set<Int32> = []
        let find = { self.crossings(la, lb, scale: s) }
        let found = memo?.crossings(sa, sb, find) ?? find()
        for (k, c) in found.enumerated() {
            let town = locality(ofAddress: c.a)
            guard let m = intersectionMatch(sa, sb, at: c, la, lb, scale: s, penalty: penalty, notes: notes, q,
                                            key: k == 0 ? "x\(sa):\(sb)" : "x\(sa):\(sb)@\(c.a)",
                                            onTheLinesOnly: towns.contains(town)) else { continue }
            towns.insert(town)
            out.append(m)
        }
        // Towns where both streets have points but none of them meet: where their lines do.
        let placesB = places(ofStreet: sb), runsB = addressRuns(onStreet: sb)
        for (ka, runA) in zip(places(ofStreet: sa), addressRuns(onStreet: sa)) where out.count < Self.crossingsPerPair {
            let town = streetPlaces[ka].locality
            guard !towns.contains(town), let kb = placesB.first(where: { streetPlaces[$0].locality == town }),
                  let far = crossingBeyondPoints(Array(runA), Array(runsB[kb - placesB.lowerBound]), scale: s) else { continue }
            let cost = min(Self.beyondPointsCost + far.metres / 200, Self.numberNotPlacedPenalty)
            out.append(crossingMatch(sa, sb, at: far.location, town: far.a, cost: cost,
                                     how: "where the streets' lines meet, \(Int(far.metres.rounded())) m beyond their addresses (−\(Int(cost.rounded())))",
                                     scale: s, penalty: penalty, notes: notes, q, key: out.isEmpty ? "x\(sa):\(sb)" : "x\(sa):\(sb)@\(far.a)"))
            towns.insert(town)
        }
        // Towns where neither way found them: where the named street's numbers say it meets the
        // numbered one (`numberedCrossings`).
        let numberedOne: (named: Int32, numbered: Int32, ordinal: Int)? =
            switch (Self.ordinal(streets[Int(sa)].parts.core), Self.ordinal(streets[Int(sb)].parts.core)) {
            case (nil, let n?): (sa, sb, n)
            case (let n?, nil): (sb, sa, n)
            default: nil
            }
        if let p = numberedOne {
            for c in numberedCrossings(p.named, p.numbered, ordinal: p.ordinal, skipping: towns, limit: Self.crossingsPerPair - out.count) {
                out.append(crossingMatch(sa, sb, at: c.location, town: c.anchor, cost: c.cost, how: c.how, scale: s, penalty: penalty,
                                         notes: notes, q, key: out.isEmpty ? "x\(sa):\(sb)" : "x\(sa):\(sb)@\(c.anchor)"))
            }
        }
        return out
    }

    /// What a crossing found beyond both streets' points loses at the least (one more per 200 m
    /// beyond, at most `numberNotPlacedPenalty`): as much as a number extrapolated along a street.
    static let beyondPointsCost = 15.0

    /// Where streets `sa` and `sb` meet at the pair of address points `c`: between the two where
    /// they are within 120 m (at the crossing of the streets' lines, if near); where they are
    /// further apart (up to 300 m: corner lots without address points, a park at the corner), at
    /// the crossing of the lines fitted to each street's points near the other street, if it lies
    /// between them. With `onTheLinesOnly`, only where those lines cross. Nil otherwise.
    /// Measured on the dev street trees' corners ("SWC/ QUIMBY & NW 21ST AVE"), within 75 m: the
    /// 120 m rule alone 29.02 %, with the fitted crossings 30.95 %.
    func intersectionMatch(_ sa: Int32, _ sb: Int32, at c: Crossing, _ la: Slice<StoredIDs>, _ lb: Slice<StoredIDs>,
                           scale s: LocalMetricScale, penalty: Double, notes: [String], _ q: ParsedAddress, key: String,
                           onTheLinesOnly: Bool) -> ScoredMatch? {
        let points = addresses.points
        let gap = c.squaredGap.squareRoot()
        let pi = points[Int(c.a)], pj = points[Int(c.b)]
        var location = GeoPoint(x: (pi.lon + pj.lon) / 2, y: (pi.lat + pj.lat) / 2)
        var cost = 0.0
        var how = "streets meet within \(Int(gap)) m"
        let crossing = crossingOfFittedLines(la, lb, nearA: GeoPoint(x: pi.lon, y: pi.lat), nearB: GeoPoint(x: pj.lon, y: pj.lat), scale: s)
        func metres(_ a: GeoPoint, _ b: GeoPoint) -> Double { hypot((a.x - b.x) * s.metresPerDegreeX, (a.y - b.y) * s.metresPerDegreeY) }
        if gap <= 120 {
            // Corner houses stand back from the corner.
            if let crossing, metres(crossing, location) < 60 {
                location = crossing
            } else if onTheLinesOnly {
                return nil
            }
        } else {
            // Further apart, only where the streets' own lines say they cross between them.
            guard let crossing, metres(crossing, GeoPoint(x: pi.lon, y: pi.lat)) <= gap + 20,
                  metres(crossing, GeoPoint(x: pj.lon, y: pj.lat)) <= gap + 20 else { return nil }
            location = crossing
            cost = 5
            how = "the streets' lines cross; their nearest addresses are \(Int(gap)) m apart (−5)"
        }
        return crossingMatch(sa, sb, at: location, town: c.a, cost: cost, how: how, scale: s, penalty: penalty, notes: notes, q, key: key)
    }

    /// The answer for streets `sa` and `sb` meeting at `location`, in the town of address `town`:
    /// moved to the lot at the corner the query names, if any.
    func crossingMatch(_ sa: Int32, _ sb: Int32, at location: GeoPoint, town: Int32, cost: Double, how: String,
                       scale s: LocalMetricScale, penalty: Double, notes: [String], _ q: ParsedAddress, key: String) -> ScoredMatch {
        var location = location, how = how
        let pi = addresses.points[Int(town)]
        if let corner = Self.cornerDirection(q.qualifier) {
            // "NEC/ ALBINA & N AINSWORTH": the lot at the crossing's north-east corner, whose trees
            // stand along both of its frontages.
            let d = Self.cornerOffset
            location = GeoPoint(x: location.x + corner.east * d / s.metresPerDegreeX, y: location.y + corner.north * d / s.metresPerDegreeY)
            how += "; the \(q.qualifier ?? "") corner, \(Int(d)) m each way"
        }
        let placeIndex = placeNamed(near: location, anchor: Int32(pi.place), q)
        let (rp, rn) = regionPenalty(q, place: placeIndex)
        let place = addresses.places[Int(placeIndex)]
        let nameA = addresses.streetDisplay[Int(sa)], nameB = addresses.streetDisplay[Int(sb)]
        let components = AddressComponents(number: "", street: "\(nameA) & \(nameB)",
                                           streetFull: "\(addresses.streets[Int(sa)]) & \(addresses.streets[Int(sb)])",
                                           city: place.city, state: place.state, postcode: place.postcode)
        return ScoredMatch(score: max(0, 100 - penalty - rp - cost), matchType: .intersection, location: location,
                           key: key, notes: notes + rn + [how],
                           components: components, place: placeIndex)
    }

    /// The locality (city and state) an address point lies in; -1 for none.
    func locality(ofAddress i: Int32) -> Int32 {
        locality(ofPlace: Int32(addresses.points[Int(i)].place))
    }

    /// The locality (city and state) of a place (city, state and ZIP code); -1 for none.
    func locality(ofPlace place: Int32) -> Int32 {
        place >= 0 && Int(place) < placeLocality.count ? placeLocality[Int(place)] : -1
    }

    /// Points of a street's list whose box `crossings` tests `b`'s points against, in a stretch.
    static let crossingChunk = 128

    /// Where the address points of streets `a` and `b` come within `crossingGap` of each other:
    /// the closest pair of each such place, closest first, at most `crossingsPerPair`; a pair
    /// within `crossingSeparation` of a closer one is the same place. A pair with a stray point
    /// (no other number of its street within `crossingGap`) counts only where no pair of real
    /// stretches of both streets meets in its town: one address of NE 60th Ave, Portland, lies on
    /// NE Glisan St at NE 160th, 8 km from its street, and was the closest pair of "NE Glisan St &
    /// NE 60th Ave"; a street of a single house in a town of its own still meets its cross street.
    ///
    /// `b`'s points are put in cells `crossingGap` wide, and each point of `a` looks in its cell and
    /// the eight around it: a pair within reach lies in neighbouring cells. Every pair compared
    /// was O(a·b): a street name in thirty cities has thirty times the points on each side, nine
    /// hundred times the pairs (and 14 ms for two long streets of Portland alone, over the 10 ms a
    /// request may take: `scripts/fuzz`, "NE 37th Ave & NE Killingsworth St").
    func crossings(_ a: Slice<StoredIDs>, _ b: Slice<StoredIDs>, scale s: LocalMetricScale) -> [Crossing] {
        let points = addresses.points
        let reach = Self.crossingGap
        // `b`'s cells find each point of `a` its nearest. `a`'s stray points are told by going
        // through its list for the few pairs that are checked (cells for `a` too cost a quarter
        // more per crossing query, `locus enrich` of 3,000 of them).
        //
        // Only `b`'s points within twice the reach of some of `a`'s are put in cells (a pair's
        // point of `b`, and the other numbers near it that `hasOtherNumber` looks for, all are;
        // the boxes have half a reach more, so that no rounding at their edges leaves one out),
        // and only `a`'s points within reach of those look: two numbered streets' namesakes in
        // every quarter and town ("32nd & 30th", 16 pairs) paired streets kilometres apart, each
        // pair sorting all of `b`'s points into cells and looking up every one of `a`'s (`crossings`
        // was 48 % of that geocode's samples, 41 % after). The geocoder fuzzer's "s␀…NNN…e 32n
        // />30th" (10.1 ms instrumented in a run): 5.2 ms replayed before, 3.8 after (medians of
        // 5); "32nd & 30th" and "60&63" over a socket, 0.85–0.91 of the time before.
        // `a`'s boxes are of its list's stretches of `crossingChunk` points, in number order
        // along each place's street: a box of the whole street spans every town it is in.
        var nearA: [Envelope] = []
        let (marginA, marginB) = (2.5 * reach, 1.5 * reach)
        var k = a.startIndex
        while k < a.endIndex {
            let end = min(a.endIndex, k + Self.crossingChunk)
            var e = Envelope.empty
            for id in a[k..<end] {
                if let p = StreetPointCells.position(of: id, in: points, scale: s) { e.extend(x: p.x, y: p.y) }
            }
            if !e.isEmpty { nearA.append(e.expanded(by: marginA)) }
            k = end
        }
        let cellsB = StreetPointCells(b, points: points, scale: s, size: reach, near: nearA)
        guard !cellsB.extent.isEmpty else { return [] }
        let nearB = cellsB.extent.expanded(by: marginB)
        // Looked for outward from the point's own place in `a`, which is in number order along
        // its street: the next house is mostly a neighbour in the list. From the list's start it
        // went through half of it on average, for each of up to 32 pairs checked (the geocoder
        // fuzzer's "$mlkse 32n ./>30t…h", a crossing of two numbered streets' namesakes, and "32nd
        // & 30th": with `crossingOfFittedLines`'s change, 0.88 of the server's CPU time before).
        func goesOn(_ i: Int) -> Bool {
            let id = a[i]
            guard let p = cellsB.position(of: id) else { return false }
            let number = points.number(Int(id))
            func near(_ o: Int32) -> Bool {
                guard points.number(Int(o)) != number, let q = cellsB.position(of: o) else { return false }
                return (p.x - q.x) * (p.x - q.x) + (p.y - q.y) * (p.y - q.y) <= reach * reach
            }
            var down = i, up = i + 1
            while down > a.startIndex || up < a.endIndex {
                if down > a.startIndex {
                    down -= 1
                    if near(a[down]) { return true }
                }
                if up < a.endIndex {
                    if near(a[up]) { return true }
                    up += 1
                }
            }
            return false
        }
        // Each point of `a` with its nearest point of `b` in reach; among equally near, the first.
        var pairs: [(i: Int, k: Int, d: Double)] = []
        for i in a.indices {
            guard let p = cellsB.position(of: a[i]), nearB.contains(x: p.x, y: p.y) else { continue }
            var nearest: (k: Int, d: Double)?
            cellsB.forEachNear(p) { k, d in
                if let n = nearest, !(d < n.d || (d == n.d && k < n.k)) { return }
                nearest = (k, d)
            }
            if let nearest, nearest.d <= reach * reach { pairs.append((i, nearest.k, nearest.d)) }
        }
        // Closest first; equal pairs in the order of `a`.
        let order = pairs.indices.sorted { (pairs[$0].d, $0) < (pairs[$1].d, $1) }
        var found: [Crossing] = [], strays: [Crossing] = []
        let apart = Self.crossingSeparation * Self.crossingSeparation
        func near(_ c: Crossing, _ list: [Crossing]) -> Bool {
            guard let p = cellsB.position(of: c.a) else { return true }
            return list.contains { o in
                guard let q = cellsB.position(of: o.a) else { return false }
                let dx = p.x - q.x, dy = p.y - q.y
                return dx * dx + dy * dy < apart
            }
        }
        // Each pair checked for strays costs a look along `a`: two long streets that run side by
        // side, their houses far apart, would have every pair checked.
        var checked = 0
        for o in order where found.count < Self.crossingsPerPair && checked < Self.crossingsPerPair * 4 {
            let c = Crossing(a: a[pairs[o].i], b: b[pairs[o].k], squaredGap: pairs[o].d)
            if near(c, found) { continue }
            checked += 1
            if cellsB.hasOtherNumber(near: c.b, within: reach), goesOn(pairs[o].i) {
                found.append(c)
            } else if !near(c, strays), strays.count < Self.crossingsPerPair {
                strays.append(c)
            }
        }
        let towns = Set(found.map { locality(ofAddress: $0.a) })
        for c in strays where found.count < Self.crossingsPerPair && !towns.contains(locality(ofAddress: c.a)) && !near(c, found) {
            found.append(c)
        }
        return found.enumerated().sorted { ($0.element.squaredGap, $0.offset) < ($1.element.squaredGap, $1.offset) }.map(\.element)
    }

    /// The compass quadrant a corner qualifier names ("nec", "sw cor", "northwest corner"), as
    /// unit steps east and north; nil for anything else.
    static func cornerDirection(_ qualifier: String?) -> (east: Double, north: Double)? {
        guard let words = qualifier?.split(separator: " ").map(String.init), let first = words.first else { return nil }
        let direction: String?
        if words.count == 1, first.count == 3, first.hasSuffix("c") {
            direction = AddressVocabulary.directionals[String(first.dropLast())]
        } else if words.count == 2, words[1] == "cor" || words[1] == "corner" {
            direction = AddressVocabulary.directionals[first]
        } else {
            direction = nil
        }
        switch direction {
        case "ne": return (1, 1)
        case "nw": return (-1, 1)
        case "se": return (1, -1)
        case "sw": return (-1, -1)
        default: return nil
        }
    }

    /// Each street as the line through its address points within 150 m of its own point nearest
    /// the other street (`nearA`, `nearB`); where the two lines cross.
    func crossingOfFittedLines(_ a: Slice<StoredIDs>, _ b: Slice<StoredIDs>, nearA: GeoPoint, nearB: GeoPoint,
                               scale s: LocalMetricScale) -> GeoPoint? {
        let near = GeoPoint(x: (nearA.x + nearB.x) / 2, y: (nearA.y + nearB.y) / 2)
        func line(_ list: Slice<StoredIDs>, around c: GeoPoint) -> (Double, Double, Double, Double)? {
            // Each point's two coordinates alone, not the whole point decoded: a crossing looks
            // along both streets' every point, and numbered streets' namesakes give 16 pairs.
            var xs: [Double] = [], ys: [Double] = []
            let points = addresses.points
            for i in list {
                let lon = points.lon(Int(i)), lat = points.lat(Int(i))
                guard abs(lon) <= 180, abs(lat) <= 90 else { continue }
                let cx = (lon - c.x) * s.metresPerDegreeX, cy = (lat - c.y) * s.metresPerDegreeY
                if cx * cx + cy * cy <= 150 * 150 {
                    xs.append((lon - near.x) * s.metresPerDegreeX)
                    ys.append((lat - near.y) * s.metresPerDegreeY)
                }
            }
            guard xs.count >= 3 else { return nil }
            let mx = xs.reduce(0, +) / Double(xs.count), my = ys.reduce(0, +) / Double(ys.count)
            var sxx = 0.0, syy = 0.0, sxy = 0.0
            for k in xs.indices {
                sxx += (xs[k] - mx) * (xs[k] - mx)
                syy += (ys[k] - my) * (ys[k] - my)
                sxy += (xs[k] - mx) * (ys[k] - my)
            }
            let angle = 0.5 * atan2(2 * sxy, sxx - syy)
            return (mx, my, cos(angle), sin(angle))
        }
        guard let (ax, ay, adx, ady) = line(a, around: nearA), let (bx, by, bdx, bdy) = line(b, around: nearB) else { return nil }
        let det = adx * bdy - ady * bdx
        guard abs(det) > 0.3 else { return nil }  // near-parallel: no crossing to speak of
        let t = ((bx - ax) * bdy - (by - ay) * bdx) / det
        let x = ax + t * adx, y = ay + t * ady
        return GeoPoint(x: near.x + x / s.metresPerDegreeX, y: near.y + y / s.metresPerDegreeY)
    }
}

extension AddressParser {
    /// A ZIP or ZIP+4 in any of its spellings.
    public static func postcodeFields(_ text: String) -> (String, String?)? {
        postcode(text.trimmingWhitespace())
    }
}

#if canImport(Glibc)
import Glibc
#endif
