import LocusCore

/// The short forms people type for a street's name, as general rules over the index's own names:
/// initials of consecutive words ("M L King", "ML King", "TV Hwy"), an unambiguous word prefix
/// ("Mass Ave"), and the type a name most often has when none is typed ("NE 19" → NE 19th Ave).
extension AddressSearch {
    static func initials(_ words: [String]) -> String {
        String(words.compactMap(\.first))
    }

    /// A typed token that can only be initials: one letter, or two to four letters that are no word
    /// of any street or city ("ml", "tv", "bh"; never "oak" when Oak St exists somewhere).
    func isInitials(_ t: String) -> Bool {
        guard (1...4).contains(t.count), t.unicodeScalars.allSatisfy({ $0.value >= 0x61 && $0.value <= 0x7A }) else { return false }
        return t.count == 1 || vocabularyID(t) == nil
    }

    /// A street type canonical form read from a word that may have been initials ("ML" → Mill):
    /// its two-to-four-letter abbreviation, else nil. Geocode tries each such word both ways
    /// (`initialsCores`); suggest through `typesReadAsInitials`.
    static func initialsOfType(_ t: String) -> String? {
        guard let a = StreetStyle.streetTypes[t]?.lowercased(), (2...4).contains(a.count), a != t,
              a.unicodeScalars.allSatisfy({ $0.value >= 0x61 && $0.value <= 0x7A }) else { return nil }
        return a
    }

    /// The words with each type read before a word of the name given back as the initials it was
    /// typed as ("SE ML King": "ml" was read as the type Mill, and no street has the words Mill
    /// and King); nil when there is none. A type before another type or a directional, or last,
    /// stays a type: "Park Ave" is Park. `next`: the word after the last (the one being typed).
    static func typesReadAsInitials(_ words: [String], then next: String?) -> [String]? {
        var out = words, changed = false
        for k in words.indices {
            guard let a = initialsOfType(words[k]) else { continue }
            guard let after = k + 1 < words.count ? words[k + 1] : next, !after.isEmpty,
                  !StreetNameParts.types.contains(after), !StreetNameParts.directionals.contains(after) else { continue }
            out[k] = a
            changed = true
        }
        return changed ? out : nil
    }

    /// Core keys the typed core abbreviates with initials, each letter the first of one word, whole
    /// words matching as they stand. A core of initials alone must come with a street type the
    /// street has: "TV" by itself would be any of many names.
    func initialsCores(_ core: [String], type: String?) -> [String] {
        guard core.count <= 8 else { return [] }
        // Canonical form has already read some initials as words: "ML" as the type Mill, "E" as
        // East. Each such word may be its abbreviation instead (at most a few, so few readings).
        var readings: [[(String, Bool)]] = [[]]
        for t in core {
            var options = [(t, isInitials(t))]
            if let a = Self.initialsOfType(t) {
                options.append((a, true))
            } else if let d = StreetStyle.directionals[t]?.lowercased(), d.count == 1 {
                options.append((d, true))
            }
            readings = readings.flatMap { r in options.map { r + [$0] } }
            if readings.count > 16 { return [] }
        }
        var out: [String] = []
        for reading in readings where reading.contains(where: \.1) {
            for key in initialsCores(reading, type: type) where !out.contains(key) { out.append(key) }
        }
        // "BHH", "TVH", "PCH": the initials of the name and of its type, in one word (Beaverton
        // Hillsdale Hwy): each letter but the last the first of one word of the name, the last
        // the first of a type a street of the name has.
        if out.isEmpty, type == nil, core.count == 1, let t = core.first, t.count >= 3, isInitials(t) {
            let stem = String(t.dropLast())
            out = (coresByInitials[stem] ?? []).filter { key in
                key.split(separator: " ").count == stem.count
                    && (streets(withCore: key) ?? StoredIDs([], limit: 0)[...]).contains { streets[Int($0)].parts.type?.first == t.last }
            }
        }
        return out
    }

    private func initialsCores(_ core: [(String, Bool)], type: String?) -> [String] {
        let letters = core.map { $0.1 ? $0.0 : String($0.0.prefix(1)) }.joined()
        guard letters.count >= 2, let candidates = coresByInitials[letters] else { return [] }
        let allInitials = core.allSatisfy(\.1)
        if allInitials, type == nil { return [] }
        func fits(_ words: [String]) -> Bool {
            var w = 0
            for (t, initials) in core {
                if initials {
                    guard w + t.count <= words.count else { return false }
                    for (k, c) in t.enumerated() where words[w + k].first != c { return false }
                    w += t.count
                } else {
                    guard w < words.count, words[w] == t else { return false }
                    w += 1
                }
            }
            return w == words.count
        }
        return candidates.filter { key in
            let words = key.split(separator: " ").map(String.init)
            guard fits(words) || fits(Self.looseKey(words).split(separator: " ").map(String.init)) else { return false }
            return !allInitials || hasType(key, type)
        }
    }

