/// A street name split into its parts, all canonical tokens.
public struct StreetNameParts: Hashable, Sendable {
    public var predirectional: String?
    /// The name proper: "34", "cesar e chavez", "hwy 212".
    public var core: [String]
    public var type: String?
    public var postdirectional: String?

    /// Splits canonical street tokens: a leading directional, a trailing directional and a trailing
    /// type come off only when a name remains, so "N Court" keeps "n" as its name.
    public init(tokens: [String]) {
        var t = tokens[...]
        predirectional = nil
        type = nil
        postdirectional = nil
        if t.count >= 2, let first = t.first, Self.directionals.contains(first) {
            predirectional = first
            t = t.dropFirst()
        }
        if t.count >= 2, let last = t.last, Self.directionals.contains(last) {
            postdirectional = last
            t = t.dropLast()
        }
        if t.count >= 2, let last = t.last, Self.types.contains(last) {
            type = last
            t = t.dropLast()
            // A grid's street is a number and a direction ("S 200 E", Salt Lake City's 200 East):
            // typed with a type after it ("200 East St"), the direction is still its own.
            if postdirectional == nil, t.count >= 2, let d = t.last, Self.directionals.contains(d),
               AddressText.ordinalNumber(t[t.endIndex - 2]) != nil {
                postdirectional = d
                t = t.dropLast()
            }
        }
        core = Array(t)
    }

    /// Canonical (full) directionals and street types.
    public static let directionals = Set(AddressVocabulary.directionalNames.values)
    public static let types = Set(AddressVocabulary.streetTypeNames.values)

    /// Whether the tokens name a street by more than directionals and a type, in full or
    /// abbreviated: "n st" names every street of a quarter that has the type; "n lombard" names one.
    public static func namesMoreThanDirectionalAndType(_ tokens: [String]) -> Bool {
        tokens.contains { w in
            !directionals.contains(w) && !types.contains(w)
                && AddressVocabulary.directionals[w] == nil && AddressVocabulary.streetTypes[w] == nil
        }
    }

    public var coreKey: String { core.joined(separator: " ") }
}

/// An address as a person typed it, taken apart. Every text field is in canonical tokens.
public struct ParsedAddress: Hashable, Sendable {
    public var number: HouseNumber?
    /// The street's canonical tokens, directionals and type included.
    public var street: [String] = []
    /// The second street of an intersection ("NE 34th Ave & NE Killingsworth St").
    public var crossStreet: [String]?
    /// The other end of a block: the street runs between `crossStreet` and this ("SE Division
    /// St between SE 82nd Ave and SE 84th Ave").
    public var crossStreetTo: [String]?
    /// The unit as written, designator normalised: "apt 3", "# 12", "rear".
    public var unit: String?
    /// What a record keeper wrote before a slash to say where on the lot or block ("wi" of
    /// "1640 WI/ NW 19TH AVE", "sec" of "SEC/ CONCORD & N GOING CT"). It never decides the match.
    public var qualifier: String?
    public var city: [String]?
    /// The USPS state code, lower case.
    public var state: String?
    public var postcode: String?
    public var postcodeExtension: String?
    /// The last number of a block the query names instead of one house ("3900 block of SE
    /// Hawthorne Blvd", "39XX SE Hawthorne Blvd": 3999; "2400-3100 block of …": 3199), `number`
    /// being its first. Nil for a house.
    public var blockEnd: Int?
    /// The digits after a hyphen in the house number ("13" of "37-13"): the end of a range
    /// ("5331-5337", matched by its first number) or, where the index has such numbers, part of
    /// the number (Queens's "37-13 74th St").
    public var numberTail: String?

    public init() {}

    public var isEmpty: Bool { number == nil && street.isEmpty && city == nil && postcode == nil && state == nil }
}

/// Parses free-text US addresses: house number with suffix or fraction, street with pre- and
/// post-directionals and type, unit, city, state and ZIP / ZIP+4, with or without commas, in any
/// order the eval's variants use ("Portland 6132 NE 34th Ave", "NE 34th Ave 6132").
///
/// City names are recognised from the places the index knows (`knownCities`, canonical tokens),
/// exactly or with the typo allowance.
public struct AddressParser: Sendable {
    /// Canonical token lists of the cities in the index, longest first.
    public let knownCities: [[String]]
    private let cityKeys: Set<String>
    /// `knownCities` by their last word, each list longest first: a text's trailing city is
    /// looked for among those ending in its last word, not among all (every query tried every
    /// city, a tenth of a geocode at 30× Portland's cities, and more in a state's index).
    private let citiesByLastWord: [String: [[String]]]
    /// ZIP codes in the index: a five-digit number that is not one of them, with no other house
    /// number in the text, is the house number ("S Union Mills Rd 14351").
    public let knownPostcodes: Set<String>

    public init(knownCities: [String], knownPostcodes: Set<String> = []) {
        self.knownPostcodes = knownPostcodes
        let lists = Set(knownCities.map { AddressText.tokens($0) }.filter { !$0.isEmpty }.map { $0.joined(separator: " ") })
        self.knownCities = lists.map { $0.split(separator: " ").map(String.init) }.sorted { $0.count > $1.count }
        cityKeys = lists
        citiesByLastWord = Dictionary(grouping: self.knownCities) { $0.last ?? "" }
    }

    /// Whether a text is the name of a city the index knows ("Forest Grove", "forest grove").
    public func isKnownCity(_ text: some StringProtocol) -> Bool {
        cityKeys.contains(AddressText.tokens(text).joined(separator: " "))
    }

    /// Words that join the two streets of a crossing.
    public static let crossingWords: Set<String> = ["&", "@", "and", "at"]

    /// Words that say a place lies along a street between two crossings.
    static let betweenWords: Set<String> = ["between", "btwn", "betw", "btw"]

    /// `readingCrossing`: whether "&", "@", "and" or "at" between two parts makes the text a
    /// crossing of two streets; without it they are words of one street's name ("Truck and
    /// Trailer Way", "Peace & Plenty Ln"), as the index builder reads a street column.
    public func parse(_ text: String, readingCrossing: Bool = true) -> ParsedAddress {
        let text = withStateCodeSpelledOut(Self.withoutCountry(Self.asciiFractions(text)))
        if let q = Self.qualified(text) {
            var result = parseUnqualified(q.text, readingCrossing: readingCrossing)
            result.qualifier = q.qualifier
            if result.crossStreet == nil, q.corner { Self.splitCorner(&result) }
            return result
        }
        return parseUnqualified(readingCrossing ? Self.slashCrossing(text) ?? text : text, readingCrossing: readingCrossing)
    }

