import Foundation
import LocusCore
@testable import LocusEngine
import Testing

/// Cities publish address points in many layouts: the street whole, the street in parts (NENA's
/// `St_PreDir`, `St_Name`, `St_PosTyp` …), or number and street in one address column. Each must
/// build into the same addresses, directionals and types kept.
@Suite struct AddressColumnsTests {
    /// Builds `csv` (header and rows) with `columns` and opens it.
    static func build(_ csv: String, columns: AddressColumns = AddressColumns()) throws -> (Locator, IndexBuildReport) {
        let dir = TestSupport.temporaryDirectory()
        let file = dir.appendingPathComponent("points.csv")
        try csv.write(to: file, atomically: true, encoding: .utf8)
        var config = IndexBuildConfiguration(output: dir.appendingPathComponent("p.locus").path)
        config.addresses = file.path
        config.addressColumns = columns
        let report = try IndexBuilder.build(config)
        return (Locator(index: try LocusIndex(path: config.output)), report)
    }

    static func top(_ locator: Locator, _ text: String) throws -> GeocodeCandidate? {
        try locator.geocode(GeocodeRequest(.text(text))).candidates.first
    }

    /// NENA NG9-1-1 columns: the street is put together from its parts, so North and South Main
    /// are two streets with their types (it was "MAIN" alone, both sides of town one street, and
    /// `Add_Number` no number column at all).
    @Test func aStreetInPartsIsPutTogether() throws {
        let (locator, report) = try Self.build("""
            OBJECTID,Add_Number,AddNum_Suf,St_PreDir,St_Name,St_PosTyp,St_PosDir,Post_Comm,State,Post_Code,Long,Lat
            1,12,A,N,MAIN,ST,,SPRINGFIELD,IL,62701,-89.6500,39.8010
            2,12,,S,MAIN,ST,,SPRINGFIELD,IL,62701,-89.6500,39.7900
            3,14,,S,MAIN,ST,,SPRINGFIELD,IL,62701,-89.6500,39.7898
            4,300,,,LINCOLN,AVE,NE,SPRINGFIELD,IL,62702,-89.6400,39.8100

            """)
        #expect(report.addressRows == 4 && report.rejectedAddresses.isEmpty, "\(report.rejectedAddresses)")
        #expect(try Self.top(locator, "12 A N Main St")?.address == "12 A N Main St, Springfield, IL 62701")
        let south = try #require(try Self.top(locator, "12 S Main St"))
        #expect(south.address == "12 S Main St, Springfield, IL 62701" && abs(south.location.y - 39.79) < 1e-9)
        #expect(try Self.top(locator, "300 Lincoln Ave NE")?.address == "300 Lincoln Ave NE, Springfield, IL 62702")
    }

