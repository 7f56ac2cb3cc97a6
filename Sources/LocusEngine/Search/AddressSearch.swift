import Foundation
import LocusCore
import Synchronization

/// Everything address search needs, derived from an `AddressIndex` (and the polygon layers) when a
/// search is first made: streets by canonical name, each street's house numbers in order, a word
/// index for suggestions and a deletion index for typos.
///
/// Immutable and `Sendable`: one search serves every thread.
public final class AddressSearch: Sendable {
    /// A published street, split and normalised.
    struct Street: Sendable {
        var parts: StreetNameParts
        var tokens: [String]
    }

    /// A street within one city: what street suggestions and street matches stand for.
    struct StreetPlace: Sendable {
        var street: Int32
        /// Into `localities`.
        var locality: Int32
        var count: Int32
        /// The address nearest the middle of the street's addresses in that city.
        var representative: Int32
    }

    /// The city and state places share: what a street place is a street within.
    struct Locality: Sendable {
        var city: String
        var state: String
    }

    struct Area: Sendable, Codable {
        var name: String
        var tokens: [String]
        var location: GeoPoint
        var count: Int
        var detail: String
    }

    /// A polygon of the index's layers as a place a query may name.
    struct Neighbourhood {
        var layer: String
        var feature: Int
        var area: Area
        /// The town of the address nearest its label point: what the answer is named with.
        var place: AddressPlace?
        /// That town's words and its state's, as a text may follow the name with them.
        var town: [String]
        /// How many of `town`'s words are the state's.
        var stateWords: Int
    }

    let addresses: AddressIndex
    /// The parser queries go through, knowing the index's cities and ZIP codes: public so that an
    /// evaluation reads recorded addresses exactly as the geocoder reads queries.
    public let parser: AddressParser
    /// Each street's name as search tokens, decoded when read.
    let streets: StreetTable
    /// Sorted core keys of the street names, and the streets of each (`coreStreets[coreStart[k]]`).
    let coreKeys: StoredStrings
    let coreStreets: StoredIDs
    let coreStart: StoredRuns

    /// The streets whose name has this core key ("34th", "martin luther king jr").
    func streets(withCore key: String) -> Slice<StoredIDs>? {
        coreKeys.position(of: key).map { coreStreets[coreStart[$0]] }
    }
    /// Streets by their name without middle initials and "Jr" ("cesar chavez" for César E. Chávez).
    var streetsByLooseCore: [String: [Int32]] {
        looseCores.value {
            var byLooseCore: [String: [Int32]] = [:]
            for (i, street) in streets.enumerated() {
                let loose = Self.looseKey(street.parts.core)
                if loose != street.parts.coreKey, !loose.isEmpty { byLooseCore[loose, default: []].append(Int32(i)) }
            }
            return byLooseCore
        }
    }
    /// Core keys by the initials of their words, and of their loose form ("mlk" and "mlkj" for
    /// Martin Luther King Jr): what "M L King", "ML King" and "TV Hwy" are looked up by.
    var coresByInitials: [String: [String]] {
        initialCores.value {
            var byInitials: [String: [String]] = [:]
            for core in coreKeys {
                let words = core.split(separator: " ").map(String.init)
                let loose = Self.looseKey(words).split(separator: " ").map(String.init)
                for w in Set([words, loose]) where w.count >= 2 && w.count <= 8 {
                    byInitials[Self.initials(w), default: []].append(core)
                }
            }
            return byInitials.mapValues { Array(Set($0)).sorted() }
        }
    }
    /// Core keys that name a numbered route, by its number and what follows it
    /// (`RouteName.lookupKey`): what "NY 9" finds "State Route 9" by.
    var coresByRoute: [String: [(core: String, route: RouteName)]] {
        routeCores.value {
            var byRoute: [String: [(core: String, route: RouteName)]] = [:]
            for core in coreKeys {
                guard let route = RouteName(core: core.split(separator: " ").map(String.init)) else { continue }
                byRoute[route.lookupKey, default: []].append((core, route))
            }
            return byRoute
        }
    }
    // Built on first use, like the typo indexes: a query that names a street as it is written
    // (most of them) needs neither, and an open does not wait for them.
    private let looseCores = OnFirstUse<[String: [Int32]]>()
    private let initialCores = OnFirstUse<[String: [String]]>()
    private let routeCores = OnFirstUse<[String: [(core: String, route: RouteName)]]>()
    private let areas = OnFirstUse<[Neighbourhood]>()
    /// Every street place's line and directional (`gridTable`), for placing a number by the city's grid.
    let streetAxisTable = OnFirstUse<GridTable>()
    /// The numbered streets ("NW 12th Ave") by leading directional, type and trailing directional,
    /// with their numbers (`numberedStreets`), for placing one the points lack between its neighbours.
    let numberedStreetTable = OnFirstUse<[StreetNameParts: [(ordinal: Int, street: Int32)]]>()
    /// Each street place's points' box, half `crossingGap` wider each way (`streetPlaceBoxes`),
    /// for telling which streets of a town may cross.
    let streetPlaceBoxTable = OnFirstUse<[Envelope]>()
    /// Each street place's words' first letters, a bit per letter a–z (`streetPlaceInitials`),
    /// for reading initials typed in suggest.
    let streetPlaceInitialTable = OnFirstUse<[UInt32]>()
    /// Whether each city's grid places its own addresses (`gridHolds`), as each is first asked.
    let gridTrust = Mutex<[Int32: Bool]>([:])
    /// Whether each city's streets number their blocks by the numbered streets they cross
    /// (`ordinalCrossingsHold`), as each is first asked.
    let ordinalTrust = Mutex<[Int32: Bool]>([:])
    private let layers: [BoundaryLayer]
    /// The dataset's local names for streets (from the index) and any the user added.
    let synonyms: StreetSynonyms
    /// Deletion indexes for typos, built on the first misspelt query: most runs of the CLI never
    /// need them, and they are the slowest part to build.
    private let typoIndexes = Mutex<TypoIndexes?>(nil)

