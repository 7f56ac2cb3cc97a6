import CZlib
import Foundation
import LocusCore

/// A file read through zlib: gzip-compressed files are inflated as they stream, plain files pass
/// through unchanged, so every reader accepts `.csv` and `.csv.gz` alike.
///
/// Thread rules: one thread at a time.
public final class CompressedFileReader {
    private let file: gzFile

    public init(path: String) throws(LocusError) {
        guard FileManager.default.fileExists(atPath: path) else {
            throw LocusError(.notFound, "no such file: \(path)")
        }
        guard let f = gzopen(path, "rb") else {
            throw LocusError(.importFailed, "cannot open \(path) for reading")
        }
        gzbuffer(f, 1 << 17)
        file = f
    }

    deinit { gzclose_r(file) }

    /// Bytes of the file (compressed, for a `.gz`) consumed so far: progress against its size.
    public var fileOffset: Int { Int(gzoffset(file)) }

    /// Reads up to `count` bytes; 0 at the end of the file.
    public func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) throws(LocusError) -> Int {
        let n = gzread(file, buffer, UInt32(min(count, Int(Int32.max))))
        var errnum: Int32 = 0
        let message = gzerror(file, &errnum).map { String(cString: $0) } ?? "read error"
        // A `.gz` cut short reads as a short file, its last row cut mid-word, unless the end is
        // checked: zlib reports "unexpected end of file" only through `gzerror`, with a read of 0.
        if n < 0 || (n == 0 && errnum != Z_OK) {
            throw LocusError(.importFailed, "cannot read compressed data: \(message)\(errnum == Z_BUF_ERROR ? " (the file is cut short)" : "")")
        }
        return Int(n)
    }
}

/// Presents a `CompressedFileReader` as a Foundation `InputStream` for the CSV library.
///
/// It reads ahead one buffer so that `hasBytesAvailable` is exact: the CSV reader asks it before
/// every read and treats a read of nothing as an error.
///
/// With `replacingInvalidUTF8`, each byte that is not part of well-formed UTF-8 comes out as
/// U+FFFD: the CSV reader stops for good at the first bad byte, and one bad row must not end a job.
public final class CompressedInputStream: InputStream {
    private let reader: CompressedFileReader
    private var status: Stream.Status = .notOpen
    private var failure: LocusError?
    /// A read error met while bytes were held back, raised once they are given out.
    private var pending: LocusError?
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)
    private var start = 0
    private var end = 0
    private let repairs: Bool
    private var raw: [UInt8] = []
    /// The start of a sequence cut by the end of the last read, completed by the next.
    private var carry: [UInt8] = []
    /// Bytes replaced by U+FFFD so far.
    public private(set) var replacedBytes = 0
    /// Bytes read as Windows-1252 so far.
    public private(set) var windows1252Bytes = 0
    private let windows1252: Bool

    /// - Parameter readingWindows1252: with `replacingInvalidUTF8`, read a byte that is not UTF-8
    ///   as the Windows-1252 character it is in a spreadsheet's "CSV" export ("Caf\u{E9}" is
    ///   "Café"); only the five bytes that code page leaves undefined become U+FFFD.
    /// - Parameter head: bytes already read from `reader` (to look at the file's first line),
    ///   given out first.
    public init(reader: CompressedFileReader, replacingInvalidUTF8: Bool = false, readingWindows1252: Bool = false,
                startingWith head: [UInt8] = []) {
        self.reader = reader
        windows1252 = readingWindows1252
        repairs = replacingInvalidUTF8
        if repairs {
            raw = [UInt8](repeating: 0, count: 1 << 16)
            carry = head
        } else if !head.isEmpty {
            buffer = head
            end = head.count
        }
        super.init(data: Data())
    }

    /// The read error that ended the stream early, if any: a truncated `.gz` must not look like a
    /// short file.
    public var readError: LocusError? { failure }

    public override func open() { status = .open }
    public override func close() { status = .closed }
    public override var streamStatus: Stream.Status { status }
    public override var streamError: (any Error)? { failure }

    public override var hasBytesAvailable: Bool {
        fill()
        return end > start
    }

    private func fill() {
        guard status == .open, start == end else { return }
        do throws(LocusError) {
            guard repairs else {
                let n = try buffer.withUnsafeMutableBufferPointer { (b) throws(LocusError) in try reader.read(into: b.baseAddress!, count: b.count) }
                start = 0
                end = n
                if n == 0 { status = .atEnd }
                return
            }
            while start == end {
                if let pending {
                    throw pending
                }
                let n: Int
                do throws(LocusError) {
                    n = try raw.withUnsafeMutableBufferPointer { (b) throws(LocusError) in try reader.read(into: b.baseAddress!, count: b.count) }
                } catch where !carry.isEmpty {
                    // The bytes held back (the file's head, a sequence cut by a read) are given out
                    // before the error: they hold the rows read before a `.gz`'s cut.
                    pending = error
                    n = 0
                }
                if n == 0, carry.isEmpty {
                    status = .atEnd
                    return
                }
                let input = carry + raw[..<n]
                let repaired = UTF8Repair.repair(input, final: n == 0, windows1252: windows1252)
                buffer = repaired.output
                carry = Array(input[repaired.consumed...])
                replacedBytes += repaired.replaced
                windows1252Bytes += repaired.windows1252
                start = 0
                end = buffer.count
            }
        } catch {
            failure = error
            status = .error
        }
    }

    public override func read(_ out: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        fill()
        if status == .error { return -1 }
        let n = min(len, end - start)
        guard n > 0 else { return 0 }
        buffer.withUnsafeBufferPointer { out.update(from: $0.baseAddress! + start, count: n) }
        start += n
        return n
    }

    public override func getBuffer(_ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, length len: UnsafeMutablePointer<Int>) -> Bool { false }
}

