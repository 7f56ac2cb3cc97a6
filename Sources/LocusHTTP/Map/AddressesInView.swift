import Foundation
import LocusCore
import LocusEngine

/// The address points inside a map's view (`/locus/addresses`): each point with its address when
/// there are at most `limit`, else their density — counts on a grid of at most
/// `densityCells` × `densityCells` over the view, each cell placed at its points' mean — so that
/// no view, however large, is answered with more than a bounded number of items.
struct AddressesInView: Encodable, Sendable {
    struct Point: Encodable, Sendable {
        var x: Double
        var y: Double
        var address: String
    }

    struct Cell: Encodable, Sendable {
        var x: Double
        var y: Double
        var count: Int
    }

    /// Every point in the view.
    var count: Int
    /// The most points answered one by one.
    var limit: Int
    /// The points, when `count <= limit`.
    var points: [Point]?
    /// The density, when `count > limit`.
    var cells: [Cell]?

    static let densityCells = 64

    init(_ addresses: AddressIndex?, in box: Envelope, limit: Int) {
        self.limit = limit
        var inside: [Int] = []
        addresses?.forEachPoint(in: box) { inside.append($0) }
        count = inside.count
        guard let addresses else {
            points = []
            return
        }
        if inside.count <= limit {
            points = inside.map { i in
                let p = addresses.points[i]
                return Point(x: p.lon, y: p.lat, address: addresses.components(of: i).formatted)
            }
            return
        }
        // Cells square on the ground, the longer side of the view cut into `densityCells`.
        let cosLat = max(cos((box.minY + box.maxY) / 2 * .pi / 180), 0.01)
        let side = max(box.width * cosLat, box.height, 1e-12) / Double(Self.densityCells)
        let cellWidth = side / cosLat, cellHeight = side
        let columns = min(max(Int((box.width / cellWidth).rounded(.up)), 1), Self.densityCells)
        let rows = min(max(Int((box.height / cellHeight).rounded(.up)), 1), Self.densityCells)
        var counts = [Int](repeating: 0, count: columns * rows)
        var sumX = [Double](repeating: 0, count: columns * rows), sumY = sumX
        for i in inside {
            let p = addresses.points[i]
            let c = min(max(Int((p.lon - box.minX) / cellWidth), 0), columns - 1)
            let r = min(max(Int((p.lat - box.minY) / cellHeight), 0), rows - 1)
            counts[r * columns + c] += 1
            sumX[r * columns + c] += p.lon
            sumY[r * columns + c] += p.lat
        }
        cells = counts.indices.filter { counts[$0] > 0 }.map { k in
            // Seven decimals, as the points themselves: a centimetre.
            Cell(x: (sumX[k] / Double(counts[k]) * 1e7).rounded() / 1e7, y: (sumY[k] / Double(counts[k]) * 1e7).rounded() / 1e7, count: counts[k])
        }
    }
}
