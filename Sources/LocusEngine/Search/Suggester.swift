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

    init(_ r: SuggestRequest) {
        text = r.text
        maxResults = r.maxResults
        near = r.near
        extent = r.extent
        nearScale = r.near.map { LocalMetricScale(latitude: $0.y) }
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
        let request = SuggestContext(suggestRequest)
        let endsWithSpace = request.text.last?.isWhitespace ?? false
        var tokens = AddressText.tokens(request.text)
        tokens.removeAll { $0 == "#" || $0 == "&" || $0 == "@" }
        guard !tokens.isEmpty, request.maxResults > 0 else { return [] }
        // The last word is still being typed: "3" may become "34th", so it stays as typed.
        let prefix: String? = endsWithSpace ? nil : tokens.removeLast()
        if let first = tokens.first, AddressText.isNumber(first) {
            tokens = [first] + AddressText.streetTokens(Array(tokens.dropFirst()))
        } else {
            tokens = AddressText.streetTokens(tokens)
        }
        var ranked: [(rank: Double, suggestion: Suggestion)] = []

        if let first = tokens.first ?? prefix, AddressText.isNumber(first) {
            if tokens.isEmpty {
                ranked += postcodeSuggestions(prefix: first, request)
                ranked += numberOnlySuggestions(first, request)
            } else if let number = Int32(tokens[0]) {
                ranked += addressSuggestions(number: number, words: Array(tokens.dropFirst()), prefix: prefix, request)
            }
        } else {
            ranked += streetSuggestions(words: tokens, prefix: prefix, request)
            ranked += areaSuggestions(words: tokens, prefix: prefix, request)
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

    /// Lower is better: distance to the bias point in km when there is one, else fewer addresses
    /// (a smaller place) ranks lower.
    private func rank(_ location: GeoPoint, popularity: Int, _ request: SuggestContext, quality: Double) -> Double? {
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
    /// every street costs one pass over their postings, with no sets built.
    private func streetSuggestions(words: [String], prefix: String?, _ request: SuggestContext) -> [(Double, Suggestion)] {
        var mark = [UInt8](repeating: 0, count: streetPlaces.count)
        var quality = 0.0
        var constraint: UInt8 = 0
        func apply(_ wordIDs: some Sequence<Int>) {
            for w in wordIDs {
                for sp in streetPlaces(withWord: w) where mark[Int(sp)] == constraint { mark[Int(sp)] = constraint + 1 }
            }
            constraint += 1
        }
        for w in words.prefix(8) {
            if let i = vocabularyID(w) {
                apply([i])
            } else {
                // A misspelt whole word: every word within the allowance.
                let fuzzy = fuzzyWords(w)
                guard !fuzzy.isEmpty else { return [] }
                quality += 1
                apply(fuzzy.map { Int($0.0) })
            }
        }
        if let prefix {
            let range = wordsWithPrefix(prefix)
            if !range.isEmpty {
                apply(range)
            } else {
                guard prefix.count >= 4 else { return [] }
                quality += 1
                apply(fuzzyPrefixWords(prefix))
            }
        }
        guard constraint > 0 else { return [] }
        var out: [(Double, Suggestion)] = []
        var worstKept = Double.infinity
        let keep = request.maxResults * 2
        for c in mark.indices where mark[c] == constraint {
            let sp = streetPlaces[c]
            let rep = addresses.points[Int(sp.representative)]
            guard let r = rank(GeoPoint(x: rep.lon, y: rep.lat), popularity: Int(sp.count), request, quality: quality) else { continue }
            if out.count >= keep, r >= worstKept { continue }
            let l = localities[Int(sp.locality)]
            let text = [addresses.streetDisplay[Int(sp.street)], l.city, l.state].filter { !$0.isEmpty }.joined(separator: ", ")
            out.append((r, Suggestion(text: text, type: .street, key: "s\(c)")))
            if out.count > keep * 4 {
                out.sort { $0.0 < $1.0 }
                out.removeLast(out.count - keep)
                worstKept = out.last!.0
            }
        }
        return out
    }

    /// Vocabulary words that begin with something one edit from `prefix`.
    func fuzzyPrefixWords(_ prefix: String) -> [Int] {
        // Every variant is at least this long, and no word is longer.
        guard prefix.count - 1 <= longestWord else { return [] }
        var ids = Set<Int>()
        for variant in Set(oneEditVariants(prefix)) {
            ids.formUnion(wordsWithPrefix(variant))
        }
        return ids.sorted()
    }

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

    /// Addresses with this number whose street, city and postcode account for every word typed
    /// after it, the last one as a prefix.
    private func addressSuggestions(number: Int32, words: [String], prefix: String?, _ request: SuggestContext) -> [(Double, Suggestion)] {
        guard let list = byNumber[number] else { return [] }
        var out: [(Double, Suggestion)] = []
        // A number's addresses share few streets, each in many cities: a street's tokens, and
        // whether a word or the prefix is a typo of one of its (or a city's) words, are worked
        // out once per query, when first needed.
        var streetTokens: [UInt32: [String]] = [:]
        var typos: [TypoKey: Bool] = [:]
        let typed = words
        func typo(_ k: Int, _ key: TypoKey, in words: @autoclosure () -> [String]) -> Bool {
            if let known = typos[key] { return known }
            let w = k < typed.count ? typed[k] : (prefix ?? "")
            // A street's tokens compared where they lie when they and the word are ASCII.
            if case .street(let s, _) = key,
               let found = k < typed.count ? streets.hasTypo(of: w, street: Int(s)) : streets.hasPrefixTypo(w, street: Int(s)) {
                typos[key] = found
                return found
            }
            let list = words()
            let found = k < typed.count
                ? w.count >= 3 && list.contains { EditDistance.distance(w, $0, limit: EditDistance.allowance(forLength: max(w.count, $0.count))) != nil }
                : prefixMatches(w, in: list).typo
            typos[key] = found
            return found
        }
        let points = addresses.points
        for a in list {
            let i = Int(a)
            let s = points.street(i), place = Int(points.place(i))
            // The street's tokens decoded only when bytes cannot decide (a typo, text outside ASCII).
            var decoded: [String]?
            func tokens() -> [String] {
                if let decoded { return decoded }
                let t = streetTokens[s] ?? streets.tokens(Int(s))
                streetTokens[s] = t
                decoded = t
                return t
            }
            func inStreet(_ w: String, whole: Bool) -> Bool {
                streets.has(w, whole: whole, street: Int(s)) ?? tokens().contains { whole ? $0 == w : $0.hasPrefix(w) }
            }
            let placeWords = placeTokens[place]
            let city = place < placeLocality.count ? placeLocality[place] : -1
            var quality = 0.0
            var ok = true
            for (k, w) in words.enumerated() where !inStreet(w, whole: true) && !placeWords.contains(w) {
                if w.count >= 3, typo(k, .street(s, k), in: tokens()) || typo(k, .city(city, k), in: Array(placeWords.dropLast()))
                    || typo(k, .place(place, k), in: Array(placeWords.suffix(1))) {
                    quality += 1
                } else {
                    ok = false
                    break
                }
            }
            guard ok else { continue }
            if let prefix, !inStreet(prefix, whole: false), !placeWords.contains(where: { $0.hasPrefix(prefix) }) {
                // Not the beginning of a word: one edit from one (`prefixMatches`), a point off.
                let k = words.count
                guard prefix.count >= 4, typo(k, .street(s, k), in: tokens()) || typo(k, .city(city, k), in: Array(placeWords.dropLast()))
                        || typo(k, .place(place, k), in: Array(placeWords.suffix(1))) else { continue }
                quality += 1
            }
            // As `PointTable` reads a damaged coordinate: 0.
            let lon = points.lon(i), lat = points.lat(i)
            let location = GeoPoint(x: abs(lon) <= 180 ? lon : 0, y: abs(lat) <= 90 ? lat : 0)
            guard let r = rank(location, popularity: 1, request, quality: quality) else { continue }
            out.append((r, Suggestion(text: addresses.components(of: i).formatted, type: .address, key: "a\(a)")))
        }
        return out
    }

    /// Whether typed word `k` (the prefix: `k` = the words' count) is a typo of a word of a
    /// street, a city or a place's postcode.
    enum TypoKey: Hashable {
        case street(UInt32, Int)
        case city(Int32, Int)
        case place(Int, Int)
    }

    /// Just a number typed so far: with a bias point, addresses with that number nearby.
    private func numberOnlySuggestions(_ digits: String, _ request: SuggestContext) -> [(Double, Suggestion)] {
        var out: [(Double, Suggestion)] = []
        if let near = request.near {
            // Addresses nearby whose number starts with what has been typed.
            for (a, _) in addresses.nearest(lon: near.x, lat: near.y, maxDistance: 3_000, count: 400) {
                let p = addresses.points[a]
                guard String(p.number).hasPrefix(digits) else { continue }
                guard let r = rank(GeoPoint(x: p.lon, y: p.lat), popularity: 1, request, quality: String(p.number) == digits ? 0 : 0.2) else { continue }
                out.append((r, Suggestion(text: addresses.components(of: a).formatted, type: .address, key: "a\(a)")))
            }
            if !out.isEmpty { return out }
        }
        guard let number = Int32(digits), let list = byNumber[number] else { return [] }
        for a in list.prefix(request.near == nil ? request.maxResults : list.count) {
            let p = addresses.points[Int(a)]
            guard let r = rank(GeoPoint(x: p.lon, y: p.lat), popularity: 1, request, quality: 0.5) else { continue }
            out.append((r, Suggestion(text: addresses.components(of: Int(a)).formatted, type: .address, key: "a\(a)")))
        }
        return out
    }

    private func postcodeSuggestions(prefix: String, _ request: SuggestContext) -> [(Double, Suggestion)] {
        guard prefix.count <= 5 else { return [] }
        return postcodes.filter { $0.name.hasPrefix(prefix) }.compactMap { area in
            rank(area.location, popularity: area.count, request, quality: 0).map { ($0, Suggestion(text: area.detail, type: .postcode, key: "z\(area.name)")) }
        }
    }

    /// Neighbourhoods and cities whose names match the words and prefix.
    private func areaSuggestions(words: [String], prefix: String?, _ request: SuggestContext) -> [(Double, Suggestion)] {
        func matches(_ tokens: [String]) -> Bool {
            var rest = tokens[...]
            for w in words {
                guard let i = rest.firstIndex(of: w) else { return false }
                rest = rest[(i + 1)...]
            }
            if let prefix { return rest.contains { $0.hasPrefix(prefix) } }
            return true
        }
        var out: [(Double, Suggestion)] = []
        for (i, n) in neighbourhoods.enumerated() where matches(n.area.tokens) {
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

    /// Every string one edit (delete, substitute, insert, transpose) from `word`.
    func oneEditVariants(_ word: String) -> [String] {
        let chars = Array(word)
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        var out: [String] = []
        for i in 0..<chars.count {
            var d = chars
            d.remove(at: i)
            out.append(String(d))
            for c in alphabet where c != chars[i] {
                var s = chars
                s[i] = c
                out.append(String(s))
            }
            if i + 1 < chars.count {
                var t = chars
                t.swapAt(i, i + 1)
                out.append(String(t))
            }
        }
        for i in 0...chars.count {
            for c in alphabet {
                var s = chars
                s.insert(c, at: i)
                out.append(String(s))
            }
        }
        return out
    }
}

#if canImport(Glibc)
import Glibc
#endif
