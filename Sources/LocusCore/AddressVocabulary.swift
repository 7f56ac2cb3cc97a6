/// The words US addresses are written with, and what each normalises to. Every lookup here is on
/// folded, lower-case tokens (see `AddressText`). Matching normalises both the published street
/// names and the user's text through the same tables, so "Northeast 34th Avenue", "ne 34 ave" and
/// "N.E. 34th Av." all become `ne 34 ave`.
public enum AddressVocabulary {
    /// Directionals, full and abbreviated, to their USPS abbreviation.
    public static let directionals: [String: String] = [
        "n": "n", "north": "n", "s": "s", "south": "s", "e": "e", "east": "e", "w": "w", "west": "w",
        "ne": "ne", "northeast": "ne", "nw": "nw", "northwest": "nw", "se": "se", "southeast": "se",
        "sw": "sw", "southwest": "sw",
    ]

    /// Every spelling of a street type USPS Publication 28 (Appendix C1) lists, to its standard
    /// abbreviation, plus the primary names (from `StreetStyle`).
    public static let streetTypes: [String: String] = {
        var table: [String: String] = [:]
        for (name, abbreviation) in StreetStyle.streetTypes {
            table[name] = abbreviation.lowercased()
            table[abbreviation.lowercased()] = abbreviation.lowercased()
        }
        let variants: [String: [String]] = [
            "aly": ["allee", "ally"], "ave": ["av", "aven", "avenu", "avn", "avnue"],
            "blvd": ["boul", "boulv", "blv"], "br": ["brnch"], "byp": ["bypa", "bypas", "byps"],
            "cir": ["circ", "circl", "crcl", "crcle"], "ct": ["crt"], "cv": [], "ctr": ["cen", "cent", "centr", "centre", "cnter", "cntr"],
            "dr": ["driv", "drv"], "expy": ["exp", "expr", "express", "expw"], "fwy": ["freewy", "frway", "frwy"],
            "hwy": ["highwy", "hiway", "hiwy", "hway"], "holw": ["hllw", "hollows", "holws"], "ln": ["la"],
            "lndg": ["lndng"], "mnr": [], "pkwy": ["parkwy", "pkway", "pky", "pkwys", "parkways"],
            "pl": ["plc"], "plz": ["plza"], "rd": [], "sq": ["sqr", "sqre", "squ"], "st": ["str", "strt", "streets"],
            "ter": ["terr"], "trl": ["trls", "tr", "trails"], "tpke": ["trnpk", "turnpk"], "way": ["wy"],
            "xing": ["crssng"], "loop": ["lp", "loops"], "crst": [], "cres": ["crsent", "crsnt"],
        ]
        for (abbreviation, spellings) in variants {
            for s in spellings { table[s] = abbreviation }
        }
        return table
    }()

    /// Secondary unit designators (Publication 28, Appendix C2), to their abbreviation.
    public static let unitDesignators: [String: String] = [
        "apt": "apt", "apartment": "apt", "unit": "unit", "ste": "ste", "suite": "ste", "bldg": "bldg",
        "building": "bldg", "fl": "fl", "floor": "fl", "rm": "rm", "room": "rm", "spc": "spc", "space": "spc",
        "lot": "lot", "trlr": "trlr", "trailer": "trlr", "dept": "dept", "department": "dept", "ofc": "ofc",
        "office": "ofc", "ph": "ph", "penthouse": "ph", "#": "#", "no": "#", "number": "#",
        "bsmt": "bsmt", "basement": "bsmt", "rear": "rear", "frnt": "frnt", "front": "frnt",
        "lowr": "lowr", "lower": "lowr", "uppr": "uppr", "upper": "uppr", "side": "side",
    ]

    /// Designators that stand alone, without an identifier after them ("Rear", "Basement").
    public static let standaloneUnits: Set<String> = ["bsmt", "rear", "frnt", "lowr", "uppr", "side", "ph"]

