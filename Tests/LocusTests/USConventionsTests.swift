import Foundation
import LocusCore
@testable import LocusEngine
import Testing

/// How other US cities write addresses, on small files in their layouts: states whose codes are
/// also a directional or a street type's spelling, lettered streets, and files that spell one
/// street several ways. Each case failed before (the answer it gave is in its comment).
@Suite struct USConventionsTests {
    /// Main St in towns of states whose codes the tokens read otherwise ("LA" lane, "NE"
    /// northeast, "CT" court, "KY" key, "WY" way), and in Guam, which answered for them.
    static func mainStreets() throws -> Locator {
        try AddressColumnsTests.build("""
        number,street,city,state,postcode,lon,lat
        200,Main St,Hagatna,GU,96910,144.751,13.47
        200,Main St,Baton Rouge,LA,70801,-91.189,30.45
        300,Main St,Baton Rouge,LA,70801,-91.188,30.45
        200,Main St,Omaha,NE,68102,-95.929,41.26
        300,Main St,Omaha,NE,68102,-95.928,41.26
        200,Main St,Hartford,CT,06103,-72.674,41.764
        200,Main St,Louisville,KY,40202,-85.755,38.257
        200,Main St,Cheyenne,WY,82001,-104.82,41.14
        210,Main St,Cheyenne,WY,82001,-104.8199,41.14

        """).0
    }

    @Test(arguments: [
        // No candidate ("LA" read as "lane").
        ("200 Main St, Baton Rouge, LA 70801", "200 Main St, Baton Rouge, LA 70801"),
        ("200 Main St, Baton Rouge LA", "200 Main St, Baton Rouge, LA 70801"),
        ("200 main st, baton rouge, la", "200 Main St, Baton Rouge, LA 70801"),
        // Hagatna's at 90 (the city read as "omaha northeast").
        ("200 Main St Omaha NE", "200 Main St, Omaha, NE 68102"),
        ("200 Main St, Omaha, NE 68102", "200 Main St, Omaha, NE 68102"),
        ("200 Main St, Hartford, CT", "200 Main St, Hartford, CT 06103"),
        ("200 Main St Louisville KY 40202", "200 Main St, Louisville, KY 40202"),
        ("200 Main St, Cheyenne, WY", "200 Main St, Cheyenne, WY 82001"),
    ])
    func aStateCodeThatReadsAsAWordIsTheState(_ text: String, _ expected: String) throws {
        let top = try #require(try AddressColumnsTests.top(try Self.mainStreets(), text))
        #expect(top.address == expected && top.score == 100, "\(top.address) \(top.score)")
    }

    /// Towns whose names begin with a word forms use for a unit ("Flat 4", "Box 15") stay towns:
    /// those words take only an identifier with a digit.
    @Test(arguments: [
        ("100 Main St, Flat Rock, NC", "100 Main St, Flat Rock, NC 28731"),
        ("100 Main St Flat Rock NC", "100 Main St, Flat Rock, NC 28731"),
        ("100 Main St, Box Elder, UT", "100 Main St, Box Elder, UT 84302"),
        ("100 Main St Box Elder UT", "100 Main St, Box Elder, UT 84302"),
        ("100 Main St Box 12, Box Elder, UT", "100 Main St, Box Elder, UT 84302"),
    ])
    func aTownNamedLikeAUnitIsTheTown(_ text: String, _ expected: String) throws {
        let towns = try AddressColumnsTests.build("""
        number,street,city,state,postcode,lon,lat
        100,Main St,Flat Rock,NC,28731,-82.44,35.27
        100,Main St,Box Elder,UT,84302,-112.02,41.5
        100,Main St,Salt Lake City,UT,84101,-111.89,40.76

        """).0
        let top = try #require(try AddressColumnsTests.top(towns, text))
        #expect(top.address == expected && top.score >= 95, "\(top.address) \(top.score)")
    }

