import Foundation
import LocusCore
import LocusEngine
import Testing

/// Street names and addresses as people and record keepers really type them, on the real Portland data.
@Suite(.serialized) struct SpellingTests {
    let locator: Locator

    init() throws {
        locator = Locator(index: try TestSupport.portland())
    }

    func candidates(_ text: String, max: Int = 5) throws -> [GeocodeCandidate] {
        var r = GeocodeRequest(.text(text))
        r.explain = true
        r.maxResults = max
        return try locator.geocode(r).candidates
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var input: String
        /// The matched address as printed, or for a street its full published name.
        var expected: String
        var type: MatchType
        var testDescription: String { input }
        init(_ input: String, _ expected: String, _ type: MatchType) {
            self.input = input
            self.expected = expected
            self.type = type
        }
    }

    @Test(arguments: [
        // Initials and short forms of a multi-word name.
        Case("NE M L King Blvd", "Northeast Martin Luther King Jr Boulevard", .street),
        Case("NE ML King Blvd", "Northeast Martin Luther King Jr Boulevard", .street),
        Case("NE M L K Blvd", "Northeast Martin Luther King Jr Boulevard", .street),
        Case("7509 NE M L KING BLVD", "7509 NE Martin Luther King Jr Blvd, Portland, OR 97211", .pointAddress),
        Case("SW BH Hwy", "Southwest Beaverton Hillsdale Highway", .street),
        Case("SW TV Hwy", "Southwest Tualatin Valley Highway", .street),
        // The initials of the name and its type in one word ("PCH" elsewhere); an unknown town
        // after a comma ends the street (Aloha: a place the addresses file names Beaverton).
        Case("SW BHH", "Southwest Beaverton Hillsdale Highway", .street),
        Case("17645 SW TVH, Aloha, OR", "17645 SW Tualatin Valley Hwy, Beaverton, OR 97003", .pointAddress),
        Case("4345 SW BHH Portland OR", "4345 SW Beaverton Hillsdale Hwy, Portland, OR 97221", .pointAddress),
        // A letter O for a zero (the key above it), and a town before the mailing city.
        Case("12145 SE 8OTH AVE Milwaukie, Portland, OR", "12145 SE 80th Ave, Milwaukie, OR 97222", .pointAddress),
        // An unambiguous word prefix.
        Case("N Mass Ave", "North Massachusetts Avenue", .street),
        // A directional typed against its numbered street, Broadway shortened (each was no
        // candidate, or SW Bray Ln).
        Case("6132 NE34th Ave", "6132 NE 34th Ave, Portland, OR 97211", .pointAddress),
        Case("NE33rd Ave & Killingsworth", "NE 33rd Ave & NE Killingsworth St, Portland, OR 97211", .intersection),
        // A two-letter directional typed as two letters (each was no candidate).
        Case("6132 N E 34th Ave", "6132 NE 34th Ave, Portland, OR 97211", .pointAddress),
        Case("6132 N. E. 34th Ave", "6132 NE 34th Ave, Portland, OR 97211", .pointAddress),
        Case("N E 34th Ave & N E Killingsworth St", "NE 34th Ave & NE Killingsworth St, Portland, OR 97211", .intersection),
        Case("1924 SW Bdwy", "1924 SW Broadway, Portland, OR 97201", .pointAddress),
        Case("2020 SW Bway, Portland", "2020 SW Broadway, Portland, OR 97201", .pointAddress),
        // A bare number after a directional is the numbered street, of its usual type.
        Case("NE 19", "Northeast 19th Avenue", .street),
        // Qualifiers, corners and units as the city's tree inventory writes them.
        Case("5321 S/ NE 31ST AVE", "5321 NE 31st Ave, Portland, OR 97211", .pointAddress),
        Case("2927 N/ NE AINSWORTH ST", "2927 NE Ainsworth St, Portland, OR 97211", .pointAddress),
        Case("1515 WI/ NW 18TH AVE", "1515 NW 18th Ave, Portland, OR 97209", .pointAddress),
        Case("74 NE COOK ST, UN A", "74 NE Cook St, Portland, OR 97212", .pointAddress),
        Case("Suite 301 6132 NE 34th Ave", "6132 NE 34th Ave, Portland, OR 97211", .pointAddress),
        Case("NW COR/ 27TH & NE SARATOGA ST", "NE 27th Ave & NE Saratoga St, Portland, OR 97211", .intersection),
        Case("SEC/ CONCORD & N GOING CT", "N Concord Ave & N Going Ct, Portland, OR 97217", .intersection),
        Case("SE COR/ 80TH SE SALMON ST", "SE 80th Ave & SE Salmon St, Portland, OR 97215", .intersection),
    ])
    func readsTheFormsPeopleType(_ c: Case) throws {
        #expect(try expectFirst(c).score >= 85)
    }

