import Foundation
import LocusCore
import LocusEngine

/// The output CSV, written a chunk of rows at a time in the input's style (delimiter, line
/// ending, byte-order mark); `.gz` when its name ends so, one gzip member per chunk.
///
/// Fields are quoted as RFC 4180 says (when they hold the delimiter, a quote, CR or LF), which is
/// all writing CSV takes; CSV.swift's writer goes through an `OutputStream` a Unicode scalar at a
/// time, which would cost more than the geocoding.
public final class CSVOutput {
    public let path: String
    public let gzip: Bool
    private let delimiter: UInt8
    private let lineEnding: [UInt8]
    private let handle: FileHandle
    /// Bytes in the file: where the next chunk goes, and what a checkpoint records.
    public private(set) var size: Int

    /// Whether the output is a file on disk (it may be cut back and resumed); a pipe or device
    /// (`/dev/stdout`) is written as it goes.
    public let isRegularFile: Bool

    /// Opens `path` for writing: truncated to `resumeAt` bytes to continue an interrupted run,
    /// else emptied. Opened where it is, never replaced: a device (`-o /dev/null`) stays a
    /// device and a symbolic link is written through (Foundation's `createFile` wrote a new file
    /// and renamed it over either, and as root over `/dev/stdout`).
    public init(path: String, delimiter: UnicodeScalar, lineEnding: String, resumeAt: Int? = nil) throws(LocusError) {
        self.path = path
        gzip = path.hasSuffix(".gz")
        self.delimiter = UInt8(truncatingIfNeeded: delimiter.value)
        self.lineEnding = Array(lineEnding.utf8)
        // Standard output is written through its own descriptor: opened again by name, a file the
        // shell redirected it to (`>> log`) was opened at its start and cut to nothing. Whatever
        // name the path gives it (`/dev/fd/1`, `/proc/self/fd/1`, the log's own).
        let standardOutput = Self.isStandardOutput(path)
        let fd = standardOutput ? dup(STDOUT_FILENO) : open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw LocusError(.invalidArgument, "cannot open \(path) for writing: \(String(cString: strerror(errno)))")
        }
        handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        var info = stat()
        isRegularFile = !standardOutput && fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
        guard isRegularFile else {
            guard resumeAt == nil else { throw LocusError(.invalidArgument, "\(path) is not a file: a run into it cannot be resumed") }
            size = 0
            return
        }
        // From the resume record, a file anyone can edit: a negative offset is refused, not a trap.
        guard let keep = UInt64(exactly: resumeAt ?? 0) else { throw LocusError(.invalidArgument, "the resume record of \(path) is damaged") }
        do {
            try handle.truncate(atOffset: keep)
            try handle.seekToEnd()
            size = Int(keep)
        } catch {
            throw LocusError(.invalidArgument, "cannot write \(path): \(error.localizedDescription)")
        }
    }

    deinit { try? handle.close() }

    /// Whether `path` names the file standard output is open on.
    static func isStandardOutput(_ path: String) -> Bool {
        var named = stat(), out = stat()
        return stat(path, &named) == 0 && fstat(STDOUT_FILENO, &out) == 0 && named.st_dev == out.st_dev && named.st_ino == out.st_ino
    }

    /// Appends one row, formatted, to `bytes`.
    public func format(_ fields: [String], into bytes: inout [UInt8]) {
        for (i, field) in fields.enumerated() {
            if i > 0 { bytes.append(delimiter) }
            var f = field
            f.withUTF8 { utf8 in
                let needsQuotes = utf8.contains { $0 == delimiter || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }
                guard needsQuotes else { return bytes.append(contentsOf: utf8) }
                bytes.append(0x22)
                for b in utf8 {
                    if b == 0x22 { bytes.append(0x22) }
                    bytes.append(b)
                }
                bytes.append(0x22)
            }
        }
        bytes.append(contentsOf: lineEnding)
    }

    /// Writes a chunk (compressed as one member for `.gz`) and makes it durable, so a checkpoint
    /// recorded after it never points past what is on disk.
    public func write(_ chunk: [UInt8]) throws(LocusError) {
        guard !chunk.isEmpty else { return }
        let bytes = gzip ? try GzipMember.compress(chunk) : chunk
        do {
            try handle.write(contentsOf: bytes)
            if isRegularFile { try handle.synchronize() }
        } catch {
            throw LocusError(.invalidArgument, "cannot write \(path): \(error.localizedDescription)")
        }
        size += bytes.count
    }
}
