/// Writes a published street name the way people and the USPS write it: directionals and street
/// types abbreviated per USPS Publication 28 ("Northeast 34th Avenue" → "NE 34th Ave").
///
/// Only the first word (a pre-directional), the last word (a post-directional or the type) and the
/// word before a trailing post-directional are touched, so a street *named* "Court" or
/// "North Star" keeps its name.
public enum StreetStyle {
    public static let directionals: [String: String] = [
        "north": "N", "south": "S", "east": "E", "west": "W",
        "northeast": "NE", "northwest": "NW", "southeast": "SE", "southwest": "SW",
    ]

    /// USPS Publication 28, Appendix C1: primary street suffix names and their standard abbreviations.
    public static let streetTypes: [String: String] = [
        "alley": "Aly", "annex": "Anx", "arcade": "Arc", "avenue": "Ave", "bayou": "Byu", "beach": "Bch",
        "bend": "Bnd", "bluff": "Blf", "bluffs": "Blfs", "bottom": "Btm", "boulevard": "Blvd", "branch": "Br",
        "bridge": "Brg", "brook": "Brk", "brooks": "Brks", "burg": "Bg", "burgs": "Bgs", "bypass": "Byp",
        "camp": "Cp", "canyon": "Cyn", "cape": "Cpe", "causeway": "Cswy", "center": "Ctr", "centers": "Ctrs",
        "circle": "Cir", "circles": "Cirs", "cliff": "Clf", "cliffs": "Clfs", "club": "Clb", "common": "Cmn",
        "commons": "Cmns", "corner": "Cor", "corners": "Cors", "course": "Crse", "court": "Ct", "courts": "Cts",
        "cove": "Cv", "coves": "Cvs", "creek": "Crk", "crescent": "Cres", "crest": "Crst", "crossing": "Xing",
        "crossroad": "Xrd", "crossroads": "Xrds", "curve": "Curv", "dale": "Dl", "dam": "Dm", "divide": "Dv",
        "drive": "Dr", "drives": "Drs", "estate": "Est", "estates": "Ests", "expressway": "Expy",
        "extension": "Ext", "extensions": "Exts", "fall": "Fall", "falls": "Fls", "ferry": "Fry", "field": "Fld",
        "fields": "Flds", "flat": "Flt", "flats": "Flts", "ford": "Frd", "fords": "Frds", "forest": "Frst",
        "forge": "Frg", "forges": "Frgs", "fork": "Frk", "forks": "Frks", "fort": "Ft", "freeway": "Fwy",
        "garden": "Gdn", "gardens": "Gdns", "gateway": "Gtwy", "glen": "Gln", "glens": "Glns", "green": "Grn",
        "greens": "Grns", "grove": "Grv", "groves": "Grvs", "harbor": "Hbr", "harbors": "Hbrs", "haven": "Hvn",
        "heights": "Hts", "highway": "Hwy", "hill": "Hl", "hills": "Hls", "hollow": "Holw", "inlet": "Inlt",
        "island": "Is", "islands": "Iss", "isle": "Isle", "junction": "Jct", "junctions": "Jcts", "key": "Ky",
        "keys": "Kys", "knoll": "Knl", "knolls": "Knls", "lake": "Lk", "lakes": "Lks", "land": "Land",
        "landing": "Lndg", "lane": "Ln", "light": "Lgt", "lights": "Lgts", "loaf": "Lf", "lock": "Lck",
        "locks": "Lcks", "lodge": "Ldg", "loop": "Loop", "mall": "Mall", "manor": "Mnr", "manors": "Mnrs",
        "meadow": "Mdw", "meadows": "Mdws", "mews": "Mews", "mill": "Ml", "mills": "Mls", "mission": "Msn",
        "motorway": "Mtwy", "mount": "Mt", "mountain": "Mtn", "mountains": "Mtns", "neck": "Nck",
        "orchard": "Orch", "oval": "Oval", "overpass": "Opas", "park": "Park", "parks": "Park", "parkway": "Pkwy",
        "parkways": "Pkwy", "pass": "Pass", "passage": "Psge", "path": "Path", "pike": "Pike", "pine": "Pne",
        "pines": "Pnes", "place": "Pl", "plain": "Pln", "plains": "Plns", "plaza": "Plz", "point": "Pt",
        "points": "Pts", "port": "Prt", "ports": "Prts", "prairie": "Pr", "radial": "Radl", "ramp": "Ramp",
        "ranch": "Rnch", "rapid": "Rpd", "rapids": "Rpds", "rest": "Rst", "ridge": "Rdg", "ridges": "Rdgs",
        "river": "Riv", "road": "Rd", "roads": "Rds", "route": "Rte", "row": "Row", "rue": "Rue", "run": "Run",
        "shoal": "Shl", "shoals": "Shls", "shore": "Shr", "shores": "Shrs", "skyway": "Skwy", "spring": "Spg",
        "springs": "Spgs", "spur": "Spur", "spurs": "Spur", "square": "Sq", "squares": "Sqs", "station": "Sta",
        "stravenue": "Stra", "stream": "Strm", "street": "St", "streets": "Sts", "summit": "Smt",
        "terrace": "Ter", "throughway": "Trwy", "trace": "Trce", "track": "Trak", "trafficway": "Trfy",
        "trail": "Trl", "trailer": "Trlr", "tunnel": "Tunl", "turnpike": "Tpke", "underpass": "Upas",
        "union": "Un", "unions": "Uns", "valley": "Vly", "valleys": "Vlys", "viaduct": "Via", "view": "Vw",
        "views": "Vws", "village": "Vlg", "villages": "Vlgs", "ville": "Vl", "vista": "Vis", "walk": "Walk",
        "walks": "Walk", "wall": "Wall", "way": "Way", "ways": "Ways", "well": "Wl", "wells": "Wls",
    ]