    /// The first candidate for a case's input, checked against its match type and address.
    @discardableResult
    func expectFirst(_ c: Case) throws -> GeocodeCandidate {
        let first = try #require(try candidates(c.input).first, "no candidate")
        #expect(first.matchType == c.type)
        #expect((c.type == .street ? first.components.streetFull : first.address) == c.expected, "\(first.explain ?? [])")
        return first
    }

    /// A name misspelt into another street's name, the type or directional typed right: no street
    /// of the name as typed has them, so a misspelling that has them is a candidate too, a point
    /// behind the name as typed when nothing else tells them apart (`namedOtherwisePenalty`).
    /// Each was the name as typed in a small town, or no candidate
    /// (`scripts/name_typed_as_another_streets.py`: 434 → 594 of 598 with the directional, 383 →
    /// 586 without, 427 → 556 with the directional and no type).
    @Test(arguments: [
        Case("Hawthorn Blvd", "Southeast Hawthorne Boulevard", .street),
        Case("3000 Hawthorn Blvd", "3000 SE Hawthorne Blvd, Portland, OR 97214", .interpolated),
        Case("12621 NE Coach St", "12621 NE Couch St, Portland, OR 97230", .pointAddress),
        Case("9260 SE Starr St", "9260 SE Stark St, Portland, OR 97216", .pointAddress),
        Case("2820 SE Howell Blvd", "2820 SE Powell Blvd, Portland, OR 97202", .pointAddress),
        Case("3205 SW Corbeth Ave", "3205 SW Corbett Ave, Portland, OR 97239", .pointAddress),
        // A directional typed is as much evidence as a type: no Hawthorn is SE.
        Case("SE Hawthorn", "Southeast Hawthorne Boulevard", .street),
        // A house placed only below what is shown (4132 SW Howell Ave, Troutdale, at 37) does not
        // keep a misspelling from being read.
        Case("4132 SE Howell", "4132 SE Powell Blvd, Portland, OR 97202", .interpolated),
        // The name as typed keeps the lead where only the type is wrong: SE Grant St, not SE
        // Grand Ave one letter off.
        Case("SE Grant Ave", "Southeast Grant Street", .street),
        // Where the name as typed places no house, every misspelling is read as before: a first
        // version kept only those of the type typed, and this had no candidate.
        Case("3908 NE Cortland Blvd", "3908 NE Portland Hwy, Portland, OR 97211", .extrapolated),
    ])
    func aMisspeltNameOfAnotherTypesStreetIsTheStreetTyped(_ c: Case) throws {
        try expectFirst(c)
    }

    /// A numbered street is never a typo of another number: there is no SE 233rd Ave, and SE 23rd,
    /// 133rd and 223rd are other streets.
    @Test(arguments: ["SE 233rd Ave", "1000 SE 233rd Ave", "NE 246th Ave"])
    func numbersAreNeverTypos(_ text: String) throws {
        #expect(try candidates(text).isEmpty)
    }

    /// "Mass" begins Massachusetts and Massey: without a type to tell them apart it is no abbreviation.
    @Test func ambiguousPrefixIsNoAbbreviation() throws {
        for c in try candidates("N Mass", max: 10) {
            #expect(c.explain?.contains { $0.contains("short for") } != true, "\(c.address)")
        }
    }

    /// Units, floors and labels as forms, letters and remittance lists across the US write them
    /// (the classes of usaddress's labelled set, `scripts/us_typed_addresses.py`), on a Portland
    /// address: each was no candidate, the town, or the unit lost (the Florida of "Fourth Fl").
    @Test(arguments: [
        ("6132 NE 34th Ave 2nd Flr", "fl 2"),
        ("6132 NE 34th Ave, 7th Flr, Portland, OR 97211", "fl 7"),
        ("6132 NE 34th Ave Second Floor", "fl 2"),
        ("6132 NE 34th Ave Fourth Fl", "fl 4"),
        ("6132 NE 34th Ave 2 Floor", "fl 2"),
        ("41st Floor 6132 NE 34th Ave Portland OR", "fl 41"),
        ("6132 NE 34th Ave Suite200", "ste 200"),
        ("6132 NE 34th Ave Unit508", "unit 508"),
        ("6132 NE 34th Ave PMB 175", "pmb 175"),
        ("6132 NE 34th Ave Box 15", "box 15"),
        ("Flat 4 6132 NE 34th Ave", "flat 4"),
        // A unit without its designator after the street ("203 N Wabash 608").
        ("6132 NE 34th Ave 200, Portland, OR 97211", "# 200"),
        ("6132 NE 34th Ave 1A", "# 1a"),
    ] as [(String, String)])
    func readsUnitsAsFormsWriteThem(_ text: String, _ unit: String) throws {
        let first = try #require(try candidates(text).first, "no candidate")
        #expect(first.address == "6132 NE 34th Ave, Portland, OR 97211" && first.matchType == .pointAddress, "\(first.address)")
        #expect(first.score >= 95 && first.unit == unit, "\(first.score) \(first.unit ?? "no unit")")
    }

