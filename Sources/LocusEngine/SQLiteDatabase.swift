import CSQLite
import Foundation
import LocusCore

/// One SQLite connection. Thread rules: SQLite is built serialized on Debian, but Locus still uses
/// a connection from one thread at a time; readers that need parallelism open their own.
final class SQLiteDatabase {
    let pointer: OpaquePointer
    let path: String

    enum Mode { case readOnly, create }

    init(path: String, mode: Mode) throws(LocusError) {
        var db: OpaquePointer?
        let flags = mode == .readOnly
            ? SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX
            : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(db)
            throw LocusError(.invalidIndex, "cannot open \(path): \(message)")
        }
        self.pointer = db
        self.path = path
    }

    deinit { sqlite3_close_v2(pointer) }

    func error(_ rc: Int32, _ what: String) -> LocusError {
        let message = String(cString: sqlite3_errmsg(pointer))
        let code: ErrorCode = (rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT) ? .invalidIndex : .internalError
        return LocusError(code, "\(what) on \(URL(fileURLWithPath: path).lastPathComponent): \(message)")
    }

    func execute(_ sql: String) throws(LocusError) {
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(pointer, sql, nil, nil, &message)
        if rc != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? "error \(rc)"
            sqlite3_free(message)
            let code: ErrorCode = (rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT) ? .invalidIndex : .internalError
            throw LocusError(code, "SQL failed on \(URL(fileURLWithPath: path).lastPathComponent): \(text)")
        }
    }

    func prepare(_ sql: String) throws(LocusError) -> SQLiteStatement {
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v2(pointer, sql, -1, &stmt, nil)
        guard rc == SQLITE_OK, let stmt else { throw error(rc, "preparing SQL") }
        return SQLiteStatement(database: self, pointer: stmt)
    }

    func transaction(_ body: () throws(LocusError) -> Void) throws(LocusError) {
        try execute("BEGIN")
        do {
            try body()
            try execute("COMMIT")
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }
}

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
            guard rc == SQLITE_OK else { throw database.error(rc, "binding a value") }
        }
    }

    /// Runs a statement that returns no rows.
    func run(_ values: [Value] = []) throws(LocusError) {
        try bind(values)
        let rc = sqlite3_step(pointer)
        guard rc == SQLITE_DONE || rc == SQLITE_ROW else { throw database.error(rc, "writing") }
        sqlite3_reset(pointer)
    }

    /// Advances to the next row; false when there are no more.
    func step() throws(LocusError) -> Bool {
        let rc = sqlite3_step(pointer)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        throw database.error(rc, "reading")
    }

    func reset() { sqlite3_reset(pointer) }

    func text(_ column: Int32) -> String {
        guard let c = sqlite3_column_text(pointer, column) else { return "" }
        return String(cString: c)
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
