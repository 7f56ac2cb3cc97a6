import CSV
import Foundation
import LocusCore
import LocusEngine

/// A CSV file read a row at a time (plain or `.gz`), with what a writer needs to echo its style.
///
/// Parsing (quotes, embedded newlines, a byte-order mark, CRLF) is CSV.swift's; this type only
/// looks at the first line first, to tell the delimiter and line ending a file was written with.
public final class CSVInput {
    public let path: String
    public let header: [String]
    public let delimiter: UnicodeScalar
    /// "\r\n" when the header line ended so, else "\n".
    public let lineEnding: String
    /// The file began with a UTF-8 byte-order mark (spreadsheets write one); the output gets one too.
    public let hasByteOrderMark: Bool
    /// The file began with Excel's `sep=;` line naming its delimiter; the output gets one too, so
    /// that Excel opens it in columns as it did the input.
    public let separatorLine: Bool
    /// Bytes of the file on disk (compressed, for a `.gz`).
    public let fileSize: Int
    private let file: CompressedFileReader
    private let stream: CompressedInputStream
    private let records: RecordBound
    private let reader: CSVReader
    /// Data rows read so far.
    public private(set) var rowsRead = 0
    /// Empty lines met between rows, skipped.
    public private(set) var blankLinesSkipped = 0

    /// The most bytes one row may take. A quote left open takes every row after it into one field
    /// (CSV.swift has no bound: a 300 MB file with a stray quote on line 2 peaked at 695 MB); a
    /// file's rows of addresses are far below this, a row with a WKT polygon column too.
    public static let maxRecordBytes = 16 << 20

