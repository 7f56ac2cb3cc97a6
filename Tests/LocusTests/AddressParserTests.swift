import LocusCore
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

    @Test func tableIsLarge() {
        #expect(ParserCases.all.count >= 200)
    }

    @Test func qualifierIsKeptApart() {
        #expect(Self.parser.parse("1640 WI/ NW 19TH AVE").qualifier == "wi")
        #expect(Self.parser.parse("SEC/ CONCORD & N GOING CT").qualifier == "sec")
        // A fraction's slash is no qualifier.
        let fraction = Self.parser.parse("108 1/2 SE Main St")
        #expect(fraction.qualifier == nil)
        #expect(fraction.number?.suffix == "1/2")
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
