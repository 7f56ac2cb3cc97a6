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
    /// Bytes of the file on disk (compressed, for a `.gz`).
    public let fileSize: Int
    private let file: CompressedFileReader
    private let stream: CompressedInputStream
    private let reader: CSVReader
    /// Data rows read so far.
    public private(set) var rowsRead = 0
    /// Empty lines met between rows, skipped.
    public private(set) var blankLinesSkipped = 0

    /// - Parameter delimiter: nil to tell it from the header line: the most frequent of `,` `;`
    ///   tab and `|` outside quotes.
    public init(path: String, delimiter: UnicodeScalar? = nil) throws(LocusError) {
        self.path = path
        // The file is opened once and its head read once, then handed to the parser: a pipe or
        // FIFO (`<(…)`, `mkfifo`) cannot be read twice (it hung, or had "no header").
        let file = try CompressedFileReader(path: path)
        self.file = file
        var head = [UInt8](repeating: 0, count: 65_536)
        let n = try head.withUnsafeMutableBufferPointer { (b) throws(LocusError) in try file.read(into: b.baseAddress!, count: b.count) }
        head.removeSubrange(n...)
        let style = try Self.sniff(head, path: path)
        self.delimiter = delimiter ?? style.delimiter
        lineEnding = style.lineEnding
        hasByteOrderMark = style.bom
        fileSize = ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? Int) ?? 0
        stream = CompressedInputStream(reader: file, replacingInvalidUTF8: true, readingWindows1252: true, startingWith: head)
        do {
            reader = try CSVReader(stream: stream, hasHeaderRow: true, delimiter: self.delimiter)
        } catch {
            // A file cut short within its first rows: say so, not that it has no header.
            throw stream.readError ?? LocusError(.invalidArgument, "\(path) has no readable CSV header row")
        }
        if let e = stream.readError { throw e }
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
                if let e = stream.readError { throw e }
                if reader.error != nil {
                    throw LocusError(.invalidArgument, "\(path) is not valid UTF-8 CSV after data row \(rowsRead)")
                }
                return nil
            }
            if row.count == 1, row[0].isEmpty {
                blankLinesSkipped += 1
                continue
            }
            rowsRead += 1
            return row
        }
    }

    struct Style {
        var delimiter: UnicodeScalar = ","
        var lineEnding = "\n"
        var bom = false
    }

    static func sniff(_ bytes: [UInt8], path: String) throws(LocusError) -> Style {
        var head = bytes
        // Excel's "Unicode Text" and some exports: every other byte zero, read as bytes it gave
        // a header " a d d r e s s " and rows that were halves of rows.
        let zeros = head.prefix(4_096).lazy.filter { $0 == 0 }.count
        if head.starts(with: [0xFF, 0xFE]) || head.starts(with: [0xFE, 0xFF]) || zeros * 4 > min(head.count, 4_096) {
            throw LocusError(.invalidArgument, "\(path) is UTF-16 text (a spreadsheet's \"Unicode Text\"): save it as CSV UTF-8, or convert it: iconv -f UTF-16 -t UTF-8")
        }
        var style = Style()
        if head.starts(with: [0xEF, 0xBB, 0xBF]) {
            style.bom = true
            head.removeFirst(3)
        }
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