    /// - Parameter delimiter: nil to tell it from the header line: the most frequent of `,` `;`
    ///   tab and `|` outside quotes.
    /// - Parameter maxRecordBytes: a row longer than this ends the reading with an error naming
    ///   its line.
    public init(path: String, delimiter: UnicodeScalar? = nil, maxRecordBytes: Int = CSVInput.maxRecordBytes) throws(LocusError) {
        self.path = path
        // The file is opened once and its head read once, then handed to the parser: a pipe or
        // FIFO (`<(…)`, `mkfifo`) cannot be read twice (it hung, or had "no header").
        let file = try CompressedFileReader(path: path)
        self.file = file
        var head = [UInt8](repeating: 0, count: 65_536)
        let n = try head.withUnsafeMutableBufferPointer { (b) throws(LocusError) in try file.read(into: b.baseAddress!, count: b.count) }
        head.removeSubrange(n...)
        let style = try Self.sniff(head, path: path)
        // The parser reads from the header row on: Excel's line naming the delimiter goes.
        head.removeSubrange((style.bom ? 3 : 0)..<(style.bom ? 3 : 0) + style.separatorLine)
        separatorLine = style.separatorLine > 0
        self.delimiter = delimiter ?? style.delimiter
        lineEnding = style.lineEnding
        hasByteOrderMark = style.bom
        fileSize = ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? Int) ?? 0
        stream = CompressedInputStream(reader: file, replacingInvalidUTF8: true, readingWindows1252: true, startingWith: head)
        records = RecordBound(stream, delimiter: UInt8(truncatingIfNeeded: self.delimiter.value), limit: maxRecordBytes, path: path,
                              firstLine: separatorLine ? 2 : 1)
        do {
            reader = try CSVReader(stream: records, hasHeaderRow: true, delimiter: self.delimiter)
        } catch {
            // A file cut short within its first rows: say so, not that it has no header.
            throw stream.readError ?? records.failure ?? LocusError(.invalidArgument, "\(path) has no readable CSV header row")
        }
        if let e = stream.readError ?? records.failure { throw e }
        guard let header = reader.headerRow, !header.isEmpty, header != [""] else {
            throw LocusError(.invalidArgument, "\(path) is empty: a CSV with a header row is needed")
        }
        self.header = header
    }

    /// Whether the row held bytes that are not UTF-8 (read as U+FFFD): it is kept, as failed.
    /// (A U+FFFD in a file that has no bad bytes is text like any other.)
    public func isDamaged(_ row: [String]) -> Bool {
        stream.replacedBytes > 0 && row.contains { $0.unicodeScalars.contains("\u{FFFD}") }
    }

    /// Bytes that were not UTF-8 and were read as Windows-1252 (a spreadsheet's "CSV" export).
    public var windows1252Bytes: Int { stream.windows1252Bytes }

    /// Progress through the file, 0…1.
    public var fraction: Double { fileSize > 0 ? min(1, Double(file.fileOffset) / Double(fileSize)) : 0 }

    /// The next data row, or nil at the end. A row that is only an empty line is skipped.
    public func next() throws(LocusError) -> [String]? {
        while true {
            guard let row = reader.next() else {
                if let e = readError { throw e }
                if reader.error != nil {
                    throw LocusError(.invalidArgument, "\(path) is not valid UTF-8 CSV after data row \(rowsRead)")
                }
                return nil
            }
            // A read error is met only while a row is being read, and the reader gives out what it
            // had of that row as a whole one: "3405 NE Ains" at the cut of a `.gz`.
            if let e = readError { throw e }
            if row.count == 1, row[0].isEmpty {
                blankLinesSkipped += 1
                continue
            }
            rowsRead += 1
            return row
        }
    }

    private var readError: LocusError? { stream.readError ?? records.failure }

    struct Style {
        var delimiter: UnicodeScalar = ","
        var lineEnding = "\n"
        var bom = false
        /// Bytes of a first line `sep=X` (Excel's way to name the delimiter), line end included.
        var separatorLine = 0
    }

    static func sniff(_ bytes: [UInt8], path: String) throws(LocusError) -> Style {
        var head = bytes
        // Excel's "Unicode Text" and some exports: every other byte zero, read as bytes it gave
        // a header " a d d r e s s " and rows that were halves of rows. Every other one, not a
        // share of all: a run of NULs in a header (the csv fuzzer's) is no UTF-16, and the output
        // that quotes its name in each row's reason could not be read back.
        var zeros = (even: 0, odd: 0)
        for (i, b) in head.prefix(4_096).enumerated() where b == 0 {
            if i % 2 == 0 { zeros.even += 1 } else { zeros.odd += 1 }
        }
        let half = min(head.count, 4_096) / 2
        let (more, fewer) = (max(zeros.even, zeros.odd), min(zeros.even, zeros.odd))
        let everyOther = half >= 2 && more * 4 >= half * 3 && fewer * 4 <= half
        if head.starts(with: [0xFF, 0xFE]) || head.starts(with: [0xFE, 0xFF]) || everyOther {
            throw LocusError(.invalidArgument, "\(path) is UTF-16 text (a spreadsheet's \"Unicode Text\"): save it as CSV UTF-8, or convert it: iconv -f UTF-16 -t UTF-8")
        }
        var style = Style()
        if head.starts(with: [0xEF, 0xBB, 0xBF]) {
            style.bom = true
            head.removeFirst(3)
        }
        if head.count >= 6, head.starts(with: Array("sep=".utf8)), head[5] == 0x0A || head[5] == 0x0D, head[4] < 0x80,
           head[4] != UInt8(ascii: "\""), head[4] != 0x0A, head[4] != 0x0D {
            style.delimiter = UnicodeScalar(head[4])
            style.separatorLine = head[5] == 0x0D && head.count > 6 && head[6] == 0x0A ? 7 : 6
            head.removeFirst(style.separatorLine)
        }
        // The header line, read once for its line ending and (no `sep=` line naming it) how often
        // each likely delimiter occurs outside quotes.
        var counts: [UInt8: Int] = [:]
        var quoted = false
        for (i, b) in head.enumerated() {
            if b == UInt8(ascii: "\"") { quoted.toggle(); continue }
            if quoted { continue }
            if b == 0x0A {
                if i > 0, head[i - 1] == 0x0D { style.lineEnding = "\r\n" }
                break
            }
            if b == UInt8(ascii: ",") || b == UInt8(ascii: ";") || b == 0x09 || b == UInt8(ascii: "|") { counts[b, default: 0] += 1 }
        }
        guard style.separatorLine == 0 else { return style }
        // The most frequent; a tie goes to the first in this order, never to a dictionary's order
        // (which differs between runs, and a resumed job must read the file as the first run did).
        var best: (delimiter: UInt8, count: Int)?
        for d in [UInt8(ascii: ","), UInt8(ascii: ";"), 0x09, UInt8(ascii: "|")] {
            if let n = counts[d], n > best?.count ?? 0 { best = (d, n) }
        }
        if let best { style.delimiter = UnicodeScalar(best.delimiter) }
        return style
    }
}