    struct TypoIndexes: Sendable {
        /// A deletion → the core keys it comes from.
        var cores: [String: [String]]
        /// A deletion → the vocabulary words it comes from.
        var words: [String: [Int32]]
    }

    /// Builds what is otherwise built on first use, so that a long-running server's first
    /// misspelt query is as fast as the rest.
    public func prepare() {
        streets.decodeAll()
        _ = typos
        _ = streetsByLooseCore
        _ = coresByInitials
        _ = coresByRoute
        _ = streetPlaceBoxes
        _ = streetPlaceInitials
        _ = neighbourhoods
        _ = localityCityKeys
        _ = localitiesByPostcode
        for l in localities.indices { _ = gridHolds(in: Int32(l)) }
    }

    var typos: TypoIndexes {
        typoIndexes.withLock { cached in
            if let cached { return cached }
            var cores: [String: [String]] = [:]
            for key in coreKeys {
                for d in EditDistance.deletions(key, depth: EditDistance.allowance(forLength: key.count)) {
                    cores[d, default: []].append(key)
                }
            }
            var words: [String: [Int32]] = [:]
            for (i, w) in vocabulary.enumerated() where w.count >= 4 {
                for d in EditDistance.deletions(w, depth: EditDistance.allowance(forLength: w.count)) {
                    words[d, default: []].append(Int32(i))
                }
            }
            let built = TypoIndexes(cores: cores, words: words)
            cached = built
            return built
        }
    }
    /// Address indexes of each street, `byStreet[streetStart[s]]`: one run per street place of
    /// the street, in their order and of their counts (`addressRuns(onStreet:)`), each ordered by
    /// number then suffix.
    let streetStart: StoredRuns
    let byStreet: StoredIDs
    /// The house number of each of `byStreet`, beside it: a number is looked for in a street's
    /// runs without reading the points (30 runs' searches through the points were most of a
    /// geocode at 30× Portland, each read a cache miss in a table of 13 million).
    let streetNumbers: PackedRecords
    let streetPlaces: StreetPlaceTable
    /// The street places of street `s` are `streetPlaces[streetPlaceStart[s]]`.
    let streetPlaceStart: StoredRuns
    let localities: [Locality]
    /// The locality of each place, by place index.
    let placeLocality: [Int32]
    /// Each locality's city as canonical tokens (`placeCityKey`'s form), and the localities of
    /// each postcode: what a query's city or ZIP names (built on first use).
    var localityCityKeys: [String] {
        cityKeys.value { localities.map { AddressText.tokens($0.city).joined(separator: " ") } }
    }
    var localitiesByPostcode: [String: Set<Int32>] {
        postcodeLocalities.value {
            var out: [String: Set<Int32>] = [:]
            for (p, place) in addresses.places.enumerated() where p < placeLocality.count && placeLocality[p] >= 0 {
                out[place.postcode, default: []].insert(placeLocality[p])
            }
            return out
        }
    }
    private let cityKeys = OnFirstUse<[String]>()
    private let postcodeLocalities = OnFirstUse<[String: Set<Int32>]>()
    /// Sorted vocabulary of street-place tokens, and for each the street places it occurs in
    /// (`postings[postingStart[w]]`).
    let vocabulary: StoredStrings
    let postings: StoredIDs
    let postingStart: StoredRuns
    /// The longest core key and vocabulary word, in characters: a word longer by more than the
    /// typo allowance can match nothing, so it costs no deletions (which grow as its square).
    let longestCore: Int
    let longestWord: Int
    /// Every character of every core key and vocabulary word. A typed character outside it costs
    /// an edit whatever it is matched to, so a word with more of them than its typo allowance can
    /// match nothing, and one with fewer is matched by its deletions without them: garbage (U+FFFD,
    /// control characters) costs no deletions, which are slowest for text outside ASCII.
    let typoAlphabet: Set<Character>
    /// Addresses by house number, for suggestions that start with one.
    let byNumber: NumberIndex
    /// Whether any address's number has a leading zero (held negative, `HouseNumber`): numbers
    /// are in order, so the first tells.
    var hasLeadingZeroNumbers: Bool { byNumber.keys.count > 0 && byNumber.keys.i32(0, 0) < 0 }
    /// A number as typed, as this index holds it: where no address has a leading zero, one typed
    /// is a stray zero ("0104" = 104).
    func numberAsIndexed(_ value: Int) -> Int { value < 0 && !hasLeadingZeroNumbers ? -value : value }
    /// Postcodes and cities as areas (decoded on first use: they grow with the places).
    var postcodes: [Area] { areaLists.postcodes }
    var cities: [Area] { areaLists.cities }
    private var areaLists: SearchTables.Areas {
        decodedAreas.value {
            var areas = (try? JSONDecoder().decode(SearchTables.Areas.self, from: Data(areaJSON.bytes))) ?? SearchTables.Areas(postcodes: [], cities: [])
            // Written in name order; a postcode prefix is looked up by halving, so make sure.
            if !zip(areas.postcodes, areas.postcodes.dropFirst()).allSatisfy({ $0.name <= $1.name }) {
                areas.postcodes.sort { $0.name < $1.name }
            }
            return areas
        }
    }
    private let areaJSON: PackedRecords
    private let decodedAreas = OnFirstUse<SearchTables.Areas>()
    /// How many addresses each locality (a city of a state) has, for ranking one street name's
    /// cities: the sum of its streets' counts.
    var localityAddressCounts: [Int] {
        localityCounts.value {
            var out = [Int](repeating: 0, count: localities.count)
            for sp in streetPlaces {
                if sp.locality >= 0, Int(sp.locality) < out.count { out[Int(sp.locality)] += Int(sp.count) }
            }
            return out
        }
    }
    private let localityCounts = OnFirstUse<[Int]>()
    /// The layers' polygons as areas a query may name (built on first use), each with the town
    /// of the address nearest its label point (within `neighbourhoodTownReach` metres; nil
    /// beyond): a neighbourhood is answered as "Concordia, Portland, OR" and may be asked for so.
    var neighbourhoods: [Neighbourhood] {
        areas.value {
            var hoods: [Neighbourhood] = []
            for layer in layers {
                for (i, f) in layer.features.enumerated() {
                    let label = layer.labelPoint(feature: i)
                    // The nearest few: a point without a city (two of Portland's) names no town.
                    let place = addresses.nearest(lon: label.x, lat: label.y, maxDistance: Self.neighbourhoodTownReach, count: 8)
                        .lazy.map { self.addresses.places[Int(self.addresses.points[$0.index].place)] }.first { !$0.city.isEmpty }
                    let state = place.map { AddressText.tokens($0.state) } ?? []
                    let town = place.map { AddressText.tokens($0.city) + state } ?? []
                    hoods.append(Neighbourhood(layer: layer.name, feature: i,
                                               area: Area(name: f.name, tokens: AddressText.tokens(f.name), location: label, count: 0,
                                                          detail: "\(f.name) (\(layer.name))"),
                                               place: place, town: town, stateWords: state.count))
                }
            }
            return hoods
        }
    }
    /// Metres from a neighbourhood's label point within which the nearest address names its town.
    static let neighbourhoodTownReach = 3_000.0
    /// Canonical city tokens of every place, by place index.
    let placeCityKey: [String]
    /// City tokens and postcode of every place, for matching the end of a typed address.
    let placeTokens: [[String]]
    /// Every word of a town's name (the cities of `placeTokens`, without their ZIP codes).
    let townWords: Set<String>

