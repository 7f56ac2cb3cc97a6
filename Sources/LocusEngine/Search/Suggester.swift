import LocusCore

/// Arguments of a suggest, validated.
public struct SuggestRequest: Sendable {
    /// What has been typed so far.
    public var text: String
    /// At most this many suggestions. Default 5.
    public var maxResults = 5
    /// Rank places near this lon/lat point higher. Default: none.
    public var near: GeoPoint? = nil
    /// Only places inside this lon/lat envelope. Default: anywhere.
    public var extent: Envelope? = nil

    public init(text: String) { self.text = text }
}

/// A suggest request with what every candidate's ranking needs worked out once.
struct SuggestContext {
    var text: String
    var maxResults: Int
    var near: GeoPoint?
    var extent: Envelope?
    var nearScale: LocalMetricScale?
    /// Shared by every reading of the one request (copies of the context share it).
    let memo = SuggestMemo()

    init(_ r: SuggestRequest) {
        text = r.text
        maxResults = r.maxResults
        near = r.near
        extent = r.extent
        nearScale = r.near.map { LocalMetricScale(latitude: $0.y) }
    }
}

/// The typo searches one suggest has done, for its other readings: a text is read as typed, again
/// with its real words through their typos, with types as initials, without its region, as a
/// crossing's two streets, and once more without a unit; each reading searched the same word's
/// typos again (`fuzzyWords` was 14 % of the samples of a garbage suggest the geocoder fuzzer
/// found). Geocode has `QueryMemo` for the same.
final class SuggestMemo {
    private var words: [String: [(Int32, Int)]] = [:]
    private var prefixWords: [String: [Int]] = [:]
    /// Geocode's memo, for the crossings suggest works out as geocode does: a pair of streets is
    /// read by each reading of the text, and by both kinds of pair (`crossingSuggestions`).
    let geocode = AddressSearch.QueryMemo()

    /// `AddressSearch.fuzzyWords`, once per word.
    func fuzzyWords(_ word: String, in search: AddressSearch) -> [(Int32, Int)] {
        if let known = words[word] { return known }
        let found = search.fuzzyWords(word)
        words[word] = found
        return found
    }

    /// `AddressSearch.fuzzyPrefixWords`, once per prefix.
    func fuzzyPrefixWords(_ prefix: String, in search: AddressSearch) -> [Int] {
        if let known = prefixWords[prefix] { return known }
        let found = search.fuzzyPrefixWords(prefix)
        prefixWords[prefix] = found
        return found
    }

    /// Readings of a street's words that left no street place marked before the word begun was
    /// read: the same words are read with another word begun, or none, by each way the text is
    /// split (a crossing's sides, a number taken as a street's), and leave none again.
    var readingsNamingNothing: Set<StreetWordsReading> = []

    /// What a reading of a street's words depends on, but for the word begun.
    struct StreetWordsReading: Hashable {
        var words: [String]
        var realWordTypos: Bool
        var initialsHaveCompany: Bool
    }
}

/// The word still being typed and every word it may become. Read canonically it is only one of
/// them: "s" reads as "south" but may be the start of "St", "bl" of "Blvd", "br" of "Broadway";
/// so the word begins with it as typed, or with its canonical form, or is the canonical name of
/// a directional or street type a spelling of which begins with it ("bl" → "blvd" → boulevard).
/// Read canonically alone, 37 of 120 real addresses typed key by key met an empty list on the
/// way ("SE Hawthorne Bl", "Killingsworth S").
struct WordBegun {
    /// What a word may begin with: canonical, then as typed where that differs.
    var starts: [String]
    /// Whole words it may stand for (the names of directionals and types begun).
    var words: [String]
    var canonical: String { starts[0] }

    init(typed: String) {
        let canonical = AddressText.canonical(typed)
        var starts = canonical == typed ? [canonical] : [canonical, typed]
        // "81th": the ordinal it means, as a street's name has it (`AddressText.streetTokens`).
        if let digits = AddressText.ordinalNumber(typed), let ordinal = AddressText.streetTokens([digits]).first, ordinal != typed {
            starts.append(ordinal)
        }
        self.starts = starts
        let begun = starts
        words = Self.namesBegun(by: typed).filter { w in !begun.contains { w.hasPrefix($0) } }
    }

    func begins(_ word: String) -> Bool {
        starts.contains { word.hasPrefix($0) } || words.contains(word)
    }

    /// Every spelling of a directional or street type with its canonical name, in spelling order.
    private static let spellings: [(spelling: String, name: String)] = {
        let all = AddressVocabulary.directionalNames.merging(AddressVocabulary.streetTypeNames) { a, _ in a }
        return all.map { ($0.key, $0.value) }.sorted { $0.spelling < $1.spelling }
    }()

    /// The canonical names of the spellings that begin with `typed` (a binary search for the run).
    static func namesBegun(by typed: String) -> [String] {
        guard !typed.isEmpty else { return [] }
        var lo = 0, hi = spellings.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if spellings[mid].spelling < typed { lo = mid + 1 } else { hi = mid }
        }
        var names: [String] = []
        for s in spellings[lo...].prefix(while: { $0.spelling.hasPrefix(typed) }) where !names.contains(s.name) { names.append(s.name) }
        return names
    }
}

/// What follows a house number's digits as typed, as a condition on each address with that number:
/// a hyphen's digits (`HyphenatedNumber`), still being typed or not, or a fraction ("1610 1/2").
struct NumberTail {
    enum Typed {
        case hyphen(HyphenatedNumber)
        /// "1/2" as the index keeps a number's fraction (its suffix).
        case fraction(String)
    }
    var typed: Typed
    /// Whether the digits after the hyphen are still being typed ("37-1" may become "37-13").
    var begun: Bool

    /// Nil when an address with this number suffix is not the one typed; else what the tail adds
    /// to its suggestion's quality: one without a suffix (the typed range's first number, a house
    /// of the block, or the whole number a fraction is part of, which geocode answers too) is
    /// kept, ranked after those whose tail is the one typed.
    func quality(ofSuffix suffix: String) -> Double? {
        switch typed {
        case .hyphen(let h):
            switch HyphenatedNumber.relation(tail: h.tail, toSuffix: suffix, begun: begun) {
            case .same: 0
            case .untailed: 0.5
            case .other: nil
            }
        case .fraction(let f):
            suffix == f ? 0 : suffix.isEmpty ? 0.5 : nil
        }
    }

    /// Whether a number that is no point is placed by the digits before the tail, as geocode
    /// places it: a range by its first number, a fraction with its whole number; Queens's "37-13"
    /// is not house 37.
    var placesLeadingNumber: Bool {
        switch typed {
        case .hyphen(let h): h.isRange && !begun
        case .fraction: true
        }
    }

    /// "1/2": digits, a slash and digits (how `AddressText.tokens` keeps a fraction).
    static func isFraction(_ token: String) -> Bool {
        guard let slash = token.firstIndex(of: "/") else { return false }
        let top = token[..<slash], bottom = token[token.index(after: slash)...]
        return !top.isEmpty && !bottom.isEmpty && top.count <= 2 && bottom.count <= 2
            && top.allSatisfy { ("0"..."9").contains($0) } && bottom.allSatisfy { ("0"..."9").contains($0) }
    }
}

extension AddressSearch {
    /// Suggestions for a search box, from the first character typed.
    ///
    /// Text that starts with a house number suggests addresses with that number on streets
    /// matching the rest; other text suggests streets (per city), then postcodes, neighbourhoods
    /// and cities. The last word is a prefix; earlier words match whole, or through a typo when
    /// nothing matches exactly.
    public func suggest(_ suggestRequest: SuggestRequest) -> [Suggestion] {
        var request = SuggestContext(suggestRequest)
        var found = suggestAsTyped(request)
        if let renamed = Self.withSynonyms(request.text, synonyms) {
            found = withSynonymsReading(found, renamed, request)
        }
        // A unit typed with the address ("6132 NE 34th Ave Apt 3", "… Ste" still being typed,
        // "Suite 301, 1234 SW Main St"): no street or town has its words, so the list emptied at
        // the unit, though geocode reads the text. Looked for only when nothing is suggested.
        guard found.isEmpty else { return preferringTheNameTyped(found, request) }
        let text = request.text
        if let address = Self.withoutUnit(text) {
            request.text = address
            let withoutUnit = suggestAsTyped(request)
            guard withoutUnit.isEmpty else { return withoutUnit }
        }
        // A unit as its own part after a comma, as record keepers write it ("…AVE, UN A", "…ST,
        // BLDG 2", "…PL, A"), as geocode reads it (`AddressParser.commaUnit`): the list was empty
        // for 19 of 2,000 of the street trees' recorded addresses typed whole.
        if let (address, _) = AddressParser.commaUnit(Substring(text)) {
            request.text = String(address)
            let withoutCommaUnit = suggestAsTyped(request)
            guard withoutCommaUnit.isEmpty else { return withoutCommaUnit }
        }
        // A street type no street of the name has ("NE Killingsworth Ave", "3000 SE Division Ave"
        // for NE Killingsworth St, SE Division St), as geocode reads it: every typed word must be
        // a street's, so the list emptied at the type. Read without the type, only streets whose
        // name (their type left out) has every word of the name typed are kept: else a name typed
        // with a typo reads as other streets ("4883 w blandy ter" suggested Bland Cir, West Linn,
        // where geocode reads NW Blandy Ter), and a name that is a type word as streets of that
        // type ("6454 SW Loop Dr": 6454 SW Ironwood Loop).
        guard let (street, name) = Self.withoutStreetType(text) else { return [] }
        request.text = street
        return suggestAsTyped(request).filter { Self.suggestion($0, namesEvery: name) }
    }

