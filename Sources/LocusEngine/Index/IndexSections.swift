import Foundation
import LocusCore

/// The index's large arrays (address points, their grid cells, their lot frontages), laid out
/// after the SQLite pages of the same file and used where they lie, through a read-only mapping.
///
/// Loading them from SQLite blobs copied and decoded every address at every open: 0.2 s for
/// Portland, seconds at thirty times that (BENCHMARKS.md, "From one city to thirty"). Mapped, an
/// open reads only the directory, and memory holds the pages that queries touch.
///
/// Layout, after the database (whose header gives its own length, so SQLite ignores what
/// follows): each section's bytes, 64-byte aligned; a JSON directory
/// `{"sections":[{"name":…,"offset":…,"length":…}]}`; and a 32-byte footer: `LOCUSSEC`, the
/// directory's offset and length (little-endian UInt64), `LOCUSEND`.
enum IndexSections {
    static let head = Array("LOCUSSEC".utf8)
    static let tail = Array("LOCUSEND".utf8)
    static let footerSize = 32
    static let alignment = 64

    struct Entry: Codable {
        var name: String
        var offset: Int
        var length: Int
    }

    struct Directory: Codable {
        var sections: [Entry]
    }

    /// Appends the sections to a finished database file.
    static func append(_ sections: [(name: String, content: SectionContent)], to path: String) throws(LocusError) {
        guard let handle = FileHandle(forUpdatingAtPath: path) else {
            throw LocusError(.internalError, "cannot reopen \(path) to add the address tables")
        }
        defer { try? handle.close() }
        do {
            var offset = Int(try handle.seekToEnd())
            var entries: [Entry] = []
            for (name, content) in sections {
                let padding = (alignment - offset % alignment) % alignment
                if padding > 0 { try handle.write(contentsOf: Data(count: padding)) }
                offset += padding
                switch content {
                case .bytes(let bytes): try handle.write(contentsOf: bytes)
                case .file(let file): try file.copy(to: handle)
                }
                entries.append(Entry(name: name, offset: offset, length: content.count))
                offset += content.count
            }
            // Sorted keys: the same inputs give the same file, byte for byte.
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            let directory = try encoder.encode(Directory(sections: entries))
            try handle.write(contentsOf: directory)
            var footer = head
            withUnsafeBytes(of: UInt64(offset).littleEndian) { footer += $0 }
            withUnsafeBytes(of: UInt64(directory.count).littleEndian) { footer += $0 }
            footer += tail
            try handle.write(contentsOf: footer)
        } catch {
            throw LocusError(.internalError, "cannot write the address tables to \(path): \(error)")
        }
    }

    /// How an open index holds its tables.
    enum Residence {
        /// Used where they lie in the file, through a read-only mapping: an open costs the same at
        /// any size, and memory holds what queries touch. The file must then be replaced by
        /// renaming a new one over it (as `locus index build` does), never overwritten in place: a
        /// mapped file cut short under a reader ends that process (SIGBUS).
        case mapped
        /// Read into memory at open (a copy, not decoded: about 1 ms per 1.5 MB here), after which
        /// the file may be overwritten in place without harm.
        case copied
    }