    /// Other cities' exports, as their portals publish them: San Francisco's headers with spaces
    /// ("Address Number", "Street Name", "ZIP Code", no city or state column), Denver's
    /// PREDIRECTIONAL / POSTTYPE (E and W Colfax Ave were one street), Chicago's ADDRNO /
    /// STNAMECOM / PLACENAME (the street was its name alone, "Lawrence"), Seattle's POSTALCTYNAME.
    @Test func otherCitiesColumnsAreFound() throws {
        let (sf, sfReport) = try Self.build("""
            EAS BaseID,Address,Address Number,Address Number Suffix,Street Name,Street Type,ZIP Code,Longitude,Latitude
            1,2410 MISSION ST,2410,,MISSION,ST,94110,-122.4188,37.7590
            2,2412 MISSION ST,2412,,MISSION,ST,94110,-122.4188,37.7589

            """)
        #expect(sfReport.addressColumns["number"] == "Address Number + Address Number Suffix")
        #expect(sfReport.addressColumns["street"] == "Street Name + Street Type" && sfReport.addressColumns["postcode"] == "ZIP Code")
        // A city and state the file does not give are unknown, not other ones (it scored 50: no candidate).
        let mission = try #require(try Self.top(sf, "2410 Mission St, San Francisco, CA 94110"))
        #expect(mission.address == "2410 Mission St, 94110" && mission.score == 100)
        let (denver, _) = try Self.build("""
            ADDRESS_ID,ADDRESS_NUMBER,PREDIRECTIONAL,STREET_NAME,POSTTYPE,POSTDIRECTIONAL,CITY,STATE,ZIP_CODE,LONGITUDE,LATITUDE
            1,150,E,COLFAX,AVE,,Denver,CO,80203,-104.9860,39.7401
            2,150,W,COLFAX,AVE,,Denver,CO,80204,-104.9890,39.7401

            """)
        let east = try #require(try Self.top(denver, "150 E Colfax Ave"))
        #expect(east.address == "150 E Colfax Ave, Denver, CO 80203" && east.location.x == -104.9860)
        let (chicago, _) = try Self.build("""
            OBJECTID,ADDRNOPRE,ADDRNO,ADDRNOSUF,ADDRNOCOM,STNAMEPRD,STNAME,STNAMEPOT,STNAMECOM,PLACENAME,ZIP5,LATITUDE,LONGITUDE
            1,,1510,,1510,W,LAWRENCE,AVE,W LAWRENCE AVE,Chicago,60640,41.9688,-87.6677

            """)
        #expect(try Self.top(chicago, "1510 W Lawrence Ave")?.address == "1510 W Lawrence Ave, Chicago, 60640")
        let (seattle, _) = try Self.build("""
            OBJECTID,ADDR_PD,ADDR_SN,ADDR_ST,ADDR_SD,ADDR_NUM,FULLNAME,ZIP5,CTYNAME,POSTALCTYNAME,LAT,LON
            1,,WALLINGFORD,AVE,N,4510,WALLINGFORD AVE N,98103,SEATTLE,SEATTLE,47.6620,-122.3359

            """)
        #expect(try Self.top(seattle, "4510 Wallingford Ave N, Seattle, WA 98103")?.address == "4510 Wallingford Ave N, Seattle, 98103")
    }

    /// The city and state of every row the file gives none, as the build is told them.
    @Test func aCityAndStateForTheWholeFile() throws {
        var columns = AddressColumns()
        columns.defaultCity = "San Francisco"
        columns.defaultState = "CA"
        let (sf, _) = try Self.build("""
            Address Number,Street Name,Street Type,ZIP Code,Longitude,Latitude
            2410,MISSION,ST,94110,-122.4188,37.7590

            """, columns: columns)
        #expect(try Self.top(sf, "2410 Mission St")?.address == "2410 Mission St, San Francisco, CA 94110")
        #expect(try Self.top(sf, "2410 Mission St, Oakland, CA")?.score == 90)
    }

    /// A semicolon- or tab-separated export, the delimiter not given: read with its own (it failed,
    /// "no number column", listing one long column).
    @Test(arguments: [";", "\t", "|"])
    func aFileSeparatedOtherwiseIsRead(_ delimiter: String) throws {
        let rows = [["Add_Number", "St_PreDir", "St_Name", "St_PosTyp", "Post_Comm", "State", "Long", "Lat"],
                    ["12", "N", "MAIN", "ST", "SPRINGFIELD", "IL", "-89.65", "39.80"]]
        let (locator, report) = try Self.build(rows.map { $0.joined(separator: delimiter) }.joined(separator: "\n") + "\n")
        #expect(report.addresses == 1)
        #expect(try Self.top(locator, "12 N Main St")?.address == "12 N Main St, Springfield, IL")
    }

    /// Queens numbers ("37-13 74th St": house 13 of the 37th block) are numbers of their own,
    /// printed with the hyphen and found exactly; a range ("1002-1004", Boston's) prints so too.
    /// Both were "37 13": "37-13" found 37-37 at 96, and was a house of another number.
    @Test func aHyphenatedNumberIsOneNumber() throws {
        let (locator, _) = try Self.build("""
            H_NO,FULL_STREE,ZIPCODE,lon,lat
            37-13,74 ST,11372,-73.8922,40.7515
            37-37,74 ST,11372,-73.8922,40.7525
            1002-1004,DORCHESTER AVE,02127,-71.0570,42.3330

            """)
        let exact = try #require(try Self.top(locator, "37-13 74 St"))
        #expect(exact.address == "37-13 74 St, 11372" && exact.score == 100 && exact.components.number == "37-13")
        #expect(try Self.top(locator, "37-37 74 St")?.location.y == 40.7525)
        #expect(try Self.top(locator, "1002 Dorchester Ave")?.address == "1002-1004 Dorchester Ave, 02127")
    }