    /// `found`, with what the text reads as without its street type first where no suggestion
    /// found has every word of the name typed: each read the name through a typo or as a town
    /// ("4103 SE Henderson Ave": 4103 SE Anderson Ave, Gresham; "SE Gladstone Ave": streets of
    /// Gladstone; "N Willis Ave": N Williams Ave), where geocode answers the street of the name
    /// typed, of another type (SE Henderson St, SE Gladstone St, N Willis Blvd): a wrong type
    /// costs a geocode answer less than a typo does. A text whose name is typed with a typo reads
    /// so once more, to keep what it found (`suggest`'s reading without the type keeps only
    /// streets that have every word).
    private func preferringTheNameTyped(_ found: [Suggestion], _ request: SuggestContext) -> [Suggestion] {
        // Not for a crossing: the reading without the type is a single street's.
        guard let (street, name) = Self.withoutStreetType(request.text),
              !Self.typedWords(request.text).contains(where: { AddressParser.crossingWords.contains($0.word) }),
              !found.contains(where: { Self.suggestion($0, namesEvery: name, typeToo: true, oneEditOff: true) }) else { return found }
        var reading = request
        reading.text = street
        let named = suggestAsTyped(reading).filter { Self.suggestion($0, namesEvery: name) }
        guard !named.isEmpty else { return found }
        return Self.merged(named, then: found, max: request.maxResults)
    }

    /// The text with the dataset's synonyms applied ("3308 NE Portland Blvd", NE Rosa Parks
    /// Way's old name, as `Data/portland/synonyms.csv` has it), in the tokens suggest reads; nil
    /// when none applies. A house number first stays a number.
    static func withSynonyms(_ text: String, _ synonyms: StreetSynonyms) -> String? {
        guard !synonyms.isEmpty else { return nil }
        guard let replaced = synonyms.apply(streetTokens(afterNumber: AddressText.tokens(text))) else { return nil }
        return replaced.joined(separator: " ") + (text.last?.isWhitespace == true ? " " : "")
    }

    /// A text's tokens as a street's (`AddressText.streetTokens`: "34" is "34th"), but for a
    /// house number first, which stays a number.
    static func streetTokens(afterNumber tokens: [String]) -> [String] {
        guard let first = tokens.first, AddressText.isNumber(first) else { return AddressText.streetTokens(tokens) }
        return [first] + AddressText.streetTokens(Array(tokens.dropFirst()))
    }

    /// `first`'s suggestions, then `then`'s that are not among them, `max` in all.
    static func merged(_ first: [Suggestion], then: [Suggestion], max: Int) -> [Suggestion] {
        var seen = Set<String>()
        return Array((first + then).filter { seen.insert($0.key).inserted }.prefix(max))
    }

    /// `found` and what the text with its synonyms applied (`renamed`) suggests, the one geocode
    /// answers from first: geocode reads a synonym's street one point behind what the text names
    /// as typed, and the suggestions have no such score. "3308 NE Portland Blvd" suggested 3308
    /// NE Portland Boulevard Ct and two other boulevards, though geocode answers 3308 NE Rosa
    /// Parks Way. Geocode is asked only where a synonym applies.
    private func withSynonymsReading(_ found: [Suggestion], _ renamed: String, _ request: SuggestContext) -> [Suggestion] {
        var reading = request
        reading.text = renamed
        let viaSynonym = suggestAsTyped(reading)
        guard !viaSynonym.isEmpty else { return found }
        guard !found.isEmpty else { return viaSynonym }
        let top = geocode(GeocodeRequest(.text(request.text))).first?.address.prefix { $0 != "," }
        let synonymFirst = top.map { t in viaSynonym.contains { $0.text.prefix { $0 != "," } == t } } ?? false
        return synonymFirst ? Self.merged(viaSynonym, then: found, max: request.maxResults) : Self.merged(found, then: viaSynonym, max: request.maxResults)
    }

    /// Whether a suggestion's street name (its text before the town, the type last left out
    /// unless `typeToo`) has each of `typed`, a name's words, or, for a letter typed alone, a word
    /// it begins: the initials of "NE M L King Ave" are NE Martin Luther King Jr Blvd's. (With
    /// the type: "SW Canyon Rd Port", "Port" begun for Portland, read "Rd" as a word of the name.)
    /// `oneEditOff`: a word of five letters or more one letter off counts too ("Hawthorn Blvd" reads
    /// SE Hawthorne Blvd well enough, as suggest and people do; geocode answers NE Hawthorn Ave,
    /// Hillsboro).
    static func suggestion(_ suggestion: Suggestion, namesEvery typed: [String], typeToo: Bool = false, oneEditOff: Bool = false) -> Bool {
        var words = AddressText.tokens(suggestion.text.prefix { $0 != "," })
        if !typeToo, let last = words.last, AddressVocabulary.streetTypes[last] != nil { words.removeLast() }
        return typed.allSatisfy { t in
            words.contains(t) || (t.count == 1 && t.first?.isLetter == true && words.contains { $0.first == t.first })
                || (oneEditOff && t.count >= 5 && words.contains { EditDistance.distance($0, t, limit: 1) != nil })
        }
    }

    /// The text without its street's type typed whole ("NE Killingsworth Ave", "Ave," before a
    /// region, "Ave W" before a directional), where a word of the name comes before it, and the
    /// name's words (as `AddressText.tokens` reads them); nil when it has none.
    static func withoutStreetType(_ text: String) -> (text: String, name: [String])? {
        let words = typedWords(text)
        for k in words.indices.dropFirst().reversed() {
            guard AddressVocabulary.streetTypes[words[k].word] != nil else { continue }
            // The words of the name: not the house number or a directional ("34th" is one, and so
            // is a type word that names a street: "SE Mill Ave" for SE Mill St).
            let name = words[..<k].enumerated().filter { j, w in
                !(j == 0 && w.word.first?.isNumber == true) && AddressVocabulary.directionals[w.word] == nil
            }.flatMap { AddressText.tokens(String(text[$0.element.range])) }
            // Last, before a comma (the region follows), or before a directional last.
            let after = text[words[k].range.upperBound...]
            let last = k == words.count - 1 || after.first == ","
                || (k == words.count - 2 && AddressVocabulary.directionals[words[k + 1].word] != nil)
            guard !name.isEmpty, last else { return nil }
            return (String(text[..<words[k].range.lowerBound] + after), name)
        }
        return nil
    }

    /// Words that name a unit of an address (`AddressVocabulary.unitDesignators` without the ones
    /// streets are named with: "Front", "Lot", "Side", "Upper", "Office" …).
    static let unitWords: Set<String> = ["apt", "apartment", "unit", "ste", "suite", "bldg", "fl", "rm", "spc", "trlr",
                                         "trailer", "dept", "ofc", "ph", "bsmt"]

    /// The text without a unit after the address (from the unit word or "#" on, or a unit word
    /// still being typed at the end) or before it (a unit word, its identifier, then the house
    /// number); nil when it has none.
    static func withoutUnit(_ text: String) -> String? {
        let words = typedWords(text)
        guard words.count >= 2 else { return nil }
        if words.count >= 4, unitWords.contains(words[0].word), words[2].word.first?.isNumber == true {
            return String(text[words[2].range.lowerBound...])
        }
        guard words[0].word.first?.isNumber == true else { return nil }
        let endsWithSpace = text.last.map { $0.isWhitespace || $0 == "," } ?? false
        for k in 2..<words.count {
            let w = words[k].word
            // A street type last is the street's ("610 NW Davis St", not "Ste" begun: read without
            // it, "610 NW Davis" suggested NW David Ct, Beaverton).
            let begun = k == words.count - 1 && !endsWithSpace && w.count >= 2 && AddressVocabulary.streetTypes[w] == nil
                && unitWords.contains { $0.hasPrefix(w) }
            if w.hasPrefix("#") || unitWords.contains(w) || begun {
                return String(text[..<words[k].range.lowerBound])
            }
        }
        return nil
    }

    /// The words of a text as typed, split at spaces and commas, each lowercased without its
    /// trailing dots, with where it stands in the text: the first 25.
    static func typedWords(_ text: String) -> [(range: Range<String.Index>, word: String)] {
        var words: [(range: Range<String.Index>, word: String)] = []
        var i = text.startIndex
        while i < text.endIndex, words.count <= 24 {
            if text[i].isWhitespace || text[i] == "," {
                i = text.index(after: i)
                continue
            }
            let start = i
            while i < text.endIndex, !text[i].isWhitespace, text[i] != "," { i = text.index(after: i) }
            var word = text[start..<i].lowercased()
            while word.hasSuffix(".") { word.removeLast() }
            words.append((start..<i, word))
        }
        return words
    }

