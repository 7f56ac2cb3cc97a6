/// SplitMix64: a small, fast generator that gives the same sequence on every platform, so that
/// benchmarks, evaluations and tests draw the same points on every run.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    public var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension Envelope {
    /// `count` points drawn uniformly over the envelope from a seeded generator.
    public func randomPoints(count: Int, seed: UInt64) -> [GeoPoint] {
        var rng = SeededGenerator(seed: seed)
        return (0..<count).map { _ in
            GeoPoint(x: Double.random(in: minX...maxX, using: &rng), y: Double.random(in: minY...maxY, using: &rng))
        }
    }
}