    /// A hyphenated number that is no point ("91-1030" where Honolulu's file has 91-1020 and
    /// 91-1040 on the street, and 91-1005 two kilometres off) is answered with the houses whose
    /// part after the hyphen is nearest the one typed, not with any house of the first number:
    /// every 91-… was one house at 92, and the first in the index (91-1005, west of the others) came first.
    @Test(arguments: [
        ("91-1030 Kahiko St", -158.0300),
        ("91-1030 Kahiko St, 96706", -158.0300),
        ("37-19 74 St", -73.8922),
    ])
    func aHyphenatedNumberThatIsNoPointIsItsNearestHouse(_ typed: String, _ x: Double) throws {
        let (locator, _) = try Self.build("""
            H_NO,FULL_STREE,ZIPCODE,lon,lat
            91-1005,KAHIKO ST,96706,-158.0500,21.3300
            37-03,74 ST,11372,-73.8922,40.7400
            91-1020,KAHIKO ST,96706,-158.0301,21.3300
            91-1040,KAHIKO ST,96706,-158.0299,21.3300
            37-13,74 ST,11372,-73.8922,40.7515
            37-21,74 ST,11372,-73.8922,40.7517

            """)
        let candidates = try locator.geocode(GeocodeRequest(.text(typed))).candidates
        let top = try #require(candidates.first)
        #expect(abs(top.location.x - x) < 0.0005 && abs(top.location.y - (x < -100 ? 21.3300 : 40.7516)) < 0.0005)
        #expect(top.score < 100)
        // The far house is still a candidate, below the near ones.
        #expect(candidates.contains { abs($0.location.x - x) > 0.0005 || abs($0.location.y - (x < -100 ? 21.3300 : 40.7516)) > 0.0005 })
    }

    /// A search box gets them too: "37-13 74" suggested nothing (the hyphenated token was no
    /// number), and neither did a range typed into one ("1002-1004 Dor"). The digits after the
    /// hyphen pick the house while they are typed ("37-1" may be 37-13 or 37-15, not 37-37); typed
    /// whole, another house's are not suggested ("37-99" is no house of 74 St).
    @Test(arguments: [
        ("37-13 74", ["37-13 74 St, 11372"]),
        ("37-13 74 st", ["37-13 74 St, 11372"]),
        ("37-1", ["37-13 74 St, 11372", "37-15 74 St, 11372"]),
        ("37-37 ", ["37-37 74 St, 11372"]),
        ("37-37 74 s", ["37-37 74 St, 11372"]),
        ("1002-1004 dor", ["1002-1004 Dorchester Ave, 02127"]),
        ("5331-5337 N Ke", ["5331 N Kerby Ave, 97217"]),
        ("37-99 74", []),
    ])
    func aHyphenatedNumberIsSuggested(_ typed: String, _ expected: [String]) throws {
        let (locator, _) = try Self.build("""
            H_NO,FULL_STREE,ZIPCODE,lon,lat
            37-13,74 ST,11372,-73.8922,40.7515
            37-15,74 ST,11372,-73.8922,40.7516
            37-37,74 ST,11372,-73.8922,40.7525
            1002-1004,DORCHESTER AVE,02127,-71.0570,42.3330
            5331,N KERBY AVE,97217,-122.6733,45.5612

            """)
        let suggested = try locator.suggest(SuggestRequest(text: typed)).suggestions.map(\.text)
        #expect(suggested.sorted() == expected.sorted())
    }

