import CSV
import Foundation
import LocusCore

/// Which CSV columns hold an address point's parts. Every field left nil is found among the header
/// names publishers commonly use (case-insensitive).
public struct AddressColumns: Sendable, Equatable, Codable {
    /// House number ("number", "house_number", "addr:housenumber", "add_num" …). Several columns
    /// named with commas between are joined with a space ("Add_Number,AddNum_Suf": "12 A");
    /// found by name, a number-suffix column ("addnum_suf", "number_suffix" …) is joined too.
    public var number: String? = nil
    /// Street name, directionals and type included ("street", "addr:street", "full_street" …).
    /// Several columns named with commas between are joined with spaces, in the order named
    /// ("St_PreDir,St_Name,St_PosTyp,St_PosDir"). Found by name: a whole-street column, else the
    /// street's parts (pre-directional, pre-type, name, type, post-directional: NENA's `St_*`,
    /// `predir`/`sufdir`, `street_type` …) joined, else the street of the `address` column. A
    /// column called just "street" beside directional or type columns ("prefix", "suffix") is
    /// taken as the name, its parts joined around it.
    public var street: String? = nil
    /// One column holding number and street together ("123 1/2 N Main St Apt 4, Cambridge"), used
    /// where no number (or street) column is named or found ("address", "full_address",
    /// "site_address" …): the number is its first word (with a fraction after it), the street the
    /// rest up to a comma, without a unit at its end. The city, state and ZIP code after the
    /// commas are read where the file has no column for them.
    public var address: String? = nil
    /// City or municipality; optional in the file.
    public var city: String? = nil
    /// State; optional in the file.
    public var state: String? = nil
    /// ZIP code; optional in the file.
    public var postcode: String? = nil
    /// Longitude or easting ("lon", "longitude", "x" …).
    public var x: String? = nil
    /// Latitude or northing ("lat", "latitude", "y" …).
    public var y: String? = nil
    /// One column holding the point, used where no x or y column is named or found: WKT
    /// ("POINT (-122.6 45.5)", x first) or a location as open-data portals export it ("(45.5,
    /// -122.6)", latitude first). Found by name: "the_geom", "geometry", "location" ….
    public var point: String? = nil
    /// The CRS of x and y. Default WGS 84 lon/lat.
    public var wkid: Int = 4326
    /// Field delimiter. Default a comma; a file whose header has no comma but semicolons, tabs or
    /// bars is read with the most frequent of them.
    public var delimiter: String = ","
    /// The city of every row the file gives none (no city column, or an empty value): San
    /// Francisco's address file has no city column, most cities' none for the state. Default none.
    public var defaultCity: String? = nil
    /// The state (USPS code) of every row the file gives none. Default none.
    public var defaultState: String? = nil

    public init() {}

    enum CodingKeys: String, CodingKey {
        case number, street, address, city, state, postcode, x, y, point, wkid, delimiter
        case defaultCity = "default_city", defaultState = "default_state"
    }

