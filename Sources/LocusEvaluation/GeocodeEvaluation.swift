import LocusCore
import LocusEngine

/// The evaluation behind EVALUATION.md: addresses sampled from the index, written the ways people
/// write them, geocoded, and checked: top-1 is right when it has the right house number and
/// street and lies within 25 m of the address.
public struct GeocodeEvaluation {
    public enum Variant: String, CaseIterable, Sendable {
        case clean, abbreviated, spelledOut = "spelled_out", lowerCase = "lower_case", noCity = "no_city",
             zipOnly = "zip_only", withUnit = "with_unit", swapped, typo1 = "typo_1", typo2 = "typo_2"
    }

    public struct Row: Sendable {
        public var variant: String
        public var queries: Int
        public var correct: Int
        public var noAnswer: Int
        public var accuracy: Double { queries == 0 ? 0 : Double(correct) / Double(queries) }
    }

    public struct Report: Sendable {
        public var rows: [Row]
        public var interpolation: Row
        /// Metres between interpolated answers and the held-out addresses' true positions.
        public var interpolationErrors: [Double]
        public var examplesOfFailures: [String]
        public var queriesPerVariant: Int
    }

    public let index: LocusIndex
    public let sample: Int
    public let seed: UInt64

    public init(index: LocusIndex, sample: Int, seed: UInt64) {
        self.index = index
        self.sample = sample
        self.seed = seed
    }

    /// The sampled addresses: every index drawn once, skipping none.
    public func sampledAddresses(_ a: AddressIndex, count: Int, seed: UInt64) -> [Int] {
        var rng = SeededGenerator(seed: seed)
        var chosen = Set<Int>()
        while chosen.count < min(count, a.count) { chosen.insert(Int.random(in: 0..<a.count, using: &rng)) }
        return chosen.sorted()
    }

    /// Every query of every variant for the sample, with the address it should find.
    public func queries() throws(LocusError) -> [(variant: Variant, text: String, address: Int)] {
        guard let a = index.addresses else { throw LocusError(.notFound, "the index has no addresses") }
        var rng = SeededGenerator(seed: seed &+ 1)
        var out: [(Variant, String, Int)] = []
        for i in sampledAddresses(a, count: sample, seed: seed) {
            let c = a.components(of: i)
            for v in Variant.allCases {
                if let text = Self.write(c, as: v, using: &rng) { out.append((v, text, i)) }
            }
        }
        return out
    }

    public static func write(_ c: AddressComponents, as variant: Variant, using rng: inout SeededGenerator) -> String? {
        let region = [c.state, c.postcode].filter { !$0.isEmpty }.joined(separator: " ")
        let cityRegion = [c.city, region].filter { !$0.isEmpty }.joined(separator: ", ")
        switch variant {
        case .clean: return c.formatted
        case .abbreviated: return "\(c.number) \(c.street) \(c.city) \(c.state)"
        case .spelledOut: return "\(c.number) \(c.streetFull), \(cityRegion)"
        case .lowerCase: return c.formatted.lowercased().replacingOccurrences(of: ",", with: "")
        case .noCity: return "\(c.number) \(c.street)"
        case .zipOnly: return c.postcode.isEmpty ? nil : "\(c.number) \(c.street) \(c.postcode)"
        case .withUnit:
            let units = ["Apt 3", "Unit B", "#12", "Ste 200", "Apt 4C"]
            return "\(c.number) \(c.street) \(units[Int.random(in: 0..<units.count, using: &rng)]), \(cityRegion)"
        case .swapped: return "\(c.street) \(c.number), \(c.city)"
        case .typo1, .typo2:
            let edits = variant == .typo1 ? 1 : 2
            guard let street = typo(c.streetFull, edits: edits, using: &rng) else { return nil }
            return "\(c.number) \(street), \(cityRegion)"
        }
    }

