import Foundation

/// Turns address text into the canonical tokens Locus matches on: diacritics and case folded,
/// punctuation dropped, ordinals reduced to their number, aliases expanded, and every directional
/// and street type written out in full ("NE" → "northeast", "Av" → "avenue").
///
/// Full forms, not abbreviations, because a typo is measured against them: "Milsl" is one edit
/// from "mills", but three from its USPS abbreviation "mls".
public enum AddressText {
    /// Raw tokens: folded and split, nothing renamed.
    public static func rawTokens(_ text: some StringProtocol) -> [String] {
        let folded: String
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            folded = text.lowercased()
        } else {
            folded = String(text).folding(options: [.diacriticInsensitive, .caseInsensitive, .widthInsensitive], locale: nil)
        }
        var tokens: [String] = []
        var current: [Character] = []
        let chars = Array(folded)
        func flush() {
            if !current.isEmpty {
                let token = String(current)
                if let (directional, ordinal) = directionalJoinedToOrdinal(token) {
                    tokens += [directional, ordinal]
                } else {
                    tokens.append(token)
                }
            }
            current.removeAll(keepingCapacity: true)
        }
        for (i, c) in chars.enumerated() {
            let prevDigit = i > 0 && chars[i - 1].isNumber
            let nextDigit = i + 1 < chars.count && chars[i + 1].isNumber
            switch c {
            case "a"..."z", "0"..."9":
                current.append(c)
            case ".", "'", "’":
                // "N.E." → "ne", "O'Brien" → "obrien"; a dot between digits ("12.5") splits.
                if c == "." && prevDigit && nextDigit { flush() }
            case "/", "-":
                // "12 1/2" and ZIP+4 "97211-1234" keep their joiner; "Hosford-Abernethy" splits.
                if prevDigit && nextDigit { current.append(c) } else { flush() }
            case "#", "&", "@":
                flush()
                tokens.append(String(c))
            default:
                if c.isLetter || c.isNumber {
                    current.append(c)
                } else {
                    flush()
                }
            }
        }
        flush()
        return tokens
    }

    /// "ne34th" → ("ne", "34th"): a directional typed without its space before a numbered
    /// street ("6132 NE34th Ave" got no candidate). Only before an ordinal: "W156N11500", a
    /// Wisconsin grid address, and a unit "N3" stay as typed.
    static func directionalJoinedToOrdinal(_ token: String) -> (String, String)? {
        // Every token of every query passes here: told from its first and last bytes first.
        let utf8 = token.utf8
        guard utf8.count >= 4, let first = utf8.first, let last = utf8.last,
              first == UInt8(ascii: "n") || first == UInt8(ascii: "s") || first == UInt8(ascii: "e") || first == UInt8(ascii: "w"),
              last == UInt8(ascii: "t") || last == UInt8(ascii: "d") || last == UInt8(ascii: "h"),
              let digit = token.firstIndex(where: \.isNumber), digit != token.startIndex else { return nil }
        let directional = String(token[..<digit]), rest = String(token[digit...])
        guard directional.count <= 2, AddressVocabulary.directionals[directional] != nil, ordinalNumber(rest) != nil else { return nil }
        return (directional, rest)
    }

    /// Canonical tokens: raw tokens with ordinals, aliases, directionals and street types normalised.
    public static func tokens(_ text: some StringProtocol) -> [String] {
        var out: [String] = []
        let raw = rawTokens(text)
        var i = 0
        while i < raw.count {
            let t = raw[i]
            // "Thirty-Fourth", "twenty first": tens and an ordinal unit make one ordinal number.
            if let tens = AddressVocabulary.tens[t], i + 1 < raw.count, let unit = AddressVocabulary.ordinalUnits[raw[i + 1]] {
                out.append(String(tens + unit))
                i += 2
                continue
            }
            if let compound = compoundDirectional(raw, at: i) {
                out.append(compound)
                i += 2
                continue
            }
            if let alias = AddressVocabulary.aliases[t] {
                let expansion = alias.split(separator: " ").map { canonical(String($0)) }
                out.append(contentsOf: expansion)
                // "MLK Jr": the expansion already ends in "jr".
                if expansion.last == "jr", i + 1 < raw.count, raw[i + 1] == "jr" || raw[i + 1] == "junior" { i += 1 }
            } else {
                out.append(canonical(t))
            }
            i += 1
        }
        return out
    }

    /// "N E 34th Ave", "N. E. 34th", "S W Main St": a two-letter directional typed as two letters
    /// ("6132 N E 34th Ave" got no candidate, read as north then a street "E 34th"). Only a
    /// north or south letter then an east or west one, before more of the name: "1234 N E St" is
    /// North E Street, its name the letter. Not last: "10513 SW Coleman Loop N W" is a trailing
    /// "N" and the town being typed (Wilsonville). Words are joined only before a numbered street
    /// ("North East 34th Ave"): "North East, MD" is a town.
    static func compoundDirectional(_ raw: [String], at i: Int) -> String? {
        let a = raw[i]
        guard i + 1 < raw.count, let first = a.utf8.first, first == UInt8(ascii: "n") || first == UInt8(ascii: "s") else { return nil }
        let b = raw[i + 1]
        let letters = a.utf8.count == 1 && b.utf8.count == 1
        guard letters || ((a == "north" || a == "south") && (b == "east" || b == "west")) else { return nil }
        guard let d = AddressVocabulary.directionalNames[letters ? a + b : String(a.prefix(1) + b.prefix(1))] else { return nil }
        guard i + 2 < raw.count else { return nil }
        let next = raw[i + 2]
        if letters {
            return StreetNameParts.types.contains(canonical(next)) || next == "&" || next == "@" ? nil : d
        }
        return ordinalNumber(next) != nil || isNumber(next) ? d : nil
    }

    /// One token in canonical form.
    public static func canonical(_ token: String) -> String {
        if let d = AddressVocabulary.directionalNames[token] { return d }
        if let t = AddressVocabulary.streetTypeNames[token] { return t }
        return token
    }

    /// Street-name tokens with bare numbers written as ordinals, so "NE 34 Ave" and "NE 34th
    /// Avenue" match, and so do "Highway 212" in a query and in the data. Only for tokens known to
    /// be part of a street name: house numbers stay numbers.
    ///
    /// An ordinal with the wrong suffix ("81th", "34nd", "11st") is that ordinal: it matched
    /// nothing, and a numbered street is never matched through a typo.
    public static func streetTokens(_ tokens: [String]) -> [String] {
        tokens.map { t in
            let digits = isNumber(t) ? t : ordinalNumber(t) ?? ""
            guard !digits.isEmpty, digits.count <= 4, let n = Int(digits) else { return t }
            return ordinal(n)
        }
    }

    /// "12th" for 12, "21st" for 21, "113th" for 113.
    public static func ordinal(_ n: Int) -> String {
        let suffix = (11...13).contains(n % 100) ? "th" : [1: "st", 2: "nd", 3: "rd"][n % 10] ?? "th"
        return "\(n)\(suffix)"
    }

    /// "34th" → "34", "1st" → "1"; nil when the token is not an ordinal.
    public static func ordinalNumber(_ token: String) -> String? {
        guard token.count >= 3, token.first!.isNumber else { return nil }
        let suffix = token.suffix(2)
        guard ["st", "nd", "rd", "th"].contains(suffix) else { return nil }
        let digits = token.dropLast(2)
        return digits.allSatisfy { $0.isASCII && $0.isNumber } ? String(digits) : nil
    }

    public static func isNumber(_ token: String) -> Bool {
        !token.isEmpty && token.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }
}