    /// Every key may be left out of a dataset definition, its default taken (a definition without
    /// "wkid" or "delimiter" failed with the decoder's own message).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        number = try c.decodeIfPresent(String.self, forKey: .number)
        street = try c.decodeIfPresent(String.self, forKey: .street)
        address = try c.decodeIfPresent(String.self, forKey: .address)
        city = try c.decodeIfPresent(String.self, forKey: .city)
        state = try c.decodeIfPresent(String.self, forKey: .state)
        postcode = try c.decodeIfPresent(String.self, forKey: .postcode)
        x = try c.decodeIfPresent(String.self, forKey: .x)
        y = try c.decodeIfPresent(String.self, forKey: .y)
        point = try c.decodeIfPresent(String.self, forKey: .point)
        wkid = try c.decodeIfPresent(Int.self, forKey: .wkid) ?? 4326
        delimiter = try c.decodeIfPresent(String.self, forKey: .delimiter) ?? ","
        defaultCity = try c.decodeIfPresent(String.self, forKey: .defaultCity)
        defaultState = try c.decodeIfPresent(String.self, forKey: .defaultState)
    }

    nonisolated(unsafe) static let aliases: [WritableKeyPath<AddressColumns, String?>: (label: String, names: [String])] = [
        \.number: ("number", ["number", "house_number", "housenumber", "addr:housenumber", "add_number", "add_num", "address_number",
                              "addnum", "addr_num", "address_num", "house_num", "housenum", "house_no", "hse_num", "hnum", "st_num",
                              "street_number", "streetnumber", "stnum", "h_no", "addrno", "addrnum"]),
        \.street: ("street", ["street", "addr:street", "full_street", "full_street_name", "fullname", "street_full", "streetfull",
                              "full_st_name", "fullstreet", "st_full", "street_fullname", "full_stree", "stnamecom"]),
        \.address: ("address", ["address", "full_address", "fulladdress", "full_addr", "fulladdr", "address_full", "addr_full",
                                "site_address", "siteaddress", "site_addr", "siteaddr", "street_address", "streetaddress", "add_full",
                                "addressfull", "addr", "siteadress"]),
        \.city: ("city", ["city", "addr:city", "municipality", "town", "place", "city_name", "jurisdiction", "post_comm", "postal_city",
                          "msag_comm", "postalctyname", "postal_city_name", "ctyname", "placename", "mailcomm"]),
        \.state: ("state", ["state", "addr:state", "region", "state_code", "st"]),
        \.postcode: ("postcode", ["postcode", "zip", "zipcode", "zip_code", "postal_code", "addr:postcode", "zip5", "post_code"]),
        \.x: ("x", ["lon", "longitude", "lng", "long", "x", "point_x", "easting", "x_coord"]),
        \.y: ("y", ["lat", "latitude", "y", "point_y", "northing", "y_coord"]),
        \.point: ("point", ["the_geom", "geometry", "geom", "wkt", "shape", "location", "point", "geolocation", "location_1",
                            "coordinates"]),
    ]

    /// A street's parts, in the order they are written, each as the names publishers give it:
    /// NENA NG9-1-1 (`St_PreMod` … `St_PosMod`), Esri's and counties' (`predir`, `stname`,
    /// `suftype`, `sufdir`), TIGER's (`fedirp`, `fename`, `fetype`, `fedirs`). A type column named
    /// "suffix" holds a directional in some files: after the name either reads right.
    static let streetParts: [(label: String, names: [String])] = [
        ("pre-modifier", ["st_premod", "premod", "pre_mod", "premodifier", "stnameprm"]),
        ("pre-directional", ["st_predir", "predir", "pre_dir", "prefix_dir", "prefixdir", "dir_prefix", "predirection",
                             "pre_direction", "street_prefix", "st_prefix", "str_prefix", "prefix", "fedirp", "dirpre",
                             "predirectional", "stnameprd", "addr_pd", "predirabbr", "pre_dir_abbr"]),
        ("pre-type", ["st_pretyp", "st_pretype", "pretype", "pre_type", "stnameprt", "addr_pt"]),
        ("pre-separator", ["st_presep", "presep"]),
        ("name", ["st_name", "street_name", "streetname", "stname", "str_name", "road_name", "roadname", "fename", "name_street",
                  "street_body", "addr_sn"]),
        ("type", ["st_postyp", "st_postype", "st_type", "street_type", "streettype", "sttype", "str_type", "suftype", "suf_type",
                  "suffix_type", "post_type", "posttype", "road_type", "fetype", "street_suffix", "st_suffix", "str_suffix",
                  "stnamepot", "street_suffix_abbr", "addr_st"]),
        ("post-directional", ["st_posdir", "st_postdir", "postdir", "post_dir", "sufdir", "suf_dir", "suffix_dir", "suffixdir",
                              "dir_suffix", "postdirection", "post_direction", "fedirs", "dirsuf", "postdirectional", "stnamepod",
                              "street_suffix_dir", "addr_sd", "postdirabbr", "post_dir_abbr", "quadrant"]),
        ("post-modifier", ["st_posmod", "posmod", "post_mod", "postmodifier", "stnamepom"]),
    ]

    /// A house number's suffix ("A", "1/2") kept in a column of its own.
    static let numberSuffixNames = ["addnum_suf", "add_num_suf", "number_suffix", "num_suffix", "house_suffix", "hse_suffix",
                                    "house_number_suffix", "addr_num_suffix", "addnumsuf", "address_number_suffix", "addrnosuf",
                                    "hno_suffix", "numsuffix", "addrnumsuffix", "addnumsuffix", "housefrac", "house_frac"]

    /// A header name as the aliases are written: trimmed, lower case, with spaces, hyphens and
    /// dots as underscores.
    static func headerKey(_ name: some StringProtocol) -> String {
        String(name.trimmingWhitespace().lowercased().map { $0 == " " || $0 == "-" || $0 == "." ? "_" : $0 })
    }

    /// Where each part of a row is, as column positions.
    struct Layout: Equatable {
        /// Each part found, as the names of its columns ("number": "ADDRNO + ADDRNOSUF"): what a
        /// build reports, since a part found in no column (a directional) is silently missing.
        func described(_ header: [String]) -> [String: String] {
            let parts: [(String, [Int?])] = [("number", number), ("street", street), ("address", [address]), ("city", [city]),
                                             ("state", [state]), ("postcode", [postcode]), ("x", [x]), ("y", [y]), ("point", [point])]
            var out: [String: String] = [:]
            for (part, columns) in parts {
                let found = columns.compactMap { $0 }.filter { $0 < header.count }.map { header[$0] }
                if !found.isEmpty { out[part] = found.joined(separator: " + ") }
            }
            return out
        }

        var number: [Int] = []
        var street: [Int] = []
        /// When the street is put together from parts found by name: which of `street` is the name.
        var streetName: Int?
        /// Which of `street` is a column called "suffix": a street type or directional joins the
        /// street, anything else (a house number's "A", "1/2") does not.
        var streetSuffix: Int?
        var address: Int?
        var city: Int?
        var state: Int?
        var postcode: Int?
        /// x and y, or else the one column holding the point.
        var x: Int?
        var y: Int?
        var point: Int?
    }

    /// The columns of `header` holding each part: those named (every one must exist), else found
    /// by name. Throws, naming the columns there are, when the number, the street or the
    /// coordinates are nowhere.
    func layout(header: [String], path: String) throws(LocusError) -> Layout {
        // Portals export headers as people name columns ("Address Number", "ZIP Code"): spaces,
        // hyphens and dots read as underscores, so those are found as address_number, zip_code.
        let lowered = header.map { Self.headerKey($0) }
        let listing = "(columns: \(header.joined(separator: ", ")))"
        func named(_ key: WritableKeyPath<AddressColumns, String?>) throws(LocusError) -> [Int]? {
            guard let text = self[keyPath: key] else { return nil }
            let label = Self.aliases[key]?.label ?? "value"
            // A name with a comma is a list, unless the header has a column of that very name.
            let names = lowered.contains(Self.headerKey(text)) ? [text] : text.split(separator: ",").map(String.init)
            var out: [Int] = []
            for name in names {
                guard let i = lowered.firstIndex(of: Self.headerKey(name)) else {
                    throw LocusError(.importFailed, "\(path) has no column \"\(name)\" for the \(label) \(listing)")
                }
                out.append(i)
            }
            return out
        }
        func found(_ names: [String]) -> Int? { names.lazy.compactMap { lowered.firstIndex(of: $0) }.first }
        func one(_ key: WritableKeyPath<AddressColumns, String?>) throws(LocusError) -> Int? {
            if let n = try named(key) {
                guard n.count == 1 else {
                    throw LocusError(.importFailed, "the \(Self.aliases[key]?.label ?? "value") is one column, got \"\(self[keyPath: key] ?? "")\"")
                }
                return n.first
            }
            return found(Self.aliases[key]?.names ?? [])
        }
        var l = Layout()
        if let n = try named(\.number) {
            l.number = n
        } else if let i = found(Self.aliases[\.number]?.names ?? []) {
            l.number = [i] + (found(Self.numberSuffixNames).map { [$0] } ?? [])
        }
        let nameColumn = Self.streetParts.first(where: { $0.label == "name" }).flatMap { found($0.names) }
        // The street's parts around `name`; a bare "suffix" column stands in for the type, checked
        // per row since some files keep the house number's suffix under that name.
        func streetFromParts(name: Int) {
            for part in Self.streetParts {
                if part.label == "name" {
                    l.streetName = l.street.count
                    l.street.append(name)
                } else if let i = found(part.names) {
                    l.street.append(i)
                } else if part.label == "type", let i = found(["suffix"]) {
                    l.streetSuffix = l.street.count
                    l.street.append(i)
                }
            }
        }
        if let n = try named(\.street) {
            l.street = n
        } else if let i = found(Self.aliases[\.street]?.names ?? []) {
            // A column called just "street" beside directional or type columns and no name column
            // is the name alone (Tampa's ADDR_NUM, PREFIX, STREET, SUFFIX: "N", "FLORIDA", "AVE"),
            // which read whole lost the directional and the type; a row whose street has them
            // already does not get them twice.
            if lowered[i] == "street", nameColumn == nil,
               Self.streetParts.contains(where: { $0.label != "name" && found($0.names) != nil }) || found(["suffix"]) != nil {
                streetFromParts(name: i)
            } else {
                l.street = [i]
            }
        } else if let name = nameColumn {
            streetFromParts(name: name)
        }
        if let n = try named(\.address) {
            l.address = n.first
        } else if l.number.isEmpty || l.street.isEmpty {
            l.address = found(Self.aliases[\.address]?.names ?? [])
        }
        if l.address == nil {
            guard !l.number.isEmpty else {
                throw LocusError(.importFailed, "\(path) has no number column; name it with --number-column, or the whole address with --address-column \(listing)")
            }
            guard !l.street.isEmpty else {
                throw LocusError(.importFailed, "\(path) has no street column; name it (or its parts, comma-separated) with --street-column, or the whole address with --address-column \(listing)")
            }
        }
        l.city = try one(\.city)
        l.state = try one(\.state)
        l.postcode = try one(\.postcode)
        let x = try one(\.x), y = try one(\.y)
        if let x, let y {
            l.x = x
            l.y = y
        } else if let point = try one(\.point) {
            l.point = point
        } else {
            throw LocusError(.importFailed, "\(path) has no \(x == nil ? "x" : "y") column; name it with --\(x == nil ? "x" : "y")-column, or a WKT point column with --point-column \(listing)")
        }
        return l
    }

    /// x and y of a point column's value: WKT ("POINT (x y)", "SRID=4326;POINT Z (x y z)") or a
    /// portal's location, latitude first ("(45.5, -122.6)"). Nil for anything else.
    static func coordinates(ofPoint text: String) -> (x: String, y: String)? {
        guard let open = text.firstIndex(of: "("), let close = text.lastIndex(of: ")"), open < close else { return nil }
        let inside = text[text.index(after: open)..<close]
        if text[..<open].uppercased().contains("POINT") {
            let values = inside.split(whereSeparator: { $0.isWhitespace || $0 == "," || $0 == "(" || $0 == ")" })
            return values.count >= 2 ? (String(values[0]), String(values[1])) : nil
        }
        let values = inside.split(separator: ",").map { $0.trimmingWhitespace() }
        return values.count == 2 ? (values[1], values[0]) : nil
    }

    /// The house number and street of a whole address: "123 1/2 N Main St Apt 4, Cambridge, MA"
    /// → ("123 1/2", "N Main St"). The number is nil when the text does not start with one.
    static func split(address text: String, parser: AddressParser) -> (number: String?, street: String) {
        let head = text.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        var words = head.split(whereSeparator: \.isWhitespace).map(String.init)
        guard let first = words.first, first.utf8.first.map({ $0 >= 0x30 && $0 <= 0x39 }) == true else {
            return (nil, words.joined(separator: " "))
        }
        var number = first
        words.removeFirst()
        if let fraction = words.first, words.count > 1, fraction.contains("/"),
           fraction.allSatisfy({ $0 == "/" || ($0.isASCII && $0.isNumber) }) {
            number += " " + fraction
            words.removeFirst()
        }
        // A unit at the end, where the query parser reads one (so "Upper Dr" stays a street). No
        // address runs to 200 characters: a longer field is left whole rather than parsed.
        if words.count > 1, head.utf8.count <= 200, parser.parse(String(head)).unit != nil,
           let cut = words.indices.dropFirst().last(where: { w in
               words[w].hasPrefix("#") || AddressParser.unitWords[words[w].lowercased()] != nil
           }) {
            words.removeSubrange(cut...)
        }
        return (number, words.joined(separator: " "))
    }

    /// The city, state and ZIP code written after the street in a whole address ("100 S 2nd St,
    /// Springfield, IL 62701", "…, Springfield IL", "…, Apt 4, Springfield"): what a file with
    /// one address column has of them, which was dropped. The state is its code where it is a
    /// state's name or code; a part that is a unit ("Apt 4", "#2") is no city.
    static func region(ofAddress text: String) -> (city: String, state: String, postcode: String) {
        var parts = text.split(separator: ",").dropFirst().map { $0.trimmingWhitespace() }.filter { !$0.isEmpty }
        if let last = parts.last, ["usa", "us", "united states", "united states of america"].contains(last.lowercased()) {
            parts.removeLast()
        }
        guard parts.count <= 4, var words = parts.last?.split(whereSeparator: \.isWhitespace).map(String.init) else { return ("", "", "") }
        var state = "", postcode = ""
        if let w = words.last, AddressParser.postcode(w) != nil {
            postcode = w
            words.removeLast()
        }
        for n in [3, 2, 1] where words.count >= n {
            let name = words.suffix(n).joined(separator: " ").lowercased()
            // A city alone may be a state's name ("New York", "Washington"): a state is read only
            // after a city or before a ZIP code.
            guard let code = AddressVocabulary.states[name], words.count > n || !postcode.isEmpty || parts.count > 1 else { continue }
            state = code.uppercased()
            words.removeLast(n)
            break
        }
        var city = words.joined(separator: " ")
        if city.isEmpty, parts.count >= 2, state.isEmpty == false || !postcode.isEmpty {
            city = parts[parts.count - 2]
        }
        let first = city.split(separator: " ").first.map { $0.lowercased() } ?? ""
        if city.hasPrefix("#") || AddressVocabulary.unitDesignators[first] != nil || AddressVocabulary.standaloneUnits.contains(first)
            || city.first?.isNumber == true {
            city = ""
        }
        return (city, state, postcode)
    }
}