    private func suggestAsTyped(_ request: SuggestContext) -> [Suggestion] {
        var request = request
        // A whole address pasted with its country ("…, OR, USA"), as geocode reads it.
        request.text = AddressParser.withoutCountry(request.text)
        let endsWithSpace = request.text.last?.isWhitespace ?? false
        var tokens = AddressText.tokens(request.text)
        // A ZIP+4 ("97211-1234") is its ZIP code, whole or still being typed ("97211-12").
        for k in tokens.indices.dropFirst() {
            let t = tokens[k]
            if t.utf8.count > 5, t.utf8.count <= 10, AddressText.isNumber(String(t.prefix(5))),
               t.dropFirst(5).first == "-", t.dropFirst(6).allSatisfy(\.isNumber) || AddressParser.postcode(t) != nil {
                tokens[k] = String(t.prefix(5))
            }
        }
        let typed = tokens
        tokens.removeAll { $0 == "#" || $0 == "&" || $0 == "@" }
        guard !tokens.isEmpty, request.maxResults > 0 else { return [] }
        // The last word is still being typed: "3" may become "34th", so it stays as typed, and "s"
        // may become "south" or "st" (`WordBegun`). Read from the raw text where one raw word
        // gave it; an alias's expansion ("mlk" → "martin luther king jr") is read as it is.
        var prefix: WordBegun?
        if !endsWithSpace {
            let last = tokens.removeLast()
            // The raw tokens of the last chunk only (after the last space, tab or comma, found on
            // the bytes): the whole text's again cost suggest a tenth.
            let bytes = request.text.utf8
            let start = bytes.lastIndex { $0 == 0x20 || $0 == 0x09 || $0 == 0x2C }.map(bytes.index(after:)) ?? bytes.startIndex
            if let raw = AddressText.rawTokens(request.text[start...]).last, AddressText.tokens(raw) == [last] {
                prefix = WordBegun(typed: raw)
            } else {
                prefix = WordBegun(typed: last)
            }
        }
        // "37-13 74th St" (Queens's house 13 of block 37) or a range ("5331-5337 N Kerby Ave") is
        // one token: its first number is the number, the digits after the hyphen a condition on
        // the address's own (`NumberTail`), still being typed while it is the prefix ("37-1").
        var tail: NumberTail?
        if let first = tokens.first, let h = HyphenatedNumber(first) {
            tokens[0] = h.number
            tail = NumberTail(typed: .hyphen(h), begun: false)
        } else if tokens.isEmpty, let typed = prefix?.canonical, let h = HyphenatedNumber(typed) {
            tokens = [h.number]
            prefix = nil
            tail = NumberTail(typed: .hyphen(h), begun: true)
        } else if let first = tokens.first, AddressText.isNumber(first) {
            // "1610 1/2 NW 143rd": the fraction is the number's, not a word of the street (it
            // matched none, so nothing was suggested for a number with a fraction).
            if tokens.count >= 2, NumberTail.isFraction(tokens[1]) {
                tail = NumberTail(typed: .fraction(tokens.remove(at: 1)), begun: false)
            } else if tokens.count == 1, let typed = prefix?.canonical, NumberTail.isFraction(typed) {
                prefix = nil
                tail = NumberTail(typed: .fraction(typed), begun: false)
            }
        }
        tokens = Self.streetTokens(afterNumber: tokens)
        var ranked: [(rank: Double, suggestion: Suggestion)] = []

        if let first = tokens.first ?? prefix?.canonical, AddressText.isNumber(first) {
            if tokens.isEmpty {
                ranked += postcodeSuggestions(prefix: first, request)
                ranked += numberOnlySuggestions(first, request)
            } else if let number = typedNumber(tokens[0]) {
                let words = Array(tokens.dropFirst())
                let (points, townOutside) = addressSuggestions(number: number, tail: tail, words: words, prefix: prefix, request)
                ranked += points
                // A range typed ("5509-5523 NE 29th Ave") is placed by its first number, as geocode
                // places it (`NumberTail.placesLeadingNumber`). Also where every point found read
                // a town inside the street's words (`townInsideStreet`): "3000 SE Milwaukie Ave"
                // suggested only 3000 SE Courtney Ave, Milwaukie, where geocode places 3000 on SE
                // Milwaukie Ave. Then only numbers placed on a street whose name has the town's
                // words typed are added, not bare streets.
                if tail?.placesLeadingNumber ?? true, ranked.isEmpty || !townOutside, !words.isEmpty || prefix != nil {
                    let placed = placedNumberSuggestions(tokens[0], words: words, prefix: prefix, request)
                    let town = words.filter(townWords.contains)
                    ranked += ranked.isEmpty ? placed : placed.filter { p in
                        p.1.type == .address && Self.suggestion(p.1, namesEvery: town, typeToo: true) && !points.contains { $0.1.text == p.1.text }
                    }
                }
            }
        } else {
            var streets = streetSuggestions(words: tokens, prefix: prefix, request)
            if streets.isEmpty, let (words, begun) = withoutRegion(tokens, prefix: prefix) {
                streets = streetSuggestions(words: words, prefix: begun, request)
            }
            ranked += streets.map { ($0.rank, $0.suggestion) }
            ranked += routeSuggestions(words: tokens, prefix: prefix, request).map { ($0.rank, $0.suggestion) }
            ranked += areaSuggestions(words: tokens, prefix: prefix, request)
            ranked += crossingSuggestions(typed: prefix == nil ? typed[...] : typed.dropLast(), prefix: prefix, request)
        }
        ranked.sort { ($0.rank, $0.suggestion.text) < ($1.rank, $1.suggestion.text) }
        var seen = Set<String>()
        var out: [Suggestion] = []
        for r in ranked where seen.insert(r.suggestion.key).inserted {
            out.append(r.suggestion)
            if out.count == request.maxResults { break }
        }
        return out
    }

    /// A street typed with its region after the town ("N Williams Ave, Portland, OR 97227",
    /// "…, Oregon", "…, Portland, O" being typed): the words without a trailing ZIP code and a
    /// state of the index's towns (code or name), whole or begun; nil when there is none. A
    /// street's words are its name's and its town's: with the state or ZIP code nothing was
    /// suggested, though geocode reads them.
    private func withoutRegion(_ words: [String], prefix: WordBegun?) -> ([String], WordBegun?)? {
        let states = Set(localities.map { $0.state.lowercased() })
        // "LA", "NE" typed are read as "lane", "northeast" (`AddressText.canonical`).
        func isState(_ w: String) -> Bool {
            AddressVocabulary.states[w].map(states.contains) ?? states.contains { AddressText.canonical($0) == w }
        }
        var words = words, begun = prefix, changed = false
        if let p = begun, words.count >= 2 {
            let regionBegun = AddressText.isNumber(p.canonical) && p.canonical.count <= 5
                || p.starts.contains { s in states.contains { $0.hasPrefix(s) } || (Self.statesByNamePrefix[s] ?? []).contains(where: states.contains) }
            if regionBegun {
                begun = nil
                changed = true
            }
        }
        // A state of several words last, whole or its last word begun ("…, Raleigh, North
        // Carolina", "…, Albany, New Y"): nothing was suggested, though geocode read it.
        if let p = begun {
            let all = words + [p.canonical]
            named: for (name, code) in Self.multiWordStates where states.contains(code) {
                // n of the name's words typed, the last begun, after at least one word.
                for n in stride(from: min(name.count, all.count - 1), through: 1, by: -1)
                where all.suffix(n).dropLast().elementsEqual(name.prefix(n - 1)) && p.begins(name[n - 1]) {
                    words.removeLast(n - 1)
                    begun = nil
                    changed = true
                    break named
                }
            }
        }
        while words.count >= 2 {
            if let last = words.last, AddressParser.postcode(last) != nil || isState(last) {
                words.removeLast()
            } else if let (name, _) = Self.multiWordStates.first(where: { states.contains($0.code) && words.count > $0.words.count && words.suffix($0.words.count).elementsEqual($0.words) }) {
                words.removeLast(name.count)
            } else {
                break
            }
            changed = true
        }
        return changed ? (words, begun) : nil
    }

    /// Lower is better: distance to the bias point in km when there is one, else fewer addresses
    /// (a smaller place) ranks lower. The location is worked out only for an extent or a bias point:
    /// a street place's is its representative point, somewhere in 17 MB of points, and reading
    /// one per place marked was 18 % of the samples of "rtland&ortlan|rtland potl", thousands of
    /// places named (the geocoder fuzzer's `found-a-towns-name-as-both-streets`).
    private func rank(_ at: @autoclosure () -> GeoPoint, popularity: Int, _ request: SuggestContext, quality: Double) -> Double? {
        guard request.extent != nil || request.near != nil else { return quality * 1_000 - log(Double(max(popularity, 1))) }
        let location = at()
        if let e = request.extent, !e.contains(x: location.x, y: location.y) { return nil }
        var r = quality * 1_000
        if let near = request.near, let s = request.nearScale {
            let dx = (location.x - near.x) * s.metresPerDegreeX, dy = (location.y - near.y) * s.metresPerDegreeY
            r += (dx * dx + dy * dy).squareRoot() / 1_000
        } else {
            r -= log(Double(max(popularity, 1)))
        }
        return r
    }

    /// Street places matching every whole word and the prefix. Each word narrows a mark per
    /// street place (how many words it has matched so far), so a one-letter prefix that touches
    /// every street costs one pass over their postings, with no sets built. Each comes with its
    /// street place, which placing a number on it needs.
    private func streetSuggestions(words: [String], prefix: WordBegun?,
                                   _ request: SuggestContext) -> [(rank: Double, place: Int, suggestion: Suggestion)] {
        guard let (mark, constraint, quality) = streetPlacesMatching(words: words, prefix: prefix, request.memo) else { return [] }
        var out: [(rank: Double, place: Int, suggestion: Suggestion)] = []
        var worstKept = Double.infinity
        let keep = request.maxResults * 2
        // Whole words a town's name has, with a word after them: each a street place may have
        // read as its town (`townInsideStreet`). Mostly none, and no place is asked.
        let typedTownWords = words.indices.filter { k in
            (k < words.count - 1 || prefix != nil) && townWords.contains(words[k])
        }
        var towns: [Int32: [String]] = [:]
        for c in mark.indices where mark[c] == constraint {
            let sp = streetPlaces[c]
            guard var r = rank(addresses.points[Int(sp.representative)].lonLat, popularity: Int(sp.count), request, quality: quality)
            else { continue }
            if out.count >= keep, r >= worstKept { continue }
            // Asked only of a place that would be kept without it ("1 portland ave" marks every
            // avenue of Portland: asked of each, its suggest took 0.7 ms, not 0.2); a rank is a
            // thousand per unit of quality.
            if !typedTownWords.isEmpty, readsTownInsideStreet(words, typedTownWords, prefix: prefix, street: Int(sp.street), town: {
                if let known = towns[sp.locality] { return known }
                let town = AddressText.tokens(localities[Int(sp.locality)].city)
                towns[sp.locality] = town
                return town
            }) {
                r += Self.townInsideStreet * 1_000
                if out.count >= keep, r >= worstKept { continue }
            }
            let l = localities[Int(sp.locality)]
            let text = [addresses.streetDisplay[Int(sp.street)], l.city, l.state].filter { !$0.isEmpty }.joined(separator: ", ")
            out.append((r, c, Suggestion(text: text, type: .street, key: "s\(c)")))
            if out.count > keep * 4 {
                out.sort { $0.rank < $1.rank }
                out.removeLast(out.count - keep)
                worstKept = out.last?.rank ?? worstKept
            }
        }
        return out
    }

    /// Whether street `street` has none of the typed town words `townWords` (indices into `words`)
    /// but a word typed after one of them (or the word `prefix` begun): the town was read inside
    /// the street's words (`townInsideStreet`).
    private func readsTownInsideStreet(_ words: [String], _ townWords: [Int], prefix: WordBegun?, street s: Int, town: () -> [String]) -> Bool {
        func has(_ w: String) -> Bool { streets.has(w, whole: true, street: s) ?? streets.tokens(s).contains(w) }
        guard let first = townWords.first(where: { !has(words[$0]) }) else { return false }
        // A word after it that is the street's and not the town's too ("… Oregon C" begun for
        // Oregon City).
        let town = town()
        guard town.contains(words[first]) else { return false }
        if words[(first + 1)...].contains(where: { has($0) && !town.contains($0) }) { return true }
        guard let prefix else { return false }
        return !town.contains(where: prefix.begins)
            && prefix.starts.contains { w in streets.has(w, whole: false, street: s) ?? streets.tokens(s).contains { $0.hasPrefix(w) } }
    }