    /// A dataset definition's columns may leave out what has a default (the wkid, the delimiter).
    @Test func columnsOfADefinitionTakeTheirDefaults() throws {
        let c = try JSONDecoder().decode(AddressColumns.self, from: Data(#"{"number":"H_NO","default_state":"NY"}"#.utf8))
        #expect(c.number == "H_NO" && c.wkid == 4326 && c.delimiter == "," && c.defaultState == "NY")
    }

    /// A name column that already holds the whole street, beside part columns: parts are not
    /// written twice ("N MAIN ST" with "N" and "ST" is N Main St, not N N Main St St).
    @Test func partsTheNameAlreadyHasAreNotRepeated() throws {
        let (locator, _) = try Self.build("""
            house_number,prefix,street_name,street_type,city,lon,lat
            5,N,N MAIN ST,ST,Springfield,-89.65,39.80
            7,,ST HELENS,ST,Springfield,-89.66,39.80

            """)
        #expect(try Self.top(locator, "5 N Main St")?.address.hasPrefix("5 N Main St,") == true)
        #expect(try Self.top(locator, "7 St Helens St")?.address.hasPrefix("7 St Helens St,") == true)
    }

    /// Number and street in one column: split into the number (a fraction with it) and the street,
    /// a unit at the end and what follows a comma left out; a row that starts with no number is
    /// kept as an issue that shows the text.
    @Test func aWholeAddressColumnIsSplit() throws {
        let (locator, report) = try Self.build("""
            OBJECTID,FULL_ADDRESS,CITY,ZIP,X,Y
            1,123 1/2 N MAIN ST APT 4,Springfield,62701,-89.6500,39.8010
            2,200 UPPER DR,Springfield,62701,-89.6600,39.8020
            3,PO BOX 7,Springfield,62701,-89.6700,39.8030
            4,"15 MAIN ST, UNIT B",Springfield,62701,-89.6800,39.8040
            5,17 MAIN ST #3,Springfield,62701,-89.6801,39.8040

            """)
        #expect(report.addressRows == 5 && report.rejectedAddresses.values.reduce(0, +) == 1)
        #expect(report.issues.contains { $0.row == 3 && $0.reason.contains("PO BOX 7") }, "\(report.issues)")
        #expect(try Self.top(locator, "123 1/2 N Main St")?.address == "123 1/2 N Main St, Springfield, 62701")
        #expect(try Self.top(locator, "200 Upper Dr")?.address == "200 Upper Dr, Springfield, 62701")
        for text in ["15 Main St", "17 Main St"] {
            let c = try #require(try Self.top(locator, text))
            #expect(c.address.hasPrefix("\(text),") && c.matchType == .pointAddress, "\(c.address)")
        }
    }

    /// A file whose one address column holds the whole address, city, state and ZIP code after
    /// commas: those are the row's place. Before: dropped (every row placed nowhere, so "…,
    /// Springfield, IL" was matched with a city and state no address has, and "…, Decatur" the same
    /// street in another town answered as well as its own).
    @Test func theRegionOfAWholeAddressIsRead() throws {
        let (locator, _) = try Self.build("""
            FULL_ADDRESS,LATITUDE,LONGITUDE
            "100 S 2ND ST, SPRINGFIELD, IL 62701",39.7999,-89.65
            "100 S 2ND ST, DECATUR IL 62521",39.84,-88.95
            "12 ELM ST, APT 4, SPRINGFIELD, ILLINOIS 62702",39.81,-89.64
            "7 OAK ST, NEW YORK, NY 10001, USA",40.75,-73.99
            "9 PINE ST, SPRINGFIELD",39.82,-89.63

            """)
        for (text, expected) in [("100 S 2nd St, Springfield IL", "100 S 2nd St, Springfield, IL 62701"),
                                 ("100 S 2nd St, Decatur", "100 S 2nd St, Decatur, IL 62521"),
                                 ("12 Elm St, Springfield", "12 Elm St, Springfield, IL 62702"),
                                 ("7 Oak St, New York, NY", "7 Oak St, New York, NY 10001"),
                                 ("9 Pine St", "9 Pine St, Springfield")] {
            let top = try #require(try Self.top(locator, text))
            #expect(top.address == expected && top.score == 100, "\(text): \(top.address) \(top.score)")
        }
        #expect(AddressColumns.region(ofAddress: "1 Main St, Washington") == ("Washington", "", ""))
        #expect(AddressColumns.region(ofAddress: "1 Main St, Washington, DC 20004") == ("Washington", "DC", "20004"))
        #expect(AddressColumns.region(ofAddress: "1 Main St, Unit 4") == ("", "", ""))
    }

    /// Columns named, several for the street: joined in the order named; a name that is not in the
    /// header fails the build, listing the columns there are.
    @Test func namedPartColumnsAreJoinedInOrder() throws {
        var columns = AddressColumns()
        columns.number = "n"
        columns.street = "d,nm,t"
        columns.x = "e"
        columns.y = "f"
        let csv = """
            n,nm,t,d,e,f
            9,ELM,ST,W,-89.7,39.8

            """
        let (locator, _) = try Self.build(csv, columns: columns)
        #expect(try Self.top(locator, "9 W Elm St")?.address.hasPrefix("9 W Elm St") == true)
        columns.street = "d,name,t"
        #expect {
            _ = try Self.build(csv, columns: columns)
        } throws: { error in
            "\(error)".contains("no column \"name\"") && "\(error)".contains("n, nm, t, d, e, f")
        }
    }

    @Test(arguments: [
        ("123 N Main St", "123", "N Main St"),
        ("123 1/2 Main St", "123 1/2", "Main St"),
        ("0104 SW Lane St Suite 301", "0104", "SW Lane St"),
        ("12 Front St, Cambridge, MA", "12", "Front St"),
        ("40 Upper Dr", "40", "Upper Dr"),
        ("1/2 Main St", "1/2", "Main St"),
    ])
    func wholeAddresses(_ text: String, _ number: String, _ street: String) {
        let split = AddressColumns.split(address: text, parser: AddressParser(knownCities: []))
        #expect(split.number == number && split.street == street, "\(split)")
    }

    /// A field far longer than any address is left whole, not handed to the query parser.
    @Test func aFieldPastAnyAddressIsLeftWhole() {
        let long = "12 " + String(repeating: "ELM ", count: 60) + "ST APT 4"
        let split = AddressColumns.split(address: long, parser: AddressParser(knownCities: []))
        #expect(split.number == "12" && split.street.hasSuffix("ST APT 4"), "\(split.street.suffix(20))")
        #expect(AddressColumns.split(address: "12 ELM ST APT 4", parser: AddressParser(knownCities: [])).street == "ELM ST")
    }

    /// A single-column part named with several columns is an error, not its first column.
    @Test func aCityNamedAsSeveralColumnsIsAnError() {
        var columns = AddressColumns()
        columns.city = "c1,c2"
        #expect {
            _ = try Self.build("number,street,c1,c2,lon,lat\n1,MAIN ST,A,B,-89.6,39.8\n", columns: columns)
        } throws: { error in
            "\(error)".contains("the city is one column")
        }
    }

