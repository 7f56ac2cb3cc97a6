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
        if n < 0 {
            var errnum: Int32 = 0
            let message = gzerror(file, &errnum).map { String(cString: $0) } ?? "read error"
            throw LocusError(.importFailed, "cannot read compressed data: \(message)")
        }
        return Int(n)
    }
}

/// Presents a `CompressedFileReader` as a Foundation `InputStream` for the CSV library.
///
/// It reads ahead one buffer so that `hasBytesAvailable` is exact: the CSV reader asks it before
/// every read and treats a read of nothing as an error.
public final class CompressedInputStream: InputStream {
    private let reader: CompressedFileReader
    private var status: Stream.Status = .notOpen
    private var failure: LocusError?
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)
    private var start = 0
    private var end = 0

    public init(reader: CompressedFileReader) {
        self.reader = reader
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
        do {
            let n = try buffer.withUnsafeMutableBufferPointer { (b) throws(LocusError) in try reader.read(into: b.baseAddress!, count: b.count) }
            start = 0
            end = n
            if n == 0 { status = .atEnd }
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