    /// Letters of initials one street's words are read with, at most ("M L K", "BHH").
    static let initialLettersRead = 3

    /// A mark per street place: those whose words account for every whole word and the prefix
    /// are marked `constraint`; with how many words matched only through a typo; nil where none
    /// can. Marks, not a list: a one-letter prefix marks thousands, and only a crossing's two
    /// streets need them gathered (ranked off the marks, street suggestions were 1.10 times as
    /// fast at p50 as when every keystroke gathered them: BENCHMARKS.md, "Suggest ranks street
    /// places off their marks again").
    private func streetPlacesMatching(words: [String], prefix: WordBegun?,
                                      _ memo: SuggestMemo) -> (mark: [UInt8], constraint: UInt8, quality: Double)? {
        if let found = streetPlacesMatching(reading: words, prefix: prefix, memo) { return found }
        // "SE Hawthorn Blvd": a word of some street's name misspelt for another's (SE Hawthorne
        // Blvd) matched whole, so its typos were never read and nothing was suggested, though
        // geocode found it. Read once more with such words read through their typos as well.
        if words.contains(where: mayBeRealWordTypo),
           let found = streetPlacesMatching(reading: words, prefix: prefix, memo, realWordTypos: true) { return found }
        // "SE ML King": canonical form read "ML" as the type Mill; read once more with it as the
        // initials it was typed as, only when the text named nothing (suggested nothing before).
        // Not when the reading would pass the letters of initials read: garbage full of short
        // words ("th la wd", "la" read as Lane) was read twice, 2.8 times a crossing's cost
        // (`FuzzFindingsTests.manyInitialsAreNoStreet`).
        guard let initials = Self.typesReadAsInitials(words, then: prefix?.canonical),
              initials.reduce(0, { $0 + (isInitials($1) ? $1.count : 0) }) <= Self.initialLettersRead else { return nil }
        return streetPlacesMatching(reading: initials, prefix: prefix, memo)
    }

    /// A whole word of the index's names that may still be a typo of another's: a name word
    /// long enough to carry one, no directional or type (given, they are evidence) and no number
    /// ("5th" is no typo of "57th").
    private func mayBeRealWordTypo(_ w: String) -> Bool {
        Self.mayCarryTypo(w) && vocabularyID(w) != nil
    }

    /// `mayBeRealWordTypo` but for being a word of the index's names.
    private static func mayCarryTypo(_ w: String) -> Bool {
        w.count >= 4 && !w.contains(where: \.isNumber) && !StreetNameParts.directionals.contains(w)
            && !StreetNameParts.types.contains(w)
    }

    /// `streetPlacesMatching` for one reading of the words; nil as soon as a word leaves no
    /// street place marked. `realWordTypos`: read each `mayBeRealWordTypo` word through its typos.
    private func streetPlacesMatching(reading words: [String], prefix: WordBegun?, _ memo: SuggestMemo,
                                      realWordTypos: Bool = false) -> (mark: [UInt8], constraint: UInt8, quality: Double)? {
        // The words in the order they are read: whole words of the index first (a pass over
        // their postings), then the others shortest first (initials, a pass over the places
        // still marked, or a typo search: the longer the word, the dearer), and real words read
        // through their typos last. Each may leave no place marked, and the dearer need not be
        // read: "…rtland nd rtland&prtlad portland av…" read the typos of every word before
        // initials left nothing (the geocoder fuzzer, 10.3 ms instrumented). Initials with no
        // whole word read before them come last: with nothing listed they are a pass over every
        // street place, and "p" marks most (a town's name begins with it). Read first in the
        // second reading of "po|rtlandnue P portland ortl … ave |rtland", its real word read
        // through typos, they cost that suggest near a bias point 12 ms instrumented (the
        // geocoder fuzzer), though "ortl" after them, initials too many, named nothing.
        let typed = words.prefix(8).map { w in
            let id = vocabularyID(w)
            return (word: w, id: id, throughTypos: id != nil && realWordTypos && Self.mayCarryTypo(w))
        }
        let wholeFirst = typed.contains { $0.id != nil && !$0.throughTypos }
        let read = typed.map { t in
            (t, order: t.id == nil ? (!wholeFirst && isInitials(t.word) ? 2_000 : 1) + t.word.count : t.throughTypos ? 1_000 : 0)
        }.enumerated().sorted { ($0.element.order, $0.offset) < ($1.element.order, $1.offset) }.map(\.element.0)
        // With initials to read, the places still marked, listed: nil before any word is read.
        let listed = read.contains { $0.id == nil && isInitials($0.word) }
        // Initials are read only beside a word of the name or a type (whole, or begun by two
        // letters or more), as geocode reads them only with one: "stc" alone named every street
        // with words of an s, a t and a c, and "stc & t" cost 2.4 ms (the geocoder fuzzer).
        // Worked out only when a word is no street word: most readings have none.
        func initialsHaveCompany() -> Bool {
            (prefix?.canonical.count ?? 0) >= 2 || words.contains { w in
                !StreetNameParts.directionals.contains(w) && vocabularyID(w) != nil
            }
        }
        // "po|rtland … portland ve hr … north tp and 3,6172" read its first eight words twelve
        // times, with each word begun and each split of the rest, 0.2–0.5 ms each: 2.7 ms in
        // release, 11.9 ms in the geocoder fuzzer's instrumented build, the bound 10. Looked up
        // before the marks, a place each, are made.
        let reading = SuggestMemo.StreetWordsReading(words: typed.map(\.word), realWordTypos: realWordTypos,
                                                     initialsHaveCompany: listed && initialsHaveCompany())
        if memo.readingsNamingNothing.contains(reading) { return nil }
        func namesNothing() -> (mark: [UInt8], constraint: UInt8, quality: Double)? {
            memo.readingsNamingNothing.insert(reading)
            return nil
        }
        var mark = [UInt8](repeating: 0, count: streetPlaces.count)
        var quality = 0.0
        var constraint: UInt8 = 0
        // Street places marked for the word at `constraint`: none left, none can be later.
        var reached = 0
        var current: [Int32]?, next: [Int32] = []
        // Marks the street places of these words as matching the word at `constraint`.
        // (Counted and listed in locals: the captured variables cost an exclusivity check each.)
        func take(_ wordIDs: some Sequence<Int>) {
            let (from, to) = (constraint, constraint + 1)
            var count = 0, list: [Int32] = []
            mark.withUnsafeMutableBufferPointer { m in
                for w in wordIDs {
                    for sp in streetPlaces(withWord: w) where m.indices.contains(Int(sp)) && m[Int(sp)] == from {
                        m[Int(sp)] = to
                        count += 1
                        if listed { list.append(sp) }
                    }
                }
            }
            reached += count
            if listed { next += list }
        }
        func apply(_ wordIDs: some Sequence<Int>) -> Bool {
            take(wordIDs)
            constraint += 1
            if listed { (current, next) = (next, []) }
            defer { reached = 0 }
            return reached > 0
        }
        var initialLetters = 0
        // Marks the street places still marked that have a word beginning with each of these
        // letters, by their words' first letters (`streetPlaceInitials`). Before, each letter was
        // a pass over the postings of every word it begins ("s" and "p" begin SE, SW, St and
        // Portland, most places' words): "stc pond & 2" took 1.9 ms, 10.5 ms instrumented (the
        // geocoder fuzzer).
        let initials = listed ? streetPlaceInitials : []
        func applyInitials(_ letters: UInt32) -> Bool {
            let (from, to) = (constraint, constraint + 1)
            var list: [Int32] = []
            mark.withUnsafeMutableBufferPointer { m in
                let places = current ?? []
                for j in 0..<(current == nil ? m.count : places.count) {
                    let k = current == nil ? j : Int(places[j])
                    guard m.indices.contains(k), k < initials.count, m[k] == from, initials[k] & letters == letters else { continue }
                    m[k] = to
                    list.append(Int32(k))
                }
            }
            reached += list.count
            next += list
            return apply(EmptyCollection<Int>())
        }
        for (w, id, throughTypos) in read {
            if let i = id {
                if throughTypos, case let fuzzy = memo.fuzzyWords(w, in: self), !fuzzy.isEmpty {
                    quality += 1
                    guard apply([i] + fuzzy.map { Int($0.0) }) else { return namesNothing() }
                    continue
                }
                guard apply([i]) else { return namesNothing() }
            } else {
                // A misspelt whole word: every word within the allowance.
                let fuzzy = memo.fuzzyWords(w, in: self)
                if fuzzy.isEmpty, isInitials(w), initialsHaveCompany() {
                    // Initials ("SE M L King", "TV Hwy"): each letter a word of the street begins
                    // with, as geocode reads them (`initialsCores`). Suggest had nothing for them.
                    // A name has a few ("M L K"); garbage of many ("th la wd … wi") took 2.6 ms
                    // (the geocoder fuzzer) and names no street.
                    initialLetters += w.count
                    guard initialLetters <= Self.initialLettersRead else { return namesNothing() }
                    quality += 0.5
                    var letters: UInt32 = 0
                    for b in w.utf8 { letters |= Self.initialBit(b) }
                    guard applyInitials(letters) else { return namesNothing() }
                    continue
                }
                guard !fuzzy.isEmpty else { return namesNothing() }
                quality += 1
                guard apply(fuzzy.map { Int($0.0) }) else { return namesNothing() }
            }
        }
        if let prefix {
            let ranges = prefix.starts.map { wordsWithPrefix($0) }, named = prefix.words.compactMap(vocabularyID)
            if ranges.contains(where: { !$0.isEmpty }) || !named.isEmpty {
                for r in ranges { take(r) }
                guard apply(named) else { return nil }
            } else {
                guard prefix.canonical.count >= 4 else { return nil }
                quality += 1
                guard apply(memo.fuzzyPrefixWords(prefix.canonical, in: self)) else { return nil }
            }
        }
        guard constraint > 0 else { return nil }
        return (mark, constraint, quality)
    }