    /// What search derives from the address points and street names: worked out by the builder
    /// and stored in the index (`SearchTables`), so that an open uses it where it lies rather
    /// than works it out again — seconds at thirty times Portland (BENCHMARKS.md, "From one city
    /// to thirty").
    struct PointDerived {
        /// Each street's name as search tokens (`AddressText.streetTokens`), by street index.
        var streetTokens: [[String]]
        var streetStart: [Int32]
        var byStreet: [Int32]
        /// The house number of each of `byStreet`.
        var streetNumbers: [Int32]
        var streetPlaces: [StreetPlace]
        /// City and state of each locality (`StreetPlace.locality`).
        var localities: [[String]]
        /// House numbers in order, where each one's addresses start in `byNumber`, and those.
        var numberKeys: [Int32]
        var numberStart: [Int32]
        var byNumber: [Int32]
        var vocabulary: [String]
        var postings: [[Int32]]
        var postcodes: [Area]
        var cities: [Area]
    }

    /// Derives everything from the points (the builder; the evaluation, which holds some out).
    /// - Parameter excluding: address indexes to leave out (the evaluation holds some out to test
    ///   interpolation).
    public convenience init(addresses: AddressIndex, layers: [BoundaryLayer] = [], excluding: Set<Int> = [], synonyms: StreetSynonyms = StreetSynonyms()) {
        self.init(addresses: addresses, layers: layers, synonyms: synonyms,
                  stored: SearchTables.inMemory(Self.derive(addresses, excluding: Set(excluding.map { Int32($0) })), addresses: addresses))
    }

