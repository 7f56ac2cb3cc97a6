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

extension AddressSearch {
    /// Suggestions for a search box, from the first character typed.
    ///
    /// Text that starts with a house number suggests addresses with that number on streets
    /// matching the rest; other text suggests streets (per city), then postcodes, neighbourhoods
    /// and cities. The last word is a prefix; earlier words match whole, or through a typo when
    /// nothing matches exactly.
    public func suggest(_ request: SuggestRequest) -> [Suggestion] {
        let endsWithSpace = request.text.last?.isWhitespace ?? false
        var tokens = AddressText.tokens(request.text)
        if let first = tokens.first, AddressText.isNumber(first) {
            tokens = [first] + AddressText.streetTokens(Array(tokens.dropFirst()))
        } else {
            tokens = AddressText.streetTokens(tokens)
        }
        guard !tokens.isEmpty, request.maxResults > 0 else { return [] }
        tokens.removeAll { $0 == "#" || $0 == "&" || $0 == "@" }
        guard !tokens.isEmpty else { return [] }
        let prefix: String? = endsWithSpace ? nil : tokens.removeLast()
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
    private func rank(_ location: GeoPoint, popularity: Int, _ request: SuggestRequest, quality: Double) -> Double? {
        if let e = request.extent, !e.contains(x: location.x, y: location.y) { return nil }
        var r = quality * 1_000
        if let near = request.near {
            let s = LocalMetricScale(latitude: near.y)
            let dx = (location.x - near.x) * s.metresPerDegreeX, dy = (location.y - near.y) * s.metresPerDegreeY
            r += (dx * dx + dy * dy).squareRoot() / 1_000
        } else {
            r -= log(Double(max(popularity, 1)))
        }
        return r
    }

    /// Street places matching every whole word and the prefix.
    private func streetSuggestions(words: [String], prefix: String?, _ request: SuggestRequest) -> [(Double, Suggestion)] {
        var candidates: [Int32]? = nil
        var quality = 0.0
        for w in words {
            var posting: [Int32]
            if let i = vocabularyIndex[w] {
                posting = postings[Int(i)]
            } else {
                // A misspelt whole word: every word within the allowance.
                let fuzzy = fuzzyWords(w)
                guard !fuzzy.isEmpty else { return [] }
                posting = Array(Set(fuzzy.flatMap { postings[Int($0.0)] })).sorted()
                quality += 1
            }
            candidates = candidates.map { intersect($0, posting) } ?? posting
        }
        if let prefix {
            var range = wordsWithPrefix(prefix)
            var prefixQuality = 0.0
            if range.isEmpty {
                guard prefix.count >= 4 else { return [] }
                prefixQuality = 1
                var union = Set<Int32>()
                for variant in oneEditVariants(prefix) {
                    let r = wordsWithPrefix(variant)
                    for w in r { union.formUnion(postings[w]) }
                }
                let list = Array(union).sorted()
                candidates = candidates.map { intersect($0, list) } ?? list
                range = 0..<0
            } else {
                var union: [Int32] = []
                for w in range { union.append(contentsOf: postings[w]) }
                if range.count > 1 { union = Array(Set(union)).sorted() }
                candidates = candidates.map { intersect($0, union) } ?? union
            }
            quality += prefixQuality
        }
        guard let candidates else { return [] }
        var out: [(Double, Suggestion)] = []
        out.reserveCapacity(min(candidates.count, 64))
        // Keep only the best few: ranking every street of a one-letter prefix is the slow path.
        var worstKept = Double.infinity
        let keep = request.maxResults * 2
        for c in candidates {
            let sp = streetPlaces[Int(c)]
            let rep = addresses.points[Int(sp.representative)]
            guard let r = rank(GeoPoint(x: rep.lon, y: rep.lat), popularity: Int(sp.count), request, quality: quality) else { continue }
            if out.count >= keep, r >= worstKept { continue }
            let text = [addresses.streetDisplay[Int(sp.street)], sp.city, sp.state].filter { !$0.isEmpty }.joined(separator: ", ")
            out.append((r, Suggestion(text: text, type: .street, key: "s\(c)")))
            if out.count > keep * 4 {
                out.sort { $0.0 < $1.0 }
                out.removeLast(out.count - keep)
                worstKept = out.last!.0
            }
        }
        return out
    }

    /// Addresses with this number on streets matching the words and the prefix.
    private func addressSuggestions(number: Int32, words: [String], prefix: String?, _ request: SuggestRequest) -> [(Double, Suggestion)] {
        guard let list = byNumber[number] else { return [] }
        var out: [(Double, Suggestion)] = []
        for a in list {
            let p = addresses.points[Int(a)]
            let streetTokens = streets[Int(p.street)].tokens
            var quality = 0.0
            var ok = true
            for w in words where !streetTokens.contains(w) {
                if w.count >= 4, streetTokens.contains(where: { EditDistance.distance(w, $0, limit: EditDistance.allowance(forLength: w.count)) != nil }) {
                    quality += 1
                } else {
                    ok = false
                    break
                }
            }
            guard ok else { continue }
            if let prefix, !streetTokens.contains(where: { $0.hasPrefix(prefix) }) {
                guard prefix.count >= 4, streetTokens.contains(where: { t in oneEditVariants(prefix).contains { t.hasPrefix($0) } }) else { continue }
                quality += 1
            }
            guard let r = rank(GeoPoint(x: p.lon, y: p.lat), popularity: 1, request, quality: quality) else { continue }
            out.append((r, Suggestion(text: addresses.components(of: Int(a)).formatted, type: .address, key: "a\(a)")))
        }
        return out
    }

    /// Just a number typed so far: with a bias point, addresses with that number nearby.
    private func numberOnlySuggestions(_ digits: String, _ request: SuggestRequest) -> [(Double, Suggestion)] {
        guard let number = Int32(digits), let list = byNumber[number] else { return [] }
        var out: [(Double, Suggestion)] = []
        for a in list.prefix(request.near == nil ? request.maxResults : list.count) {
            let p = addresses.points[Int(a)]
            guard let r = rank(GeoPoint(x: p.lon, y: p.lat), popularity: 1, request, quality: 0.5) else { continue }
            out.append((r, Suggestion(text: addresses.components(of: Int(a)).formatted, type: .address, key: "a\(a)")))
        }
        return out
    }

    private func postcodeSuggestions(prefix: String, _ request: SuggestRequest) -> [(Double, Suggestion)] {
        guard prefix.count <= 5 else { return [] }
        return postcodes.filter { $0.name.hasPrefix(prefix) }.compactMap { area in
            rank(area.location, popularity: area.count, request, quality: 0).map { ($0, Suggestion(text: area.detail, type: .postcode, key: "z\(area.name)")) }
        }
    }

    /// Neighbourhoods and cities whose names match the words and prefix.
    private func areaSuggestions(words: [String], prefix: String?, _ request: SuggestRequest) -> [(Double, Suggestion)] {
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

    private func intersect(_ a: [Int32], _ b: [Int32]) -> [Int32] {
        var out: [Int32] = []
        var i = 0, j = 0
        while i < a.count, j < b.count {
            if a[i] == b[j] { out.append(a[i]); i += 1; j += 1 } else if a[i] < b[j] { i += 1 } else { j += 1 }
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