    /// The street with `edits` random edits in its name words, each within the allowance Locus
    /// promises (one in 4+ letters, two in 8+); nil when the name has no word long enough.
    static func typo(_ street: String, edits: Int, using rng: inout SeededGenerator) -> String? {
        var words = street.split(separator: " ").map(String.init)
        let parts = StreetNameParts(tokens: AddressText.tokens(street))
        let nameWords = Set(parts.core)
        var eligible = words.indices.filter { i in
            let w = words[i]
            return w.count >= 4 && w.allSatisfy(\.isLetter) && nameWords.contains(AddressText.canonical(w.lowercased()))
        }
        guard !eligible.isEmpty else { return nil }
        var done = 0
        while done < edits, !eligible.isEmpty {
            let pick = eligible[Int.random(in: 0..<eligible.count, using: &rng)]
            let room = EditDistance.allowance(forLength: words[pick].count)
            let here = min(room, edits - done)
            for _ in 0..<here { words[pick] = edit(words[pick], using: &rng) }
            done += here
            eligible.removeAll { $0 == pick }
        }
        return done == edits ? words.joined(separator: " ") : nil
    }

    static func edit(_ word: String, using rng: inout SeededGenerator) -> String {
        var chars = Array(word)
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        // Never the first letter: people rarely get that wrong, and it keeps the word recognisable.
        let i = Int.random(in: 1..<chars.count, using: &rng)
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: chars.remove(at: i)
        case 1: chars[i] = letters.filter { $0 != Character(chars[i].lowercased()) }.randomElement(using: &rng)!
        case 2: chars.insert(letters.randomElement(using: &rng)!, at: i)
        default:
            if i + 1 < chars.count { chars.swapAt(i, i + 1) } else { chars.swapAt(i - 1, i) }
        }
        return String(chars)
    }

    /// Is this candidate the address?
    static func isRight(_ c: GeocodeCandidate?, _ a: AddressIndex, _ i: Int) -> Bool {
        guard let c else { return false }
        let truth = a.components(of: i)
        guard c.components.number == truth.number, c.components.streetFull == truth.streetFull else { return false }
        let p = a.points[i]
        return GeoPoint(x: c.location.x, y: c.location.y).metres(to: GeoPoint(x: p.lon, y: p.lat)) <= 25
    }

    public func run(heldOut: Int = 500) throws(LocusError) -> Report {
        guard let a = index.addresses, let search = index.search else { throw LocusError(.notFound, "the index has no addresses") }
        var rows: [Variant: Row] = [:]
        var failures: [String] = []
        for q in try queries() {
            let top = search.geocode(GeocodeRequest(.text(q.text))).first
            var row = rows[q.variant] ?? Row(variant: q.variant.rawValue, queries: 0, correct: 0, noAnswer: 0)
            row.queries += 1
            if Self.isRight(top, a, q.address) {
                row.correct += 1
            } else {
                if top == nil { row.noAnswer += 1 }
                if failures.count < 40 { failures.append("\(q.variant.rawValue): \"\(q.text)\" → \(top.map { "\($0.address) [\($0.matchType.rawValue) \($0.score)]" } ?? "nothing")") }
            }
            rows[q.variant] = row
        }

        // Interpolation: hold addresses out of a search built without them, then ask for them.
        let held = sampledAddresses(a, count: heldOut, seed: seed &+ 2)
        let without = AddressSearch(addresses: a, layers: Array(index.layers.values), excluding: Set(held))
        var interpolation = Row(variant: "interpolated (held out)", queries: 0, correct: 0, noAnswer: 0)
        var errors: [Double] = []
        for i in held {
            let c = a.components(of: i)
            interpolation.queries += 1
            guard let top = without.geocode(GeocodeRequest(.text(c.formatted))).first else {
                interpolation.noAnswer += 1
                continue
            }
            let p = a.points[i]
            if top.matchType == .interpolated, top.components.number == c.number, top.components.streetFull == c.streetFull {
                errors.append(GeoPoint(x: top.location.x, y: top.location.y).metres(to: GeoPoint(x: p.lon, y: p.lat)))
                if Self.isRight(top, a, i) { interpolation.correct += 1 }
            } else if top.matchType == .pointAddress, top.components.number == c.number, top.components.streetFull == c.streetFull {
                // The same number also exists (another city, another suffix): found, not interpolated.
                if Self.isRight(top, a, i) { interpolation.correct += 1 }
            } else {
                interpolation.noAnswer += 1
            }
        }
        return Report(rows: Variant.allCases.compactMap { rows[$0] }, interpolation: interpolation,
                      interpolationErrors: errors.sorted(), examplesOfFailures: failures, queriesPerVariant: sample)
    }
}