    /// Over the tables the builder stored (`SearchTables`): nothing is derived from the points.
    init(addresses: AddressIndex, layers: [BoundaryLayer], synonyms: StreetSynonyms, stored: SearchTables.Stored) {
        self.addresses = addresses
        self.synonyms = synonyms
        self.layers = layers
        let cityNames = Array(Set(addresses.places.map(\.city))).filter { !$0.isEmpty }
        parser = AddressParser(knownCities: cityNames, knownPostcodes: Set(addresses.places.map(\.postcode)))
        // Places are city × postcode: each city tokenised once, not once per place.
        var cityTokens: [String: [String]] = [:]
        for city in cityNames { cityTokens[city] = AddressText.tokens(city) }
        placeCityKey = addresses.places.map { (cityTokens[$0.city] ?? []).joined(separator: " ") }
        placeTokens = addresses.places.map { (cityTokens[$0.city] ?? []) + [$0.postcode] }
        townWords = Set(cityTokens.values.joined())

        streets = StreetTable(tokens: stored.streetTokens)
        coreKeys = stored.coreKeys
        coreStreets = stored.coreStreets
        coreStart = stored.coreStart

        streetStart = stored.streetStart
        byStreet = stored.byStreet
        streetNumbers = stored.streetNumbers
        streetPlaces = stored.streetPlaces
        streetPlaceStart = stored.streetPlaceStart
        let localities = stored.lists.localities.map { Locality(city: $0[0], state: $0[1]) }
        self.localities = localities
        var localityID: [String: Int32] = [:]
        for (i, l) in localities.enumerated() { localityID[l.city + "\u{1}" + l.state] = localityID[l.city + "\u{1}" + l.state] ?? Int32(i) }
        // A place of no stored locality (a damaged file) matches no street place.
        placeLocality = addresses.places.map { localityID[$0.city + "\u{1}" + $0.state] ?? -1 }
        byNumber = stored.byNumber
        vocabulary = stored.vocabulary
        postings = stored.postings
        postingStart = stored.postingStart
        longestCore = stored.lists.longestCore
        longestWord = stored.lists.longestWord
        typoAlphabet = Set(stored.lists.alphabet)
        areaJSON = stored.areas
    }