    /// The one core key a word prefix stands for ("mass" → "massachusetts"), when the index holds
    /// exactly one such name, or exactly one with the typed type; nil when it is ambiguous.
    func prefixCore(_ core: [String], type: String?) -> String? {
        var keys = Set<String>()
        for (i, t) in core.enumerated() where t.count >= 4 && vocabularyID(t) == nil && t.allSatisfy(\.isLetter) {
            let range = wordsWithPrefix(t)
            // A prefix shared by hundreds of words is no abbreviation anyone relies on.
            guard range.count <= 64 else { continue }
            var words = core
            for w in range {
                words[i] = vocabulary[w]
                let key = words.joined(separator: " ")
                if streets(withCore: key) != nil { keys.insert(key) }
            }
        }
        if keys.count > 1, type != nil { keys = keys.filter { hasType($0, type) } }
        return keys.count == 1 ? keys.first : nil
    }

    func hasType(_ core: String, _ type: String?) -> Bool {
        (streets(withCore: core) ?? StoredIDs([], limit: 0)[...]).contains { streets[Int($0)].parts.type == type }
    }

    /// The type most of the addresses on streets of this name have: the one meant when none is typed.
    func dominantType(_ list: [Int32]) -> String? {
        guard list.count > 1 else { return nil }
        var counts: [String: Int32] = [:]
        for s in list {
            guard let t = streets[Int(s)].parts.type else { continue }
            counts[t, default: 0] += Int32(streetStart[Int(s)].count)
        }
        return counts.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key
    }

    /// Both streets of a crossing. Record keepers name the first street of a corner bare
    /// ("27TH & NE SARATOGA ST"): a street typed without a direction takes the other's, when
    /// streets so named exist.
    func crossingStreets(_ a: [String], _ b: [String], memo: QueryMemo) -> ([(Int32, Double, [String])], [(Int32, Double, [String])]) {
        let ma = matchStreets(a, memo: memo), mb = matchStreets(b, memo: memo)
        func inheriting(_ x: [String], _ mx: [(Int32, Double, [String])], from y: [String], _ my: [(Int32, Double, [String])]) -> [(Int32, Double, [String])] {
            guard StreetNameParts(tokens: x).predirectional == nil else { return mx }
            // The direction typed on the other street, or else those of its best matches ("Raleigh & 21st").
            var directions: [String] = []
            if let d = StreetNameParts(tokens: y).predirectional {
                directions = [d]
            } else if let best = my.map(\.1).min() {
                for m in my where m.1 == best {
                    if let d = streets[Int(m.0)].parts.predirectional, !directions.contains(d) { directions.append(d) }
                }
            }
            var found: [(Int32, Double, [String])] = []
            for d in directions.prefix(4) where x.first != d {
                found += matchStreets([d] + x, memo: memo).map { ($0.0, $0.1, $0.2 + ["direction \(d) taken from the cross street"]) }
            }
            guard !found.isEmpty else { return mx }
            // The direction taken is a guess that ranks its streets first, not a direction typed:
            // each street keeps its reading as typed where that costs less ("E Main St & 2nd Ave":
            // "E 2nd Ave" contradicts Hillsboro's NE 2nd Ave, −25, where "2nd Ave" only lacks its
            // direction, −1), and streets of the name the guess misses stay ("Main St & 2nd Ave,
            // Hillsboro" is E Main St's crossing, no direction of a 2nd Ave).
            // The guessed readings come first, so that they go first among equals.
            var best: [Int32: Int] = [:]
            var out: [(match: (Int32, Double, [String]), guessed: Bool)] = []
            for (m, guessed) in found.map({ ($0, true) }) + mx.map({ ($0, false) }) {
                if let k = best[m.0] {
                    if m.1 < out[k].match.1 { out[k] = (m, guessed) }
                } else {
                    best[m.0] = out.count
                    out.append((m, guessed))
                }
            }
            return out.filter(\.guessed).map(\.match) + out.filter { !$0.guessed }.map(\.match)
        }
        return (inheriting(a, ma, from: b, mb), inheriting(b, mb, from: a, ma))
    }
}
