/// Ids into another table (addresses, street places) as a section holds them (Int32,
/// little-endian), each read as a valid id: a damaged one reads as 0. The tables are used where
/// they lie and not checked at open, which would read all of them.
struct StoredIDs: RandomAccessCollection, Sendable {
    let records: PackedRecords
    /// Ids are below this; with none possible (0), the table reads as empty.
    let limit: Int32

    init(_ records: PackedRecords, limit: Int) {
        self.records = records
        self.limit = Int32(clamping: limit)
    }

    init(_ values: [Int32], limit: Int) {
        self.init(PackedRecords(packed: SearchTables.bytes(values), stride: 4), limit: limit)
    }

    var startIndex: Int { 0 }
    var endIndex: Int { limit > 0 ? records.count : 0 }

    @inline(__always) subscript(i: Int) -> Int32 {
        precondition(i >= 0 && i < records.count, "id index out of range")
        let v = records.i32(i, 0)
        return v >= 0 && v < limit ? v : 0
    }
}

/// Where each run of a `StoredIDs` table begins: run `k` is `starts[k] ..< starts[k + 1]`, read
/// as empty where the stored starts are out of order or beyond the table (a damaged file).
struct StoredRuns: Sendable {
    let records: PackedRecords
    /// The length of the table the runs cut up.
    let total: Int

    init(_ records: PackedRecords, total: Int) {
        self.records = records
        self.total = total
    }

    init(_ starts: [Int32], total: Int) {
        self.init(PackedRecords(packed: SearchTables.bytes(starts), stride: 4), total: total)
    }

    /// How many runs.
    var count: Int { max(records.count - 1, 0) }

    @inline(__always) subscript(k: Int) -> Range<Int> {
        guard k >= 0, k + 1 < records.count else { return 0..<0 }
        let lo = Int(records.i32(k, 0)), hi = Int(records.i32(k + 1, 0))
        return 0 <= lo && lo <= hi && hi <= total ? lo..<hi : 0..<0
    }
}