    /// The whole address typed into a search box, the state written as a code and the ZIP code
    /// begun: nothing was suggested ("LA" a whole word, read as "lane", matched no place).
    @Test(arguments: [
        ("200 Main St, Baton Rouge, LA 7", "200 Main St, Baton Rouge, LA 70801"),
        ("200 Main St Omaha NE 6", "200 Main St, Omaha, NE 68102"),
    ])
    func aStateCodeThatReadsAsAWordIsSuggested(_ text: String, _ expected: String) throws {
        let suggestions = try Self.mainStreets().suggest(SuggestRequest(text: text)).suggestions
        #expect(suggestions.map(\.text) == [expected])
    }

    /// Towns in states of two words, typed whole into a search box with the state's name: nothing
    /// was suggested (geocode read them), whole or with the state still being typed.
    static func twoWordStates() throws -> Locator {
        try AddressColumnsTests.build("""
        number,street,city,state,postcode,lon,lat
        200,Fayetteville St,Raleigh,NC,27601,-78.6389,35.7770
        220,Fayetteville St,Raleigh,NC,27601,-78.6388,35.7765
        100,Broadway,Albany,NY,12207,-73.7500,42.6500
        120,Broadway,Albany,NY,12207,-73.7501,42.6505
        300,Capitol St,Charleston,WV,25301,-81.632,38.35
        310,Capitol St,Charleston,WV,25301,-81.6321,38.3505

        """).0
    }

    @Test(arguments: [
        ("200 Fayetteville St, Raleigh, North Carolina", ["200 Fayetteville St, Raleigh, NC 27601"]),
        ("200 Fayetteville St, Raleigh, North Carolina 27601", ["200 Fayetteville St, Raleigh, NC 27601"]),
        ("200 Fayetteville St, Raleigh, North Car", ["200 Fayetteville St, Raleigh, NC 27601"]),
        ("100 Broadway, Albany, New York", ["100 Broadway, Albany, NY 12207"]),
        ("100 Broadway, Albany, New Y", ["100 Broadway, Albany, NY 12207"]),
        ("300 Capitol St, Charleston, West Virginia 2", ["300 Capitol St, Charleston, WV 25301"]),
        ("Fayetteville St, Raleigh, North Carolina", ["Fayetteville St, Raleigh, NC"]),
        ("Fayetteville St, Raleigh, North Caro", ["Fayetteville St, Raleigh, NC"]),
        ("Capitol St, Charleston, West Virginia 25301", ["Capitol St, Charleston, WV"]),
        // Another state's name is not the town's.
        ("200 Fayetteville St, Raleigh, New York", []),
    ])
    func aStateOfTwoWordsIsSuggested(_ text: String, _ expected: [String]) throws {
        let suggestions = try Self.twoWordStates().suggest(SuggestRequest(text: text)).suggestions
        #expect(suggestions.map(\.text) == expected)
    }

    /// Washington's lettered streets in two quadrants, beside E Street.
    static func lettered() throws -> Locator {
        try AddressColumnsTests.build("""
        number,street,city,state,postcode,lon,lat
        1004,E Street NW,Washington,DC,20004,-77.0254,38.8963
        1004,K Street NW,Washington,DC,20001,-77.0265,38.9024
        1004,K Street NE,Washington,DC,20002,-76.9918,38.9024
        1204,I Street NW,Washington,DC,20005,-77.0288,38.9013
        1204,E Street NW,Washington,DC,20004,-77.0288,38.8963

        """).0
    }

    @Test(arguments: [
        // 1004 E Street NW at 93: house "1004 K" on a street called "St NW".
        ("1004 K St NW", "1004 K St NW, Washington, DC 20001"),
        ("1004 K St NE", "1004 K St NE, Washington, DC 20002"),
        ("1204 I St NW", "1204 I St NW, Washington, DC 20005"),
        // What worked stays: E Street itself, a quadrant after a comma is no state (Nebraska).
        ("1004 E St NW", "1004 E St NW, Washington, DC 20004"),
        ("1004 K St, NE", "1004 K St NE, Washington, DC 20002"),
        ("1004 K Street NE, Washington, DC 20002", "1004 K St NE, Washington, DC 20002"),
    ])
    func aLetteredStreetIsNoHouseNumbersLetter(_ text: String, _ expected: String) throws {
        let top = try #require(try AddressColumnsTests.top(try Self.lettered(), text))
        #expect(top.address == expected && top.score == 100, "\(top.address) \(top.score)")
    }