    /// The USPS-style form of a published street name, in mixed case when it was published in capitals.
    public static func abbreviated(_ published: String) -> String {
        let street = mixedCase(published)
        var words = street.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard words.count >= 2 else { return street }
        if let d = directionals[words[0].lowercased()] { words[0] = d }
        var typeIndex = words.count - 1
        // A post-directional written out or already short ("PENNSYLVANIA AVENUE SE", Washington's
        // quadrants): the type before it is abbreviated either way.
        let last = words[typeIndex].lowercased()
        if words.count >= 3, let d = directionals[last] ?? AddressVocabulary.directionals[last]?.uppercased() {
            words[typeIndex] = d
            typeIndex -= 1
        }
        // The type is only abbreviated when a name remains before it ("Avenue A" stays as it is).
        let firstNameIndex = directionals[street.split(separator: " ").first.map { $0.lowercased() } ?? ""] == nil ? 0 : 1
        let type = words[typeIndex].lowercased()
        if typeIndex > firstNameIndex, let t = streetTypes[type] ?? AddressVocabulary.streetTypeNames[type].flatMap({ streetTypes[$0] }) {
            words[typeIndex] = t
        }
        return words.joined(separator: " ")
    }

    /// Words kept in capitals when a name is put in mixed case: USPS directionals, route prefixes,
    /// Roman numerals.
    static let capitalWords: Set<String> = ["N", "S", "E", "W", "NE", "NW", "SE", "SW", "US", "SR", "FM", "CR", "II", "III", "IV", "VI"]
    /// Short forms of names written with a full stop, not in capitals ("St Charles", "Dr Martin
    /// Luther King Jr", "Ft Worth").
    static let shortNameWords: Set<String> = ["st", "mt", "ft", "jr", "sr", "dr", "mr", "ms", "wm", "pt"]

    /// A word of two to four capitals and no vowel that is no street type, directional or short
    /// name: initials ("JFK Blvd", "LBJ Fwy", "MLK"), a route's prefix ("RR 620"), a frontage
    /// road's side ("SVRD NB"). Put in mixed case they read as words: "Jfk Blvd", "Rr 620".
    static func isInitialism(_ word: String) -> Bool {
        guard (2...4).contains(word.utf8.count), word.utf8.allSatisfy({ (0x41...0x5A).contains($0) }),
              !word.utf8.contains(where: { "AEIOUY".utf8.contains($0) }) else { return false }
        let lower = word.lowercased()
        return AddressVocabulary.streetTypes[lower] == nil && AddressVocabulary.directionals[lower] == nil && !shortNameWords.contains(lower)
    }