    /// The sections of an index file, each checked to lie within the file before the directory;
    /// of them, those `keeping` names (the others are not copied).
    static func read(path: String, _ residence: Residence, keeping: (String) -> Bool = { _ in true }) throws(LocusError) -> [String: PackedBytes] {
        switch residence {
        case .mapped:
            let file = try MappedFile(path: path)
            return try parse(path: path, size: file.bytes.count, keeping: keeping) { range in
                PackedBytes(bytes: UnsafeRawBufferPointer(rebasing: file.bytes[range]), owner: file)
            }
        case .copied:
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw LocusError(.invalidIndex, "cannot open \(path): \(String(cString: strerror(errno)))") }
            defer { close(fd) }
            var info = stat()
            guard fstat(fd, &info) == 0 else { throw LocusError(.invalidIndex, "cannot read \(path): \(String(cString: strerror(errno)))") }
            var cutShort = false
            let out = try parse(path: path, size: Int(info.st_size), keeping: keeping) { range in
                let storage = OwnedBytes(count: range.count)
                var done = 0
                while done < range.count {
                    let n = pread(fd, storage.buffer.baseAddress! + done, range.count - done, off_t(range.lowerBound + done))
                    if n < 0, errno == EINTR { continue }
                    guard n > 0 else { cutShort = true; break }
                    done += n
                }
                return PackedBytes(bytes: UnsafeRawBufferPointer(rebasing: storage.buffer[0..<done]), owner: storage)
            }
            guard !cutShort else { throw LocusError(.invalidIndex, "\(path) was cut short while being read; rebuild the index") }
            return out
        }
    }

    private static func parse(path: String, size: Int, keeping: (String) -> Bool,
                              _ read: (Range<Int>) -> PackedBytes) throws(LocusError) -> [String: PackedBytes] {
        let damaged = LocusError(.invalidIndex, "\(path): the address tables are missing or damaged; rebuild the index")
        guard size >= footerSize else { throw damaged }
        // Each part read is kept (its owner may be a copy, freed with it) while its bytes are used.
        let footerPart = read((size - footerSize)..<size)
        let (directoryOffset, directoryLength): (UInt64, UInt64) = withExtendedLifetime(footerPart) { () -> (UInt64, UInt64)? in
            let footer = footerPart.bytes
            guard footer.count == footerSize, Array(footer[0..<8]) == head, Array(footer[24..<32]) == tail else { return nil }
            return (UInt64(littleEndian: footer.loadUnaligned(fromByteOffset: 8, as: UInt64.self)),
                    UInt64(littleEndian: footer.loadUnaligned(fromByteOffset: 16, as: UInt64.self)))
        } ?? (UInt64.max, 0)
        let end = UInt64(size - footerSize)
        guard directoryOffset <= end, directoryLength <= end - directoryOffset, directoryLength <= 1 << 20 else { throw damaged }
        let start = Int(directoryOffset)
        let textPart = read(start..<(start + Int(directoryLength)))
        let decoded = withExtendedLifetime(textPart) { try? JSONDecoder().decode(Directory.self, from: Data(textPart.bytes)) }
        guard let directory = decoded else { throw damaged }
        var out: [String: PackedBytes] = [:]
        // In file order, without overlaps or repeated names: what is read (or copied) is then at
        // most the file, whatever a damaged or hostile directory lists.
        var previousEnd = 0
        var names = Set<String>()
        for e in directory.sections.sorted(by: { $0.offset < $1.offset }) {
            guard e.offset >= previousEnd, e.length >= 0, e.offset % alignment == 0, e.offset <= start, e.length <= start - e.offset,
                  names.insert(e.name).inserted else { throw damaged }
            previousEnd = e.offset + e.length
            if keeping(e.name) { out[e.name] = read(e.offset..<previousEnd) }
        }
        return out
    }
}

/// Bytes of one section and what keeps them alive (the mapping, or a copy).
struct PackedBytes: @unchecked Sendable {
    let bytes: UnsafeRawBufferPointer
    let owner: AnyObject
}

/// Fixed-size records in little-endian bytes — a mapped section, or bytes the builder packed —
/// read one at a time. `owner` keeps the memory alive.
struct PackedRecords: @unchecked Sendable {
    let bytes: UnsafeRawBufferPointer
    let stride: Int
    let owner: AnyObject
    /// Stored, not divided out per use: the nearest-address search asks for it per grid cell.
    let count: Int

    init(bytes: UnsafeRawBufferPointer, stride: Int, owner: AnyObject) {
        self.bytes = bytes
        self.stride = stride
        self.owner = owner
        count = bytes.count / stride
    }

    /// Records packed in memory (by the builder, or a test): the bytes are copied and owned.
    init(packed: [UInt8], stride: Int) {
        let storage = OwnedBytes(packed)
        self.init(bytes: UnsafeRawBufferPointer(rebasing: storage.buffer[0..<packed.count]), stride: stride, owner: storage)
    }

    @inline(__always) func u32(_ record: Int, _ offset: Int) -> UInt32 {
        UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: record * stride + offset, as: UInt32.self))
    }
    @inline(__always) func i32(_ record: Int, _ offset: Int) -> Int32 {
        Int32(littleEndian: bytes.loadUnaligned(fromByteOffset: record * stride + offset, as: Int32.self))
    }
    @inline(__always) func f64(_ record: Int, _ offset: Int) -> Double {
        Double(bitPattern: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: record * stride + offset, as: UInt64.self)))
    }
}

/// Heap bytes owned by a class, so that records over them can be shared between threads.
final class OwnedBytes: @unchecked Sendable {
    let buffer: UnsafeMutableRawBufferPointer

    init(_ bytes: [UInt8]) {
        buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 16)
        bytes.withUnsafeBytes { buffer.copyMemory(from: $0) }
    }

    /// Uninitialised bytes, for a reader to fill.
    init(count: Int) {
        buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, 1), alignment: 16)
    }

    deinit { buffer.deallocate() }
}
