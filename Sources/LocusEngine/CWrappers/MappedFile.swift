import Foundation
import LocusCore

/// A whole file mapped read-only into memory, unmapped in `deinit`.
///
/// Thread rules: the mapping is never written, so any thread may read it; it lives as long as
/// the last table that reads from it (each holds this object). Pages are read from the page
/// cache when first touched, so opening costs the same at any file size, and what stays resident
/// is what queries touch.
final class MappedFile: @unchecked Sendable {
    let bytes: UnsafeRawBufferPointer
    let path: String

    init(path: String) throws(LocusError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw LocusError(.invalidIndex, "cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw LocusError(.invalidIndex, "cannot read \(path): \(String(cString: strerror(errno)))") }
        let size = Int(info.st_size)
        guard size > 0 else { throw LocusError(.invalidIndex, "\(path) is empty") }
        guard let base = mmap(nil, size, PROT_READ, MAP_SHARED, fd, 0), base != MAP_FAILED else {
            throw LocusError(.invalidIndex, "cannot map \(path): \(String(cString: strerror(errno)))")
        }
        bytes = UnsafeRawBufferPointer(start: base, count: size)
        self.path = path
    }

    /// Lets the pages of `range` go from this process's memory (they are read again from the page
    /// cache if touched): the index builder walks a mapped table front to back and releases what
    /// it has passed, so its resident memory stays a window, not the table.
    func release(_ range: Range<Int>) {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        guard page > 0, let base = bytes.baseAddress else { return }
        // Whole pages: the one `range` starts in was passed already when ranges follow each other.
        let lo = range.lowerBound / page * page, hi = min(range.upperBound, bytes.count) / page * page
        guard lo < hi else { return }
        madvise(UnsafeMutableRawPointer(mutating: base + lo), hi - lo, MADV_DONTNEED)
    }

    deinit { munmap(UnsafeMutableRawPointer(mutating: bytes.baseAddress), bytes.count) }
}
