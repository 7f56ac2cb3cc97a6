import Foundation
import LocusCore
import LocusEngine
import LocusProtocol
import LocusWire
import LocusClient

/// `locus enrich`: forward-geocodes each row's address and appends where it is, how sure the
/// match is, the address as matched, and the polygons of the chosen layers it falls in.
public struct EnrichJob: BatchJob {
    /// Where a row's address is.
    public enum AddressFields: Sendable, Equatable {
        /// One column with the whole address (optionally completed by city, state and ZIP columns).
        case line(address: Int, city: Int?, state: Int?, postcode: Int?)
        /// The parts in columns of their own.
        case parts(number: Int?, street: Int, city: Int?, state: Int?, postcode: Int?)
    }

    /// Column choices as the user gave them; nil fields are guessed from the header.
    public struct Columns: Sendable {
        public var address: String?
        public var number: String?
        public var street: String?
        public var city: String?
        public var state: String?
        public var postcode: String?
        public init() {}
    }

    public let fields: AddressFields
    public let layers: [String]
    public let outSpatialReference: SpatialReference
    public let minScore: Double
    public let appendedColumns: [String]
    let header: [String]

    public init(header: [String], columns: Columns, layers: [String], outSpatialReference: SpatialReference = .wgs84,
                minScore: Double = 60) throws(LocusError) {
        self.header = header
        let find = ColumnFinder(header: header)
        func pick(_ given: String?, _ option: String, _ names: [String]) throws(LocusError) -> Int? {
            if let given { return try find.named(given, option: option) }
            return find.guess(names)
        }
        let city = try pick(columns.city, "--city-column", ColumnFinder.city)
        let state = try pick(columns.state, "--state-column", ColumnFinder.state)
        let postcode = try pick(columns.postcode, "--postcode-column", ColumnFinder.postcode)
        let partsGiven = columns.number != nil || columns.street != nil
        if let a = columns.address {
            fields = .line(address: try find.named(a, option: "--address-column"), city: city, state: state, postcode: postcode)
        } else if !partsGiven, let a = find.guess(ColumnFinder.singleAddress) {
            fields = .line(address: a, city: city, state: state, postcode: postcode)
        } else if let street = try pick(columns.street, "--street-column", ColumnFinder.street) {
            fields = .parts(number: try pick(columns.number, "--number-column", ColumnFinder.number), street: street,
                            city: city, state: state, postcode: postcode)
        } else {
            throw LocusError(.invalidArgument, "cannot tell which column holds the address (columns: \(header.joined(separator: ", "))); "
                + "name it with --address-column, or the parts with --number-column and --street-column")
        }
        self.layers = layers
        self.outSpatialReference = outSpatialReference
        self.minScore = minScore
        let xy = outSpatialReference.isGeographicWGS84 ? ["longitude", "latitude"] : ["x", "y"]
        appendedColumns = unclashed(["status", "reason"] + xy + ["score", "match_type", "match_addr", "match_number", "match_street",
                                     "match_city", "match_state", "match_postcode"] + layers, header: header)
    }

    /// Most lines an address field may hold (street, unit, town, country): more is rows taken in
    /// by an open quote.
    static let mostAddressLines = 4

    /// Which columns were used, in words, for the summary.
    public var columnsDescription: String {
        func name(_ i: Int?) -> String? { i.map { "\"\(header[$0])\"" } }
        switch fields {
        case .line(let a, let c, let s, let p):
            return "address from " + ([name(a)] + [c, s, p].map(name)).compactMap { $0 }.joined(separator: " + ")
        case .parts(let n, let st, let c, let s, let p):
            return "address from " + [name(n), name(st), name(c), name(s), name(p)].compactMap { $0 }.joined(separator: " + ")
        }
    }

    public var fingerprint: String {
        "enrich v1 \(fields) layers=\(layers) out=\(outSpatialReference.wkid) min=\(minScore) header=\(header)"
    }

    func value(_ row: [String], _ i: Int?) -> String? {
        guard let i, i < row.count else { return nil }
        let v = row[i].trimmingCharacters(in: .whitespacesAndNewlines)
        return v.isEmpty ? nil : v
    }

