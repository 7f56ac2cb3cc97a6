import Foundation
import LocusCore
import LocusEngine
import LocusProtocol
import LocusWire

/// One input row's result: the fields appended to it, and how it counts in the summary.
public struct RowOutcome: Sendable {
    public var fields: [String]
    /// What the summary counts it as: a match type, `unmatched`, `covered`, `failed`, …
    public var category: String
    /// Counts against the exit status.
    public var failed: Bool

    public init(fields: [String], category: String, failed: Bool) {
        self.fields = fields
        self.category = category
        self.failed = failed
    }
}

/// A per-row batch job: `locus enrich` and `locus assign`.
public protocol BatchJob: Sendable {
    /// The job and every option that shapes its output: a resume must match it.
    var fingerprint: String { get }
    /// Column names appended to the input's.
    var appendedColumns: [String] { get }
    /// The appended fields for one row. Errors about the row become its status and reason;
    /// only a lost server connection is thrown.
    func run(_ row: [String], on backend: any QueryBackend) async throws -> RowOutcome
}

/// Finds columns by the names publishers and spreadsheets commonly give them.
public struct ColumnFinder: Sendable {
    public let header: [String]
    private let normalized: [String]

    public init(header: [String]) {
        self.header = header
        normalized = header.map(Self.normalize)
    }

    /// Case, spaces, underscores and punctuation aside: "Street Address" = "street_address".
    static func normalize(_ s: String) -> String {
        String(s.lowercased().unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) }.map(Character.init))
    }

    /// The column named `name` exactly (case aside), or an error listing the header.
    public func named(_ name: String, option: String) throws(LocusError) -> Int {
        if let i = header.firstIndex(of: name) ?? header.firstIndex(where: { $0.lowercased() == name.lowercased() }) { return i }
        throw LocusError(.invalidArgument, "\(option): no column \"\(name)\" in the header (\(header.joined(separator: ", ")))")
    }

    /// The first column whose name is one of `candidates` (in the candidates' order of preference).
    public func guess(_ candidates: [String]) -> Int? {
        for c in candidates {
            if let i = normalized.firstIndex(of: Self.normalize(c)) { return i }
        }
        return nil
    }

    public static let singleAddress = ["address", "full_address", "fulladdress", "street_address", "site_address", "address1",
                                       "address_line_1", "addressline1", "addr", "input_address", "single_line", "singleline",
                                       "location_address", "mailing_address", "addr1", "address_1", "addr_line_1", "line1",
                                       "street_line_1", "street_address_1"]
    public static let number = ["number", "house_number", "housenumber", "addr:housenumber", "add_num", "address_number", "addnum",
                                "hnum", "st_num", "street_number", "house_no", "house", "housenum", "house_num", "hse_num",
                                "addrno", "addno", "address_no", "street_no", "stnum", "streetnum", "h_no"]
    public static let street = ["street", "street_name", "streetname", "addr:street", "full_street", "fullname", "st_name",
                                "full_street_name", "road", "stname", "str_name", "street_full", "full_stree"]
    public static let city = ["city", "addr:city", "municipality", "town", "city_name", "jurisdiction", "place"]
    public static let state = ["state", "addr:state", "state_code", "province", "region"]
    public static let postcode = ["postcode", "zip", "zipcode", "zip_code", "postal_code", "postalcode", "addr:postcode", "zip5",
                                  "zip+4", "zip_4", "zip4", "post_code", "postal"]
    public static let x = ["lon", "longitude", "lng", "long", "x", "point_x", "easting", "xcoord", "x_coord"]
    public static let y = ["lat", "latitude", "y", "point_y", "northing", "ycoord", "y_coord"]
}

/// Appended column names that do not clash with the input's: a clash gets a `locus_` prefix.
func unclashed(_ names: [String], header: [String]) -> [String] {
    // Prefixed until free: a file enriched twice already has `status` and `locus_status`, and
    // its third pass wrote thirteen names twice.
    var taken = Set(header.map { $0.lowercased() })
    return names.map { name in
        var out = name
        while taken.contains(out.lowercased()) { out = "locus_" + out }
        taken.insert(out.lowercased())
        return out
    }
}

/// A number formatted for CSV: fixed point, at most `decimals` places, no trailing zeros, never
/// an exponent. (`String(format:)` cost more per row than reading the row.)
func csvNumber(_ d: Double, decimals: Int) -> String {
    guard d.isFinite else { return "" }
    var scale: Int64 = 1
    for _ in 0..<decimals { scale *= 10 }
    guard abs(d) * Double(scale) < 9e17 else { return String(d) }
    let scaled = Int64((abs(d) * Double(scale)).rounded())
    if scaled == 0 { return "0" }
    var whole = String(scaled / scale)
    var fraction = scaled % scale
    if d < 0 { whole = "-" + whole }
    guard fraction > 0 else { return whole }
    var places = decimals
    while fraction % 10 == 0 {
        fraction /= 10
        places -= 1
    }
    let digits = String(fraction)
    return whole + "." + String(repeating: "0", count: places - digits.count) + digits
}

/// A row's error, in words for its reason column: never a Swift error's text.
func reason(for error: any Error) -> String {
    switch error {
    case let e as LocusError: e.message
    case let e as WireError: e.message
    default: "internal error"
    }
}