    private func parseUnqualified(_ text: String, readingCrossing: Bool) -> ParsedAddress {
        var result = ParsedAddress()
        var text = Substring(text)
        if let (rest, unit) = Self.commaUnit(text) {
            text = rest
            result.unit = unit
        }
        var tokens = AddressText.tokens(text).map(Self.zeroForLetterO)
        Self.peelPostOfficeBox(&tokens, into: &result)
        // Read before the region is peeled (which counts words from the text's commas), taken
        // where the house number is.
        let block = Self.block(at: tokens)

        // An intersection: split on "&", "@", "and", "at" between two non-empty parts.
        if readingCrossing, let i = tokens.firstIndex(where: Self.crossingWords.contains), i > 0, i < tokens.count - 1 {
            var first = Array(tokens[..<i])
            var second = Array(tokens[(i + 1)...])
            // "NE 34th & Killingsworth, Portland OR": after a comma that ends the second street
            // comes the region, peeled on its own (a one-word street leaves the city nothing to
            // stand after, and "Killingsworth Portland" could be a street).
            if let comma = text.firstIndex(of: ","), case let head = AddressText.tokens(text[..<comma]),
               head.count > i + 1, head.count < tokens.count, tokens.starts(with: head),
               let region = commaRegion(Array(tokens[head.count...])) {
                second = Array(tokens[(i + 1)..<head.count])
                result.city = region.city ?? result.city
                result.state = region.state ?? result.state
                if let zip = region.postcode { (result.postcode, result.postcodeExtension) = zip }
            }
            peelRegion(&second, into: &result)
            // "NW corner of N Interstate & Killingsworth", "… & N Killingsworth St NW corner": the
            // corner said in words, as "NWC/" says it.
            if first.count >= 4, first[1] == "corner" || first[1] == "cor", first[2] == "of", StreetNameParts.directionals.contains(first[0]) {
                result.qualifier = "\(first[0]) corner"
                first.removeFirst(3)
            } else if second.count >= 3, let last = second.last, last == "corner" || last == "cor",
                      StreetNameParts.directionals.contains(second[second.count - 2]) {
                result.qualifier = "\(second[second.count - 2]) corner"
                second.removeLast(2)
            }
            // "SE Division St between SE 82nd Ave and SE 84th Ave", as stop and field lists place
            // something along a block: the split above is at the "and" of the two crossings.
            if let j = first.firstIndex(where: Self.betweenWords.contains), j > 0, j < first.count - 1 {
                result.street = AddressText.streetTokens(Array(first[..<j]))
                result.crossStreet = AddressText.streetTokens(Array(first[(j + 1)...]))
                result.crossStreetTo = AddressText.streetTokens(second)
                return result
            }
            result.street = AddressText.streetTokens(first)
            result.crossStreet = AddressText.streetTokens(second)
            return result
        }

        if tokens.count == 1, let (zip, ext) = Self.postcode(tokens[0]) {
            result.postcode = zip
            result.postcodeExtension = ext
            return result
        }
        peelRegion(&tokens, into: &result)
        // "Gresham, OR", "Portland OR 97211": a known city and nothing before it is the city, not a
        // street of its name, once a state or ZIP code says the text is a region.
        if result.city == nil, result.state != nil || result.postcode != nil, cityKeys.contains(tokens.joined(separator: " ")) {
            result.city = tokens
            tokens = []
        }
        peelUnit(&tokens, into: &result)
        peelCityAfterComma(&tokens, text: text, into: &result)
        peelUnknownCity(&tokens, into: &result)

        // The house number: first, or after a leading city, or (swapped order) a five-digit number
        // that is no known ZIP, or last.
        if let block, block.words < tokens.count {
            tokens.removeFirst(block.words)
            result.number = HouseNumber(value: block.first)
            result.blockEnd = block.last
        } else if let head = tokens.first, let n = houseNumber(&tokens, at: 0) {
            result.number = n
            result.numberTail = HyphenatedNumber(head)?.tail
        } else if let k = tokens.firstIndex(where: { AddressText.isNumber($0) || leadingDigits($0) != nil }), k > 0,
                  result.city == nil, cityKeys.contains(tokens[..<k].joined(separator: " ")) {
            result.city = Array(tokens[..<k])
            tokens.removeFirst(k)
            result.number = houseNumber(&tokens, at: 0)
        } else if let zip = result.postcode, result.postcodeExtension == nil, !knownPostcodes.isEmpty,
                  !knownPostcodes.contains(zip), tokens.count >= 2,
                  // "00000", "02139": a number written from a leading zero is a ZIP code (New
                  // England's, or a form's blank one), never a house number put last.
                  zip.utf8.first != 0x30 {
            result.number = HouseNumber(parsing: zip)
            result.postcode = nil
        } else if tokens.count >= 2, let last = tokens.last, AddressText.isNumber(last), last.count <= 6,
                  tokens.count >= 3 || !StreetNameParts.types.contains(tokens[0]),
                  // "NE 19": a bare number after a lone directional is the numbered street.
                  !(tokens.count == 2 && StreetNameParts.directionals.contains(tokens[0])),
                  // "US 26", "I 5", "SR 9": a route's own number, not a house on a street "US".
                  !Self.endsWithRouteNumber(tokens) {
            tokens.removeLast()
            result.number = HouseNumber(parsing: last)
        }
        // Read as one street, an "&" is a word of its name, as the index builder keeps it.
        tokens.removeAll { ($0 == "&" && readingCrossing) || $0 == "@" || $0 == "#" }
        // "74 Street", "37 Avenue": a street numbered without its ordinal ending (New York's
        // "74 St"), not house 74 on a street called Street.
        if let n = result.number, n.suffix.isEmpty, n.value > 0, result.numberTail == nil, result.blockEnd == nil,
           tokens.count == 1, StreetNameParts.types.contains(tokens[0]) {
            tokens.insert(String(n.value), at: 0)
            result.number = nil
        }
        result.street = AddressText.streetTokens(tokens)
        return result
    }

    /// Whether the words, a leading directional aside, are a numbered route's name that ends in
    /// its number ("US 26", "N I 5", "State Route 9"): that number is the route's. Read as a house
    /// number put last, "US 26" was house 26 on a street "US" (no candidate; "Highway 26", whose
    /// first word is a street type, was found).
    ///
    /// So is a route's old road's ("SW Old Highway 47", "Old US 1", "Historic Route 66"): read as
    /// house 47 on a street "SW Old Highway", Forest Grove's SW Old Highway 47 had no candidate
    /// (78, under what is shown), where "2476 SW Old Highway 47" was its point.
    public static func endsWithRouteNumber(_ tokens: [String]) -> Bool {
        guard tokens.count <= 6 else { return false }
        var core = AddressText.streetTokens(tokens)
        if let first = core.first, StreetNameParts.directionals.contains(first) { core.removeFirst() }
        if let first = core.first, Self.formerRouteWords.contains(first) { core.removeFirst() }
        guard let route = RouteName(core: core) else { return false }
        return route.rest.isEmpty
    }

    /// Words before a numbered route's name that make it the name of a road the route once ran
    /// along, or of the route's old line.
    static let formerRouteWords: Set<String> = ["old", "historic", "new"]

    /// Words that follow a number to say it is a block's ("3900 block of", "3900 blk").
    static let blockWords: Set<String> = ["block", "blk"]

