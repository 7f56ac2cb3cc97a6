@testable import LocusCore
import Testing

@Suite struct AddressParserTests {
    static let parser = AddressParser(
        knownCities: ["Portland", "Lake Oswego", "West Linn", "Mulino", "Eagle Creek", "Gresham"],
        knownPostcodes: ["97211", "97034", "97201", "97068", "97042", "97022"])

    @Test(arguments: ParserCases.all)
    func parses(_ c: ParserCase) {
        let p = Self.parser.parse(c.input)
        #expect(p.number?.value == c.number, "number")
        #expect((p.number?.suffix ?? "") == c.suffix, "suffix")
        #expect(p.street.joined(separator: " ") == c.street, "street")
        #expect(p.unit == c.unit, "unit")
        #expect(p.city?.joined(separator: " ") == c.city, "city")
        #expect(p.state == c.state, "state")
        #expect(p.postcode == c.zip, "zip")
        #expect(p.crossStreet?.joined(separator: " ") == c.cross, "cross street")
    }

    /// A block of numbers as public-safety and permit records write it: its first and last number
    /// and the street after. Not a block: a house on a street named Block, a bare "3900 of".
    @Test(arguments: [
        ("3900 block of SE Hawthorne Blvd", 3900, 3999, "southeast hawthorne boulevard", nil),
        ("3900 BLK SE HAWTHORNE BLVD, Portland, OR 97211", 3900, 3999, "southeast hawthorne boulevard", "portland"),
        ("the 3900 block of SE Hawthorne", 3900, 3999, "southeast hawthorne", nil),
        ("39XX SE Hawthorne Blvd", 3900, 3999, "southeast hawthorne boulevard", nil),
        ("039XX S HALSTED ST", 3900, 3999, "south halsted street", nil),
        ("3925 block of SE Hawthorne Blvd", 3900, 3999, "southeast hawthorne boulevard", nil),
        ("2400-3100 Block of San Bruno Ave", 2400, 3199, "san bruno avenue", nil),
        ("0 block of Market St", 0, 99, "market street", nil),
    ] as [(String, Int, Int, String, String?)])
    func readsABlockOfNumbers(_ text: String, _ first: Int, _ last: Int, _ street: String, _ city: String?) {
        let p = Self.parser.parse(text)
        #expect(p.number?.value == first)
        #expect(p.blockEnd == last)
        #expect(p.street.joined(separator: " ") == street)
        #expect(p.city?.joined(separator: " ") == city)
    }

    /// A street numbered without its ordinal ending (New York's "74 St"), typed alone, is the street;
    /// with a house number before it, the house.
    @Test(arguments: [
        ("74 Street", nil, "74th street"),
        ("37 Avenue, Queens", nil, "37th avenue"),
        ("37-13 74 Street", 37, "74th street"),
        ("6132 NE 34th Ave", 6132, "northeast 34th avenue"),
    ] as [(String, Int?, String)])
    func aNumberedStreetWithoutItsEnding(_ text: String, _ number: Int?, _ street: String) {
        let p = Self.parser.parse(text)
        #expect(p.number?.value == number)
        #expect(p.street.joined(separator: " ") == street)
    }

    @Test(arguments: ["100 Block Rd", "3900 of SE Hawthorne Blvd", "3900 SE Hawthorne Blvd", "12 Blk St", "0100 block of SW Gaines St"])
    func aHouseIsNoBlock(_ text: String) {
        #expect(Self.parser.parse(text).blockEnd == nil)
    }

    /// A number with a leading zero is written back with it, and its hundreds (blocks) count away
    /// from the zero line on its own side.
    @Test(arguments: [("0104", -104, -2), ("104", 104, 1), ("045", -45, -1), ("45", 45, 0), ("0100", -100, -2),
                      ("099", -99, -1), ("0", 0, 0), ("5320", 5320, 53)])
    func leadingZeroNumbers(_ written: String, _ value: Int, _ hundred: Int) throws {
        let n = try #require(HouseNumber(parsing: written))
        #expect(n.value == value)
        #expect(n.text == written)
        #expect(HouseNumber.hundred(of: value) == hundred)
    }

    /// A place along a block, as stop and field lists write it: the street, then the crossings at
    /// its ends. Was read as the crossing of "SE Division St between SE 82nd Ave" and the last.
    @Test(arguments: [
        ("SE Division St between SE 82nd Ave and SE 84th Ave", "southeast division street", "southeast 82nd avenue", "southeast 84th avenue", nil as String?, nil as String?),
        ("SE Division btwn 82nd & 84th, Portland OR 97266", "southeast division", "82nd", "84th", "portland", "97266"),
        ("N Lombard St betw N Portsmouth Ave and N Fiske Ave", "north lombard street", "north portsmouth avenue", "north fiske avenue", nil, nil),
    ])
    func aBlockIsAStreetBetweenTwoCrossings(_ text: String, _ street: String, _ cross: String, _ to: String, _ city: String?, _ zip: String?) {
        let p = Self.parser.parse(text)
        #expect(p.street.joined(separator: " ") == street)
        #expect(p.crossStreet?.joined(separator: " ") == cross)
        #expect(p.crossStreetTo?.joined(separator: " ") == to)
        #expect(p.city?.joined(separator: " ") == city)
        #expect(p.postcode == zip)
    }

