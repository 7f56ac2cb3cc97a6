import LocusCore
import LocusEngine

/// The seeded inputs the benchmarks share, `locus-bench` and the micro-benchmarks in Benchmarks/
/// alike, so that a figure of one is measured on the same points and texts as the other.
public enum BenchmarkInputs {
    /// Address points moved up to 60 m in x and y, where a field app's points fall; every one finds
    /// an address within 100 m.
    public static func pointsNearAddresses(_ a: AddressIndex, count: Int, seed: UInt64) -> [GeoPoint] {
        var rng = SeededGenerator(seed: seed)
        return (0..<count).map { _ in nearAnAddress(a, using: &rng) }
    }

    /// Uniform over the layer's extent (about half fall in no polygon of the Portland layer).
    public static func pointsOver(_ layer: BoundaryLayer, count: Int, seed: UInt64) -> [GeoPoint] {
        var extent = Envelope.empty
        for f in layer.features { extent.extend(f.envelope) }
        return extent.randomPoints(count: count, seed: seed)
    }

    /// Request lines with ids, alternating reverse (points near addresses) and within (uniform over
    /// the layer's extent): the server benchmark's mix.
    public static func requestLines(_ idx: LocusIndex, count: Int, seed: UInt64) throws(LocusError) -> [String] {
        guard let a = idx.addresses, a.count > 0, let layer = idx.layers["neighborhoods"] ?? idx.layers.values.first else {
            throw LocusError(.notFound, "the index needs addresses and a layer")
        }
        var rng = SeededGenerator(seed: seed)
        var extent = Envelope.empty
        for f in layer.features { extent.extend(f.envelope) }
        return (0..<count).map { i in
            if i % 2 == 0 {
                let p = nearAnAddress(a, using: &rng)
                return #"{"id":\#(i),"op":"reverse","location":{"x":\#(p.x),"y":\#(p.y)}}"#
            }
            let x = Double.random(in: extent.minX...extent.maxX, using: &rng)
            let y = Double.random(in: extent.minY...extent.maxY, using: &rng)
            return #"{"id":\#(i),"op":"within","location":{"x":\#(x),"y":\#(y)},"layer":"\#(layer.name)"}"#
        }
    }

    /// Sampled addresses as people type them into a search box: "6132 ne 34th ave portland".
    public static func typedAddresses(_ idx: LocusIndex, sample: Int, seed: UInt64) throws(LocusError) -> [String] {
        guard let a = idx.addresses else { throw LocusError(.notFound, "the index has no addresses") }
        return GeocodeEvaluation(index: idx, sample: sample, seed: seed).sampledAddresses(a, count: sample, seed: seed).map { i in
            let c = a.components(of: i)
            return "\(c.number) \(c.street) \(c.city)".lowercased()
        }
    }

    /// Every keystroke of a text: its prefixes from two characters to the whole.
    public static func keystrokes(of text: String) -> [String] {
        (text.indices.dropFirst().map { $0 } + [text.endIndex]).map { String(text[..<$0]) }
    }

    private static func nearAnAddress(_ a: AddressIndex, using rng: inout SeededGenerator) -> GeoPoint {
        let p = a.points[Int.random(in: 0..<a.count, using: &rng)]
        let s = LocalMetricScale(latitude: p.lat)
        let x = p.lon + Double.random(in: -60...60, using: &rng) / s.metresPerDegreeX
        let y = p.lat + Double.random(in: -60...60, using: &rng) / s.metresPerDegreeY
        return GeoPoint(x: x, y: y)
    }
}