    /// The states, DC and territories: names and USPS codes to the code.
    public static let states: [String: String] = {
        let pairs: [(String, String)] = [
            ("alabama", "al"), ("alaska", "ak"), ("arizona", "az"), ("arkansas", "ar"), ("california", "ca"),
            ("colorado", "co"), ("connecticut", "ct"), ("delaware", "de"), ("district of columbia", "dc"),
            ("florida", "fl"), ("georgia", "ga"), ("hawaii", "hi"), ("idaho", "id"), ("illinois", "il"),
            ("indiana", "in"), ("iowa", "ia"), ("kansas", "ks"), ("kentucky", "ky"), ("louisiana", "la"),
            ("maine", "me"), ("maryland", "md"), ("massachusetts", "ma"), ("michigan", "mi"), ("minnesota", "mn"),
            ("mississippi", "ms"), ("missouri", "mo"), ("montana", "mt"), ("nebraska", "ne"), ("nevada", "nv"),
            ("new hampshire", "nh"), ("new jersey", "nj"), ("new mexico", "nm"), ("new york", "ny"),
            ("north carolina", "nc"), ("north dakota", "nd"), ("ohio", "oh"), ("oklahoma", "ok"), ("oregon", "or"),
            ("pennsylvania", "pa"), ("rhode island", "ri"), ("south carolina", "sc"), ("south dakota", "sd"),
            ("tennessee", "tn"), ("texas", "tx"), ("utah", "ut"), ("vermont", "vt"), ("virginia", "va"),
            ("washington", "wa"), ("west virginia", "wv"), ("wisconsin", "wi"), ("wyoming", "wy"),
            ("puerto rico", "pr"), ("guam", "gu"), ("virgin islands", "vi"), ("american samoa", "as"),
        ]
        var table: [String: String] = [:]
        for (name, code) in pairs {
            table[name] = code
            table[code] = code
        }
        return table
    }()

    /// Words normalised to one spelling wherever they stand, in names and queries alike.
    /// Multi-word expansions ("mlk") are split into tokens.
    public static let aliases: [String: String] = [
        "saint": "st", "mount": "mt", "fort": "ft", "junior": "jr",
        "mlk": "martin luther king jr", "mlkj": "martin luther king jr",
        "first": "1", "second": "2", "third": "3", "fourth": "4", "fifth": "5", "sixth": "6",
        "seventh": "7", "eighth": "8", "ninth": "9", "tenth": "10", "eleventh": "11", "twelfth": "12",
        "thirteenth": "13", "fourteenth": "14", "fifteenth": "15", "sixteenth": "16", "seventeenth": "17",
        "eighteenth": "18", "nineteenth": "19", "twentieth": "20", "thirtieth": "30", "fortieth": "40",
        "fiftieth": "50", "sixtieth": "60", "seventieth": "70", "eightieth": "80", "ninetieth": "90",
        "centre": "center",
        // Broadway as signs and staff lists shorten it.
        "bdwy": "broadway", "bway": "broadway",
    ]

    /// Any spelling of a directional to its full name ("ne" → "northeast").
    public static let directionalNames: [String: String] = {
        let full = ["n": "north", "s": "south", "e": "east", "w": "west", "ne": "northeast", "nw": "northwest", "se": "southeast", "sw": "southwest"]
        return directionals.mapValues { full[$0]! }
    }()

    /// Any spelling of a street type to its primary name ("av", "ave" → "avenue").
    public static let streetTypeNames: [String: String] = {
        var byAbbreviation: [String: String] = [:]
        for (name, abbreviation) in StreetStyle.streetTypes {
            let a = abbreviation.lowercased()
            if let existing = byAbbreviation[a], existing.count <= name.count { continue }
            byAbbreviation[a] = name
        }
        return streetTypes.mapValues { byAbbreviation[$0] ?? $0 }
    }()

    /// Tens of compound ordinals ("thirty" of "thirty-fourth").
    public static let tens: [String: Int] = [
        "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
    ]
    /// Units of compound ordinals ("fourth" of "thirty-fourth").
    public static let ordinalUnits: [String: Int] = [
        "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9,
    ]

    /// Full forms of the directional and type words, for recognising them through a typo.
    public static let fullDirectionals = ["north", "south", "east", "west", "northeast", "northwest", "southeast", "southwest"]
    public static let fullStreetTypes: [String] = StreetStyle.streetTypes.keys.sorted()
}