    /// Street places of the first street of a crossing read, most addresses first: "16th &"
    /// names a 16th in every town and quarter that has one. (The dev street trees' crossings
    /// typed as the city typed them, "16TH & NW RALEIGH ST": at 12, 111 of the 139 geocode
    /// answers as crossings were suggested by the end of the text; NW 16th Ave was not among
    /// the dozen 16ths with most addresses.)
    static let crossingFirstPlaces = 64
    /// Street places the first street of a crossing may name, at most: more is no one street but
    /// a town's name ("portlnd & portlnd", the geocoder fuzzer: Portland's name is a word of 4,281
    /// places; with the pairs bounded, that crossing still took 2.6–2.9 ms). The dev street
    /// trees' crossings typed key by key (`scripts/crossing_suggestions.py`) name 246 at most.
    static let crossingFirstStreetPlaces = 1_000
    /// Pairs of streets whose crossings are worked out (as geocode works them out, from both
    /// streets' points), most likely first: each costs about what geocoding one crossing does
    /// (0.2–1 ms), and a keystroke has 2 ms.
    static let crossingPairsRead = 3
    /// Address points of the pairs of streets read beyond the first pair, at most: a name in
    /// thirty towns ("Main St") brings every town's points into each of its pairs.
    static let crossingPointsRead = 3_000
    /// Pairs of street places tested for a crossing (same town, not parallel, boxes that meet),
    /// at most: the first street's places are cut to the ones with most addresses until the
    /// second's times them fit. A town's name read as both streets ("portland & p", the geocoder
    /// fuzzer) names every street of the town on each side: 64 × 5,985 tests, 3–5 ms. The dev
    /// trees' crossings typed key by key test 140 pairs at the median and 9,400 at the 90th
    /// percentile; the few over the bound (136,000 at most) are one letter into the second
    /// street, where two of 2,515 keystrokes now suggest otherwise after the same first.
    static let crossingPairsTested = 50_000

    /// Where two streets typed with "&", "@", "and" or "at" between them meet ("NE 34th &
    /// Killings", "Killingsworth and NE 3"): the first street's words whole, the second's last
    /// word begun. Of each pair of street places in one town that are not two streets within
    /// `continuationTurn` of parallel (`crossingAxisSpan`) and come within `crossingGap`, the
    /// likeliest pairs' crossings in that town, keyed as geocode keys them; where none meets, the
    /// pairs whose points stop short of each other (`crossingApartGap`). Typed so, the list
    /// emptied at the "&" (the words of two streets are no one street's), though geocode found
    /// the crossing.
    /// `typed`: the text's tokens, the word being typed left out.
    private func crossingSuggestions(typed: ArraySlice<String>, prefix: WordBegun?, _ request: SuggestContext) -> [(Double, Suggestion)] {
        let skipped: Set<String> = ["#", "&", "@"]
        guard let i = typed.firstIndex(where: AddressParser.crossingWords.contains), i > typed.startIndex else { return [] }
        let first = AddressText.streetTokens(typed[..<i].filter { !skipped.contains($0) })
        let second = AddressText.streetTokens(typed[(i + 1)...].filter { !skipped.contains($0) })
        // Each street named by more than its directionals and type: "n & n", "st & st" name every
        // street of a quarter or a type on both sides (the geocoder fuzzer: "N & N", 10.6 ms of CPU
        // instrumented); a second street's name is waited for ("N Lombard & N").
        guard StreetNameParts.namesMoreThanDirectionalAndType(first),
              StreetNameParts.namesMoreThanDirectionalAndType(second + (prefix.map { [$0.canonical] } ?? [])),
              let (ones, oneMark, oneQuality) = streetPlacesMatching(words: first, prefix: nil, request.memo) else { return [] }
        // The first street's places with most addresses, kept in a short list as they come (sorting
        // every place "st &" names was a twentieth of its suggest).
        var firsts: [(place: Int, locality: Int32, count: Int32)] = []
        // Plain loops over the marks: a lazy filter (a closure call per street place, Portland's
        // 60,000) cost a crossing's suggest most of a millisecond.
        var oneCount = 0
        for k in ones.indices where ones[k] == oneMark {
            oneCount += 1
            let sp = streetPlaces[k]
            guard firsts.count < Self.crossingFirstPlaces || sp.count > firsts[firsts.count - 1].count else { continue }
            let at = firsts.firstIndex { sp.count > $0.count } ?? firsts.count
            firsts.insert((k, sp.locality, sp.count), at: at)
            if firsts.count > Self.crossingFirstPlaces { firsts.removeLast() }
        }
        guard !firsts.isEmpty, oneCount <= Self.crossingFirstStreetPlaces,
              let (others, otherMark, otherQuality) = streetPlacesMatching(words: second, prefix: prefix, request.memo) else { return [] }
        var otherCount = 0
        for k in others.indices where others[k] == otherMark { otherCount += 1 }
        if otherCount * firsts.count > Self.crossingPairsTested {
            firsts.removeLast(firsts.count - max(1, min(firsts.count, Self.crossingPairsTested / max(1, otherCount))))
        }
        let axes = gridTable.axes
        let boxes = streetPlaceBoxes
        // One scale for the gaps: a town's streets lie within a fraction of a degree. (An empty
        // box's latitude is infinite, and would make every gap NaN.)
        let scale = LocalMetricScale(latitude: firsts.lazy.map { boxes[$0.place] }.first { !$0.isEmpty }?.minY ?? 0)
        let apartGap = Self.crossingApartGap * Self.crossingApartGap
        // The first street's places as the pair test reads them, side by side by town, each box
        // also widened by the gap two streets' points may stop apart (a little more, for rounding):
        // a pair is then tested on values at hand, the gap in metres worked out only for boxes
        // within that reach. Read through the place tables for every pair, 50,000 pairs (a town's
        // name on both sides, "portland t & ortland": every street of the town on each) took half
        // of that keystroke's 1.7 ms; the answers are the same pairs in the same order.
        let reachX = Self.crossingApartGap * 1.001 / scale.metresPerDegreeX
        let reachY = Self.crossingApartGap * 1.001 / scale.metresPerDegreeY
        var firstsIn: [Int32: [PairTestPlace]] = [:]
        for (k, town, count) in firsts where !boxes[k].isEmpty {
            firstsIn[town, default: []].append(PairTestPlace(place: k, street: streetPlaces[k].street, count: count, box: boxes[k],
                                                             reach: boxes[k].expanded(x: reachX, y: reachY), axis: axes[k]))
        }
        let parallel = cos(Self.continuationTurn * .pi / 180)
        let quality = oneQuality + otherQuality
        // The likeliest pairs, trimmed as they come (a prefix of one letter names thousands):
        // those whose points come near each other, and apart those whose points stop short of
        // each other but whose lines geocode may still meet beyond them (`crossingBeyondPoints`).
        var near = LikeliestPairs(keep: Self.crossingPairsRead * 4)
        var apart = LikeliestPairs(keep: Self.crossingPairsRead * 4)
        for b in others.indices where others[b] == otherMark {
            let sb = streetPlaces[b]
            let eb = boxes[b]
            guard let inTown = firstsIn[sb.locality], !eb.isEmpty else { continue }
            let y = PairTestPlace.Direction(axes[b])
            for a in inTown where a.reach.intersects(eb) && a.street != sb.street {
                if let x = a.direction, let y, abs(x.east * y.east + x.north * y.north) >= parallel { continue }
                let meets = a.box.intersects(eb)
                guard meets || a.box.squaredGap(to: eb, scale: scale) <= apartGap else { continue }
                // Where the boxes meet (or the gap between them), worked out only where the rank
                // needs it.
                guard let r = rank(a.box.middle(with: eb), popularity: Int(a.count) + Int(sb.count), request, quality: quality) else { continue }
                if meets { near.take(a.place, b, r) } else { apart.take(a.place, b, r) }
            }
        }
        let found = readCrossings(near.best, quality: quality, request)
        // Only when no pair whose points come near meets: such a pair is read first by geocode
        // too, and reading the others costs a keystroke up to as much again.
        return found.isEmpty ? readCrossings(apart.best, quality: quality, request) : found
    }

    /// How long (metres) a street place's points must run before the way its numbers rise
    /// (`StreetAxis`) is taken for the way it runs, in telling streets side by side from streets
    /// that cross. N Russell St's 170 m of points, whose numbers jump, rise north-north-west along
    /// an east–west street: read as parallel to N Williams Ave and N Flint Ave, its crossings with
    /// them (points 37 m apart) were suggested for no letter typed. Streets side by side ("NE 34th
    /// Ave & NE 33") run kilometres.
    static let crossingAxisSpan = 400.0

    /// How far apart (metres between their boxes, each already `crossingGap` wider) two streets'
    /// points may stop and still be read for a crossing where their lines meet: the most
    /// `crossingBeyondPoints` looks beyond either's points. Pairs whose points come no nearer
    /// were left out, so "NE 1st Ave & NE Broadway" (their lines meet 389 m beyond their points)
    /// and "SE Clay St & SE M L King Blvd" (524 m) were suggested for no letter typed, though
    /// geocode found them.
    static let crossingApartGap = 2 * beyondPointsReach - crossingGap

    /// A first street's place in the crossing pair test: its street, size and box, the box
    /// widened by `crossingApartGap`, and the way it runs where that is read as its direction.
    private struct PairTestPlace {
        /// The way a street place runs, where its points run `crossingAxisSpan` or more.
        struct Direction {
            let east: Double
            let north: Double

            init?(_ axis: StreetAxis?) {
                guard let axis, axis.span >= AddressSearch.crossingAxisSpan else { return nil }
                (east, north) = (axis.east, axis.north)
            }
        }

        let place: Int
        let street: Int32
        let count: Int32
        let box: Envelope
        let reach: Envelope
        let direction: Direction?

        init(place: Int, street: Int32, count: Int32, box: Envelope, reach: Envelope, axis: StreetAxis?) {
            (self.place, self.street, self.count, self.box, self.reach) = (place, street, count, box, reach)
            direction = Direction(axis)
        }
    }

    /// The likeliest pairs of street places for a crossing, kept as they come: the best `keep`
    /// by rank, trimmed when four times as many have come.
    private struct LikeliestPairs {
        let keep: Int
        private(set) var pairs: [(a: Int, b: Int, rank: Double)] = []
        private var worstKept = Double.infinity

        init(keep: Int) { self.keep = keep }