    /// A block of numbers where a house number would stand, as police, permit and complaint
    /// records publish places (a block, not a house): "3900 block of SE Hawthorne Blvd", "3900
    /// BLK SE HAWTHORNE BLVD", "the 2400-3100 block of San Bruno Ave", and with the last two
    /// digits masked, "39XX SE Hawthorne Blvd" or zero-padded "039XX S Halsted St" (the padding is
    /// no Portland-style leading zero). Read as "39 XX", unit XX of number 39, it was placed
    /// 3.9 km from its block. Without "of", the words after must be more than a street type:
    /// "100 Block Rd" is a house on Block Road.
    static func block(at tokens: [String]) -> (first: Int, last: Int, words: Int)? {
        var start = 0
        if tokens.first == "the" { start = 1 }
        guard start < tokens.count else { return nil }
        let head = tokens[start]
        let first: Int, last: Int, masked: Bool
        if head.count >= 3, head.count <= 7, head.hasSuffix("xx"), head.dropLast(2).allSatisfy({ $0.isASCII && $0.isNumber }),
           let hundreds = Int(head.dropLast(2)) {
            // "39xx", "039xx".
            (first, last, masked) = (hundreds * 100, hundreds * 100 + 99, true)
        } else {
            // "3900", "2400-3100".
            let ends = head.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
            guard ends.count <= 2, let low = ends.first.flatMap({ HouseNumber.value(ofDigits: $0) }), low >= 0,
                  let high = ends.count == 2 ? HouseNumber.value(ofDigits: ends[1]) : low, high >= low else { return nil }
            (first, last, masked) = (low - low % 100, high - high % 100 + 99, false)
        }
        // The word "block" after the number (needed unless the digits are masked), then "of".
        var i = start + 1
        let named = i < tokens.count && blockWords.contains(tokens[i])
        if named { i += 1 }
        let of = i < tokens.count && tokens[i] == "of"
        if of { i += 1 }
        let rest = tokens[i...]
        guard masked || named, last - first < 100_000, let street = rest.first,
              of || rest.count >= 2 || !StreetNameParts.types.contains(street) else { return nil }
        return (first, last, i)
    }

    private func leadingDigits(_ token: String) -> (Int, String)? {
        let digits = token.prefix { $0.isASCII && $0.isNumber }
        guard digits.count <= 8, digits.count < token.count, let v = HouseNumber.value(ofDigits: digits) else { return nil }
        let rest = token.dropFirst(digits.count)
        guard rest.count <= 2, rest.allSatisfy({ $0.isLetter }) else { return nil }
        // "34th" is an ordinal street name, not a number with a suffix.
        if AddressText.ordinalNumber(token) != nil { return nil }
        return (v, String(rest).uppercased())
    }

    /// Takes a house number (and its suffix: "7212 a", "7212a", "12 1/2") from position `i`.
    private func houseNumber(_ tokens: inout [String], at i: Int) -> HouseNumber? {
        guard i < tokens.count else { return nil }
        let t = tokens[i]
        var number: HouseNumber?
        if t.count <= 8, let v = HouseNumber.value(ofDigits: t) {
            number = HouseNumber(value: v)
        } else if let dash = t.firstIndex(of: "-"), let v = HouseNumber.value(ofDigits: t[..<dash]) {
            number = HouseNumber(value: v)  // a range "12-14": its first number (see `numberTail`)
        } else if let (v, suffix) = leadingDigits(t) {
            number = HouseNumber(value: v, suffix: suffix)
        }
        guard var n = number, tokens.count > i + 1 else { return nil }
        tokens.remove(at: i)
        if n.suffix.isEmpty, i < tokens.count {
            let next = tokens[i]
            let remaining = tokens.count - i - 1
            if next.contains("/"), next.first!.isNumber {
                n.suffix = next
                tokens.remove(at: i)
            } else if next.count == 1, next.first!.isLetter, !StreetNameParts.directionals.contains(next) && AddressVocabulary.directionals[next] == nil, remaining >= 2,
                      // "1004 K St NW": a lettered street (Washington's, Sacramento's), not house
                      // 1004 K on a street called "St NW" (which answered 1004 E Street NW at 93).
                      !StreetNameParts.types.contains(tokens[i + 1]) {
                n.suffix = next.uppercased()
                tokens.remove(at: i)
            }
        }
        // "1112 So. Washington", "612 A So Lake St": "So" and "No" right after the number, before a
        // name, are south and north as older forms abbreviate them; elsewhere "No." stays a unit
        // ("4949 Harrison Ave. No. 102") and "No 5" a number.
        if let d = Self.shortDirectional(tokens, at: i) { tokens[i] = d }
        return n
    }

    /// Directionals abbreviated to their first two letters, when one stands at `i` before a name.
    static func shortDirectional(_ tokens: [String], at i: Int) -> String? {
        guard i + 1 < tokens.count, let d = ["so": "south", "no": "north"][tokens[i]] else { return nil }
        let next = tokens[i + 1]
        guard next.utf8.count >= 2, next.allSatisfy(\.isLetter) else { return nil }
        // Not a street named "So" ("12 So St"); a type that is a name's word ("So Lake St") is.
        func isType(_ t: String) -> Bool { StreetNameParts.types.contains(AddressText.canonical(t)) }
        return !isType(next) || (i + 2 < tokens.count && isType(tokens[i + 2])) ? d : nil
    }

    /// Removes a trailing ZIP, state and city, in whatever order they come.
    private func peelRegion(_ tokens: inout [String], into result: inout ParsedAddress) {
        var changed = true
        while changed, tokens.count >= 2 || (tokens.count == 1 && result.isEmpty == false) {
            changed = false
            guard let last = tokens.last else { break }
            if result.postcode == nil, let (zip, count) = Self.trailingPostcode(tokens) {
                (result.postcode, result.postcodeExtension) = (zip?.0, zip?.1)
                tokens.removeLast(count)
                changed = true
                continue
            }
            if result.state == nil, tokens.count >= 2 {
                // Two-word state names first ("new york"), then codes and one-word names.
                if tokens.count >= 3, let s = AddressVocabulary.states[tokens.suffix(2).joined(separator: " ")] {
                    result.state = s
                    tokens.removeLast(2)
                    changed = true
                    continue
                }
                if let s = AddressVocabulary.states[last], !(last.count == 2 && tokens.count == 2 && StreetNameParts.directionals.contains(tokens[0])),
                   // "3rd Fl" is a floor, not Florida; so is "…Ave Fourth Fl" (the word read as "4").
                   !(last == "fl" && (AddressText.ordinalNumber(tokens[tokens.count - 2]) != nil
                       || (AddressText.isNumber(tokens[tokens.count - 2]) && tokens[tokens.count - 2].count <= 2
                           && tokens.count >= 5 && StreetNameParts.types.contains(tokens[tokens.count - 3])))) {
                    // "or" and "in" are states only at the end of something that can be a street.
                    result.state = s
                    tokens.removeLast()
                    changed = true
                    continue
                }
            }
            if result.city == nil, let (city, count) = trailingCity(tokens, regionFollows: result.state != nil || result.postcode != nil) {
                result.city = city
                tokens.removeLast(count)
                changed = true
            }
        }
    }

    /// Tokens that follow a comma and are only a region: city (known, or up to three words of
    /// letters), state and ZIP, each optional. Nil when they are anything else.
    private func commaRegion(_ tokens: [String]) -> (city: [String]?, state: String?, postcode: (String, String?)?)? {
        var t = tokens
        var postcode: (String, String?)?
        var state: String?
        if let (zip, count) = Self.trailingPostcode(t) { postcode = zip; t.removeLast(count) }
        if t.count >= 2, let s = AddressVocabulary.states[t.suffix(2).joined(separator: " ")] {
            state = s; t.removeLast(2)
        } else if let last = t.last, let s = AddressVocabulary.states[last], t.count >= 2 || postcode != nil || last.count == 2 {
            state = s; t.removeLast()
        }
        if t.isEmpty { return postcode != nil || state != nil ? (nil, state, postcode) : nil }
        guard t.count <= 3, cityKeys.contains(t.joined(separator: " ")) || t.allSatisfy({ $0.allSatisfy(\.isLetter) && !StreetNameParts.types.contains($0) })
        else { return nil }
        return (t, state, postcode)
    }

