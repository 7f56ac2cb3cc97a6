/// A position in some spatial reference: x is longitude (or easting), y is latitude (or northing).
public struct GeoPoint: Hashable, Sendable, Codable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// An axis-aligned rectangle.
public struct Envelope: Hashable, Sendable, Codable {
    public var minX: Double
    public var minY: Double
    public var maxX: Double
    public var maxY: Double

    public init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
        self.minX = minX
        self.minY = minY
        self.maxX = maxX
        self.maxY = maxY
    }

    /// The empty envelope: extending it by any point gives that point.
    public static let empty = Envelope(minX: .infinity, minY: .infinity, maxX: -.infinity, maxY: -.infinity)

    public var isEmpty: Bool { minX > maxX || minY > maxY }
    public var width: Double { maxX - minX }
    public var height: Double { maxY - minY }

    public mutating func extend(x: Double, y: Double) {
        if x < minX { minX = x }
        if x > maxX { maxX = x }
        if y < minY { minY = y }
        if y > maxY { maxY = y }
    }

    public mutating func extend(_ other: Envelope) {
        guard !other.isEmpty else { return }
        extend(x: other.minX, y: other.minY)
        extend(x: other.maxX, y: other.maxY)
    }

    public func contains(x: Double, y: Double) -> Bool {
        x >= minX && x <= maxX && y >= minY && y <= maxY
    }

    /// Wider by `dx` each side and taller by `dy` each side.
    public func expanded(x dx: Double, y dy: Double) -> Envelope {
        Envelope(minX: minX - dx, minY: minY - dy, maxX: maxX + dx, maxY: maxY + dy)
    }

    /// Larger by `d` every way.
    public func expanded(by d: Double) -> Envelope { expanded(x: d, y: d) }

    public func intersects(_ other: Envelope) -> Bool {
        !(other.minX > maxX || other.maxX < minX || other.minY > maxY || other.maxY < minY)
    }

    /// The middle of where this box and `other` overlap, or of the gap between them where they
    /// do not (each way on its own).
    public func middle(with other: Envelope) -> GeoPoint {
        GeoPoint(x: (Swift.max(minX, other.minX) + Swift.min(maxX, other.maxX)) / 2,
                 y: (Swift.max(minY, other.minY) + Swift.min(maxY, other.maxY)) / 2)
    }

    /// The square of the distance between this box and `other` (0 where they meet), their
    /// degrees made metres by `scale`.
    public func squaredGap(to other: Envelope, scale: LocalMetricScale) -> Double {
        let x = Swift.max(Swift.max(minX, other.minX) - Swift.min(maxX, other.maxX), 0) * scale.metresPerDegreeX
        let y = Swift.max(Swift.max(minY, other.minY) - Swift.min(maxY, other.maxY), 0) * scale.metresPerDegreeY
        return x * x + y * y
    }
}

/// Metres per degree near a latitude, on the WGS 84 ellipsoid. Good to a few parts in 10⁵ over
/// the few hundred metres Locus measures with it; exact distances come from the geodesic.
public struct LocalMetricScale: Sendable {
    public let metresPerDegreeX: Double
    public let metresPerDegreeY: Double

    public init(latitude: Double) {
        // Series for the WGS 84 meridian and parallel arc lengths per degree, with the multiple
        // angles from one cosine (this runs several times per query).
        let c = cos(latitude * .pi / 180)
        let c2 = c * c
        let cos2 = 2 * c2 - 1, cos3 = (4 * c2 - 3) * c, cos5 = ((16 * c2 - 20) * c2 + 5) * c
        let cos4 = 2 * cos2 * cos2 - 1, cos6 = 2 * cos3 * cos3 - 1
        metresPerDegreeY = 111_132.92 - 559.82 * cos2 + 1.175 * cos4 - 0.0023 * cos6
        metresPerDegreeX = 111_412.84 * c - 93.5 * cos3 + 0.118 * cos5
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension GeoPoint {
    /// Metres to another lon/lat point on a plane fitted at their mid-latitude: within a millimetre
    /// of the geodesic up to a kilometre, at a tenth of its cost.
    public func metres(to other: GeoPoint) -> Double {
        let s = LocalMetricScale(latitude: (y + other.y) / 2)
        let dx = (x - other.x) * s.metresPerDegreeX, dy = (y - other.y) * s.metresPerDegreeY
        return (dx * dx + dy * dy).squareRoot()
    }
}

extension Duration {
    /// The duration in seconds, as one floating-point number.
    public var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