        mutating func take(_ a: Int, _ b: Int, _ r: Double) {
            guard pairs.count < keep || r < worstKept else { return }
            pairs.append((a, b, r))
            if pairs.count > keep * 4 {
                pairs.sort { ($0.rank, $0.a, $0.b) < ($1.rank, $1.a, $1.b) }
                pairs.removeLast(pairs.count - keep)
                worstKept = pairs.last?.rank ?? worstKept
            }
        }

        var best: [(a: Int, b: Int, rank: Double)] { pairs.sorted { ($0.rank, $0.a, $0.b) < ($1.rank, $1.a, $1.b) } }
    }

    /// The crossings of `pairs` (likeliest first) as suggestions, each pair of streets read once
    /// (a pair meets in several towns), the first whatever its size, the others while the points
    /// read stay within `crossingPointsRead`.
    private func readCrossings(_ pairs: [(a: Int, b: Int, rank: Double)], quality: Double, _ request: SuggestContext) -> [(Double, Suggestion)] {
        var read: [Int64: [ScoredMatch]] = [:]
        var pointsRead = 0
        var out: [(Double, Suggestion)] = []
        for (a, b, _) in pairs {
            let (sa, sb) = (streetPlaces[a].street, streetPlaces[b].street)
            let pair = Int64(sa) << 32 | Int64(sb)
            if read[pair] == nil {
                let points = addresses(onStreet: sa).count + addresses(onStreet: sb).count
                guard read.count < Self.crossingPairsRead, read.isEmpty || pointsRead + points <= Self.crossingPointsRead else { continue }
                pointsRead += points
                read[pair] = intersectionMatches(sa, sb, penalty: 0, notes: [], ParsedAddress(), memo: request.memo.geocode)
            }
            let town = streetPlaces[a].locality
            guard let m = read[pair]?.first(where: { locality(ofPlace: $0.place) == town }),
                  let r = rank(m.location, popularity: Int(streetPlaces[a].count) + Int(streetPlaces[b].count), request,
                               quality: quality) else { continue }
            let l = localities[Int(town)]
            let text = [m.components.street, l.city, l.state].filter { !$0.isEmpty }.joined(separator: ", ")
            out.append((r, Suggestion(text: text, type: .intersection, key: m.key)))
        }
        return out
    }

    /// The bit of a letter a–z in `streetPlaceInitials`; none for anything else.
    static func initialBit(_ byte: UInt8) -> UInt32 {
        byte >= 0x61 && byte <= 0x7A ? 1 << UInt32(byte - 0x61) : 0
    }

    /// `streetPlaceInitialTable`, made on first use or by `prepare` (every posting read once):
    /// a street place has a word beginning with a letter where its bit is set.
    var streetPlaceInitials: [UInt32] {
        streetPlaceInitialTable.value {
            var initials = [UInt32](repeating: 0, count: streetPlaces.count)
            for w in vocabulary.indices {
                guard let first = vocabulary.utf8(w).first, case let bit = Self.initialBit(first), bit != 0 else { continue }
                for sp in streetPlaces(withWord: w) where initials.indices.contains(Int(sp)) { initials[Int(sp)] |= bit }
            }
            return initials
        }
    }

    /// `streetPlaceBoxTable`, made on first use or by `prepare` (every address read once). Read
    /// from the points for each query, the boxes of the streets a prefix names were most of a
    /// crossing's suggestions ("Main St & S": 12 ms).
    var streetPlaceBoxes: [Envelope] {
        streetPlaceBoxTable.value {
            let points = addresses.points
            var boxes = [Envelope](repeating: .empty, count: streetPlaces.count)
            for s in 0..<streets.count {
                for (k, run) in zip(places(ofStreet: Int32(s)), addressRuns(onStreet: Int32(s))) where k >= 0 && k < boxes.count {
                    var e = Envelope.empty
                    for a in run { e.extend(x: points[Int(a)].lon, y: points[Int(a)].lat) }
                    guard !e.isEmpty else { continue }
                    let scale = LocalMetricScale(latitude: e.minY)
                    let (dx, dy) = (Self.crossingGap / 2 / scale.metresPerDegreeX, Self.crossingGap / 2 / scale.metresPerDegreeY)
                    boxes[k] = e.expanded(x: dx, y: dy)
                }
            }
            return boxes
        }
    }

    /// A numbered route typed otherwise than the index writes it ("US 26", "OR-213" for "Highway
    /// 26", "Highway 213"): the streets of the index's names of that route that geocode reads it as
    /// (`RouteName`, `coresByRoute`), each ranked as many points behind a street matched as typed
    /// as geocode scores it. The number is read once typed whole ("US 2" does not yet suggest
    /// route 26). Typed so, a route suggested nothing, though geocode found it.
    private func routeSuggestions(words: [String], prefix: WordBegun?,
                                  _ request: SuggestContext) -> [(rank: Double, place: Int, suggestion: Suggestion)] {
        var typed = words + (prefix.map { [$0.canonical] } ?? [])
        var directional: [String] = []
        if let first = typed.first, StreetNameParts.directionals.contains(first) {
            directional = [first]
            typed.removeFirst()
        }
        guard let route = RouteName(core: AddressText.streetTokens(typed)), let named = coresByRoute[route.lookupKey] else { return [] }
        var out: [(rank: Double, place: Int, suggestion: Suggestion)] = []
        for (core, other) in named {
            guard let cost = route.cost(naming: other) else { continue }
            for var found in streetSuggestions(words: directional + core.split(separator: " ").map(String.init), prefix: nil, request) {
                found.rank += cost * 1_000
                out.append(found)
            }
        }
        return out
    }

    /// Vocabulary words that begin with something one edit from `prefix`.
    ///
    /// Every string one edit (delete, substitute, insert, transpose) from `prefix`, each looked
    /// up among the words that begin with what comes before its edit, and none whose edit comes
    /// after a beginning no word has: "portlnd" made 550 variants, each a search of the whole
    /// vocabulary (0.7 ms, most of a crossing typed as "broadway & portlnd"; the geocoder fuzzer).
    ///
    /// An ASCII prefix's variants are bytes, reused, looked up on the words' bytes
    /// (`wordsWithPrefix(ascii:within:)`): with a String made and hashed per variant and every
    /// word compared decoded, the search was 34 % of a server's samples on "broadway & portlnd";
    /// 10 % now, the text answered in 0.62–0.71 of the time, and suggest's p99 over 5,438
    /// keystrokes typed with a typo 0.76–0.84 of what it was (BENCHMARKS.md, "A misspelt
    /// prefix's variants on bytes").
    func fuzzyPrefixWords(_ prefix: String) -> [Int] {
        // Every variant is at least this long, and no word is longer.
        guard prefix.count - 1 <= longestWord else { return [] }
        if prefix.utf8.allSatisfy({ $0 < 0x80 }) {
            return fuzzyPrefixWords(Array(prefix.utf8), alphabet: Self.editBytes) { v, r in
                v.withUnsafeBytes { wordsWithPrefix(ascii: $0, within: r) }
            }
        }
        return fuzzyPrefixWords(Array(prefix), alphabet: Self.editAlphabet) { v, r in wordsWithPrefix(String(v), within: r) }
    }

    private func fuzzyPrefixWords<Unit: Equatable>(_ chars: [Unit], alphabet: [Unit],
                                                    _ beginning: ([Unit], Range<Int>) -> Range<Int>) -> [Int] {
        // heads[i]: the words that begin with the first i characters, while some do.
        var heads = [0..<vocabulary.count]
        while heads.count <= chars.count, case let r = beginning(Array(chars[..<heads.count]), heads[heads.count - 1]), !r.isEmpty {
            heads.append(r)
        }
        var ids = Set<Int>()
        // One buffer for the variants of one length, one for the others: an array made per
        // variant was most of their cost. A variant made twice is looked up twice (cheaper than
        // remembering which were).
        var same = chars, other: [Unit] = []
        other.reserveCapacity(chars.count + 1)
        func look(_ variant: [Unit], editAt i: Int) { ids.formUnion(beginning(variant, heads[i])) }
        for i in 0..<min(chars.count, heads.count) {
            other.removeAll(keepingCapacity: true)
            other += chars[..<i]
            other += chars[(i + 1)...]
            look(other, editAt: i)
            for c in alphabet where c != chars[i] {
                same[i] = c
                look(same, editAt: i)
            }
            same[i] = chars[i]
            if i + 1 < chars.count {
                same.swapAt(i, i + 1)
                look(same, editAt: i)
                same.swapAt(i, i + 1)
            }
        }
        for i in 0..<min(chars.count + 1, heads.count) {
            for c in alphabet {
                other.removeAll(keepingCapacity: true)
                other += chars[..<i]
                other.append(c)
                other += chars[i...]
                look(other, editAt: i)
            }
        }
        return ids.sorted()
    }

    /// What a typo in a prefix may have replaced or dropped: a letter or digit of a name, as
    /// `Character`s and as the same bytes (the ASCII path).
    static let editAlphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
    static let editBytes = editAlphabet.compactMap(\.asciiValue)

    /// Does one of the words begin with `prefix`, or with something one edit from it (4+ letters)?
    func prefixMatches(_ prefix: String, in words: [String]) -> (matched: Bool, typo: Bool) {
        if words.contains(where: { $0.hasPrefix(prefix) }) { return (true, false) }
        guard prefix.count >= 4 else { return (false, false) }
        for w in words where w.count >= prefix.count - 1 {
            for n in [prefix.count - 1, prefix.count, prefix.count + 1] where n <= w.count {
                if EditDistance.distance(prefix, String(w.prefix(n)), limit: 1) != nil { return (true, true) }
            }
        }
        return (false, false)
    }

    /// A state's code to its one-word names ("or" → "oregon"): a whole address typed into a search
    /// box names the state so ("…, Portland, Oregon 97211"), and suggest had nothing for it.
    static let stateNames: [String: [String]] = {
        var out: [String: [String]] = [:]
        for (name, code) in AddressVocabulary.states where name.count > 2 && !name.contains(" ") && !name.contains(".") {
            out[code, default: []].append(name)
        }
        return out
    }()