    /// Words after a street's type (and suffix direction) that are no city the index knows are still
    /// a city ("…Ave NW, Washington, DC"), not part of the street.
    ///
    /// With a city already found at the end, words after the type that name a known city are
    /// the town, the one at the end its mail's ("…80th Ave Milwaukie, Portland, OR").
    private func peelUnknownCity(_ tokens: inout [String], into result: inout ParsedAddress) {
        guard tokens.count >= 4 else { return }
        // A type's spelling after "de" or "del" is a word of a Spanish name ("Via de la Valle",
        // "Camino de la Reina": "la" reads as lane): read as the street's end, the word after it was
        // taken for a town ("valle"), and the address without its town had no candidate.
        guard let t = tokens.indices.dropFirst(2).last(where: {
            StreetNameParts.types.contains(tokens[$0]) && !Self.spanishArticles.contains(tokens[$0 - 1])
        }) else { return }
        var end = t + 1
        if end < tokens.count, StreetNameParts.directionals.contains(tokens[end]) { end += 1 }
        let rest = tokens[end...]
        guard !rest.isEmpty, rest.count <= 3, rest.allSatisfy({ $0.allSatisfy(\.isLetter) && !StreetNameParts.types.contains($0) }),
              result.city == nil || cityKeys.contains(rest.joined(separator: " ")) else { return }
        result.city = Array(rest)
        tokens.removeSubrange(end...)
    }

    /// Words before an article in Spanish street names ("de la", "del"), after which a type's
    /// spelling is part of the name.
    static let spanishArticles: Set<String> = ["de", "del"]

    /// "8OTH", "1O5": a letter O typed for a zero (the key above it) in a token that starts with a
    /// digit, when the token reads as a number or an ordinal with zeros.
    static func zeroForLetterO(_ token: String) -> String {
        guard token.contains("o"), let first = token.utf8.first, first >= 0x30, first <= 0x39 else { return token }
        let zeroed = String(token.map { $0 == "o" ? "0" : $0 })
        return AddressText.isNumber(zeroed) || AddressText.ordinalNumber(zeroed) != nil ? zeroed : token
    }