    static func derive(_ addresses: AddressIndex, excluding excluded: Set<Int32>) -> PointDerived {
        let points = addresses.points
        var placeCounts = [Int](repeating: 0, count: addresses.places.count)
        for p in points { placeCounts[Int(p.place)] += 1 }
        var d = SearchDerivation(streets: addresses.streets, places: addresses.places, placeCounts: placeCounts)
        func member(_ i: Int32) -> SearchDerivation.Member { .init(id: i, lon: points[Int(i)].lon, lat: points[Int(i)].lat) }
        // House numbers per street.
        let streetCount = addresses.streets.count
        var counts = [Int32](repeating: 0, count: streetCount + 1)
        for (i, p) in points.enumerated() where !excluded.contains(Int32(i)) { counts[Int(p.street) + 1] += 1 }
        for i in 0..<streetCount { counts[i + 1] += counts[i] }
        var order = [Int32](repeating: 0, count: Int(counts[streetCount]))
        var cursor = counts
        for (i, p) in points.enumerated() where !excluded.contains(Int32(i)) {
            order[Int(cursor[Int(p.street)])] = Int32(i)
            cursor[Int(p.street)] += 1
        }
        var numbers: [Int32: [Int32]] = [:]
        for s in 0..<streetCount {
            let range = Int(counts[s])..<Int(counts[s + 1])
            order[range].sort { a, b in
                let pa = points[Int(a)], pb = points[Int(b)]
                let la = d.placeLocality[Int(pa.place)], lb = d.placeLocality[Int(pb.place)]
                return (la, pa.number, pa.suffix, a) < (lb, pb.number, pb.suffix, b)
            }
            d.addStreet(order[range].map { (member($0), points[Int($0)].place) })
            for a in order[range] { numbers[points[Int(a)].number, default: []].append(a) }
        }
        // ZIP codes and cities as areas, of every address (held out or not).
        var byPostcode = [[Int32]](repeating: [], count: d.postcodeNames.count)
        var byCity = [[Int32]](repeating: [], count: d.cityNames.count)
        for (i, p) in points.enumerated() {
            let zip = d.placePostcode[Int(p.place)], city = d.placeCity[Int(p.place)]
            if zip >= 0 { byPostcode[Int(zip)].append(Int32(i)) }
            if city >= 0 { byCity[Int(city)].append(Int32(i)) }
        }
        for (rank, members) in byPostcode.enumerated() { d.addPostcode(Int32(rank), members: members.map(member)) }
        for (rank, members) in byCity.enumerated() { d.addCity(Int32(rank), members: members.map(member)) }
        let (vocabulary, postings) = d.wordIndex()
        var numberKeys: [Int32] = [], numberStart: [Int32] = [0], byNumber: [Int32] = []
        for k in numbers.keys.sorted() {
            numberKeys.append(k)
            // As the builder lists a number's addresses: by street, suffix, address.
            byNumber += (numbers[k] ?? []).sorted { (points[Int($0)].street, points[Int($0)].suffix, $0) < (points[Int($1)].street, points[Int($1)].suffix, $1) }
            numberStart.append(Int32(byNumber.count))
        }
        return PointDerived(streetTokens: d.streetTokens, streetStart: d.streetStart, byStreet: order,
                            streetNumbers: order.map { points[Int($0)].number }, streetPlaces: d.streetPlaces,
                            localities: d.localities.map { [$0.city, $0.state] }, numberKeys: numberKeys, numberStart: numberStart,
                            byNumber: byNumber, vocabulary: vocabulary, postings: postings, postcodes: d.postcodes, cities: d.cities)
    }

    /// A name without what people leave out: middle initials (which canonical form turns into
    /// directionals) and "jr".
    static func looseKey(_ core: [String]) -> String {
        core.enumerated().filter { i, t in
            t != "jr" && !(i > 0 && i < core.count - 1 && StreetNameParts.directionals.contains(t))
        }.map(\.element).joined(separator: " ")
    }

    /// All of a street's addresses, city by city.
    func addresses(onStreet s: Int32) -> Slice<StoredIDs> {
        byStreet[streetStart[Int(s)]]
    }

    /// A street's addresses, one run per street place (`places(ofStreet:)`, in that order), each
    /// in number order. The runs follow each other in the street's list: found by the street
    /// places' counts, no address read (splitting a street's addresses by city read every one,
    /// and took most of a geocode at 30× Portland). Counts a damaged file gets wrong give runs
    /// cut short, never outside the street's list.
    func addressRuns(onStreet s: Int32) -> [Slice<StoredIDs>] {
        let all = byStreet[streetStart[Int(s)]]
        var start = all.startIndex
        return places(ofStreet: s).map { k in
            let lower = start, upper = min(all.endIndex, lower + max(0, Int(streetPlaces[k].count)))
            start = upper
            return all[lower..<upper]
        }
    }

    /// The street places of a street (indexes into `streetPlaces`).
    func places(ofStreet s: Int32) -> Range<Int> { streetPlaceStart[Int(s)] }

    /// The street places word `w` occurs in.
    func streetPlaces(withWord w: Int) -> Slice<StoredIDs> { postings[postingStart[w]] }

    /// Index into `vocabulary` of a whole word (the vocabulary is sorted).
    func vocabularyID(_ word: String) -> Int? {
        let i = firstWord(notBelow: word)
        return i < vocabulary.count && vocabulary[i] == word ? i : nil
    }

