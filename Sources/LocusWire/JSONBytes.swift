/// JSON text being written: the scalars' encodings, shared by every writer.
package struct JSONBytes {
    package init(bytes: [UInt8] = [], sortsKeys: Bool = false) {
        self.bytes = bytes
        self.sortsKeys = sortsKeys
    }

    package var bytes: [UInt8]
    /// Write dictionaries' keys sorted: for output people compare (the CLI's `--json`), not for
    /// replies, whose objects are in no particular order.
    package var sortsKeys = false
    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    @inline(__always) package mutating func append(_ s: StaticString) {
        s.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    package mutating func writeString(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { utf8 in
            var runStart = 0
            for (k, b) in utf8.enumerated() where b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<k]))
                runStart = k + 1
                switch b {
                case UInt8(ascii: "\""): append("\\\"")
                case UInt8(ascii: "\\"): append("\\\\")
                case 0x0A: append("\\n")
                case 0x0D: append("\\r")
                case 0x09: append("\\t")
                case 0x08: append("\\b")
                case 0x0C: append("\\f")
                default:
                    append("\\u00")
                    bytes.append(Self.hexDigits[Int(b >> 4)])
                    bytes.append(Self.hexDigits[Int(b & 0xF)])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    package mutating func writeInteger<I: FixedWidthInteger>(_ v: I) {
        if v >= 0, v < 10 {
            bytes.append(UInt8(ascii: "0") + UInt8(v))
            return
        }
        bytes.append(contentsOf: String(v).utf8)
    }

    package mutating func writeDouble(_ d: Double) {
        guard d.isFinite else { return append("null") }
        if d.rounded() == d, abs(d) < 1e15 { return writeInteger(Int64(d)) }
        bytes.append(contentsOf: d.description.utf8)
    }
}
