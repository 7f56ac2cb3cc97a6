import CZlib
import Foundation
import LocusCore

/// A file read through zlib: gzip-compressed files are inflated as they stream, plain files pass
/// through unchanged, so every reader accepts `.csv` and `.csv.gz` alike.
///
/// Thread rules: one thread at a time.
final class CompressedFileReader {
    private let file: gzFile

    init(path: String) throws(LocusError) {
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

    /// Reads up to `count` bytes; 0 at the end of the file.
    func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) throws(LocusError) -> Int {
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
final class CompressedInputStream: InputStream {
    private let reader: CompressedFileReader
    private var status: Stream.Status = .notOpen
    private var failure: LocusError?
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)
    private var start = 0
    private var end = 0

    init(reader: CompressedFileReader) {
        self.reader = reader
        super.init(data: Data())
    }

    /// The read error that ended the stream early, if any: a truncated `.gz` must not look like a
    /// short file.
    var readError: LocusError? { failure }

    override func open() { status = .open }
    override func close() { status = .closed }
    override var streamStatus: Stream.Status { status }
    override var streamError: (any Error)? { failure }

    override var hasBytesAvailable: Bool {
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

    override func read(_ out: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        fill()
        if status == .error { return -1 }
        let n = min(len, end - start)
        guard n > 0 else { return 0 }
        buffer.withUnsafeBufferPointer { out.update(from: $0.baseAddress! + start, count: n) }
        start += n
        return n
    }

    override func getBuffer(_ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, length len: UnsafeMutablePointer<Int>) -> Bool { false }
}