    private func firstWord(notBelow word: String) -> Int { vocabulary.firstIndex(notBelow: word) }

    /// Core keys within the typo allowance of `key`, with their distance.
    /// The allowance follows the longer of the two words: "Bel" is one edit from "Bell".
    func fuzzyCores(_ key: String) -> [(String, Int)] {
        let depth = EditDistance.allowance(forLength: key.count + 2)
        guard depth > 0, key.count - depth <= longestCore, let (known, depthLeft) = withoutUnknownCharacters(key, depth: depth) else { return [] }
        var seen = Set<String>()
        var out: [(String, Int)] = []
        let index = typos.cores
        let digits = Self.digits(key)
        for d in EditDistance.deletions(known, depth: depthLeft) {
            // A numbered street is never a typo of another number: "5th" is not "57th", "2nd" not "52nd".
            for candidate in index[d] ?? [] where seen.insert(candidate).inserted && Self.digits(candidate) == digits {
                let allowance = EditDistance.allowance(forLength: max(key.count, candidate.count))
                if allowance > 0, let dist = EditDistance.distance(key, candidate, limit: allowance), dist > 0 {
                    out.append((candidate, dist))
                }
            }
        }
        return out.sorted { ($0.1, $0.0) < ($1.1, $1.0) }
    }

    /// The digits of a name in order ("hwy 212" → "212"): what a typo may never change.
    static func digits(_ s: String) -> String {
        String(s.unicodeScalars.filter { $0.value >= 0x30 && $0.value <= 0x39 }.map(Character.init))
    }

    /// What one query has already worked out that its other readings ask again. An intersection
    /// tries each street again with the other's direction, and a direction is not part of the
    /// name: the same name's typo search ran up to ten times in one query (8.5 ms for 74 bytes the
    /// fuzzer found). A text's street is matched as typed and then for typos alone, and the text is
    /// read again with its last word as a town, each reading placing the number on the same streets:
    /// "3000 mlk jr blvt" searched "martin luther king jr blvt" for typos twice and read the city's
    /// grid for SE Martin Luther King Jr Blvd twice (2.2 ms; 1.0 ms with this memo). A crossing's
    /// streets met again in the second reading: "N;( 37th Av!e| & NE Killingsworth St" (read
    /// again without "N") found the crossings of the same pairs twice.
    final class QueryMemo {
        private var cores: [String: [(String, Int)]] = [:]
        private var gridPlaces: [GridPlaceKey: (location: GeoPoint, spread: Double)?] = [:]
        private var crossingsOfPairs: [Int64: [Crossing]] = [:]

        struct GridPlaceKey: Hashable {
            var number: Int
            var street: Int32
            var place: Int
            var members: Int
        }

        func fuzzyCores(_ key: String, in search: AddressSearch) -> [(String, Int)] {
            if let known = cores[key] { return known }
            let found = search.fuzzyCores(key)
            cores[key] = found
            return found
        }

        /// The crossings of streets `sa` and `sb` (`crossings`, which `find` works out), once per pair.
        func crossings(_ sa: Int32, _ sb: Int32, _ find: () -> [Crossing]) -> [Crossing] {
            let key = Int64(sa) << 32 | Int64(UInt32(bitPattern: sb))
            if let known = crossingsOfPairs[key] { return known }
            let found = find()
            crossingsOfPairs[key] = found
            return found
        }

        /// `gridPlace`, once per number and street place (whose addresses `members` are: a street
        /// place's are always all of them).
        func gridPlace(_ number: Int, street: Int32, place k: Int, members: [Int32], in search: AddressSearch)
            -> (location: GeoPoint, spread: Double)? {
            let key = GridPlaceKey(number: number, street: street, place: k, members: members.count)
            if let known = gridPlaces[key] { return known }
            let found = search.gridPlace(number, street: street, place: k, members: members)
            gridPlaces[key] = .some(found)
            return found
        }
    }

    /// Vocabulary words within the typo allowance of a whole word.
    func fuzzyWords(_ word: String) -> [(Int32, Int)] {
        let depth = EditDistance.allowance(forLength: word.count + 2)
        guard depth > 0, word.count - depth <= longestWord, let (known, depthLeft) = withoutUnknownCharacters(word, depth: depth) else { return [] }
        var seen = Set<Int32>()
        var out: [(Int32, Int)] = []
        let index = typos.words
        for d in EditDistance.deletions(known, depth: depthLeft) {
            for w in index[d] ?? [] where seen.insert(w).inserted && Self.digits(vocabulary[Int(w)]) == Self.digits(word) {
                let allowance = EditDistance.allowance(forLength: max(word.count, vocabulary[Int(w)].count))
                if allowance > 0, let dist = EditDistance.distance(word, vocabulary[Int(w)], limit: allowance), dist > 0 { out.append((w, dist)) }
            }
        }
        return out
    }