/// Passes a CSV's bytes through and ends the stream with an error when one row runs over `limit`
/// bytes, naming the line it began on and whether a quote was open.
///
/// It follows CSV.swift's reading (a quote opens a field only at its start; `""` within one is a
/// quote; a quote followed by anything but a delimiter or line end does not close it) on bytes:
/// the delimiter, quote and line ends are ASCII, which never occurs inside a UTF-8 sequence.
final class RecordBound: InputStream {
    private enum State { case fieldStart, unquoted, quoted, quoteInQuoted }

    private let base: InputStream
    private let delimiter: UInt8
    private let limit: Int
    private let path: String
    private var state = State.fieldStart
    /// Bytes given out, and where the current row began.
    private var offset = 0
    private var rowStart = 0
    private var line = 1
    private var rowLine = 1
    private var quoteLine = 1
    /// The error found in bytes not yet asked for: the bytes before it are given out first, so
    /// the rows they complete are read.
    private var pending: LocusError?
    private(set) var failure: LocusError?

    init(_ base: InputStream, delimiter: UInt8, limit: Int, path: String, firstLine: Int) {
        self.base = base
        line = firstLine
        rowLine = firstLine
        self.delimiter = delimiter
        self.limit = max(1, limit)
        self.path = path
        super.init(data: Data())
    }

    override func open() { base.open() }
    override func close() { base.close() }
    override var streamStatus: Stream.Status { failure != nil ? .error : base.streamStatus }
    override var streamError: (any Error)? { failure ?? base.streamError }
    // A pending error is a byte to read: asked for, the read fails, and the reader does not take
    // the row cut at the bound for a whole one at the end of the file.
    override var hasBytesAvailable: Bool { pending != nil || failure != nil || base.hasBytesAvailable }

    override func read(_ out: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        if failure != nil { return -1 }
        if let p = pending {
            failure = p
            return -1
        }
        let n = base.read(out, maxLength: len)
        guard n > 0 else { return n }
        let quote = UInt8(ascii: "\""), lf = UInt8(0x0A), cr = UInt8(0x0D)
        for i in 0..<n {
            let b = out[i]
            switch state {
            case .quoted:
                if b == quote { state = .quoteInQuoted }
            case .fieldStart, .unquoted, .quoteInQuoted:
                // Outside a quote, and just after one, a line end ends the row, a delimiter the field.
                if b == lf || b == cr {
                    state = .fieldStart
                    rowStart = offset + i + 1
                    rowLine = line + (b == lf ? 1 : 0)
                } else if b == delimiter {
                    state = .fieldStart
                } else if state == .quoteInQuoted {
                    state = .quoted
                } else if state == .fieldStart, b == quote {
                    state = .quoted
                    quoteLine = line
                } else {
                    state = .unquoted
                }
            }
            if b == lf { line += 1 }
            if offset + i + 1 - rowStart > limit {
                let size = limit >= 1 << 20 ? "\(limit >> 20) MB" : "\(limit) bytes"
                pending = state == .quoted || state == .quoteInQuoted
                    ? LocusError(.importFailed, "\(path): the quote opened on line \(quoteLine) is not closed within \(size), so every row after it would be read as one field; close it, or write a quote inside a field twice (\"\")")
                    : LocusError(.importFailed, "\(path): the row on line \(rowLine) is longer than \(size): this is not a CSV of one address per row")
                offset += i
                if i == 0 {
                    failure = pending
                    return -1
                }
                return i
            }
        }
        offset += n
        return n
    }

    override func getBuffer(_ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, length len: UnsafeMutablePointer<Int>) -> Bool { false }
}
