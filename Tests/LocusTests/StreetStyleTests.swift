import LocusCore
import LocusEngine
import Testing

@Suite struct StreetStyleTests {
    @Test(arguments: [
        ("Northeast 34th Avenue", "NE 34th Ave"),
        ("Northeast César E. Chávez Boulevard", "NE César E. Chávez Blvd"),
        ("Southwest Pleasant View Drive", "SW Pleasant View Dr"),
        ("North Argyle Street", "N Argyle St"),
        ("Main Street North", "Main St N"),
        ("Avenue A", "Avenue A"),
        ("North Court", "N Court"),
        ("Broadway", "Broadway"),
        ("Southeast Foster Road", "SE Foster Rd"),
        ("Northwest Skyline Boulevard", "NW Skyline Blvd"),
    ])
    func abbreviates(_ full: String, _ expected: String) {
        #expect(StreetStyle.abbreviated(full) == expected)
    }

    /// Another city's file may be all capitals: answers still print like an envelope.
    @Test(arguments: [
        ("ABERDEEN AVE", "Aberdeen Ave"),
        ("NE 34TH AVE", "NE 34th Ave"),
        ("SE MCLOUGHLIN BLVD", "SE McLoughlin Blvd"),
        ("NORTHEAST MARTIN LUTHER KING JR BOULEVARD", "NE Martin Luther King Jr Blvd"),
        ("SW BEAVERTON-HILLSDALE HWY", "SW Beaverton-Hillsdale Hwy"),
        ("O'BRIEN ST", "O'Brien St"),
        ("AVENUE OF THE AMERICAS", "Avenue of the Americas"),
        ("LASSITER AT NORTH HILLS AVE", "Lassiter at North Hills Ave"),
        ("TRUCK AND TRAILER WAY", "Truck and Trailer Way"),
        ("US HWY 26", "US Hwy 26"),
        ("HWY 99E", "Hwy 99E"),
        ("N Macadam Ave", "N Macadam Ave"),
    ])
    func capitalsInMixedCase(_ published: String, _ expected: String) {
        #expect(StreetStyle.abbreviated(published) == expected)
    }

    /// A file put in first-letter capitals by a program (Portland's: "Mcloughlin Boulevard",
    /// "Nature'S Walk") prints as people write the names; names written right stay as they are.
    @Test(arguments: [
        ("Southeast Mcloughlin Boulevard", "SE McLoughlin Blvd"),
        ("Nature'S Walk", "Nature's Walk"),
        ("Southwest Graham'S Ferry Road", "SW Graham's Ferry Rd"),
        ("Northwest Harry'S Place", "NW Harry's Pl"),
        ("Southwest O'Brien Street", "SW O'Brien St"),
        ("Southeast Top O'Scott Street", "SE Top O'Scott St"),
        ("North McClellan Street", "N McClellan St"),
        ("Mc Street", "Mc St"),
        ("Macadam Avenue", "Macadam Ave"),
    ])
    func machineTitleCaseMended(_ published: String, _ expected: String) {
        #expect(StreetStyle.abbreviated(published) == expected)
    }

    /// Initials in a name published in capitals stay capitals ("Jfk Blvd", "Rr 620" before);
    /// short forms that are words keep their case ("St Charles", "Dr … Jr", "Hwy").
    @Test(arguments: [
        ("JFK BLVD", "JFK Blvd"),
        ("LBJ FWY", "LBJ Fwy"),
        ("RR 620", "RR 620"),
        ("N IH 35 SVRD NB", "N IH 35 SVRD NB"),
        // A route system's short form or a state's code before the number ("Ih 35", "Ny 9" before).
        ("NY 9", "NY 9"),
        ("OR 99E", "OR 99E"),
        ("SH 130", "SH 130"),
        ("CSAH 42", "CSAH 42"),
        ("IN BETWEEN LN", "In Between Ln"),
        ("OAK 5", "Oak 5"),
        ("ST CHARLES AVE", "St Charles Ave"),
        ("DR MARTIN LUTHER KING JR BLVD", "Dr Martin Luther King Jr Blvd"),
        ("HWY 99E", "Hwy 99E"),
        ("NORTH LYNN STREET", "N Lynn St"),
        // Types before a short post-directional are abbreviated too.
        ("PENNSYLVANIA AVENUE SE", "Pennsylvania Ave SE"),
        ("Main Av", "Main Ave"),
        ("AVENUE N", "Avenue N"),
    ])
    func initialsStayInCapitals(_ published: String, _ expected: String) {
        #expect(StreetStyle.abbreviated(published) == expected)
    }

    @Test func cityInMixedCase() {
        #expect(StreetStyle.mixedCase("CAMBRIDGE") == "Cambridge")
        #expect(StreetStyle.mixedCase("LAKE OSWEGO") == "Lake Oswego")
        #expect(StreetStyle.mixedCase("McMinnville") == "McMinnville")
    }

    @Test func houseNumbers() {
        #expect(HouseNumber(parsing: "7212 A") == HouseNumber(value: 7212, suffix: "A"))
        #expect(HouseNumber(parsing: " 6132 ") == HouseNumber(value: 6132))
        #expect(HouseNumber(parsing: "12 1/2")?.text == "12 1/2")
        #expect(HouseNumber(parsing: "12-B")?.suffix == "-B" || HouseNumber(parsing: "12-B")?.suffix == "B")
        #expect(HouseNumber(parsing: "abc") == nil)
        #expect(HouseNumber(parsing: "") == nil)
    }

    @Test func formatsLikeAnEnvelope() {
        let c = AddressComponents(number: "6132", street: "NE 34th Ave", streetFull: "Northeast 34th Avenue",
                                  city: "Portland", state: "OR", postcode: "97211")
        #expect(c.formatted == "6132 NE 34th Ave, Portland, OR 97211")
        var noZip = c
        noZip.postcode = ""
        #expect(noZip.formatted == "6132 NE 34th Ave, Portland, OR")
    }

    @Test func spatialReferences() throws {
        #expect(try SpatialReference(wkid: 102100).latestWkid == 3857)
        #expect(try SpatialReference(wkid: 2913).projDefinition == "EPSG:2913")
        #expect(throws: LocusError.self) { try SpatialReference(wkid: 0) }
        #expect(throws: LocusError.self) { try validateLonLat(GeoPoint(x: 200, y: 45)) }
        #expect(throws: LocusError.self) { try validateLonLat(GeoPoint(x: .nan, y: 45)) }
    }
}

@Suite struct DistanceTests {
    /// The short-range distance Locus reports must match the ellipsoidal geodesic to the millimetre.
    @Test func localPlaneMatchesGeodesicWithinAKilometre() {
        let g = Geodesic()
        var rng = SeededGenerator(seed: 3)
        for _ in 0..<1_000 {
            let lat = Double.random(in: 25...49, using: &rng), lon = Double.random(in: -124 ... -67, using: &rng)
            let a = GeoPoint(x: lon, y: lat)
            let b = GeoPoint(x: lon + Double.random(in: -0.012...0.012, using: &rng), y: lat + Double.random(in: -0.009...0.009, using: &rng))
            let s = LocalMetricScale(latitude: (a.y + b.y) / 2)
            let dx = (a.x - b.x) * s.metresPerDegreeX, dy = (a.y - b.y) * s.metresPerDegreeY
            #expect(abs((dx * dx + dy * dy).squareRoot() - g.distance(a, b)) < 0.001)
        }
    }
}
