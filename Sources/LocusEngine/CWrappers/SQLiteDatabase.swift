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

    /// The error for a failed call, with what a bug report needs, as GRDB keeps it: SQLite's
    /// message, the (extended) result code and the SQL that failed. The SQL is Locus's own, never
    /// a user's text (values are bound). A file that is no database, or a corrupt one, is an
    /// unusable index; anything else is a fault of Locus.
    func error(_ rc: Int32, _ what: String, sql: String?) -> LocusError {
        let message = String(cString: sqlite3_errmsg(pointer))
        return Self.error(rc, extended: sqlite3_extended_errcode(pointer), message: message, what: what, sql: sql, path: path)
    }

    static func error(_ rc: Int32, extended: Int32, message: String, what: String, sql: String?, path: String) -> LocusError {
        let primary = rc & 0xFF
        let code: ErrorCode = (primary == SQLITE_NOTADB || primary == SQLITE_CORRUPT) ? .invalidIndex : .internalError
        // The code's own text only when the message is not that text already.
        let name = String(cString: sqlite3_errstr(extended))
        let result = name == message ? "SQLite result code \(extended)" : "SQLite result code \(extended): \(name)"
        var text = "\(what) on \(URL(fileURLWithPath: path).lastPathComponent): \(message) (\(result))"
        if let sql { text += " in `\(sql)`" }
        return LocusError(code, text)
    }

    func execute(_ sql: String) throws(LocusError) {
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(pointer, sql, nil, nil, &message)
        if rc != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(rc))
            sqlite3_free(message)
            throw Self.error(rc, extended: sqlite3_extended_errcode(pointer), message: text, what: "SQL failed", sql: sql, path: path)
        }
    }

    func prepare(_ sql: String) throws(LocusError) -> SQLiteStatement {
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v2(pointer, sql, -1, &stmt, nil)
        guard rc == SQLITE_OK, let stmt else { throw error(rc, "preparing SQL", sql: sql) }
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