/// One address row as written in the source file, before checking.
struct RawAddressRow {
    /// 1-based record number after the header.
    var row: Int
    var number: String
    var street: String
    var city: String
    var state: String
    var postcode: String
    var x: String
    var y: String
}

/// Streams the address rows of a CSV file (plain or gzip) in file order.
struct AddressCSVSource {
    let path: String
    let columns: AddressColumns

    /// Reads every row; `read` is told first which columns hold which part (part → the columns'
    /// names, joined with " + ").
    func forEachRow(read: ([String: String]) -> Void = { _ in },
                    _ body: (RawAddressRow) throws(LocusError) -> Void) throws(LocusError) {
        let file = try CompressedFileReader(path: path)
        let stream = CompressedInputStream(reader: file)
        guard let delimiter = columns.delimiter.unicodeScalars.first, columns.delimiter.unicodeScalars.count == 1 else {
            throw LocusError(.invalidArgument, "the delimiter must be one character, got \"\(columns.delimiter)\"")
        }
        let reader: CSVReader
        do {
            reader = try CSVReader(stream: stream, hasHeaderRow: true, delimiter: delimiter)
        } catch {
            throw LocusError(.importFailed, "\(path) has no readable CSV header row")
        }
        let header = (reader.headerRow ?? []).map { $0.trimmingWhitespace() }
        // A semicolon- or tab-separated export read with the default comma is one column: read
        // again with its own (it failed saying there was no number column).
        if header.count == 1, columns.delimiter == ",", let other = [";", "\t", "|"].max(by: { a, b in
            header[0].count(where: { String($0) == a }) < header[0].count(where: { String($0) == b })
        }), header[0].contains(other) {
            var again = columns
            again.delimiter = other
            return try AddressCSVSource(path: path, columns: again).forEachRow(read: read, body)
        }
        let layout = try columns.layout(header: header, path: path)
        read(layout.described(header))
        let parser = AddressParser(knownCities: [])
        func field(_ values: [String], _ i: Int?) -> String {
            guard let i, i < values.count else { return "" }
            return values[i]
        }
        func or(_ value: String, _ otherwise: String?) -> String {
            value.trimmingWhitespace().isEmpty ? otherwise ?? value : value
        }
        func joined(_ values: [String], _ columns: [Int]) -> String {
            columns.map { field(values, $0).trimmingWhitespace() }.filter { !$0.isEmpty }.joined(separator: " ")
        }
        // Parts found by name around a name that already has them ("N MAIN ST" beside "N", "ST")
        // are not written twice.
        func street(_ values: [String]) -> String {
            guard let k = layout.streetName, k < layout.street.count else { return joined(values, layout.street) }
            let name = field(values, layout.street[k]).trimmingWhitespace()
            let upper = name.uppercased()
            var words: [String] = []
            for (j, column) in layout.street.enumerated() {
                let part = field(values, column).trimmingWhitespace()
                guard !part.isEmpty else { continue }
                let p = part.uppercased()
                if j == layout.streetSuffix {
                    let word = p.lowercased().filter { $0 != "." }
                    guard AddressVocabulary.streetTypes[word] != nil || AddressVocabulary.directionals[word] != nil else { continue }
                }
                if j < k, upper.hasPrefix(p + " ") { continue }
                if j > k, upper.hasSuffix(" " + p) { continue }
                words.append(j == k ? name : part)
            }
            return words.joined(separator: " ")
        }
        var row = 0
        while let values = reader.next() {
            row += 1
            var number = joined(values, layout.number), street = street(values)
            var city = field(values, layout.city), state = field(values, layout.state), postcode = field(values, layout.postcode)
            if layout.number.isEmpty || layout.street.isEmpty, let a = layout.address {
                let whole = field(values, a)
                let (n, s) = AddressColumns.split(address: whole, parser: parser)
                // No number first: the whole text goes on as the number, to be rejected saying so.
                if layout.number.isEmpty { number = n ?? whole }
                if layout.street.isEmpty { street = s }
                if layout.city == nil || layout.state == nil || layout.postcode == nil, whole.contains(",") {
                    let region = AddressColumns.region(ofAddress: whole)
                    if layout.city == nil { city = region.city }
                    if layout.state == nil { state = region.state }
                    if layout.postcode == nil { postcode = region.postcode }
                }
            }
            var x = "", y = ""
            if let p = layout.point {
                // A point that is no point goes on as its text, to be rejected saying so.
                let text = field(values, p)
                (x, y) = AddressColumns.coordinates(ofPoint: text) ?? (text, "")
            } else {
                (x, y) = (field(values, layout.x), field(values, layout.y))
            }
            try body(RawAddressRow(row: row, number: number, street: street,
                                   city: or(city, columns.defaultCity), state: or(state, columns.defaultState),
                                   postcode: postcode, x: x, y: y))
        }
        if let error = stream.readError { throw error }
        if reader.error != nil { throw LocusError(.importFailed, "\(path) is not valid UTF-8 CSV after row \(row)") }
    }
}