/// Gzip compression of whole chunks, each a complete gzip member.
///
/// A `.gz` file may hold several members one after another and reads as their concatenation, so a
/// file written a member per chunk can be cut back to any member boundary and appended to again —
/// which is how an interrupted batch job resumes without rewriting what it had finished. The
/// header carries no name and no time, so the same rows always give the same bytes.
public enum GzipMember {
    public static func compress(_ input: [UInt8], level: Int32 = 6) throws(LocusError) -> [UInt8] {
        var stream = z_stream()
        // 15 window bits + 16: a gzip wrapper rather than zlib's.
        guard deflateInit2_(&stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw LocusError(.internalError, "cannot start gzip compression")
        }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))) + 32)
        let status: Int32 = input.withUnsafeBufferPointer { src in
            output.withUnsafeMutableBufferPointer { dst in
                stream.next_in = UnsafeMutablePointer(mutating: src.baseAddress)
                stream.avail_in = uInt(src.count)
                stream.next_out = dst.baseAddress
                stream.avail_out = uInt(dst.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { throw LocusError(.internalError, "gzip compression failed (\(status))") }
        output.removeSubrange(Int(stream.total_out)...)
        return output
    }
}

/// Well-formed UTF-8 (the Unicode standard's table 3-7) with every other byte replaced by U+FFFD.
public enum UTF8Repair {
    /// - Parameter final: no more bytes follow; otherwise a sequence cut at the end is left
    ///   unconsumed, for the next call.
    /// - Returns: the repaired bytes, how many input bytes they account for, and how many bytes
    ///   were replaced.
    public static func repair(_ input: [UInt8], final: Bool) -> (output: [UInt8], consumed: Int, replaced: Int) {
        let r = repair(input, final: final, windows1252: false)
        return (r.output, r.consumed, r.replaced)
    }

    /// Windows-1252's characters for 0x80…0x9F (nil where it defines none); 0xA0…0xFF are
    /// Latin-1's, the code points of the same numbers.
    static let windows1252High: [Unicode.Scalar?] = [
        "\u{20AC}", nil, "\u{201A}", "\u{0192}", "\u{201E}", "\u{2026}", "\u{2020}", "\u{2021}",
        "\u{02C6}", "\u{2030}", "\u{0160}", "\u{2039}", "\u{0152}", nil, "\u{017D}", nil,
        nil, "\u{2018}", "\u{2019}", "\u{201C}", "\u{201D}", "\u{2022}", "\u{2013}", "\u{2014}",
        "\u{02DC}", "\u{2122}", "\u{0161}", "\u{203A}", "\u{0153}", nil, "\u{017E}", "\u{0178}",
    ]

    /// - Parameter windows1252: read a byte that is not UTF-8 as its Windows-1252 character
    ///   (counted in `windows1252`) rather than U+FFFD.
    public static func repair(_ input: [UInt8], final: Bool, windows1252: Bool)
        -> (output: [UInt8], consumed: Int, replaced: Int, windows1252: Int) {
        var out: [UInt8] = []
        out.reserveCapacity(input.count)
        var replaced = 0
        var reread = 0
        var i = 0
        let n = input.count
        while i < n {
            let b = input[i]
            if b < 0x80 {
                out.append(b)
                i += 1
                continue
            }
            // Length, and the range the second byte must fall in.
            let length: Int, low: UInt8, high: UInt8
            switch b {
            case 0xC2...0xDF: (length, low, high) = (2, 0x80, 0xBF)
            case 0xE0: (length, low, high) = (3, 0xA0, 0xBF)
            case 0xE1...0xEC, 0xEE...0xEF: (length, low, high) = (3, 0x80, 0xBF)
            case 0xED: (length, low, high) = (3, 0x80, 0x9F)
            case 0xF0: (length, low, high) = (4, 0x90, 0xBF)
            case 0xF1...0xF3: (length, low, high) = (4, 0x80, 0xBF)
            case 0xF4: (length, low, high) = (4, 0x80, 0x8F)
            default: (length, low, high) = (0, 0, 0)
            }
            var valid = length > 0
            var k = 1
            while valid, k < length {
                guard i + k < n else {
                    // Cut by the end of the input: wait for the rest unless there is none.
                    if !final { return (out, i, replaced, reread) }
                    valid = false
                    break
                }
                let c = input[i + k]
                valid = k == 1 ? (c >= low && c <= high) : (c >= 0x80 && c <= 0xBF)
                k += 1
            }
            if valid {
                out.append(contentsOf: input[i..<(i + length)])
                i += length
            } else if windows1252, let scalar = b >= 0xA0 ? Unicode.Scalar(b) : windows1252High[Int(b) - 0x80] {
                out.append(contentsOf: Array(String(Character(scalar)).utf8))
                reread += 1
                i += 1
            } else {
                out.append(contentsOf: [0xEF, 0xBF, 0xBD])
                replaced += 1
                i += 1
            }
        }
        return (out, n, replaced, reread)
    }
}