    /// A hand-kept file writes one street four ways: it was four streets, "250 Main St" placed
    /// from one fragment's points (extrapolated, 82) beside four street candidates.
    @Test func oneStreetSpelledSeveralWaysIsOneStreet() throws {
        let (locator, _) = try AddressColumnsTests.build("""
            address,city,state,zip,lon,lat
            100 MAIN ST,Oakland,CA,94612,-122.27,37.800
            200 Main St,Oakland,CA,94612,-122.27,37.801
            300 Main Street,Oakland,CA,94612,-122.27,37.802
            400 MAIN STREET,Oakland,CA,94612,-122.27,37.803
            500 Main St.,Oakland,CA,94612,-122.27,37.804
            600 Main St,Oakland,CA,94612,-122.27,37.805

            """)
        let placed = try locator.geocode(GeocodeRequest(.text("250 Main St"))).candidates
        #expect(placed.count == 1)
        #expect(placed.first?.matchType == .interpolated && placed.first?.address == "250 Main St, Oakland, CA 94612")
        if let y = placed.first?.location.y { #expect(abs(y - 37.8015) < 1e-4) }
        let street = try locator.geocode(GeocodeRequest(.text("Main St"))).candidates
        #expect(street.map(\.address) == ["Main St, Oakland, CA"])
    }

    /// Spellings in different towns stay each town's: one town's "Parks Street" is printed as it
    /// is, not as another town's "Park Street" (the same canonical words), and Forest Grove's
    /// lettered "E Street" stays a street of its own.
    @Test func eachTownKeepsItsOwnSpelling() throws {
        let (locator, _) = try AddressColumnsTests.build("""
            number,street,city,state,postcode,lon,lat
            100,E Street,Forest Grove,OR,97116,-123.11,45.52
            100,East Street,Oregon City,OR,97045,-122.60,45.35
            102,East Street,Oregon City,OR,97045,-122.6001,45.35
            100,Parks Street,Eagle Creek,OR,97022,-122.35,45.36
            100,Park Street,Milwaukie,OR,97222,-122.64,45.44
            102,Park Street,Milwaukie,OR,97222,-122.6401,45.44

            """)
        #expect(try AddressColumnsTests.top(locator, "100 E St, Forest Grove")?.address == "100 E St, Forest Grove, OR 97116")
        #expect(try AddressColumnsTests.top(locator, "100 Parks St, Eagle Creek")?.address == "100 Parks St, Eagle Creek, OR 97022")
    }

    /// Columns as Washington's Master Address Repository (`ADDRNUM`, `QUADRANT`) and Los Angeles
    /// County (`PreDirAbbr`, `NumSuffix`, `MailComm`) publish them, found with no column options.
    /// Before: the quadrant and the direction were no part of the street (Pennsylvania Ave NW
    /// and SE one street, answered at 90 without either), "1/2" was dropped, no city was read.
    @Test func publishersColumnsForDirectionsAndFractions() throws {
        let (dc, dcReport) = try AddressColumnsTests.build("""
            OBJECTID,ADDRNUM,ADDRNUMSUFFIX,STNAME,STREET_TYPE,QUADRANT,CITY,STATE,ZIPCODE,LATITUDE,LONGITUDE
            1,301,,PENNSYLVANIA,AVENUE,SE,WASHINGTON,DC,20003,38.8867,-77.0003
            2,301,,PENNSYLVANIA,AVENUE,NW,WASHINGTON,DC,20004,38.8935,-77.0148

            """)
        #expect(dcReport.addressColumns["street"] == "STNAME + STREET_TYPE + QUADRANT", "\(dcReport.addressColumns)")
        let se = try #require(try AddressColumnsTests.top(dc, "301 Pennsylvania Ave SE"))
        #expect(se.address == "301 Pennsylvania Ave SE, Washington, DC 20003" && se.score == 100, "\(se.address) \(se.score)")

        let (la, _) = try AddressColumnsTests.build("""
            OBJECTID,Number,NumSuffix,PreDirAbbr,PreType,StreetName,PostType,PostDirAbbr,Zip,LegalComm,MailComm,State,Latitude,Longitude
            1,403,,N,,MAIN,ST,,90012,LOS ANGELES,LOS ANGELES,CA,34.0545,-118.2420
            2,403,,S,,MAIN,ST,,90013,LOS ANGELES,LOS ANGELES,CA,34.0470,-118.2500
            3,123,1/2,N,,MAIN,ST,,90012,LOS ANGELES,LOS ANGELES,CA,34.0530,-118.2425

            """)
        #expect(try AddressColumnsTests.top(la, "403 N Main St")?.address == "403 N Main St, Los Angeles, CA 90012")
        #expect(try AddressColumnsTests.top(la, "123 1/2 N Main St")?.address == "123 1/2 N Main St, Los Angeles, CA 90012")
    }

    /// Tampa's layout: the street's name alone in a column called STREET, its directional in PREFIX
    /// and type in SUFFIX. Before: STREET was read as the whole street ("101 Florida, Tampa" at 82;
    /// N and S Florida Ave one street). A row whose STREET is whole is not doubled, and a SUFFIX
    /// holding a house number's letter stays off the street.
    @Test func aStreetColumnBesidePrefixAndSuffixIsTheName() throws {
        let (tampa, report) = try AddressColumnsTests.build("""
            FID,ADDR_NUM,PREFIX,STREET,SUFFIX,ZIP_CODE,MUNICIPALITY,LAT,LON
            1,101,N,FLORIDA,AVE,33602,TAMPA,27.9490,-82.4589
            2,101,S,FLORIDA,AVE,33602,TAMPA,27.9420,-82.4589
            3,201,W,KENNEDY BLVD,BLVD,33606,TAMPA,27.9449,-82.4600
            4,301,N,N ASHLEY DR,,33602,TAMPA,27.9500,-82.4620

            """)
        #expect(report.addressColumns["street"] == "PREFIX + STREET + SUFFIX", "\(report.addressColumns)")
        for (text, expected) in [("101 N Florida Ave, Tampa", "101 N Florida Ave, Tampa, 33602"),
                                 ("101 S Florida Ave, Tampa", "101 S Florida Ave, Tampa, 33602"),
                                 ("201 W Kennedy Blvd", "201 W Kennedy Blvd, Tampa, 33606"),
                                 ("301 N Ashley Dr", "301 N Ashley Dr, Tampa, 33602")] {
            let top = try #require(try AddressColumnsTests.top(tampa, text))
            #expect(top.address == expected && top.score == 100, "\(text): \(top.address) \(top.score)")
        }

        let (other, _) = try AddressColumnsTests.build("""
            NUMBER,SUFFIX,STREET,CITY,LAT,LON
            12,A,N Main St,Springfield,39.80,-89.65
            14,,N Main St,Springfield,39.80,-89.6501

            """)
        #expect(try AddressColumnsTests.top(other, "14 N Main St")?.address == "14 N Main St, Springfield")
    }

    /// Numbered routes as files name them and as people say them.
    static func routes() throws -> Locator {
        try AddressColumnsTests.build("""
        number,street,city,state,postcode,lon,lat
        1400,State Route 9,Clifton Park,NY,12065,-73.77008,42.84008
        1410,State Route 9,Clifton Park,NY,12065,-73.77000,42.84020
        100,US Highway 1,Jupiter,FL,33477,-80.07408,26.93008
        110,US Highway 1,Jupiter,FL,33477,-80.07400,26.93020
        100,State Road 1,Jupiter,FL,33477,-80.09000,26.95000
        100,County Road 42 W,Burnsville,MN,55337,-93.25008,44.74708
        5000,N IH 35,AUSTIN,TX,78752,-97.70808,30.31708
        100,FM 1960 Rd W,Houston,TX,77090,-95.41008,29.99508
        200,Highway 20,Sisters,OR,97759,-121.55,44.29

        """).0
    }

    /// Before, each gave no candidate but "SR 9" and "CR 42" (initials, 97). Austin's file is in
    /// capitals: its route prefix stays so ("N Ih 35" before).
    @Test(arguments: [
        ("1400 Route 9, Clifton Park NY", "1400 State Route 9, Clifton Park, NY 12065"),
        ("1400 NY 9, Clifton Park", "1400 State Route 9, Clifton Park, NY 12065"),
        ("1400 NY-9 Clifton Park NY", "1400 State Route 9, Clifton Park, NY 12065"),
        ("1400 NY Route 9, Clifton Park", "1400 State Route 9, Clifton Park, NY 12065"),
        ("1400 State Highway 9, Clifton Park", "1400 State Route 9, Clifton Park, NY 12065"),
        ("1400 SR 9 Clifton Park", "1400 State Route 9, Clifton Park, NY 12065"),
        ("100 US-1 Jupiter FL", "100 US Highway 1, Jupiter, FL 33477"),
        ("100 U.S. 1, Jupiter", "100 US Highway 1, Jupiter, FL 33477"),
        ("100 US Route 1, Jupiter", "100 US Highway 1, Jupiter, FL 33477"),
        ("100 SR 1, Jupiter", "100 State Road 1, Jupiter, FL 33477"),
        ("100 Co Rd 42 W, Burnsville", "100 County Road 42 W, Burnsville, MN 55337"),
        ("100 County Highway 42 W, Burnsville", "100 County Road 42 W, Burnsville, MN 55337"),
        ("5000 N Interstate 35, Austin TX", "5000 N IH 35, Austin, TX 78752"),
        ("5000 N I-35, Austin", "5000 N IH 35, Austin, TX 78752"),
        ("100 Farm to Market Road 1960 W, Houston", "100 FM 1960 Rd W, Houston, TX 77090"),
        ("200 OR 20, Sisters", "200 Highway 20, Sisters, OR 97759"),
        ("200 US Highway 20, Sisters OR", "200 Highway 20, Sisters, OR 97759"),
    ])
    func aRouteByAnyOfItsNames(_ text: String, _ expected: String) throws {
        let top = try #require(try AddressColumnsTests.top(try Self.routes(), text), "\(text): no candidate")
        #expect(top.address == expected && top.score >= 90, "\(text): \(top.address) \(top.score)")
    }

    /// A route of one system is not another's of the same number: "US 1" is not State Road 1.
    @Test func aRouteIsNotAnotherSystemsOfItsNumber() throws {
        let locator = try Self.routes()
        let candidates = try locator.geocode(GeocodeRequest(.text("100 US 1, Jupiter FL"))).candidates
        #expect(candidates.first?.address == "100 US Highway 1, Jupiter, FL 33477")
        #expect(!candidates.contains { $0.address.contains("State Road 1") }, "\(candidates.map(\.address))")
    }

    /// Salt Lake City's grid: a street is a number and a direction ("S 200 E", 200 East south of
    /// the centre). Typed with a type after it, the direction was read into the name: no candidate.
    @Test(arguments: ["110 S 200 East St", "110 S 200 E St, Salt Lake City, UT 84111", "110 South 200 East Street"])
    func aGridStreetTypedWithAType(_ text: String) throws {
        let (locator, _) = try AddressColumnsTests.build("""
            AddNum,PrefixDir,StreetName,StreetType,SuffixDir,City,ZipCode,State,Longitude,Latitude
            110,S,200,,E,SALT LAKE CITY,84111,UT,-111.886519,40.768006
            111,S,200,,E,SALT LAKE CITY,84111,UT,-111.885947,40.767988
            110,E,200,,S,SALT LAKE CITY,84111,UT,-111.8850,40.7650

            """)
        let top = try #require(try AddressColumnsTests.top(locator, text))
        #expect(top.address == "110 S 200 E, Salt Lake City, UT 84111" && top.score >= 90, "\(top.address) \(top.score)")
    }

    /// Spanish names in the Southwest ("Via de la Valle", "Camino de la Reina"): "la" reads as
    /// lane, which was taken for the street's type and the word after it for a town, so the
    /// address typed without its town had no candidate (with it, 77 through a whole-text reading).
    @Test(arguments: [
        ("200 Via de la Valle", "200 Via De La Valle, Del Mar, CA 92014"),
        ("200 VIA DE LA VALLE", "200 Via De La Valle, Del Mar, CA 92014"),
        ("200 Via de la Valle, Del Mar, CA", "200 Via De La Valle, Del Mar, CA 92014"),
        ("1000 Camino de la Reina", "1000 Camino De La Reina, San Diego, CA 92108"),
        ("100 Del Mar Ln Del Mar", "100 Del Mar Ln, Del Mar, CA 92014"),
    ])
    func aSpanishNameWithDeLaIsOneName(_ text: String, _ expected: String) throws {
        try Self.expectFirst(in: """
            number,street,city,state,postcode,lon,lat
            200,VIA DE LA VALLE,DEL MAR,CA,92014,-117.2600,32.9700
            210,VIA DE LA VALLE,DEL MAR,CA,92014,-117.2598,32.9701
            1000,CAMINO DE LA REINA,SAN DIEGO,CA,92108,-117.1550,32.7680
            100,DEL MAR LN,DEL MAR,CA,92014,-117.2650,32.9600

            """, text, expected)
    }

    /// Names with "and", "&" or "at" in them ("Truck and Trailer Way", "Peace & Plenty Ln", as
    /// usaddress's labelled set has them from forms across the US): the word was read as a
    /// crossing of "100 Truck" and "Trailer Way", which found nothing, so they had no candidate or
    /// only the ZIP code. A crossing that is one still answers as the crossing.
    @Test(arguments: [
        ("100 Truck and Trailer Way", "100 Truck and Trailer Way, Elkton, MD 21921"),
        ("100 TRUCK AND TRAILER WAY, ELKTON, MD 21921", "100 Truck and Trailer Way, Elkton, MD 21921"),
        ("514 Peace & Plenty Ln", "514 Peace & Plenty Ln, Lewes, DE 19958"),
        ("3243 Wind and Fire Dr Marion IA 52302", "3243 Wind and Fire Dr, Marion, IA 52302"),
        ("4381 Lassiter at North Hills Ave", "4381 Lassiter at North Hills Ave, Raleigh, NC 27609"),
        ("Main St & Elm St, Marion, IA", "Main St & Elm St, Marion, IA 52302"),
        ("Main and Elm, Marion IA", "Main St & Elm St, Marion, IA 52302"),
    ])
    func aNameWithAndInItIsOneStreet(_ text: String, _ expected: String) throws {
        try Self.expectFirst(in: """
            number,street,city,state,postcode,lon,lat
            100,TRUCK AND TRAILER WAY,ELKTON,MD,21921,-75.8300,39.6100
            120,TRUCK AND TRAILER WAY,ELKTON,MD,21921,-75.8298,39.6102
            514,PEACE & PLENTY LANE,LEWES,DE,19958,-75.1400,38.7700
            3243,Wind and Fire Dr,Marion,IA,52302,-91.5900,42.0300
            4381,LASSITER AT NORTH HILLS AVE,RALEIGH,NC,27609,-78.6400,35.8380
            100,Main St,Marion,IA,52302,-91.6000,42.0340
            200,Main St,Marion,IA,52302,-91.6000,42.0350
            300,Main St,Marion,IA,52302,-91.6000,42.0360
            100,Elm St,Marion,IA,52302,-91.6010,42.0350
            200,Elm St,Marion,IA,52302,-91.6000,42.0350
            300,Elm St,Marion,IA,52302,-91.5990,42.0350

            """, text, expected)
    }

    /// A directional between the name and the type, as some county files write one that follows
    /// the type ("2350 WASHINGTON NE PL" for Washington Pl NE, usaddress's labelled set), or the
    /// other way round: no candidate. The order the file has stays the answer.
    @Test(arguments: [
        ("2350 Washington NE Pl", "2350 Washington Pl NE, Albuquerque, NM 87110"),
        ("2350 WASHINGTON NE PL, ALBUQUERQUE, NM", "2350 Washington Pl NE, Albuquerque, NM 87110"),
        ("425 Avalon Park Blvd South", "425 Avalon Park South Blvd, Orlando, FL 32828"),
        ("425 Avalon Park Blvd S, Orlando FL", "425 Avalon Park South Blvd, Orlando, FL 32828"),
        ("2350 Washington Pl NE", "2350 Washington Pl NE, Albuquerque, NM 87110"),
        ("425 Avalon Park South Blvd", "425 Avalon Park South Blvd, Orlando, FL 32828"),
    ])
    func aDirectionalTypedBeforeTheTypeIsTheStreets(_ text: String, _ expected: String) throws {
        try Self.expectFirst(in: """
            number,street,city,state,postcode,lon,lat
            2350,WASHINGTON PL NE,ALBUQUERQUE,NM,87110,-106.5800,35.1000
            2360,WASHINGTON PL NE,ALBUQUERQUE,NM,87110,-106.5800,35.1002
            425,AVALON PARK SOUTH BLVD,ORLANDO,FL,32828,-81.1600,28.5100
            435,AVALON PARK SOUTH BLVD,ORLANDO,FL,32828,-81.1600,28.5102

            """, text, expected)
    }

    /// "So." and "No." right after the house number, as older forms abbreviate south and north
    /// ("1112 So. Washington", "8517 So Nashville" in usaddress's labelled set): "No." was read as
    /// a unit sign ("# main") and "So" as a word of the name, so neither found the street. After
    /// the street "No." stays a unit, and before a number a number sign.
    @Test(arguments: [
        ("1112 So. Washington St, Springfield, IL", "1112 S Washington St, Springfield, IL 62701"),
        ("612 A So Lake St Springfield IL", "612 A S Lake St, Springfield, IL 62701"),
        ("125 No. Washington St, Springfield IL", "125 N Washington St, Springfield, IL 62701"),
        ("125 No Washington Street Springfield IL", "125 N Washington St, Springfield, IL 62701"),
        ("125 N Washington St No. 5, Springfield IL", "125 N Washington St, Springfield, IL 62701"),
        ("125 No 5 Washington St Springfield IL", "125 N Washington St, Springfield, IL 62701"),
    ])
    func soAndNoAfterTheNumberAreSouthAndNorth(_ text: String, _ expected: String) throws {
        try Self.expectFirst(in: """
            number,street,city,state,postcode,lon,lat
            1112,S Washington St,Springfield,IL,62701,-89.6500,39.7900
            1120,S Washington St,Springfield,IL,62701,-89.6500,39.7898
            125,N Washington St,Springfield,IL,62701,-89.6500,39.8100
            135,N Washington St,Springfield,IL,62701,-89.6500,39.8102
            612,S Lake St,Springfield,IL,62701,-89.6600,39.7900
            612A,S Lake St,Springfield,IL,62701,-89.6600,39.7901

            """, text, expected)
    }

    /// `text`'s first answer on an index of `csv` is `expected`, at 90 or more.
    static func expectFirst(in csv: String, _ text: String, _ expected: String) throws {
        let (locator, _) = try AddressColumnsTests.build(csv)
        let top = try #require(try AddressColumnsTests.top(locator, text), "\(text): no candidate")
        #expect(top.address == expected && top.score >= 90, "\(text): \(top.address) \(top.score)")
    }
}