    /// The states named in two words or more ("new york", "north carolina", "district of
    /// columbia"), as their typed words are read (`AddressText.tokens`), with their codes.
    static let multiWordStates: [(words: [String], code: String)] =
        AddressVocabulary.states.filter { $0.key.contains(" ") }.map { (AddressText.tokens($0.key), $0.value) }.sorted { $0.code < $1.code }

    /// The codes of the states of several words (`multiWordStates`) whose name the words at
    /// `k` belong to: the name's words one after another in `typed`, each whole, or begun where
    /// `begun` says the word at that position is still being typed, the name itself cut short
    /// where the text ends ("…, Raleigh, North Car").
    static func multiWordStates(at k: Int, of typed: [String], begun: (Int) -> WordBegun?) -> [String] {
        var out: [String] = []
        for (name, code) in multiWordStates where !out.contains(code) {
            for t in name.indices where k - t >= 0 {
                let start = k - t
                let fits = name.indices.allSatisfy { j in
                    let i = start + j
                    guard i < typed.count else { return true }
                    return begun(i).map { $0.begins(name[j]) } ?? (typed[i] == name[j])
                }
                if fits {
                    out.append(code)
                    break
                }
            }
        }
        return out
    }

    /// The states whose one-word name begins with each beginning ("ore" → "or"): a lookup per
    /// keystroke, where scanning the names was a tenth of suggest.
    static let statesByNamePrefix: [String: [String]] = {
        var out: [String: [String]] = [:]
        for (code, names) in stateNames {
            for name in names {
                for n in 1...name.count { out[String(name.prefix(n)), default: []].append(code) }
            }
        }
        return out
    }()

    /// Addresses with this number whose street, city and postcode account for every word typed
    /// after it, the last one as a prefix.
    private func addressSuggestions(number: Int32, tail: NumberTail?, words: [String], prefix: WordBegun?,
                                    _ request: SuggestContext) -> (found: [(Double, Suggestion)], townOutside: Bool) {
        guard let list = byNumber[number] else { return ([], false) }
        // Per suffix id (an index has a few dozen): nil where the tail rules an address out, else
        // what it adds to the quality.
        let tailQuality = tail.map { t in addresses.suffixes.map { t.quality(ofSuffix: $0) } }
        var best = BestAddresses(count: request.maxResults)
        // Word k (the prefix is word `words.count`) against a street or a place: matched whole
        // (or begun, for the prefix), a typo of one of its words, or neither.
        let typed = words + (prefix.map { [$0.canonical] } ?? [])
        let isPrefix = { (k: Int) in prefix != nil && k == typed.count - 1 }
        // A word too short to carry a typo matches whole or not at all; so does one with a digit
        // ("34th" is not a typo of "44th", "97211" not of "97212") and a directional ("northeast"
        // is two edits from "southeast", but the user who typed NE meant it).
        let mayBeTypo = typed.indices.map { k in
            let w = typed[k]
            return w.count >= (isPrefix(k) ? 4 : 3) && !w.contains(where: \.isNumber)
                && !AddressVocabulary.fullDirectionals.contains(where: { isPrefix(k) ? $0.hasPrefix(w) : $0 == w })
        }
        // Whole words that can only be initials ("m", "tv"), or a type read from initials before
        // a word of the name ("1800 NE ML King": "ml" read as Mill), as their letters; told once
        // per query rather than per street run of the number (a vocabulary lookup each).
        let typesAsInitials = Self.typesReadAsInitials(words, then: prefix?.canonical)
        let initialsTyped: [String?] = typed.indices.map { k in
            guard !isPrefix(k) else { return nil }
            if isInitials(typed[k]) { return typed[k] }
            return typesAsInitials.flatMap { $0[k] != typed[k] ? $0[k] : nil }
        }
        // A number's addresses come street by street, each street in many cities: a street's
        // verdicts are worked out once per run of its addresses, a place's once per query, each
        // word only when it comes to it. Per address, that leaves reading two ids and two arrays
        // (looked up per address in a hash table of verdicts instead, suggest's p50 at 30×
        // Portland was 0.29 ms, not 0.25 ms: `locus-bench scale`).
        var runStreet = UInt32.max
        var streetVerdicts = [Verdict](repeating: .unknown, count: typed.count)
        var decoded: [String]?
        func streetTokens() -> [String] {
            if let decoded { return decoded }
            let t = streets.tokens(Int(runStreet))
            decoded = t
            return t
        }
        func streetVerdict(_ k: Int) -> Verdict {
            if streetVerdicts[k] != .unknown { return streetVerdicts[k] }
            let w = typed[k], whole = !isPrefix(k), s = Int(runStreet)
            func has(_ w: String, whole: Bool) -> Bool {
                streets.has(w, whole: whole, street: s) ?? streetTokens().contains(where: { whole ? $0 == w : $0.hasPrefix(w) })
            }
            var v: Verdict
            let matched: Bool
            if whole {
                matched = has(w, whole: true)
            } else if let prefix {
                matched = prefix.starts.contains { has($0, whole: false) } || prefix.words.contains { has($0, whole: true) }
            } else {
                matched = false
            }
            if matched {
                v = .matched
            } else if mayBeTypo[k],
                      (whole ? streets.hasTypo(of: w, street: s) : streets.hasPrefixTypo(w, street: s)) ?? typo(w, whole: whole, in: streetTokens()) {
                v = .typo
            } else if let letters = initialsTyped[k], letters.allSatisfy({ has(String($0), whole: false) }) {
                // Initials ("1800 SE M L King"), each letter the beginning of a word of the street,
                // ranked as a typo is.
                v = .typo
            } else {
                v = .none
            }
            streetVerdicts[k] = v
            return v
        }
        // The states each word names in full ("oregon", "oreg" begun), told once per word when a
        // place first needs it, not per place (a dictionary lookup per place and word, or a scan
        // of the states' names per keystroke, cost suggest's p50 about a tenth).
        var statesNamedMemo = [[String]?](repeating: nil, count: typed.count)
        func statesNamed(_ k: Int) -> [String] {
            if let known = statesNamedMemo[k] { return known }
            let w = typed[k]
            var out: [String] = []
            if w.count > 2, !w.contains(where: \.isNumber) {
                if !isPrefix(k) {
                    out = AddressVocabulary.states[w].map { [$0] } ?? []
                } else {
                    // Three letters or more: "ne" begun is northeast, not Nebraska.
                    for start in prefix?.starts ?? [w] where start.count >= 3 {
                        for code in Self.statesByNamePrefix[start] ?? [] where !out.contains(code) { out.append(code) }
                    }
                }
            }
            // "…, Raleigh, North Carolina", "…, Albany, New Y": each word of the state's name.
            for code in Self.multiWordStates(at: k, of: typed, begun: { isPrefix($0) ? prefix : nil }) where !out.contains(code) {
                out.append(code)
            }
            statesNamedMemo[k] = out
            return out
        }
        var placeVerdicts: [[Verdict]] = Array(repeating: [], count: typed.count)
        var cityTypos: [[Int32: Bool]] = Array(repeating: [:], count: typed.count)
        func placeVerdict(_ k: Int, _ place: Int) -> Verdict {
            if placeVerdicts[k].isEmpty { placeVerdicts[k] = Array(repeating: .unknown, count: placeTokens.count) }
            guard place < placeVerdicts[k].count else { return .none }
            if placeVerdicts[k][place] != .unknown { return placeVerdicts[k][place] }
            let w = typed[k], whole = !isPrefix(k), placeWords = placeTokens[place]
            // The state as well: an address typed whole ("… Portland OR 97211") still suggests it.
            let state = place < addresses.places.count ? addresses.places[place].state.lowercased() : ""
            var v: Verdict
            let matched: Bool, stateName: Bool
            if whole {
                // "LA" and "NE" typed are read as "lane" and "northeast" (`AddressText.canonical`).
                matched = placeWords.contains(w) || w == state || (!state.isEmpty && w == AddressText.canonical(state))
                stateName = !state.isEmpty && statesNamed(k).contains(state)
            } else if let prefix {
                matched = placeWords.contains { prefix.begins($0) } || (!state.isEmpty && prefix.starts.contains { state.hasPrefix($0) })
                stateName = !state.isEmpty && statesNamed(k).contains(state)
            } else {
                matched = false
                stateName = false
            }
            if matched {
                v = .matched
            } else if stateName {
                v = .stateName
            } else if mayBeTypo[k] {
                // A city's words are the place's but its ZIP code (the last), shared by its places.
                let city = place < placeLocality.count ? placeLocality[place] : -1
                let cityTypo = cityTypos[k][city] ?? typo(w, whole: whole, in: Array(placeWords.dropLast()))
                cityTypos[k][city] = cityTypo
                v = cityTypo || typo(w, whole: whole, in: Array(placeWords.suffix(1))) ? .typo : .none
            } else {
                v = .none
            }
            placeVerdicts[k][place] = v
            return v
        }
        let points = addresses.points
        // Whether an address was offered with no town read inside the street's words.
        var townOutside = false
        for a in list {
            let i = Int(a)
            let s = points.street(i), place = Int(points.place(i))
            // As `PointTable` reads a damaged coordinate: 0.
            let lon = points.lon(i), lat = points.lat(i)
            let location = GeoPoint(x: abs(lon) <= 180 ? lon : 0, y: abs(lat) <= 90 ? lat : 0)
            // The best this address could rank is with every word matched whole. The list is in
            // the order ties are broken in, so without a bias point (where that best is the same
            // for all) the first few matched whole end the search: "6132 " stops after five of the
            // thousands of 6132s at 30× Portland.
            guard let floor = rank(location, popularity: 1, request, quality: 0) else { continue }
            let key = BestAddresses.Candidate(rank: floor, address: i, street: s, suffix: points.suffix(i))
            guard best.admits(key) else {
                if request.near == nil { break }
                continue
            }
            if s != runStreet {
                runStreet = s
                decoded = nil
                for k in streetVerdicts.indices { streetVerdicts[k] = .unknown }
            }
            var quality = 0.0
            if let tailQuality {
                let suffix = Int(points.suffix(i))
                guard suffix < tailQuality.count, let q = tailQuality[suffix] else { continue }
                quality = q
            }
            var ok = true
            // Whether the word before matched the place: a state's name is the state only after
            // the town or ZIP code ("… Portland Oregon"); "7533 NE Oregon St" is no 7533 of every
            // Oregon street.
            var afterPlace = false
            // Whether a word was read as the town rather than the street, and then the street's
            // words went on (`townInsideStreet`).
            var townRead = false, townInside = false
            for k in typed.indices {
                let onStreet = streetVerdict(k)
                // A word of the town's too goes on with it ("… Oregon C" begun for Oregon City).
                if onStreet == .matched, townRead, placeVerdict(k, place) != .matched {
                    quality += Self.townInsideStreet
                    townInside = true
                    townRead = false
                }
                if onStreet == .matched {
                    afterPlace = false
                    continue
                }
                let inPlace = placeVerdict(k, place)
                if inPlace == .matched || (inPlace == .stateName && afterPlace) {
                    afterPlace = true
                    townRead = townRead || inPlace == .matched
                    continue
                }
                afterPlace = false
                if onStreet == .typo || inPlace == .typo {
                    quality += 1
                } else {
                    ok = false
                    break
                }
            }
            guard ok else { continue }
            guard let r = rank(location, popularity: 1, request, quality: quality) else { continue }
            townOutside = townOutside || !townInside
            best.offer(.init(rank: r, address: i, street: s, suffix: key.suffix))
        }
        // Only what is shown is formatted: "6132 " names every 6132 in every city, and formatting
        // them all was a quarter of a suggest at 30× Portland (`locus-bench scale`).
        return (best.kept.map { ($0.rank, Suggestion(text: addresses.components(of: $0.address).formatted, type: .address, key: "a\($0.address)")) },
                townOutside)
    }