    /// The typed text without the characters no name has, and the deletions left once they are
    /// deleted; nil when they alone are more edits than `depth`. The deletions of the result are
    /// exactly those of `text` that can equal a name's.
    func withoutUnknownCharacters(_ text: String, depth: Int) -> (String, Int)? {
        var unknown = 0
        for c in text where !typoAlphabet.contains(c) { unknown += 1 }
        guard unknown > 0 else { return (text, depth) }
        guard unknown <= depth else { return nil }
        return (String(text.filter { typoAlphabet.contains($0) }), depth - unknown)
    }

    /// Indexes into `vocabulary` of the words starting with `prefix`.
    /// `within`: words known to hold every word that begins so (those of a shorter beginning).
    ///
    /// An ASCII prefix is compared with the words' bytes where they lie (`StoredStrings.order`),
    /// each word decoded only where bytes cannot tell: decoding every word compared was about a
    /// quarter of a misspelt prefix's typo search (`fuzzyPrefixWords`, hundreds of searches a
    /// word; 9 of its 34 % of a server's samples on "broadway & portlnd").
    func wordsWithPrefix(_ prefix: String, within: Range<Int>? = nil) -> Range<Int> {
        var prefix = prefix
        let words = within ?? 0..<vocabulary.count
        return prefix.withUTF8 { raw in
            let p = UnsafeRawBufferPointer(raw)
            if !p.contains(where: { $0 >= 0x80 }) { return wordsWithPrefix(ascii: p, within: words) }
            let text = String(decoding: p, as: UTF8.self)
            return wordsWithPrefix(words) { decodedOrder($0, text) }
        }
    }

    /// `wordsWithPrefix` for a prefix of ASCII bytes.
    func wordsWithPrefix(ascii p: UnsafeRawBufferPointer, within words: Range<Int>) -> Range<Int> {
        withExtendedLifetime(vocabulary) {
            wordsWithPrefix(words) { vocabulary.order($0, againstASCII: p) ?? decodedOrder($0, String(decoding: p, as: UTF8.self)) }
        }
    }

    private func decodedOrder(_ i: Int, _ prefix: String) -> StoredStrings.PrefixOrder {
        let w = vocabulary[i]
        return w.hasPrefix(prefix) ? .begins : w < prefix ? .below : .above
    }

    private func wordsWithPrefix(_ words: Range<Int>, _ order: (Int) -> StoredStrings.PrefixOrder) -> Range<Int> {
        var (lo, top) = (words.lowerBound, words.upperBound)
        while lo < top {
            let mid = (lo + top) / 2
            if order(mid) == .below { lo = mid + 1 } else { top = mid }
        }
        // The words that begin so lie together from `lo`: the end is galloped to, then searched
        // for, not walked to (a letter begins thousands of words, each compared); most prefixes
        // asked (a typo's variants, hundreds a word) begin none, one look.
        var (end, step) = (lo, 1)
        while end < words.upperBound, order(end) == .begins {
            end += step
            step *= 2
        }
        var hi = min(end, words.upperBound)
        if hi == lo { return lo..<lo }
        end = max(lo, end - step / 2 + 1)
        while end < hi {
            let mid = (end + hi) / 2
            if order(mid) == .begins { end = mid + 1 } else { hi = mid }
        }
        return lo..<end
    }
}

/// A value worked out by whichever thread first asks for it, then kept.
final class OnFirstUse<Value: Sendable>: Sendable {
    private let stored = Mutex<Value?>(nil)

    func value(_ make: () -> Value) -> Value {
        stored.withLock { cached in
            if let cached { return cached }
            let made = make()
            cached = made
            return made
        }
    }
}

/// Streets' search tokens as the index stores them, each street decoded when read — until a
/// process has read a thousand, when all are decoded once and kept: a one-shot command decodes
/// the few its query names, a server (after its first queries, or `prepare`) none (decoding on
/// every read cost a fifth of Portland's geocode throughput).
struct StreetTable: RandomAccessCollection, Sendable {
    let tokens: StoredStrings
    private let cache = DecodedStreets()

    init(tokens: StoredStrings) { self.tokens = tokens }

    var startIndex: Int { 0 }
    var endIndex: Int { tokens.count }

