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
        var city: String
        var state: String
        var count: Int32
        /// The address nearest the middle of the street's addresses in that city.
        var representative: Int32
    }

    struct Area: Sendable, Codable {
        var name: String
        var tokens: [String]
        var location: GeoPoint
        var count: Int
        var detail: String
    }

    let addresses: AddressIndex
    /// The parser queries go through, knowing the index's cities and ZIP codes: public so that an
    /// evaluation reads recorded addresses exactly as the geocoder reads queries.
    public let parser: AddressParser
    let streets: [Street]
    let streetsByCore: [String: [Int32]]
    /// Streets by their name without middle initials and "Jr" ("cesar chavez" for César E. Chávez).
    let streetsByLooseCore: [String: [Int32]]
    /// Core keys by the initials of their words, and of their loose form ("mlk" and "mlkj" for
    /// Martin Luther King Jr): what "M L King", "ML King" and "TV Hwy" are looked up by.
    let coresByInitials: [String: [String]]
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
    public func prepare() { _ = typos }

    var typos: TypoIndexes {
        typoIndexes.withLock { cached in
            if let cached { return cached }
            var cores: [String: [String]] = [:]
            for key in streetsByCore.keys {
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
    /// Address indexes of each street, ordered by number then suffix: `byStreet[streetStart[s] ..< streetStart[s + 1]]`.
    let streetStart: [Int32]
    let byStreet: [Int32]
    let streetPlaces: [StreetPlace]
    /// The street places of street `s` are `streetPlaces[streetPlaceStart[s] ..< streetPlaceStart[s + 1]]`.
    let streetPlaceStart: [Int32]
    /// Sorted vocabulary of street-place tokens, and for each the street places it occurs in.
    let vocabulary: [String]
    let postings: [[Int32]]
    let vocabularyIndex: [String: Int32]
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
    let postcodes: [Area]
    let cities: [Area]
    let neighbourhoods: [(layer: String, feature: Int, area: Area)]
    /// Canonical city tokens of every place, by place index.
    let placeCityKey: [String]
    /// City tokens and postcode of every place, for matching the end of a typed address.
    let placeTokens: [[String]]

    /// What search derives from every address point: worked out by the builder and stored in the
    /// index (`SearchTables`), so that an open reads it rather than works it out again — seconds
    /// at thirty times Portland (BENCHMARKS.md, "From one city to thirty").
    struct PointDerived {
        /// Each street's name as search tokens (`AddressText.streetTokens`), by street index.
        var streetTokens: [[String]]
        var streetStart: [Int32]
        var byStreet: [Int32]
        var streetPlaces: [StreetPlace]
        var byNumber: NumberIndex
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
                  derived: Self.derive(addresses, excluding: Set(excluding.map { Int32($0) })))
    }

    /// From what the builder stored (`SearchTables`): nothing is derived from the points.
    convenience init(addresses: AddressIndex, layers: [BoundaryLayer], synonyms: StreetSynonyms, stored: PointDerived) {
        self.init(addresses: addresses, layers: layers, synonyms: synonyms, derived: stored)
    }

    private init(addresses: AddressIndex, layers: [BoundaryLayer], synonyms: StreetSynonyms, derived: PointDerived) {
        self.addresses = addresses
        self.synonyms = synonyms
        let cityNames = Array(Set(addresses.places.map(\.city))).filter { !$0.isEmpty }
        parser = AddressParser(knownCities: cityNames, knownPostcodes: Set(addresses.places.map(\.postcode)))
        placeCityKey = addresses.places.map { AddressText.tokens($0.city).joined(separator: " ") }
        placeTokens = addresses.places.map { AddressText.tokens($0.city) + [$0.postcode] }

        let streets = derived.streetTokens.map { Street(parts: StreetNameParts(tokens: $0), tokens: $0) }
        var byCore: [String: [Int32]] = [:]
        var byLooseCore: [String: [Int32]] = [:]
        for (i, street) in streets.enumerated() {
            byCore[street.parts.coreKey, default: []].append(Int32(i))
            let loose = Self.looseKey(street.parts.core)
            if loose != street.parts.coreKey, !loose.isEmpty { byLooseCore[loose, default: []].append(Int32(i)) }
        }
        self.streets = streets
        streetsByCore = byCore
        streetsByLooseCore = byLooseCore
        var byInitials: [String: [String]] = [:]
        for core in byCore.keys {
            let words = core.split(separator: " ").map(String.init)
            let loose = Self.looseKey(words).split(separator: " ").map(String.init)
            for w in Set([words, loose]) where w.count >= 2 && w.count <= 8 {
                byInitials[Self.initials(w), default: []].append(core)
            }
        }
        coresByInitials = byInitials.mapValues { Array(Set($0)).sorted() }
        longestCore = byCore.keys.map(\.count).max() ?? 0

        streetStart = derived.streetStart
        byStreet = derived.byStreet
        streetPlaces = derived.streetPlaces
        var placeStart = [Int32](repeating: 0, count: streets.count + 1)
        for sp in derived.streetPlaces { placeStart[Int(sp.street) + 1] += 1 }
        for i in 0..<streets.count { placeStart[i + 1] += placeStart[i] }
        streetPlaceStart = placeStart
        byNumber = derived.byNumber
        vocabulary = derived.vocabulary
        postings = derived.postings
        vocabularyIndex = Dictionary(derived.vocabulary.enumerated().map { ($1, Int32($0)) }, uniquingKeysWith: { a, _ in a })
        longestWord = derived.vocabulary.map(\.count).max() ?? 0
        var alphabet = Set<Character>()
        for key in byCore.keys { alphabet.formUnion(key) }
        for word in derived.vocabulary { alphabet.formUnion(word) }
        typoAlphabet = alphabet
        postcodes = derived.postcodes
        cities = derived.cities

        var hoods: [(layer: String, feature: Int, area: Area)] = []
        for layer in layers {
            for (i, f) in layer.features.enumerated() {
                let label = layer.labelPoint(feature: i)
                hoods.append((layer.name, i, Area(name: f.name, tokens: AddressText.tokens(f.name), location: label, count: 0, detail: "\(f.name) (\(layer.name))")))
            }
        }
        neighbourhoods = hoods
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
                return (pa.number, pa.suffix, a) < (pb.number, pb.suffix, b)
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
        return PointDerived(streetTokens: d.streetTokens, streetStart: d.streetStart, byStreet: order, streetPlaces: d.streetPlaces,
                            byNumber: NumberIndex(numbers), vocabulary: vocabulary, postings: postings, postcodes: d.postcodes, cities: d.cities)
    }

    /// A name without what people leave out: middle initials (which canonical form turns into
    /// directionals) and "jr".
    static func looseKey(_ core: [String]) -> String {
        core.enumerated().filter { i, t in
            t != "jr" && !(i > 0 && i < core.count - 1 && StreetNameParts.directionals.contains(t))
        }.map(\.element).joined(separator: " ")
    }

    /// Addresses of a street in number order.
    func addresses(onStreet s: Int32) -> ArraySlice<Int32> {
        byStreet[Int(streetStart[Int(s)])..<Int(streetStart[Int(s) + 1])]
    }

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

    /// Street names' typo matches already worked out for one query. An intersection tries each
    /// street again with the other's direction, and a direction is not part of the name: the same
    /// name's typo search ran up to ten times in one query (8.5 ms for 74 bytes the fuzzer found).
    final class TypoMemo {
        private var cores: [String: [(String, Int)]] = [:]

        func fuzzyCores(_ key: String, in search: AddressSearch) -> [(String, Int)] {
            if let known = cores[key] { return known }
            let found = search.fuzzyCores(key)
            cores[key] = found
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
    func wordsWithPrefix(_ prefix: String) -> Range<Int> {
        var lo = 0, hi = vocabulary.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if vocabulary[mid] < prefix { lo = mid + 1 } else { hi = mid }
        }
        var end = lo
        while end < vocabulary.count, vocabulary[end].hasPrefix(prefix) { end += 1 }
        return lo..<end
    }
}