    /// What reading a word as the town costs where a word of the street follows it: "SE Milwaukie
    /// Ave" read as SE [Milwaukie] Ave, any SE avenue of the town Milwaukie, where people type
    /// the town after the street. Half a typo: such a reading still comes before one through a
    /// typo, but after the street whose name has the word (SE Milwaukie Ave, SW Tualatin Ave:
    /// "SW Tualatin Ave" suggested ten avenues of Tualatin, not it).
    static let townInsideStreet = 0.5

    /// Streets a number that is no address point is placed on, per keystroke. Each placement is
    /// the geocoder's in one street's city (`placeNumber`); the bounded fuzz found "97…1" at 10–15 ms
    /// of CPU (fuzz build, 10 ms bound) when every street suggested (up to `max_results`) was
    /// geocoded as text, every street beginning with "1" a numbered one.
    static let placedNumberStreets = 3

    /// A number that is no address point of the streets typed, placed on the best few of them as
    /// geocode places it (between or beyond the street's known numbers): what picking it answers.
    /// The points are a building import and many real addresses are none (a fifth of the street
    /// trees' recorded ones): "5331 N Kerby Ave" suggested nothing, though geocode places it.
    /// Asked only when no address point matches. Where no street can place the number, the
    /// streets themselves are suggested, as geocode answers them (`street`, "6806 SW Virginia
    /// Ave" → SW Virginia Ave at 80): the list was empty for 7 of 2,000 of the street trees'
    /// recorded addresses typed whole, though geocode answered each.
    private func placedNumberSuggestions(_ digits: String, words: [String], prefix: WordBegun?,
                                         _ request: SuggestContext) -> [(Double, Suggestion)] {
        guard var number = HouseNumber(parsing: digits) else { return [] }
        number.value = numberAsIndexed(number.value)
        var streets = streetSuggestions(words: words, prefix: prefix, request) + routeSuggestions(words: words, prefix: prefix, request)
        streets.sort { ($0.rank, $0.suggestion.text) < ($1.rank, $1.suggestion.text) }
        var out: [(Double, Suggestion)] = []
        for (rank, c, _) in streets.prefix(min(request.maxResults, Self.placedNumberStreets)) {
            let place = streetPlaces[c]
            // Of the query, placing reads only the town (its penalty): the street's own city.
            var q = ParsedAddress()
            let city = localities[Int(place.locality)].city
            if !city.isEmpty { q.city = AddressText.tokens(city) }
            // In this street's city only: geocode places a number in each city separately.
            guard let members = addresses(ofStreetPlace: c).map(Array.init), !members.isEmpty,
                  let placed = placeNumber(number, among: members, street: place.street, place: c, q: q, penalty: 0, notes: []),
                  placed.matchType == .interpolated || placed.matchType == .extrapolated else { continue }
            out.append((rank, Suggestion(text: placed.label ?? placed.components.formatted, type: .address, key: placed.key)))
        }
        guard out.isEmpty else { return out }
        return streets.prefix(request.maxResults).map { ($0.rank, $0.suggestion) }
    }

    /// The best few address suggestions. Equal ranks go in the order the index lists a number's
    /// addresses in: by street (numbered in name order, a street by its full name, so "North …"
    /// before "Northeast …" as "N …" before "NE …"), number suffix, then address — decided
    /// without formatting or reading any name.
    struct BestAddresses {
        struct Candidate {
            var rank: Double
            var address: Int
            var street: UInt32, suffix: UInt32
        }
        let count: Int
        private(set) var kept: [Candidate] = []

        init(count: Int) { self.count = count }

        /// Would `c` be kept?
        func admits(_ c: Candidate) -> Bool {
            guard count > 0 else { return false }
            guard kept.count == count, let last = kept.last else { return true }
            return precedes(c, last)
        }

        mutating func offer(_ c: Candidate) {
            guard admits(c) else { return }
            var i = kept.count
            while i > 0, precedes(c, kept[i - 1]) { i -= 1 }
            kept.insert(c, at: i)
            if kept.count > count { kept.removeLast() }
        }

        private func precedes(_ x: Candidate, _ y: Candidate) -> Bool {
            if x.rank != y.rank { return x.rank < y.rank }
            if x.street != y.street { return x.street < y.street }
            if x.suffix != y.suffix { return x.suffix < y.suffix }
            return x.address < y.address
        }
    }

    /// How a typed word stands against a street's or a place's words.
    enum Verdict: UInt8 {
        /// `stateName`: the place's state named in full ("oregon"), which is the place's only
        /// where it follows the town.
        case unknown, matched, stateName, typo, none
    }

    /// Is `w` within the typo allowance of one of `list` (whole), or one edit from the beginning
    /// of one (a prefix, `prefixMatches`)?
    private func typo(_ w: String, whole: Bool, in list: [String]) -> Bool {
        whole
            ? list.contains { EditDistance.distance(w, $0, limit: EditDistance.allowance(forLength: max(w.count, $0.count))) != nil }
            : prefixMatches(w, in: list).typo
    }

    /// The house number typed: "0104" is its own number where the index has such numbers, else
    /// a stray zero (`HouseNumber`).
    func typedNumber(_ digits: String) -> Int32? {
        HouseNumber.value(ofDigits: digits).flatMap { Int32(exactly: numberAsIndexed($0)) }
    }

    /// Just a number typed so far: with a bias point, addresses with that number nearby.
    private func numberOnlySuggestions(_ digits: String, _ request: SuggestContext) -> [(Double, Suggestion)] {
        var out: [(Double, Suggestion)] = []
        if let near = request.near {
            // Addresses nearby whose number starts with what has been typed.
            for (a, _) in addresses.nearest(lon: near.x, lat: near.y, maxDistance: 3_000, count: 400) {
                let p = addresses.points[a]
                let written = HouseNumber.digits(of: Int(p.number))
                guard written.hasPrefix(digits) else { continue }
                guard let r = rank(p.lonLat, popularity: 1, request, quality: written == digits ? 0 : 0.2) else { continue }
                out.append((r, Suggestion(text: addresses.components(of: a).formatted, type: .address, key: "a\(a)")))
            }
            if !out.isEmpty { return out }
        }
        guard let number = typedNumber(digits), let list = byNumber[number] else { return [] }
        for a in list.prefix(request.near == nil ? request.maxResults : list.count) {
            guard let r = rank(addresses.points[Int(a)].lonLat, popularity: 1, request, quality: 0.5) else { continue }
            out.append((r, Suggestion(text: addresses.components(of: Int(a)).formatted, type: .address, key: "a\(a)")))
        }
        return out
    }

    private func postcodeSuggestions(prefix: String, _ request: SuggestContext) -> [(Double, Suggestion)] {
        guard prefix.count <= 5 else { return [] }
        // Postcodes are in name order: those with the prefix are one run (a scan of them all was
        // a third of a number-only suggest at 30× Portland).
        let all = postcodes
        var lo = 0, hi = all.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if all[mid].name < prefix { lo = mid + 1 } else { hi = mid }
        }
        let run = all[lo...].prefix { $0.name.hasPrefix(prefix) }
        return run.compactMap { area in
            rank(area.location, popularity: area.count, request, quality: 0).map { ($0, Suggestion(text: area.detail, type: .postcode, key: "z\(area.name)")) }
        }
    }

    /// Neighbourhoods and cities whose names match the words and prefix; a neighbourhood's name
    /// may be followed by its town and state, as it is geocoded ("Concordia, Port").
    private func areaSuggestions(words: [String], prefix: WordBegun?, _ request: SuggestContext) -> [(Double, Suggestion)] {
        /// Whether the words, then the prefix, come in order in the name and what may follow it
        /// (`town`); the first word is the name's ("Portland" alone suggests no neighbourhood).
        func matches(_ name: [String], town: [String] = []) -> Bool {
            var rest = (name + town)[...]
            for (j, w) in words.enumerated() {
                guard let i = rest.firstIndex(of: w), j > 0 || i < name.count else { return false }
                rest = rest[(i + 1)...]
            }
            guard let prefix else { return true }
            return (words.isEmpty ? rest.prefix(name.count) : rest).contains { prefix.begins($0) }
        }
        var out: [(Double, Suggestion)] = []
        for (i, n) in neighbourhoods.enumerated()
        where matches(n.area.tokens, town: n.town) {
            if let r = rank(n.area.location, popularity: 5_000, request, quality: 0) {
                out.append((r, Suggestion(text: n.area.detail, type: .neighbourhood, key: "n\(i)")))
            }
        }
        for (i, c) in cities.enumerated() where matches(c.tokens) {
            if let r = rank(c.location, popularity: c.count, request, quality: 0) {
                out.append((r, Suggestion(text: c.detail, type: .locality, key: "c\(i)")))
            }
        }
        return out
    }
}

#if canImport(Glibc)
import Glibc
#endif