    /// "17175 SW TVH, Aloha, OR": a comma ends the street, and the words after it (letters only,
    /// no street type, directional or unit) are the city, known or not. A street typed without
    /// its type leaves nothing else to tell where it ends (`peelUnknownCity` needs the type).
    private func peelCityAfterComma(_ tokens: inout [String], text: Substring, into result: inout ParsedAddress) {
        guard result.city == nil, text.contains(",") else { return }
        var start = 0
        var boundaries: [(at: Int, words: [String])] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let words = AddressText.tokens(part)
            boundaries.append((start, words))
            start += words.count
        }
        guard let (at, words) = boundaries.last(where: { $0.at >= 1 && $0.at < tokens.count }) else { return }
        let rest = Array(tokens[at...])
        // After one word, only a city the index knows: "Hawthorne, Portland" is SE Hawthorne
        // Blvd in Portland (was no candidate: the street "hawthorne portland").
        guard at >= 2 || cityKeys.contains(rest.joined(separator: " ")) else { return }
        guard rest.count <= 3, words.starts(with: rest), rest.allSatisfy({ word in
            word.allSatisfy(\.isLetter) && !StreetNameParts.types.contains(word) && !StreetNameParts.directionals.contains(word)
                && AddressVocabulary.unitDesignators[word] == nil
        }) else { return }
        result.city = rest
        tokens.removeSubrange(at...)
    }

    /// The longest run of trailing tokens that names a known city, leaving a street before it.
    ///
    /// After a street of one word ("Killingsworth Portland"), a known city is the city only when a
    /// state or ZIP code follows it (`regionFollows`): "NE 33rd & Killingsworth Portland OR" was
    /// the crossing with a street "Killingsworth Portland", no candidate.
    private func trailingCity(_ tokens: [String], regionFollows: Bool = false) -> ([String], Int)? {
        for city in tokens.last.flatMap({ citiesByLastWord[$0] }) ?? [] where city.count < tokens.count {
            let tail = Array(tokens.suffix(city.count))
            if tail == city {
                // Keep "N Portland Blvd" whole: a city right after a directional is the street's name.
                let before = tokens[tokens.count - city.count - 1]
                if StreetNameParts.directionals.contains(before) && tokens.count - city.count == 1 { continue }
                if StreetNameParts.types.contains(before) || AddressText.isNumber(before) || tokens.count - city.count >= 2 || regionFollows {
                    return (city, city.count)
                }
            }
        }
        // Through a typo: only for a single trailing word after a street type.
        if tokens.count >= 3, let last = tokens.last, last.count >= 4, StreetNameParts.types.contains(tokens[tokens.count - 2]) {
            let allowance = EditDistance.allowance(forLength: last.count)
            for city in knownCities where city.count == 1 {
                if EditDistance.distance(last, city[0], limit: allowance) != nil { return (city, 1) }
            }
        }
        return nil
    }

    /// Unit designators as addresses are read: Publication 28's, and what forms, letters and
    /// remittance lists across the US write besides ("390 Greenwich St, 2nd Flr"; "Flat 4"; "3520
    /// Okemos Rd PMB 175", a private mailbox; "6000 Feldwood Rd Lockbox 402605"). Not in
    /// `AddressVocabulary.unitDesignators`, which also tells a town from a unit ("Flat Rock",
    /// "Box Elder").
    public static let unitWords: [String: String] = AddressVocabulary.unitDesignators.merging(formUnitWords) { a, _ in a }

    /// The words of `unitWords` that Publication 28 has not.
    static let formUnitWords: [String: String] = [
        "flr": "fl", "flat": "flat", "pmb": "pmb", "lockbox": "lockbox", "lbx": "lockbox", "mailbox": "mailbox",
        "msc": "msc", "box": "box",
    ]

    /// Designators that are never part of a street's name.
    static let unambiguousUnits: Set<String> = ["apt", "unit", "ste", "#"]

    /// Removes a unit ("apt 3", "unit b", "# 12", "ste 200", "rear") and keeps it. Words that can
    /// also name a street ("Lake Front Rd", "Upper Aldercrest Dr") count as a unit only after the
    /// street's type, with no street type after them.
    private func peelUnit(_ tokens: inout [String], into result: inout ParsedAddress) {
        // "# 2 Turner Rd": a sign before the house number is the number's, not a unit.
        if tokens.count >= 3, tokens[0] == "#", AddressText.isNumber(tokens[1]) { tokens.removeFirst() }
        Self.splitGluedUnits(&tokens)
        // A unit written first ("Suite 301 1234 SW Main St"): designator, identifier, then the house number.
        if tokens.count >= 4, let designator = Self.unitWords[tokens[0]], Self.takesIdentifier(tokens[0], tokens[1]),
           !AddressVocabulary.standaloneUnits.contains(designator), isUnitIdentifier(tokens[1]),
           AddressText.isNumber(tokens[2]) || tokens[2].first?.isNumber == true {
            result.unit = designator == "#" ? "# \(tokens[1])" : "\(designator) \(tokens[1])"
            tokens.removeFirst(2)
        } else if tokens.count >= 4, Self.unitWords[tokens[1]] == "fl", let floor = Self.floorNumber(tokens[0]),
                  AddressText.isNumber(tokens[2]) {
            // "41st Floor 1221 Ave of the Americas": a floor first.
            result.unit = "fl \(floor)"
            tokens.removeFirst(2)
        }
        var i = 1
        while i < tokens.count {
            let t = tokens[i]
            guard let designator = Self.unitWords[t] ?? (t == "#" ? "#" : nil),
                  // "125 No. Main St": north after the house number (see `houseNumber`), no unit.
                  !(i <= 2 && tokens[0].first?.isNumber == true && (i == 1 || tokens[1].utf8.count == 1) && Self.shortDirectional(tokens, at: i) != nil) else {
                i += 1
                continue
            }
            let typeAfter = tokens[(i + 1)...].contains { StreetNameParts.types.contains($0) }
            let typeBefore = tokens[..<i].contains { StreetNameParts.types.contains($0) }
            // A floor named by its number before the designator: "…Ave 3rd Floor", "…Blvd Second
            // Floor", "…St 2 Floor". After a street's type, or after two words of a street typed
            // without one ("219 South Dearborn Second Floor"): no street is named "… Floor".
            if designator == "fl", i >= 3 || (i == 2 && typeBefore), let floor = Self.floorNumber(tokens[i - 1]),
               typeBefore || AddressText.ordinalNumber(tokens[i - 1]) != nil || AddressVocabulary.ordinalUnits[tokens[i - 1]] != nil {
                result.unit = "fl \(floor)"
                tokens.removeSubrange((i - 1)...i)
                i -= 1
                continue
            }
            let plausible = Self.unambiguousUnits.contains(designator) ? (i >= 2 || designator == "#") : (typeBefore && !typeAfter)
            guard plausible, Self.takesIdentifier(t, tokens.indices.contains(i + 1) ? tokens[i + 1] : "") else {
                i += 1
                continue
            }
            if AddressVocabulary.standaloneUnits.contains(designator), i == tokens.count - 1 || !isUnitIdentifier(tokens[i + 1]) {
                result.unit = designator
                tokens.remove(at: i)
                continue
            }
            // "Unit #3", "Apt # 3": the designator and the sign are one unit's (the designator was
            // left behind and read as the city: "city unit ≠ Portland").
            if designator != "#", i + 2 < tokens.count, tokens[i + 1] == "#", isUnitIdentifier(tokens[i + 2]) {
                result.unit = "\(designator) \(tokens[i + 2])"
                tokens.removeSubrange(i...(i + 2))
                continue
            }
            if i + 1 < tokens.count, isUnitIdentifier(tokens[i + 1]), !StreetNameParts.types.contains(tokens[i + 1]) {
                // "#A-100" splits into "a" and "100" at the hyphen: a last short part joins the
                // identifier rather than stay behind as a word of the street.
                let end = i + 2 < tokens.count && i + 3 == tokens.count && isUnitIdentifier(tokens[i + 2]) ? i + 2 : i + 1
                let identifier = tokens[(i + 1)...end].joined(separator: "-")
                result.unit = designator == "#" ? "# \(identifier)" : "\(designator) \(identifier)"
                tokens.removeSubrange(i...end)
                continue
            }
            i += 1
        }
    }

    /// Whether a designator word may take this identifier. The words forms add to Publication 28's
    /// take only one with a digit: "Box 15" and "Flat 4" are units, "Box Elder" and "Flat Rock"
    /// are towns.
    static func takesIdentifier(_ word: String, _ identifier: String) -> Bool {
        AddressVocabulary.unitDesignators[word] != nil || formUnitWords[word] == nil || identifier.contains(where: \.isNumber)
    }

    /// A floor's number as forms write it: "3rd", "second", "3".
    static func floorNumber(_ t: String) -> String? {
        if let n = AddressText.ordinalNumber(t) { return n }
        if let n = AddressVocabulary.ordinalUnits[t] { return String(n) }
        return AddressText.isNumber(t) && t.count <= 3 ? t : nil
    }

    /// Designators that forms run into their identifier ("Suite100", "Unit508", "Apt4B").
    static let gluedDesignators = ["suite", "ste", "unit", "apt", "rm", "room", "flr", "bldg"]

    /// Splits a designator run into its identifier, after the house number and a word of the
    /// street: "401 SW Water St Unit508" had no candidate (a street "water street unit508").
    static func splitGluedUnits(_ tokens: inout [String]) {
        var i = 2
        while i < tokens.count {
            let t = tokens[i]
            if t.utf8.count <= 12, let d = gluedDesignators.first(where: { t.hasPrefix($0) }),
               case let rest = String(t.dropFirst(d.count)), rest.first?.isNumber == true,
               rest.count <= 6, rest.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) {
                tokens.replaceSubrange(i...i, with: [d, rest])
                i += 1
            }
            i += 1
        }
    }

    private func isUnitIdentifier(_ t: String) -> Bool {
        t.count <= 6 && t.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" }
    }

    // MARK: How record keepers write

    /// Country names a text may end with: "…OR 97211 USA", "…Portland, Oregon, United States".
    public static let countryNames = ["united states of america", "united states", "u.s.a", "usa", "u.s", "us"]

    /// The text without a trailing country. "US" comes off only after a ZIP code or a state, where
    /// it cannot be part of a street's name.
    public static func withoutCountry(_ text: String) -> String {
        // Every name ends in "a" or "s": a text ending in anything else (a ZIP code, most of
        // them) is not scanned. Unguarded, this scan, the slash scan and the box scan took geocode
        // from 27.7 k to 25.1 k queries/s (`locus-bench geocode`, same run); guarded, 26.7 k both.
        guard let lastByte = text.utf8.last(where: { $0 != 0x20 && $0 != 0x2E && $0 != 0x2C && $0 != 0x09 }),
              lastByte | 0x20 == UInt8(ascii: "a") || lastByte | 0x20 == UInt8(ascii: "s") else { return text }
        let edge: (Character) -> Bool = { $0.isWhitespace || $0 == "." || $0 == "," }
        guard let end = text.lastIndex(where: { !edge($0) }) else { return text }
        let body = text[...end]
        for name in countryNames where body.count > name.count + 1 {
            let start = body.index(body.endIndex, offsetBy: -name.count)
            guard body[start...].lowercased() == name else { continue }
            let before = body[..<start]
            guard let last = before.last, last.isWhitespace || last == "," else { continue }
            let rest = String(before.reversed().drop(while: edge).reversed())
            if name == "us" || name == "u.s" {
                guard let word = AddressText.rawTokens(rest).last, postcode(word) != nil || AddressVocabulary.states[word] != nil else { continue }
            }
            return rest.isEmpty ? text : rest
        }
        return text
    }

    /// State codes that the tokens read as something else, to the state's name: a directional
    /// ("NE", northeast) or a street type's spelling ("CT" court, "LA" lane, "WY" way, "KY" key).
    static let stateCodesReadOtherwise: [String: String] = {
        var out: [String: String] = [:]
        for (name, code) in AddressVocabulary.states where name.count > 2 && AddressText.canonical(code) != code {
            out[code] = name
        }
        return out
    }()

    /// The text with a trailing state code that the tokens would read otherwise
    /// (`stateCodesReadOtherwise`) spelled out as the state's name, where it stands as a region:
    /// after a city in a comma part of its own ("…, Baton Rouge, LA 70801", "…, Baton Rouge LA"), or
    /// after a city the index knows ("200 Main St Omaha NE"). Read as "lane", "LA" left every
    /// Louisiana address typed with its state without a candidate; read as "northeast", "NE" made
    /// "Omaha" the city "omaha northeast" (another state's Main St answered at 90). A quadrant
    /// after the street stays one: "1004 K St NE", "1004 K St, NE".
    func withStateCodeSpelledOut(_ text: String) -> String {
        // Found on the bytes from the end, without allocating: the two letters before an optional
        // ZIP code (`isPostcode`). Most texts end in another word or
        // ZIP code and leave here. (On Characters, with the ZIP code as a String, geocode ran at
        // about 0.9 of its speed: `locus-bench geocode`, alternating runs.)
        let bytes = text.utf8
        let isEdge = { (b: UInt8) in b == 0x20 || b == 0x2C || b == 0x2E || b == 0x09 }
        let isDigit = { (b: UInt8) in b >= 0x30 && b <= 0x39 }
        let isLetter = { (b: UInt8) in (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A }
        var i = bytes.endIndex
        func skip(while p: (UInt8) -> Bool) -> Int {
            var n = 0
            while i > bytes.startIndex, p(bytes[bytes.index(before: i)]) { i = bytes.index(before: i); n += 1 }
            return n
        }
        _ = skip(while: isEdge)
        var end = i
        let zip = skip(while: { isDigit($0) || $0 == 0x2D })
        if zip > 0 {
            guard Self.isPostcode(bytes[i..<end]) else { return text }
            _ = skip(while: isEdge)
            end = i
        }
        guard skip(while: isLetter) == 2, let name = Self.stateCodesReadOtherwise[text[i..<end].lowercased()] else { return text }
        let wordStart = i
        let before = text[..<wordStart]
        guard let last = before.last(where: { !$0.isWhitespace }) else { return text }
        let isRegion: Bool
        if last == "," {
            // Its own part: a city's part before it, which is not the address's.
            let parts = before.split(separator: ",", omittingEmptySubsequences: false).dropLast()
            isRegion = parts.count >= 2 && parts.last.map { p in p.contains(where: \.isLetter) && !p.contains(where: \.isNumber) } == true
        } else if let comma = before.lastIndex(of: ",") {
            // After a city in the same part: "…, Baton Rouge LA".
            let city = before[before.index(after: comma)...].split(whereSeparator: \.isWhitespace)
            isRegion = (1...3).contains(city.count) && city.allSatisfy { $0.allSatisfy(\.isLetter) }
        } else {
            // No commas: a city the index knows just before it.
            let words = AddressText.tokens(before.split(whereSeparator: \.isWhitespace).suffix(3).joined(separator: " "))
            isRegion = !words.isEmpty && (1...min(3, words.count)).contains { cityKeys.contains(words.suffix($0).joined(separator: " ")) }
        }
        guard isRegion else { return text }
        return String(before) + name + String(text[end...])
    }

    /// A number's fraction as typed in a word processor, which turns "108 1/2" into "108½" (and
    /// writes "1⁄2" with the fraction slash): as the fraction of digits it stands for, after a
    /// space. Other text is returned as it is.
    static func asciiFractions(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { [0xBC, 0xBD, 0xBE, 0x2044].contains($0.value) }) else { return text }
        var out = ""
        for c in text {
            switch c {
            case "¼": out += " 1/4"
            case "½": out += " 1/2"
            case "¾": out += " 3/4"
            case "\u{2044}": out += "/"
            default: out.append(c)
            }
        }
        return out
    }

    /// "NE 82nd Ave/Glisan St", "NE 34th / Killingsworth": one slash between two street names is a
    /// crossing, as transit and field lists write it. Returns the text with "&" for the slash. A
    /// slash between digits is a fraction ("108 1/2"); "c/o" and the record keepers' "N/" name no
    /// street on one side.
    static func slashCrossing(_ text: String) -> String? {
        guard text.utf8.contains(UInt8(ascii: "/")) else { return nil }
        let chars = Array(text)
        let slashes = chars.indices.filter { i in
            chars[i] == "/" && !(i > 0 && chars[i - 1].isNumber && i + 1 < chars.count && chars[i + 1].isNumber)
        }
        guard slashes.count == 1, let s = slashes.first else { return nil }
        let left = String(chars[..<s]), right = String(chars[(s + 1)...])
        let all = AddressText.rawTokens(text)
        guard !all.contains(where: crossingWords.contains) else { return nil }
        let leftStreet = AddressText.rawTokens(left.split(separator: ",", omittingEmptySubsequences: false).last ?? "")
        let rightStreet = AddressText.rawTokens(right.prefix { $0 != "," })
        func namesAStreet(_ t: [String]) -> Bool {
            t.contains { $0.count >= 2 && AddressVocabulary.directionals[$0] == nil && !AddressText.isNumber($0) }
        }
        guard namesAStreet(leftStreet), namesAStreet(rightStreet), let first = leftStreet.first, !AddressText.isNumber(first)
        else { return nil }
        return left + " & " + right
    }

    /// Takes a post-office box ("PO Box 1234", "P.O. Box 12", "Post Office Box 7") as the unit: it
    /// has no place on a street, and what is left (a city, a ZIP code) is all there is to find.
    static func peelPostOfficeBox(_ tokens: inout [String], into result: inout ParsedAddress) {
        guard tokens.contains(where: { $0 == "box" || $0 == "pob" }) else { return }
        let forms: [[String]] = [["po", "box"], ["p", "o", "box"], ["post", "office", "box"], ["pob"]]
        for form in forms {
            guard let start = tokens.indices.first(where: { tokens[$0...].starts(with: form) }) else { continue }
            let id = start + form.count
            guard id < tokens.count, tokens[id].count <= 10, tokens[id].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else { continue }
            result.unit = "po box \(tokens[id])"
            tokens.removeSubrange(start...id)
            return
        }
    }

    /// Splits "1640 WI/ NW 19TH AVE", "5331-5337 N/ N KERBY AVE" (a side or position after the
    /// number), "NW COR/ 27TH & NE SARATOGA ST", "SEC/ CONCORD & N GOING CT" (a corner of a
    /// crossing) and "N SIDE/ N KERBY AVE" (a side of a street) into the qualifier and the address
    /// without it. A slash between digits ("108 1/2") is a fraction, not a qualifier.
    static func qualified(_ text: String) -> (text: String, qualifier: String, corner: Bool)? {
        let chars = Array(text.prefix(64))
        guard let slash = chars.indices.first(where: { chars[$0] == "/" && $0 > 0 && chars[$0 - 1].isLetter }) else { return nil }
        let head = AddressText.rawTokens(String(chars[..<slash]))
        let rest = String(text.dropFirst(slash + 1))
        guard (1...3).contains(head.count), !rest.trimmingWhitespace().isEmpty else { return nil }
        let isNumber = { (t: String) in t.first?.isNumber == true && t.count <= 12 && t.allSatisfy { $0.isNumber || $0 == "-" } }
        // A house number (or range) and one or two short words: "WI", "N", "S".
        if isNumber(head[0]), head.count >= 2, head.dropFirst().allSatisfy({ $0.count <= 3 && $0.allSatisfy(\.isLetter) }) {
            return ("\(head[0]) \(rest)", head.dropFirst().joined(separator: " "), false)
        }
        // The same short words before the number: "E/ 7007 NE CORNFOOT RD".
        if head.count == 1, head[0].count <= 3, head[0].allSatisfy(\.isLetter),
           let next = AddressText.rawTokens(rest.prefix(24)).first, isNumber(next) {
            return (rest, head[0], false)
        }
        // A side before a street with no number: "N/ NE AINSWORTH ST" (two directionals in a row
        // start no street).
        if head.count == 1, AddressVocabulary.directionals[head[0]] != nil,
           let next = AddressText.rawTokens(rest.prefix(24)).first, AddressVocabulary.directionals[next] != nil {
            return (rest, head[0], false)
        }
        // "SEC", "NWC"; "NW COR", "SE CORNER"; "N SIDE".
        let qualifier = head.joined(separator: " ")
        if head.count == 1, ["nec", "nwc", "sec", "swc"].contains(head[0]) { return (rest, qualifier, true) }
        if head.count == 2, AddressVocabulary.directionals[head[0]] != nil {
            if head[1] == "cor" || head[1] == "corner" { return (rest, qualifier, true) }
            if head[1] == "side" { return (rest, qualifier, false) }
        }
        return nil
    }

    /// "80TH SE SALMON ST" after a corner's qualifier names two streets with no "&" between:
    /// split before the directional that starts the second.
    static func splitCorner(_ result: inout ParsedAddress) {
        let t = result.street
        guard result.number == nil, t.count >= 3,
              let k = t.indices.dropFirst().first(where: { StreetNameParts.directionals.contains(t[$0]) }),
              t.count - k >= 2 else { return }
        result.street = Array(t[..<k])
        result.crossStreet = Array(t[k...])
    }

    /// Unit designators record keepers write after a comma that may mean something else elsewhere
    /// ("Un" is also USPS's Union).
    static let commaUnitDesignators: [String: String] = ["un": "unit"]

    /// A unit written as its own comma-separated part: "…AVE, UN A", "…ST, BLDG 2", "…PL, A".
    /// Returns the text without it.
    public static func commaUnit(_ text: Substring) -> (Substring, String)? {
        guard let comma = text.firstIndex(of: ",") else { return nil }
        var start = comma
        while start < text.endIndex {
            let end = text[text.index(after: start)...].firstIndex(of: ",") ?? text.endIndex
            let part = AddressText.rawTokens(text[text.index(after: start)..<end])
            var unit: String?
            // ", FL" and ", FL 33101" are Florida, not a floor.
            let isState = part.first.map { AddressVocabulary.states[$0] != nil && (part.count == 1 || postcode(part[1]) != nil) } ?? false
            let designator = isState ? nil : part.first.flatMap { unitWords[$0] ?? commaUnitDesignators[$0] }
            if part.count == 2, let d = designator, takesIdentifier(part[0], part[1]), part[1].count <= 8,
               part[1].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) {
                unit = d == "#" ? "# \(part[1])" : "\(d) \(part[1])"
            } else if part.count == 2, unitWords[part[1]] == "fl", let floor = floorNumber(part[0]) {
                unit = "fl \(floor)"  // "…St, 2nd Flr, New York"
            } else if part.count == 1, let d = designator, d != "#", AddressVocabulary.unitDesignators[part[0]] != nil || commaUnitDesignators[part[0]] != nil {
                unit = d  // "…AVE, UN": the designator alone
            } else if part.count == 1, let t = part.first, AddressVocabulary.states[t] == nil,
                      (t.count == 1 && t.allSatisfy(\.isLetter)) || (t.count <= 4 && t.first?.isNumber == true && t.allSatisfy { $0.isLetter || $0.isNumber }) {
                // A lone letter, or a short number that is no ZIP: the unit ("A", "2", "12B").
                unit = "# \(t)"
            }
            if let unit { return (Substring(String(text[..<start]) + String(text[end...])), unit) }
            start = end
        }
        return nil
    }

    /// A mailing label's lines as the comma-separated parts of one address ("Valiant Payroll
    /// Service\n110 Crossways Park Dr\nWoodbury, NY 11797"): read as one line, the name ran into
    /// the house number and the street into the town, and nothing was found.
    public static func linesAsParts(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D }) else { return text }
        return text.split(whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" })
            .map { trimmed($0) }.filter { !$0.isEmpty }.joined(separator: ", ")
    }

    /// Words before a number that make it a route's, not a house's ("Highway 26 Bypass").
    static let routeWords: Set<String> = ["highway", "hwy", "route", "rte", "rt", "sr", "us", "i", "interstate", "road",
                                          "rd", "cr", "fm", "loop", "state", "county", "no", "number", "spur", "#"]

    /// The address after a building's own ("1 Lincoln Ctr 5400 LBJ Fwy", "1000 Cathedral Pl 925 W
    /// Georgia St", "30 Allen Plaza, Suite 700, 30 Ivan Allen Jr Blvd"): the text from a later
    /// house number on, one that follows a word and comes before a word of a street, with no
    /// comma or unit designator either side. Nil when the text has none.
    public static func addressAfterBuilding(_ text: String) -> Substring? {
        let words = wordsAndCommas(text[...])
        guard words.count >= 5, words[0].word.allSatisfy(\.isNumber) else { return nil }
        func plain(_ w: Substring) -> String { w.lowercased().filter { $0.isLetter || $0.isNumber || $0 == "#" } }
        for j in 2..<(words.count - 1) {
            let w = words[j].word
            guard w.count <= 6, w.allSatisfy({ $0.isASCII && $0.isNumber }), !words[j].comma else { continue }
            let before = plain(words[j - 1].word), after = plain(words[j + 1].word)
            guard before.contains(where: \.isLetter), unitWords[before] == nil, !routeWords.contains(before),
                  after.contains(where: \.isLetter), unitWords[after] == nil,
                  AddressVocabulary.states[after] == nil || AddressVocabulary.directionalNames[after] != nil else { continue }
            return text[w.startIndex...]
        }
        return nil
    }

    /// What a person wrote around an address that is no part of it: remarks in brackets ("…OR
    /// 97221 (Oregon Zoo)"), a name before the house number ("Pioneer Courthouse Square, 701 SW
    /// 6th Ave", "Portland State University 1825 SW Broadway") or between the address and its
    /// region, as landmark lists are typed.
    /// Returns the address alone and what was set aside, or nil when nothing is.
    public static func setAside(_ text: String) -> (address: String, aside: String)? {
        var kept = ""
        var aside: [String] = []
        var depth = 0
        var remark = ""
        for c in text {
            switch c {
            case "(", "[":
                depth += 1
                if depth == 1 { remark = "" } else { remark.append(c) }
            case ")" where depth > 0, "]" where depth > 0:
                // A closing bracket with none open is text (a smiley, a typo), not the end of a
                // remark: it made the count negative, and the remark after it was kept.
                depth -= 1
                if depth == 0 { aside.append(remark) } else { remark.append(c) }
            default:
                if depth > 0 { remark.append(c) } else { kept.append(c) }
            }
        }
        if depth > 0 { aside.append(remark) }  // an unclosed "(" runs to the end
        // "Gateway Transit Center (NE 99th Ave & Glisan)": the address is in the brackets, the
        // name outside them.
        if !kept.contains(where: \.isNumber), let inner = aside.first(where: { $0.contains(where: \.isNumber) }) {
            let name = trimmed(kept)
            aside = (name.isEmpty ? [] : [name]) + aside.filter { $0 != inner }
            kept = inner
        }
        // A name: everything before the first word that is a house number, when it holds letters
        // and no digit ("NE 34th Ave 6132" and "NW COR/ 27TH & …" have no name to set aside).
        var cut: String.Index?
        var i = kept.startIndex
        scan: while i < kept.endIndex {
            let c = kept[i]
            if c.isNumber {
                // A digit inside a word ("I-205") is a name's, not a house's.
                if i > kept.startIndex, case let p = kept[kept.index(before: i)], !(p.isWhitespace || ",;:".contains(p)) { break scan }
                let end = kept[i...].firstIndex { $0.isWhitespace || $0 == "," } ?? kept.endIndex
                if AddressText.ordinalNumber(kept[i..<end].lowercased()) == nil { cut = i }
                break scan
            }
            i = kept.index(after: i)
        }
        if let cut, cut > kept.startIndex {
            let name = trimmed(kept[..<cut])
            // Directionals alone are the street's, not a name ("se 32n & 30th", a misspelt
            // ordinal after them): read aside, the text was geocoded twice, every quarter's 32nd
            // paired with every 30th the second time (the geocoder fuzzer: 13 ms instrumented).
            if name.contains(where: \.isLetter), !AddressText.tokens(name).allSatisfy(StreetNameParts.directionals.contains) {
                aside.insert(name, at: 0)
                kept = String(kept[cut...])
            }
        }
        // Whom a letter is for, after the address: "1775 Spectrum Dr Suite 100 Attn: Roger Lane",
        // "…Rd NE Fl 6 Attn: Mr. Greg Earth, Atlanta" — from the word to the next comma (a name
        // runs into a town typed without one: the town is lost, the street read). Read as the
        // street, it had no candidate.
        if let firstDigit = kept.firstIndex(where: \.isNumber),
           let marker = attentionMarker(in: kept[firstDigit...]) {
            let end = kept[marker...].firstIndex { $0 == "," || $0 == ";" } ?? kept.endIndex
            aside.append(String(kept[marker..<end]))
            kept.removeSubrange(marker..<end)
        }
        // A name between the address and its region: "2245 NE 36th Ave, Grant High School,
        // Portland" — a middle part of two or more words and no digit, after the house number.
        let parts = kept.split(separator: ",", omittingEmptySubsequences: false)
        if parts.count >= 3, parts[0].contains(where: \.isNumber) {
            var keptParts = [parts[0]]
            for (k, part) in parts.enumerated().dropFirst() {
                let words = part.split(whereSeparator: \.isWhitespace)
                if k < parts.count - 1, words.count >= 2, !part.contains(where: \.isNumber) {
                    aside.append(String(part))
                } else {
                    keptParts.append(part)
                }
            }
            kept = keptParts.joined(separator: ",")
        }
        let address = trimmed(kept)
        let set = aside.map { trimmed($0) }.filter { !$0.isEmpty }
        guard !set.isEmpty, !address.isEmpty, address.contains(where: \.isLetter) else { return nil }
        return (address, set.joined(separator: "; "))
    }

    /// Where the first word that names a letter's recipient begins ("Attn", "Attn:Charlotte",
    /// "Attention:", "c/o"), after a word of the text; nil when none does.
    static func attentionMarker(in text: Substring) -> String.Index? {
        for (w, _) in wordsAndCommas(text).dropFirst() {
            // The word up to a colon, without dots: "Attn.", "ATTN:Charlotte".
            let head = w.prefix { $0 != ":" }.lowercased().filter { $0 != "." }
            if ["attn", "attention", "c/o"].contains(head) { return w.startIndex }
        }
        return nil
    }

    /// The words of a text between spaces and commas, each with whether a comma follows it.
    static func wordsAndCommas(_ text: Substring) -> [(word: Substring, comma: Bool)] {
        var words: [(word: Substring, comma: Bool)] = []
        var start: String.Index?
        var i = text.startIndex
        while i <= text.endIndex {
            let c: Character? = i < text.endIndex ? text[i] : nil
            if let c, !c.isWhitespace, c != "," {
                if start == nil { start = i }
            } else {
                if let s = start { words.append((text[s..<i], c == ",")) }
                if c == ",", !words.isEmpty { words[words.count - 1].comma = true }
                start = nil
            }
            guard i < text.endIndex else { break }
            i = text.index(after: i)
        }
        return words
    }

    private static func trimmed(_ text: some StringProtocol) -> String {
        let edge: (Character) -> Bool = { $0.isWhitespace || ",;:-".contains($0) }
        guard let start = text.firstIndex(where: { !edge($0) }), let end = text.lastIndex(where: { !edge($0) }) else { return "" }
        return String(text[start...end])
    }

    /// The ZIP code that ends `tokens` and how many tokens it takes: one ZIP or ZIP+4 token, a
    /// ZIP+4 written with a space ("97211 1234"), or a number after a state that is no ZIP code
    /// ("…, OR 9721", "…, OR 972111": a digit lost or doubled), taken as no ZIP code at all. Staff-
    /// typed lists have these; each left the number in the street, and no candidate at any score.
    static func trailingPostcode(_ tokens: [String]) -> (zip: (String, String?)?, count: Int)? {
        guard let last = tokens.last else { return nil }
        if let zip = postcode(last) { return (zip, 1) }
        let digits = last.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
        guard digits, tokens.count >= 2 else { return nil }
        let before = tokens[tokens.count - 2]
        if last.utf8.count == 4, before.utf8.count == 5, let (zip, _) = postcode(before) {
            return ((zip, last), 2)
        }
        // After a state code or name, with something before it to be the address.
        if (3...7).contains(last.utf8.count), tokens.count >= 3, AddressVocabulary.states[before] != nil {
            return (nil, 1)
        }
        return nil
    }

    /// A ZIP ("97211") or ZIP+4 ("97211-1234", "972111234") token as (ZIP, extension).
    public static func postcode(_ token: String) -> (String, String?)? {
        guard isPostcode(token.utf8) else { return nil }
        return token.utf8.count == 5 ? (token, nil) : (String(token.prefix(5)), String(token.suffix(4)))
    }

    /// Whether these bytes are a ZIP code: five digits, nine, or five, a hyphen and four.
    static func isPostcode<C: Collection>(_ u: C) -> Bool where C.Element == UInt8 {
        let digit = { (b: UInt8) in b >= 0x30 && b <= 0x39 }
        switch u.count {
        case 5, 9: return u.allSatisfy(digit)
        case 10: return u.enumerated().allSatisfy { $0.offset == 5 ? $0.element == 0x2D : digit($0.element) }
        default: return false
        }
    }
}
