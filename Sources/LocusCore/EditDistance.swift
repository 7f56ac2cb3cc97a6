/// Optimal-string-alignment distance (Levenshtein plus adjacent transpositions), the typo model
/// Locus tolerates: one edit in words of 4+ letters, two in words of 8+.
public enum EditDistance {
    /// How many edits a word of this length may carry and still match.
    public static func allowance(forLength n: Int) -> Int {
        n >= 8 ? 2 : (n >= 4 ? 1 : 0)
    }

    /// The distance, or nil when it is more than `limit`.
    public static func distance(_ a: String, _ b: String, limit: Int) -> Int? {
        // Lengths and equality before anything else: most pairs a typo search tries differ in
        // length (the suggester tries every typed word against every street's and city's words).
        if abs(a.utf8.count - b.utf8.count) > limit { return nil }
        var a = a, b = b
        return a.withUTF8 { x in b.withUTF8 { y in distance(utf8: UnsafeRawBufferPointer(x), UnsafeRawBufferPointer(y), limit: limit) } }
    }

    /// The distance between two texts' UTF-8 bytes, or nil when it is more than `limit`.
    public static func distance(utf8 x: UnsafeRawBufferPointer, _ y: UnsafeRawBufferPointer, limit: Int) -> Int? {
        if abs(x.count - y.count) > limit { return nil }
        if x.elementsEqual(y) { return 0 }
        if limit <= 0 { return nil }
        // Each byte of one that the other has nowhere costs an edit of its own (nothing else turns
        // it into a match), so more of them than the limit settles it without the table: most
        // pairs a typo check tries ("argy" against a ZIP code, a city's words) end here. Suggest
        // at 30× Portland spent a tenth of its time building tables for such pairs.
        if lacking(x, in: y, limit: limit) > limit || lacking(y, in: x, limit: limit) > limit { return nil }
        let n = x.count, m = y.count
        if n == 0 { return m <= limit ? m : nil }
        if m == 0 { return n <= limit ? n : nil }
        var previous2 = [Int](repeating: 0, count: m + 1)
        var previous = Array(0...m)
        var current = [Int](repeating: 0, count: m + 1)
        for i in 1...n {
            current[0] = i
            var rowMin = current[0]
            for j in 1...m {
                let cost = x[i - 1] == y[j - 1] ? 0 : 1
                var v = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] { v = min(v, previous2[j - 2] + 1) }
                current[j] = v
                rowMin = min(rowMin, v)
            }
            if rowMin > limit { return nil }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[m] <= limit ? previous[m] : nil
    }

    /// How many bytes of `x` occur nowhere in `y`, counting no further than past `limit`.
    @inline(__always)
    static func lacking(_ x: UnsafeRawBufferPointer, in y: UnsafeRawBufferPointer, limit: Int) -> Int {
        var present: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        for b in y {
            let bit = UInt64(1) << UInt64(b & 63)
            switch b >> 6 {
            case 0: present.0 |= bit
            case 1: present.1 |= bit
            case 2: present.2 |= bit
            default: present.3 |= bit
            }
        }
        var count = 0
        for b in x {
            let word: UInt64
            switch b >> 6 {
            case 0: word = present.0
            case 1: word = present.1
            case 2: word = present.2
            default: word = present.3
            }
            if word & (UInt64(1) << UInt64(b & 63)) == 0 {
                count += 1
                if count > limit { return count }
            }
        }
        return count
    }

    /// Every string made by deleting up to `depth` characters (the key space of a deletion index),
    /// none of them empty.
    ///
    /// Each is made once per set of positions deleted, from the word's bytes when it is ASCII (as
    /// nearly every name and typed word is): a query's typo search makes hundreds of them per word,
    /// and going through `Character`s and a set per round took 0.5 ms for a 25-letter word.
    public static func deletions(_ word: String, depth: Int) -> Set<String> {
        if word.utf8.allSatisfy({ $0 < 0x80 }) {
            return deletions(of: Array(word.utf8), depth: depth) { String(decoding: $0, as: UTF8.self) }
        }
        return deletions(of: Array(word), depth: depth) { String($0) }
    }

    private static func deletions<Element>(of items: [Element], depth: Int, _ make: ([Element]) -> String) -> Set<String> {
        var out: Set<String> = []
        var deleted: [Int] = []
        var kept: [Element] = []
        kept.reserveCapacity(items.count)
        // Positions are deleted in increasing order, so each set of them is visited once.
        func visit(from start: Int) {
            kept.removeAll(keepingCapacity: true)
            var next = 0
            for (i, e) in items.enumerated() {
                if next < deleted.count, deleted[next] == i { next += 1 } else { kept.append(e) }
            }
            out.insert(make(kept))
            guard deleted.count < depth, items.count - deleted.count > 1 else { return }
            for i in start..<items.count {
                deleted.append(i)
                visit(from: i + 1)
                deleted.removeLast()
            }
        }
        visit(from: 0)
        return out
    }
}