    /// The row's address as a request, or nil when the row has none.
    func request(_ row: [String]) -> GeocodeRequest? {
        let input: GeocodeRequest.Input
        switch fields {
        case .line(let a, let c, let s, let p):
            guard let line = value(row, a) else { return nil }
            // City, state and ZIP columns complete a line that lacks them; a line that already
            // ends with them is not given them twice.
            var text = line
            let lower = line.lowercased()
            // Searched as bytes: Foundation's `contains` on Linux reads a NUL as the string's end,
            // and a city field "d\0\0\0" after a line ending in "d" trapped ("String index is out of
            // bounds"; found by the csv fuzz target).
            for extra in [value(row, c), value(row, s), value(row, p)].compactMap({ $0 }) where !lower.utf8.contains(extra.lowercased().utf8) {
                text += ", " + extra
            }
            input = .text(text)
        case .parts(let n, let st, let c, let s, let p):
            guard let street = value(row, st) else { return nil }
            if let number = value(row, n) {
                input = .fields(number: number, street: street, city: value(row, c), postcode: value(row, p))
            } else {
                // The number may be inside the street column ("6132 NE 34th Ave").
                let line = [street, value(row, c), value(row, s), value(row, p)].compactMap { $0 }.joined(separator: ", ")
                input = .text(line)
            }
        }
        var r = GeocodeRequest(input)
        r.maxResults = 1
        // The threshold is applied here, so an unmatched row can say what came closest.
        r.minScore = 0
        return r
    }

    public func run(_ row: [String], on backend: any QueryBackend) async throws -> RowOutcome {
        let empty = [String](repeating: "", count: appendedColumns.count - 2)
        guard let request = request(row) else {
            return RowOutcome(fields: ["failed", "no address in this row"] + empty, category: "failed", failed: true)
        }
        // A quote not followed by the delimiter (`"6131 NE 34th Ave" ,x`) leaves the field open
        // until the next quote, the rows between taken into it: the reason names the cause (it was
        // "no candidate", or "address text is 40444 bytes").
        let text: String? = switch fields {
        case .line(let a, _, _, _): value(row, a)
        case .parts(_, let street, _, _, _): value(row, street)
        }
        if let text, case let lines = text.utf8.lazy.filter({ $0 == 0x0A }).count + 1, lines > Self.mostAddressLines {
            return RowOutcome(fields: ["failed", "the address runs over \(lines) lines: a quote left open in the input (one not followed by the delimiter) took the rows after it into this field"] + empty,
                              category: "failed", failed: true)
        }
        do {
            let result = try await backend.geocode(request, outSpatialReference: outSpatialReference)
            guard let c = result.candidates.first, c.score >= minScore else {
                let why = result.candidates.first.map {
                    "best candidate \($0.address) scored \(csvNumber($0.score, decimals: 1)), below \(csvNumber(minScore, decimals: 1))"
                } ?? "no candidate"
                return RowOutcome(fields: ["unmatched", why] + empty, category: "unmatched", failed: true)
            }
            // A ZIP code's or a town's answer is the area's centre: the polygon that centre falls in
            // is no polygon of the row's, so the layers stay empty and the reason says so.
            let area = c.matchType == .postcode || c.matchType == .locality
            var names: [String] = []
            var note = ""
            if area {
                names = [String](repeating: "", count: layers.count)
                if !layers.isEmpty {
                    note = "found only as a \(c.matchType == .postcode ? "ZIP code" : "town"): no \(layers.joined(separator: ", ")) at its centre"
                }
            } else {
                for layer in layers {
                    var w = WithinRequest(location: GeoPoint(x: c.location.x, y: c.location.y))
                    w.spatialReference = outSpatialReference
                    w.layer = layer
                    names.append(try await backend.within(w).features.map(\.name).joined(separator: "; "))
                }
            }
            let decimals = outSpatialReference.isGeographicWGS84 ? 7 : 3
            let k = c.components
            return RowOutcome(
                fields: ["matched", note, csvNumber(c.location.x, decimals: decimals), csvNumber(c.location.y, decimals: decimals),
                         csvNumber(c.score, decimals: 1), c.matchType.rawValue, c.address, k.number, k.street, k.city, k.state, k.postcode] + names,
                category: c.matchType.rawValue, failed: false)
        } catch let e as LocusClientError {
            throw e
        } catch {
            return RowOutcome(fields: ["failed", reason(for: error)] + empty, category: "failed", failed: true)
        }
    }
}
