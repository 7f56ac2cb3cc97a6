import Foundation
import LocusCore
import LocusEngine
import LocusProtocol
import LocusWire
import LocusClient

/// `locus assign`: appends to each row the polygons of the chosen layers that cover its point,
/// optionally the nearest one when none does, and optionally the address at the point.
public struct AssignJob: BatchJob {
    public let x: Int
    public let y: Int
    public let spatialReference: SpatialReference
    public let layers: [String]
    /// When no polygon of a layer covers the point, the nearest within this many metres.
    public let nearestWithin: Double?
    /// Also reverse-geocode each point, within this many metres.
    public let reverseWithin: Double?
    public let appendedColumns: [String]
    let header: [String]

    public init(header: [String], xColumn: String?, yColumn: String?, spatialReference: SpatialReference = .wgs84,
                layers: [String], nearestWithin: Double? = nil, reverseWithin: Double? = nil) throws(LocusError) {
        self.header = header
        let find = ColumnFinder(header: header)
        func pick(_ given: String?, _ option: String, _ names: [String]) throws(LocusError) -> Int {
            if let given { return try find.named(given, option: option) }
            guard let i = find.guess(names) else {
                throw LocusError(.invalidArgument, "cannot tell which column holds \(option == "--x-column" ? "x (longitude)" : "y (latitude)") "
                    + "(columns: \(header.joined(separator: ", "))); name it with \(option)")
            }
            return i
        }
        x = try pick(xColumn, "--x-column", ColumnFinder.x)
        y = try pick(yColumn, "--y-column", ColumnFinder.y)
        self.spatialReference = spatialReference
        self.layers = layers
        self.nearestWithin = nearestWithin
        self.reverseWithin = reverseWithin
        var names = ["status", "reason"]
        for l in layers {
            names += [l, l + "_id"]
            if nearestWithin != nil { names.append(l + "_distance_m") }
        }
        if reverseWithin != nil { names += ["address", "address_distance_m"] }
        appendedColumns = unclashed(names, header: header)
    }

    public var columnsDescription: String { "point from \"\(header[x])\", \"\(header[y])\" (wkid \(spatialReference.wkid))" }

    public var fingerprint: String {
        "assign v1 x=\(x) y=\(y) wkid=\(spatialReference.wkid) layers=\(layers) nearest=\(String(describing: nearestWithin)) "
            + "reverse=\(String(describing: reverseWithin)) header=\(header)"
    }

    public func run(_ row: [String], on backend: any QueryBackend) async throws -> RowOutcome {
        let empty = [String](repeating: "", count: appendedColumns.count - 2)
        func failed(_ why: String) -> RowOutcome { RowOutcome(fields: ["failed", why] + empty, category: "failed", failed: true) }
        func number(_ i: Int) -> Double? {
            guard i < row.count else { return nil }
            return Double(row[i].trimmingCharacters(in: .whitespaces))
        }
        guard let px = number(x) else { return failed("\(header[x]) is not a number") }
        guard let py = number(y) else { return failed("\(header[y]) is not a number") }
        let point = GeoPoint(x: px, y: py)
        do {
            var fields: [String] = []
            var covered = 0, nearest = 0
            for layer in layers {
                var w = WithinRequest(location: point)
                w.spatialReference = spatialReference
                w.layer = layer
                w.nearestWithin = nearestWithin
                let features = try await backend.within(w).features
                fields.append(features.map(\.name).joined(separator: "; "))
                fields.append(features.map(\.id).joined(separator: "; "))
                if nearestWithin != nil { fields.append(features.first.map { csvNumber($0.distanceMetres, decimals: 1) } ?? "") }
                if features.first?.relation == .covers { covered += 1 } else if !features.isEmpty { nearest += 1 }
            }
            if let reach = reverseWithin {
                var r = ReverseRequest(location: point)
                r.spatialReference = spatialReference
                r.maxDistance = reach
                if let a = try await backend.reverse(r) {
                    fields += [a.address, csvNumber(a.distanceMetres, decimals: 1)]
                } else {
                    fields += ["", ""]
                }
            }
            let status = covered == layers.count ? "covered" : (covered + nearest == layers.count ? "nearest" : "outside")
            return RowOutcome(fields: [status, ""] + fields, category: status, failed: false)
        } catch let e as LocusClientError {
            throw e
        } catch {
            return failed(reason(for: error))
        }
    }
}