    @Test func noNumberFirstIsNoNumber() {
        let split = AddressColumns.split(address: "Main St 12", parser: AddressParser(knownCities: []))
        #expect(split.number == nil && split.street == "Main St 12")
    }

    /// The point in one column, as portals export it: WKT (x first) or a location (latitude
    /// first); a row whose point is none is kept as an issue.
    @Test func aPointColumnGivesTheCoordinates() throws {
        let (locator, report) = try Self.build("""
            ADDRESS,CITY,the_geom
            12 N MAIN ST,Springfield,POINT (-89.6500 39.8010)
            14 N MAIN ST,Springfield,"SRID=4326;POINT Z (-89.6500 39.8012 0)"
            16 N MAIN ST,Springfield,POINT EMPTY

            """)
        #expect(report.addressRows == 3 && report.rejectedAddresses.values.reduce(0, +) == 1, "\(report.rejectedAddresses)")
        let c = try #require(try Self.top(locator, "14 N Main St"))
        #expect(abs(c.location.x - -89.65) < 1e-9 && abs(c.location.y - 39.8012) < 1e-9, "\(c.location)")
        #expect(AddressColumns.coordinates(ofPoint: "(39.8010, -89.6500)").map { [$0.x, $0.y] } == ["-89.6500", "39.8010"])
        #expect(AddressColumns.coordinates(ofPoint: "123 MAIN ST\nSPRINGFIELD, IL\n(39.8, -89.6)").map { [$0.x, $0.y] } == ["-89.6", "39.8"])
        #expect(AddressColumns.coordinates(ofPoint: "POINT EMPTY") == nil)
    }

    /// State Plane feet read as degrees: the build fails saying the coordinates look projected and
    /// which option takes their CRS (it said only "check the column options").
    @Test func projectedCoordinatesAskForTheirCRS() throws {
        let rows = (0..<10).map { "\(100 + 2 * $0),MAIN ST,\(7_650_000 + 40 * $0),680000" }.joined(separator: "\n")
        #expect {
            _ = try Self.build("number,street,x,y\n" + rows + "\n")
        } throws: { error in
            "\(error)".contains("--address-wkid") && "\(error)".contains("7650000")
        }
    }
}
