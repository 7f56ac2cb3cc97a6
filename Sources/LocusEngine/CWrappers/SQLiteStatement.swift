import CSQLite
import LocusCore

/// One prepared statement. Same thread rules as its connection.
final class SQLiteStatement {
    let database: SQLiteDatabase
    let pointer: OpaquePointer

    init(database: SQLiteDatabase, pointer: OpaquePointer) {
        self.database = database
        self.pointer = pointer
    }

    deinit { sqlite3_finalize(pointer) }

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    enum Value {
        case text(String)
        case integer(Int64)
        case real(Double)
        case blob([UInt8])
        case null
    }

    func bind(_ values: [Value]) throws(LocusError) {
        sqlite3_reset(pointer)
        sqlite3_clear_bindings(pointer)
        for (i, value) in values.enumerated() {
            let index = Int32(i + 1)
            let rc: Int32
            switch value {
            case .text(let s): rc = sqlite3_bind_text(pointer, index, s, -1, Self.transient)
            case .integer(let v): rc = sqlite3_bind_int64(pointer, index, v)
            case .real(let v): rc = sqlite3_bind_double(pointer, index, v)
            case .blob(let b): rc = b.withUnsafeBytes { sqlite3_bind_blob(pointer, index, $0.baseAddress, Int32($0.count), Self.transient) }
            case .null: rc = sqlite3_bind_null(pointer, index)
            }
            guard rc == SQLITE_OK else { throw database.error(rc, "binding a value", sql: sql) }
        }
    }

    /// The statement's SQL, for error messages.
    var sql: String? { sqlite3_sql(pointer).map { String(cString: $0) } }

    /// Runs a statement that returns no rows.
    func run(_ values: [Value] = []) throws(LocusError) {
        try bind(values)
        let rc = sqlite3_step(pointer)
        guard rc == SQLITE_DONE || rc == SQLITE_ROW else { throw database.error(rc, "writing", sql: sql) }
        sqlite3_reset(pointer)
    }

    /// Advances to the next row; false when there are no more.
    func step() throws(LocusError) -> Bool {
        let rc = sqlite3_step(pointer)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        throw database.error(rc, "reading", sql: sql)
    }

    func reset() { sqlite3_reset(pointer) }

    /// The column's text, read by its length: text may hold NUL bytes, where a C string stops.
    func text(_ column: Int32) -> String {
        // Text first, then its length (SQLite's documented order: the length is of the text form).
        guard let c = sqlite3_column_text(pointer, column) else { return "" }
        let n = Int(sqlite3_column_bytes(pointer, column))
        return String(decoding: UnsafeRawBufferPointer(start: c, count: n), as: UTF8.self)
    }

    func optionalText(_ column: Int32) -> String? {
        sqlite3_column_type(pointer, column) == SQLITE_NULL ? nil : text(column)
    }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(pointer, column) }
    func double(_ column: Int32) -> Double { sqlite3_column_double(pointer, column) }

    func blob(_ column: Int32) -> [UInt8] {
        let n = Int(sqlite3_column_bytes(pointer, column))
        guard n > 0, let p = sqlite3_column_blob(pointer, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: p, count: n))
    }

    /// Calls `body` with the blob's bytes without copying them out of SQLite.
    func withBlob<R>(_ column: Int32, _ body: (UnsafeRawBufferPointer) throws(LocusError) -> R) throws(LocusError) -> R {
        let n = Int(sqlite3_column_bytes(pointer, column))
        let p = sqlite3_column_blob(pointer, column)
        return try body(UnsafeRawBufferPointer(start: n > 0 ? p : nil, count: n))
    }
}
