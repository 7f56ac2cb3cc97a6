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

    /// - Parameter delimiter: nil to tell it from the header line: the most frequent of `,` `;`
    ///   tab and `|` outside quotes.
    public init(path: String, delimiter: UnicodeScalar? = nil) throws(LocusError) {
        self.path = path
        let style = try Self.sniff(path)
        self.delimiter = delimiter ?? style.delimiter
        lineEnding = style.lineEnding
        hasByteOrderMark = style.bom
        fileSize = ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? Int) ?? 0
        file = try CompressedFileReader(path: path)
        stream = CompressedInputStream(reader: file, replacingInvalidUTF8: true)
        do {
            reader = try CSVReader(stream: stream, hasHeaderRow: true, delimiter: self.delimiter)
        } catch {
            throw LocusError(.invalidArgument, "\(path) has no readable CSV header row")
        }
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
            if row.count == 1, row[0].isEmpty { continue }
            rowsRead += 1
            return row
        }
    }

    struct Style {
        var delimiter: UnicodeScalar = ","
        var lineEnding = "\n"
        var bom = false
    }

    static func sniff(_ path: String) throws(LocusError) -> Style {
        let f = try CompressedFileReader(path: path)
        var head = [UInt8](repeating: 0, count: 65_536)
        let n = try head.withUnsafeMutableBufferPointer { (b) throws(LocusError) in try f.read(into: b.baseAddress!, count: b.count) }
        head.removeSubrange(n...)
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