    subscript(i: Int) -> AddressSearch.Street {
        if let all = cache.streets(after: { decode(all: ()) }) { return all[i] }
        return decode(i)
    }

    /// The tokens alone, without working out the name's parts.
    func tokens(_ i: Int) -> [String] {
        if let all = cache.streets(after: { decode(all: ()) }) { return all[i].tokens }
        return tokens[i].split(separator: " ").map(String.init)
    }

    /// Every street decoded now (a server's warm-up).
    func decodeAll() { cache.fill { decode(all: ()) } }

    private func decode(_ i: Int) -> AddressSearch.Street {
        let t = tokens[i].split(separator: " ").map(String.init)
        return AddressSearch.Street(parts: StreetNameParts(tokens: t), tokens: t)
    }

    private func decode(all: Void) -> [AddressSearch.Street] { indices.map(decode) }

    /// Whether a word is one of street `i`'s tokens (`whole`), or begins one, compared as bytes
    /// where the tokens lie, without decoding them; nil when the street's tokens or the word are
    /// not all ASCII (where String comparison may differ from bytes').
    func has(_ word: String, whole: Bool, street i: Int) -> Bool? {
        anyToken(of: i, word) { t, w in whole ? t.elementsEqual(w) : t.count >= w.count && t.prefix(w.count).elementsEqual(w) }
    }

    /// Whether a word of 3+ letters is within the typo allowance of one of street `i`'s tokens
    /// (as `EditDistance` with the allowance of the longer), on the bytes; nil outside ASCII.
    func hasTypo(of word: String, street i: Int) -> Bool? {
        anyToken(of: i, word) { t, w in
            w.count >= 3 && EditDistance.distance(utf8: t, w, limit: EditDistance.allowance(forLength: Swift.max(w.count, t.count))) != nil
        }
    }

    /// Whether `prefix` is one edit from the beginning of one of street `i`'s tokens (as
    /// `AddressSearch.prefixMatches` decides it, which has first found no token it begins), on
    /// the bytes; nil outside ASCII.
    func hasPrefixTypo(_ prefix: String, street i: Int) -> Bool? {
        anyToken(of: i, prefix) { t, p in
            guard p.count >= 4, t.count >= p.count - 1 else { return false }
            for n in [p.count - 1, p.count, p.count + 1] where n <= t.count {
                if EditDistance.distance(utf8: UnsafeRawBufferPointer(rebasing: t[0..<n]), p, limit: 1) != nil { return true }
            }
            return false
        }
    }

    /// Whether `test` holds for one of street `i`'s tokens and the word, both as ASCII bytes
    /// (for ASCII, characters are bytes); nil when either is not ASCII.
    private func anyToken(of i: Int, _ word: String, _ test: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Bool) -> Bool? {
        withExtendedLifetime(tokens) {
            let b = tokens.utf8(i)
            guard !b.contains(where: { $0 >= 0x80 }) else { return nil }
            var word = word
            return word.withUTF8 { raw -> Bool? in
                let w = UnsafeRawBufferPointer(raw)
                guard !w.contains(where: { $0 >= 0x80 }) else { return nil }
                var start = 0
                while start < b.count {
                    var end = start
                    while end < b.count, b[end] != 0x20 { end += 1 }
                    if test(UnsafeRawBufferPointer(rebasing: b[start..<end]), w) { return true }
                    start = end + 1
                }
                return false
            }
        }
    }
}

/// The decoded streets once a process has read enough of them (see `StreetTable`).
private final class DecodedStreets: @unchecked Sendable {
    /// Written once, under `filling`, before `ready` is set; read only after `ready` is seen.
    private var decoded: [AddressSearch.Street] = []
    private let ready = Atomic<Bool>(false)
    private let reads = Atomic<Int>(0)
    private let filling = Mutex<Void>(())
    static let readsBeforeDecodingAll = 1_000

    /// All the streets if decoded; else nil, after counting this read (the one that reaches the
    /// threshold decodes them all).
    func streets(after decodeAll: () -> [AddressSearch.Street]) -> [AddressSearch.Street]? {
        if ready.load(ordering: .acquiring) { return decoded }
        guard reads.wrappingAdd(1, ordering: .relaxed).newValue == Self.readsBeforeDecodingAll else { return nil }
        fill(decodeAll)
        return decoded
    }

    func fill(_ decodeAll: () -> [AddressSearch.Street]) {
        filling.withLock { _ in
            guard !ready.load(ordering: .acquiring) else { return }
            decoded = decodeAll()
            ready.store(true, ordering: .releasing)
        }
    }
}