    /// What a letter puts around an address: a sign before the house number, a mailing label's
    /// lines, a complex's name between the street and the town, a building's own address before
    /// the street address, an "Attn:" after it. Each was no candidate or only the town.
    @Test(arguments: [
        "# 6132 NE 34th Ave",
        // A label's lines: a line after the address's that is no part of it ran into the town.
        "Acme Co\n6132 NE 34th Ave Suite 1800\n\nAttn: Kent Smith c/o Greg Roe\nPortland OR 97211",
        "6132 NE 34th Ave, Rm 501\r\nSponsored Programs Administration\r\nPortland OR 97211",
        "6132 NE 34th Ave Steeple Townhomes, Portland, OR",
        "1 Lincoln Ctr 6132 NE 34th Ave",
        "1 Lincoln Ctr 6132 NE 34th Ave, Portland OR",
        // Whom the letter is for, after the address: the name ran into the street or the town.
        "6132 NE 34th Ave Suite 100 Attn: Roger Lane",
        "6132 NE 34th Ave Attn:Charlotte Duran, Portland OR 97211",
        "6132 NE 34th Ave c/o Bank of America Portland OR",
    ])
    func readsTheAddressInWhatALetterPutsAroundIt(_ text: String) throws {
        let first = try #require(try candidates(text).first, "no candidate")
        #expect(first.address == "6132 NE 34th Ave, Portland, OR 97211" && first.score >= 90, "\(first.address) \(first.score)")
    }

    /// A reading that sets words aside stands only on a house it places: "2320 West Lake Shore
    /// Drive 6 Waco Texas" read from its "6" on was S 6th St of another town, at 85.
    @Test(arguments: ["2320 West Lake Shore Drive 6 Portland Oregon", "9999 SW Nowhere Dr 6 Portland Oregon"])
    func wordsSetAsideFindOnlyAHouse(_ text: String) throws {
        for c in try candidates(text, max: 10) where c.explain?.contains(where: { $0.contains("no part of the address") }) == true {
            #expect([.pointAddress, .interpolated, .extrapolated].contains(c.matchType), "\(c.address) \(c.matchType)")
        }
    }

    @Test func qualifierDoesNotShowAsAUnit() throws {
        let c = try #require(try candidates("5321 S/ NE 31ST AVE").first)
        #expect(c.unit == nil)
        let u = try #require(try candidates("74 NE COOK ST, UN A").first)
        #expect(u.unit == "unit a")
    }
}

/// A dataset's synonyms file reaches the engine through the index, and a user's file at query time.
@Suite struct SynonymTests {
    @Test func storedInTheIndexAndExtendedAtQueryTime() throws {
        let dir = TestSupport.temporaryDirectory()
        let file = dir.appendingPathComponent("synonyms.csv")
        try "# old name\nold alpha rd,ne alpha st\n".write(to: file, atomically: true, encoding: .utf8)
        var config = IndexBuildConfiguration(output: dir.appendingPathComponent("s.locus").path)
        config.addresses = TestSupport.fixtures.appendingPathComponent("addresses_messy.csv").path
        config.synonyms = [file.path]
        config.maximumRejectedShare = 1  // the fixture is messy on purpose
        _ = try IndexBuilder.build(config)

        let index = try LocusIndex(path: config.output)
        #expect(index.metadata.values["synonyms"] == "old alpha road,northeast alpha street")
        let c = try #require(try Locator(index: index).geocode(GeocodeRequest(.text("100 Old Alpha Rd"))).candidates.first)
        #expect(c.address.hasPrefix("100 NE Alpha St"))

        // Without them the old name is nothing; a user's file brings another in.
        #expect(try Locator(index: LocusIndex(path: config.output)).geocode(GeocodeRequest(.text("100 Beta Old Rd"))).candidates.first?.address.hasPrefix("100 NE Alpha St") != true)
        var mine = StreetSynonyms()
        mine.add(.init(from: ["beta", "old", "road"], to: ["northeast", "alpha", "street"]))
        let extended = try LocusIndex(path: config.output, synonyms: mine)
        let d = try #require(try Locator(index: extended).geocode(GeocodeRequest(.text("100 Beta Old Rd"))).candidates.first)
        #expect(d.address.hasPrefix("100 NE Alpha St"))
    }

    @Test func theDatasetNamesItsFile() throws {
        let path = TestSupport.packageRoot.appendingPathComponent("Data/portland/dataset.json").path
        let definition = try DatasetDefinition.load(path: path)
        let config = try definition.buildConfiguration(dataDirectory: TestSupport.dataDirectory.path, output: "/tmp/unused.locus", definitionPath: path)
        #expect(config.synonyms.count == 1)
        #expect(config.synonyms.first?.hasSuffix("Data/portland/synonyms.csv") == true)
        let text = try String(contentsOfFile: try #require(config.synonyms.first), encoding: .utf8)
        #expect(try !StreetSynonyms(parsing: text).isEmpty)
    }
}