    /// A fraction as a word processor writes it ("108½", autocorrected from "108 1/2") is the
    /// number's fraction; it was read as no number at all.
    @Test(arguments: [
        ("12½ NE 34th Ave, Portland, OR 97211", 12, "1/2"), ("12 ½ NE 34th Ave", 12, "1/2"),
        ("108¼ SE Main St", 108, "1/4"), ("108¾ SE Main St", 108, "3/4"), ("12 1\u{2044}2 NE 34th Ave", 12, "1/2"),
    ])
    func aWordProcessorsFractionIsTheNumbersFraction(_ text: String, _ number: Int, _ suffix: String) {
        let p = Self.parser.parse(text)
        #expect(p.number?.value == number && p.number?.suffix == suffix, "\(String(describing: p.number))")
        #expect(p.street.last == "avenue" || p.street.last == "street", "\(p.street)")
    }

    @Test func tableIsLarge() {
        #expect(ParserCases.all.count >= 200)
    }

    /// A landmark's name before the house number and remarks in brackets are set aside; an
    /// address with neither, or one whose street starts with a number word, is left alone.
    @Test(arguments: [
        ("Pioneer Courthouse Square, 701 SW 6th Ave, Portland, OR 97204", "701 SW 6th Ave, Portland, OR 97204", "Pioneer Courthouse Square"),
        ("Portland State University 1825 SW Broadway", "1825 SW Broadway", "Portland State University"),
        ("4001 SW Canyon Rd Portland OR 97221 (Oregon Zoo)", "4001 SW Canyon Rd Portland OR 97221", "Oregon Zoo"),
        ("Grant High School - 2245 NE 36th Ave", "2245 NE 36th Ave", "Grant High School"),
        ("Zoo (main gate) 4001 SW Canyon Rd [west] ", "4001 SW Canyon Rd", "Zoo; main gate; west"),
        ("6132 NE 34th Ave (rear", "6132 NE 34th Ave", "rear"),
        // A closing bracket with none open is the name's text: the remark after it is still one
        // (was kept in the address, "4001 SW Canyon Rd main gate").
        ("Oregon Zoo) 4001 SW Canyon Rd (main gate)", "4001 SW Canyon Rd", "Oregon Zoo); main gate"),
        ("2245 NE 36th Ave, Grant High School, Portland", "2245 NE 36th Ave, Portland", "Grant High School"),
        ("Gateway Transit Center (NE 99th Ave & Glisan)", "NE 99th Ave & Glisan", "Gateway Transit Center"),
    ])
    func aNameOrARemarkIsSetAside(_ text: String, _ address: String, _ aside: String) throws {
        let found = try #require(AddressParser.setAside(text))
        #expect(found.address == address)
        #expect(found.aside == aside)
    }

    @Test(arguments: ["6132 NE 34th Ave", "SE 82nd Ave & SE Division St", "NE 19", "Main Street", "(Oregon Zoo)", "NW COR/ 27TH & NE SARATOGA ST",
                        "NE 34th Ave 6132", "I-205 & SE Division", "6132 NE 34th Ave, Portland, OR",
                        "6132 NE 34th Ave, Suite 200, Portland",
                        // Directionals before a misspelt ordinal are the street's, no name (were set
                        // aside: "se" as a landmark's name, the crossing geocoded twice).
                        "se 32n & 30th", "SE 32n />30th", "N E 32n St", "Northwest 2n Ave"])
    func nothingToSetAside(_ text: String) {
        #expect(AddressParser.setAside(text) == nil)
    }

    @Test func qualifierIsKeptApart() {
        #expect(Self.parser.parse("1640 WI/ NW 19TH AVE").qualifier == "wi")
        #expect(Self.parser.parse("SEC/ CONCORD & N GOING CT").qualifier == "sec")
        // A fraction's slash is no qualifier.
        let fraction = Self.parser.parse("108 1/2 SE Main St")
        #expect(fraction.qualifier == nil)
        #expect(fraction.number?.suffix == "1/2")
        // A side before a street with no number (was: a street "n northeast ainsworth street").
        let side = Self.parser.parse("N/ NE AINSWORTH ST")
        #expect(side.qualifier == "n")
        #expect(side.street == ["northeast", "ainsworth", "street"])
        // A crossing's corner said in words, before or after the streets.
        let after = Self.parser.parse("N Interstate Ave & N Killingsworth St NW Corner, Portland")
        #expect(after.qualifier == "northwest corner")
        #expect(after.crossStreet == ["north", "killingsworth", "street"])
        #expect(after.city == ["portland"])
        let before = Self.parser.parse("SE corner of NE 34th & Killingsworth")
        #expect(before.qualifier == "southeast corner")
        #expect(before.street == ["northeast", "34th"])
    }

