/// Strings as a section holds them: their UTF-8 bytes one after another, and where each begins
/// (`StoredRuns` over the bytes), each decoded when read. Used where they lie, so an open costs
/// nothing per string; a damaged start reads as the empty string.
struct StoredStrings: RandomAccessCollection, Sendable {
    let bytes: PackedRecords
    let starts: StoredRuns

    init(bytes: PackedRecords, starts: PackedRecords) {
        self.bytes = bytes
        self.starts = StoredRuns(starts, total: bytes.count)
    }

    /// Packed in memory (the builder's, or a test's).
    init(_ strings: [String]) {
        let (bytes, starts) = Self.pack(strings)
        self.init(bytes: PackedRecords(packed: bytes, stride: 1), starts: PackedRecords(packed: SearchTables.bytes(starts), stride: 4))
    }

    /// The section's bytes, and the starts (one more than the strings).
    static func pack(_ strings: [String]) -> (bytes: [UInt8], starts: [Int32]) {
        var bytes: [UInt8] = [], starts: [Int32] = [0]
        for s in strings {
            bytes += s.utf8
            starts.append(Int32(clamping: bytes.count))
        }
        return (bytes, starts)
    }

    var startIndex: Int { 0 }
    var endIndex: Int { starts.count }

    subscript(i: Int) -> String {
        let range = starts[i]
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes.bytes[range]), as: UTF8.self)
    }

    /// The UTF-8 bytes of string `i`, valid while this table is.
    func utf8(_ i: Int) -> UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: bytes.bytes[starts[i]]) }

    /// Where string `i` stands against `prefix` (ASCII bytes), told from the bytes where it lies,
    /// undecoded: below it, beginning with it, or above it. Nil where a byte not ASCII stands at
    /// or right after where they part: String order and `hasPrefix` go by canonical equivalence
    /// (a combining mark joins the letter before it), which bytes need not follow.
    func order(_ i: Int, againstASCII prefix: UnsafeRawBufferPointer) -> PrefixOrder? {
        let w = utf8(i)
        var k = 0
        while k < prefix.count {
            guard k < w.count else { return .below }
            let (a, b) = (w[k], prefix[k])
            guard a < 0x80 else { return nil }
            if a != b {
                guard k + 1 >= w.count || w[k + 1] < 0x80 else { return nil }
                return a < b ? .below : .above
            }
            k += 1
        }
        guard k >= w.count || w[k] < 0x80 else { return nil }
        return .begins
    }

    enum PrefixOrder { case below, begins, above }

    /// The first position whose string is not below `key`, in strings sorted as Swift orders
    /// them (a damaged table is searched all the same, and answers wrongly).
    func firstIndex(notBelow key: String) -> Int {
        var lo = 0, hi = count
        while lo < hi {
            let mid = (lo + hi) / 2
            if self[mid] < key { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// The position of `key` in sorted strings.
    func position(of key: String) -> Int? {
        let i = firstIndex(notBelow: key)
        return i < count && self[i] == key ? i : nil
    }
}
