import CSV
import Foundation
import LocusCore

/// Which CSV columns hold an address point's parts. Every field left nil is found among the header
/// names publishers commonly use (case-insensitive).
public struct AddressColumns: Sendable, Equatable, Codable {
    /// House number ("number", "house_number", "addr:housenumber", "add_num" …).
    public var number: String? = nil
    /// Street name, directionals and type included ("street", "street_name", "addr:street" …).
    public var street: String? = nil
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
    /// The CRS of x and y. Default WGS 84 lon/lat.
    public var wkid: Int = 4326
    /// Field delimiter. Default a comma.
    public var delimiter: String = ","

    public init() {}

    enum CodingKeys: String, CodingKey { case number, street, city, state, postcode, x, y, wkid, delimiter }

    nonisolated(unsafe) static let aliases: [WritableKeyPath<AddressColumns, String?>: (label: String, names: [String], required: Bool)] = [
        \.number: ("number", ["number", "house_number", "housenumber", "addr:housenumber", "add_num", "address_number", "addnum", "hnum", "st_num"], true),
        \.street: ("street", ["street", "street_name", "streetname", "addr:street", "full_street", "fullname", "st_name", "full_street_name"], true),
        \.city: ("city", ["city", "addr:city", "municipality", "town", "place", "city_name", "jurisdiction"], false),
        \.state: ("state", ["state", "addr:state", "region", "state_code", "st"], false),
        \.postcode: ("postcode", ["postcode", "zip", "zipcode", "zip_code", "postal_code", "addr:postcode", "zip5"], false),
        \.x: ("x", ["lon", "longitude", "lng", "long", "x", "point_x", "easting"], true),
        \.y: ("y", ["lat", "latitude", "y", "point_y", "northing"], true),
    ]
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

    func forEachRow(_ body: (RawAddressRow) throws(LocusError) -> Void) throws(LocusError) {
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
        let lowered = header.map { $0.lowercased() }
        var indexes: [WritableKeyPath<AddressColumns, String?>: Int] = [:]
        for (key, spec) in AddressColumns.aliases {
            if let named = columns[keyPath: key] {
                guard let i = lowered.firstIndex(of: named.lowercased()) else {
                    throw LocusError(.importFailed, "\(path) has no column \"\(named)\" for the \(spec.label) (columns: \(header.joined(separator: ", ")))")
                }
                indexes[key] = i
            } else if let i = spec.names.lazy.compactMap({ lowered.firstIndex(of: $0) }).first {
                indexes[key] = i
            } else if spec.required {
                throw LocusError(.importFailed, "\(path) has no \(spec.label) column; name it with --\(spec.label)-column (columns: \(header.joined(separator: ", ")))")
            }
        }
        func field(_ values: [String], _ key: WritableKeyPath<AddressColumns, String?>) -> String {
            guard let i = indexes[key], i < values.count else { return "" }
            return values[i]
        }
        var row = 0
        while let values = reader.next() {
            row += 1
            try body(RawAddressRow(row: row, number: field(values, \.number), street: field(values, \.street),
                                   city: field(values, \.city), state: field(values, \.state),
                                   postcode: field(values, \.postcode), x: field(values, \.x), y: field(values, \.y)))
        }
        if let error = stream.readError { throw error }
        if reader.error != nil { throw LocusError(.importFailed, "\(path) is not valid UTF-8 CSV after row \(row)") }
    }
}