    /// Little words written in lower case inside a name ("Avenue of the Americas", "Lassiter at
    /// North Hills Ave").
    static let lowerWords: Set<String> = ["OF", "THE", "AND", "AT"]

    /// A name published in capitals, in mixed case: "14TH" → "14th", "MCLOUGHLIN" → "McLoughlin",
    /// "O'BRIEN" → "O'Brien", "BEAVERTON-HILLSDALE" → "Beaverton-Hillsdale", "99E" stays. A name
    /// with lower-case letters keeps its publisher's case, but for the two marks of a machine's
    /// first-letter capitals (`titleCaseMended`).
    public static func mixedCase(_ name: String) -> String {
        guard !name.contains(where: \.isLowercase) else { return titleCaseMended(name) }
        guard name.contains(where: \.isUppercase) else { return name }
        let words = name.split(separator: " ", omittingEmptySubsequences: false)
        return words.enumerated().map { i, w -> String in
            let word = String(w)
            if capitalWords.contains(word) || isInitialism(word) { return word }
            if i + 1 < words.count, words[i + 1].first?.isNumber == true, RouteName.isSystemAbbreviation(word.lowercased()) {
                return word
            }
            if i > 0, i < words.count - 1, lowerWords.contains(word) { return word.lowercased() }
            return word.split(separator: "-", omittingEmptySubsequences: false).map { mixedCaseWord(String($0)) }.joined(separator: "-")
        }.joined(separator: " ")
    }

    /// A name put in first-letter capitals word by word by a program ("Mcloughlin Boulevard",
    /// "Nature'S Walk", "Graham'S Ferry Road": 96 of Portland's 15,684 street names) as a person
    /// writes it: "McLoughlin", "Nature's". A name that has them right is unchanged.
    static func titleCaseMended(_ name: String) -> String {
        guard name.contains("Mc") || name.contains("'S") else { return name }
        return name.split(separator: " ", omittingEmptySubsequences: false).map { w -> String in
            // "Mcloughlin" → "McLoughlin": "Mc" and a lower-case letter begin no English word
            // but a name of the Mc- clan, put in mixed case as one published in capitals is.
            let mc = w.count >= 4 && w.hasPrefix("Mc") && w.dropFirst(2).first?.isLowercase == true
            var chars = Array(mc ? mixedCaseWord(String(w)) : String(w))
            // "Nature'S" → "Nature's": a possessive's s after two or more letters ("O'Sullivan"
            // has one letter before the apostrophe, and goes on after the S).
            if chars.count >= 4, chars[chars.count - 1] == "S", chars[chars.count - 2] == "'",
               chars[chars.count - 3].isLowercase, chars[chars.count - 4].isLetter {
                chars[chars.count - 1] = "s"
            }
            return String(chars)
        }.joined(separator: " ")
    }

    private static func mixedCaseWord(_ w: String) -> String {
        guard let first = w.first else { return w }
        // "14TH" → "14th"; "99E", "12A" keep their letter as a designation.
        if first.isNumber {
            return AddressText.ordinalNumber(w.lowercased()) != nil ? w.lowercased() : w
        }
        let lower = w.lowercased()
        if lower.count >= 4, lower.hasPrefix("mc") {
            return "Mc" + lower.dropFirst(2).prefix(1).uppercased() + lower.dropFirst(3)
        }
        // "O'BRIEN", "D'ARCY": a one-letter prefix before an apostrophe.
        if lower.count >= 3, lower.dropFirst().first == "'" {
            return lower.prefix(1).uppercased() + "'" + lower.dropFirst(2).prefix(1).uppercased() + lower.dropFirst(3)
        }
        return lower.prefix(1).uppercased() + lower.dropFirst()
    }
}