    @Test func synonymsFile() throws {
        let s = try StreetSynonyms(parsing: "# local names\nhwy 99e,mcloughlin blvd\n\nTV Hwy , Tualatin Valley Highway # the old name\nmlk,martin luther king jr\n")
        // "mlk" is a built-in alias already: canonical on both sides, the entry changes nothing.
        #expect(s.entries.count == 2)
        #expect(s.apply(["southeast", "highway", "99e", "1234"]) == ["southeast", "mcloughlin", "boulevard", "1234"])
        #expect(s.apply(["tv", "highway"]) == ["tualatin", "valley", "highway"])
        #expect(s.apply(["northeast", "34th", "avenue"]) == nil)
        #expect(throws: LocusError.self) { try StreetSynonyms(parsing: "just one field") }
        #expect(try StreetSynonyms(parsing: s.text) == s)
    }

    @Test func foldsDiacriticsAndCase() {
        #expect(AddressText.tokens("César E. CHÁVEZ") == ["cesar", "east", "chavez"])
        #expect(AddressText.tokens("N.E. 34th Av.") == ["northeast", "34th", "avenue"])
    }

    @Test func editDistance() {
        #expect(EditDistance.distance("mills", "milsl", limit: 1) == 1)
        #expect(EditDistance.distance("lawrence", "lwxence", limit: 2) == 2)
        #expect(EditDistance.distance("oak", "ash", limit: 1) == nil)
        #expect(EditDistance.allowance(forLength: 3) == 0)
        #expect(EditDistance.allowance(forLength: 4) == 1)
        #expect(EditDistance.allowance(forLength: 8) == 2)
    }

    /// The shortcut for bytes one word lacks gives the same answer as the full table: every pair
    /// of words of up to three letters from "a", "b", "c", "é" (two bytes), "0" — so that both the
    /// shortcut and the table decide many — at limits 0–2, against the recurrence written plainly.
    @Test func editDistanceShortcutAgreesWithTheTable() {
        func reference(_ a: [UInt8], _ b: [UInt8]) -> Int {
            var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
            for i in 0...a.count { d[i][0] = i }
            for j in 0...b.count { d[0][j] = j }
            for i in stride(from: 1, through: a.count, by: 1) {
                for j in stride(from: 1, through: b.count, by: 1) {
                    d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                    if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
                }
            }
            return d[a.count][b.count]
        }
        let letters = ["a", "b", "c", "é", "0"]
        var words = [""], last = [""]
        for _ in 0..<3 {
            last = last.flatMap { w in letters.map { w + $0 } }
            words += last
        }
        var decidedByShortcut = 0, compared = 0
        for a in words {
            for b in words {
                let d = reference(Array(a.utf8), Array(b.utf8))
                for limit in 0...2 {
                    compared += 1
                    let got = EditDistance.distance(a, b, limit: limit)
                    if got != (d <= limit ? d : nil) { Issue.record("\(a) / \(b) at \(limit): \(String(describing: got)), not \(d)") }
                    var x = a, y = b
                    let lacking = x.withUTF8 { p in y.withUTF8 { q in EditDistance.lacking(UnsafeRawBufferPointer(p), in: UnsafeRawBufferPointer(q), limit: limit) } }
                    if lacking > limit, limit > 0, abs(a.utf8.count - b.utf8.count) <= limit, a != b { decidedByShortcut += 1 }
                }
            }
        }
        #expect(decidedByShortcut > 5_000, "the shortcut decided \(decidedByShortcut) of \(compared)")
    }

    /// The deletion keys are made from bytes for ASCII words: the same set as deleting characters
    /// one round at a time, for ASCII, accented and emoji words, repeated letters and short words.
    @Test func deletionsAreEveryWayOfDeletingUpToDepthCharacters() {
        func reference(_ word: String, _ depth: Int) -> Set<String> {
            var out: Set<String> = [word], frontier: Set<String> = [word]
            for _ in 0..<depth {
                var next: Set<String> = []
                for w in frontier where w.count > 1 {
                    let chars = Array(w)
                    for i in chars.indices { var c = chars; c.remove(at: i); next.insert(String(c)) }
                }
                out.formUnion(next)
                frontier = next
            }
            return out
        }
        var rng = SeededGenerator(seed: 7)
        let alphabet = Array("abcab12 ée\u{301}🌲")
        var words = ["", "a", "ab", "killingsworth", "mississippi", "cesar e chavez", "café", "e\u{301}te"]
        for _ in 0..<200 {
            words.append(String((0..<Int.random(in: 0...12, using: &rng)).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &rng)] }))
        }
        for word in words {
            for depth in 0...3 {
                #expect(EditDistance.deletions(word, depth: depth) == reference(word, depth), "\(word.debugDescription) depth \(depth)")
            }
        }
        #expect(EditDistance.deletions("abcd", depth: 2).count == 1 + 4 + 6)
    }
}
