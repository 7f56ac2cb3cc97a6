import Crypto
import Foundation
import LocusCore

/// A file the index builder writes one table into, front to back, before the table is copied
/// after the database (`IndexSections`): a table of every address kept in memory was what made a
/// build's memory grow with its input (6.8 GB at thirty times Portland, BENCHMARKS.md).
///
/// Written through a 1 MB buffer; removed when the last reference goes. One writer, one thread.
final class ScratchFile {
    let path: String
    private let fd: Int32
    private var buffer: [UInt8] = []
    private static let bufferSize = 1 << 20
    /// Bytes written so far.
    private(set) var count = 0
    /// Hashes every byte written, in order, when given (the index's content hash).
    private let digest: ContentDigest?

    init(path: String, digest: ContentDigest? = nil) throws(LocusError) {
        self.path = path
        self.digest = digest
        fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw LocusError(.internalError, "cannot create the scratch file \(path): \(String(cString: strerror(errno)))")
        }
        buffer.reserveCapacity(Self.bufferSize)
    }

    deinit {
        close(fd)
        unlink(path)
    }

    @inline(__always) func append(_ v: Int32) { withUnsafeBytes(of: v.littleEndian) { buffer.append(contentsOf: $0) } }
    @inline(__always) func append(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { buffer.append(contentsOf: $0) } }
    @inline(__always) func append(_ bytes: [UInt8]) { buffer.append(contentsOf: bytes) }

    /// Writes out the buffer when it is full; call after each record.
    @inline(__always) func recordWritten() throws(LocusError) {
        if buffer.count >= Self.bufferSize { try flush() }
    }

    func flush() throws(LocusError) {
        guard !buffer.isEmpty else { return }
        digest?.update(buffer)
        let failure: Int32? = buffer.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                guard let base = raw.baseAddress else { return nil }
                let n = write(fd, base + done, raw.count - done)
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { return errno }
                done += n
            }
            return nil
        }
        if let failure {
            throw LocusError(.internalError, "cannot write the scratch file \(path): \(String(cString: strerror(failure)))")
        }
        count += buffer.count
        buffer.removeAll(keepingCapacity: true)
    }

    /// Copies the whole file to `handle` in 1 MB reads.
    func copy(to handle: FileHandle) throws(LocusError) {
        try flush()
        var chunk = [UInt8](repeating: 0, count: Self.bufferSize)
        var offset = 0
        while offset < count {
            let n = chunk.withUnsafeMutableBytes { raw in raw.baseAddress.map { pread(fd, $0, min(raw.count, count - offset), off_t(offset)) } ?? -1 }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else {
                throw LocusError(.internalError, "cannot read the scratch file \(path): \(String(cString: strerror(errno)))")
            }
            do { try handle.write(contentsOf: chunk[0..<n]) } catch {
                throw LocusError(.internalError, "cannot copy the scratch file \(path): \(error)")
            }
            offset += n
        }
    }
}

/// The index's content hash, shared by the parts of a build that feed it.
final class ContentDigest {
    private var hasher = SHA256()

    func update(_ bytes: [UInt8]) { hasher.update(data: bytes) }
    func update(_ text: String) { hasher.update(data: Data(text.utf8)) }

    var hex: String { hasher.finalize().map { String(format: "%02x", $0) }.joined() }
}

/// What one section of the index holds while the build is writing it.
enum SectionContent {
    case bytes([UInt8])
    case file(ScratchFile)

    var count: Int {
        switch self {
        case .bytes(let b): b.count
        case .file(let f): f.count
        }
    }
}
