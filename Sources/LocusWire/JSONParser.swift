import Foundation
import LocusCore

/// Why a line is not JSON, in words for the reply's message.
public struct JSONParseError: Error, Sendable {
    public var message: String
    public var offset: Int
}

extension JSONValue {
    /// Nesting deeper than this is refused, so that a line cannot exhaust the stack.
    public static let maximumDepth = JSONParser.maximumDepth

    /// One JSON document, read as request lines are: UTF-8 only, at most `maximumDepth` levels
    /// deep; a number beyond `Double`'s range reads as ±infinity (and every argument that wants a
    /// number refuses it by name).
    public init(parsing bytes: some Collection<UInt8>) throws(JSONParseError) {
        let parsed: Result<JSONValue, JSONParseError>? = bytes.withContiguousStorageIfAvailable { Self.parse(UnsafeRawBufferPointer($0)) }
        self = try (parsed ?? Array(bytes).withUnsafeBytes { Self.parse($0) }).get()
    }

    private static func parse(_ bytes: UnsafeRawBufferPointer) -> Result<JSONValue, JSONParseError> {
        guard JSONParser.isValidUTF8(bytes) else { return .failure(JSONParseError(message: "not valid UTF-8", offset: 0)) }
        return Result { () throws(JSONParseError) in try JSONParser.parse(bytes) }
    }
}

/// A strict JSON parser (RFC 8259) from UTF-8 bytes straight to `JSONValue`.
///
/// Request lines are parsed on the event loop for every request; Foundation's `JSONDecoder`
/// spends about ten times the engine's own time on a 100-byte line (it decodes `JSONValue` by
/// trying each type in turn and catching the errors). This parser makes one pass, allocates only
/// the values themselves, and bounds nesting so a hostile line cannot exhaust the stack.
/// The bytes must already be valid UTF-8 (`isValidUTF8`).
package struct JSONParser {
    private let bytes: UnsafeRawBufferPointer
    private var i = 0
    private var depth = 0
    private let exactIntegers: Bool
    package static let maximumDepth = 32

    private init(_ bytes: UnsafeRawBufferPointer, exactIntegers: Bool) {
        self.bytes = bytes
        self.exactIntegers = exactIntegers
    }

    /// With `exactIntegers`, a whole number that fits 64 bits reads as `.integer`, exactly as
    /// written: a request's `id` of 9007199254740993 came back 9007199254740992.0, the id of
    /// another request. Every other number, and every number without it, reads as `.number`.
    package static func parse(_ bytes: UnsafeRawBufferPointer, exactIntegers: Bool = false) throws(JSONParseError) -> JSONValue {
        var p = JSONParser(bytes, exactIntegers: exactIntegers)
        p.skipWhitespace()
        let v = try p.value()
        p.skipWhitespace()
        guard p.i == bytes.count else { throw p.error("unexpected text after the JSON value") }
        return v
    }

    private func error(_ message: String) -> JSONParseError { JSONParseError(message: message, offset: i) }

    private mutating func skipWhitespace() {
        while i < bytes.count {
            switch bytes[i] {
            case 0x20, 0x09, 0x0A, 0x0D: i += 1
            default: return
            }
        }
    }

    private mutating func value() throws(JSONParseError) -> JSONValue {
        guard i < bytes.count else { throw error("unexpected end of line") }
        switch bytes[i] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw error("unexpected character")
        }
    }

    private mutating func literal(_ word: StaticString) throws(JSONParseError) {
        let n = word.utf8CodeUnitCount
        guard i + n <= bytes.count else { throw error("unexpected end of line") }
        for k in 0..<n where bytes[i + k] != word.utf8Start[k] { throw error("unexpected character") }
        i += n
    }

    private mutating func enter() throws(JSONParseError) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw error("nested deeper than \(Self.maximumDepth) levels") }
    }

    private mutating func object() throws(JSONParseError) -> JSONValue {
        try enter()
        i += 1
        var out: [String: JSONValue] = [:]
        skipWhitespace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "}") {
            i += 1
            depth -= 1
            return .object(out)
        }
        while true {
            skipWhitespace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw error("expected a quoted key") }
            let key = try string()
            skipWhitespace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw error("expected ':' after a key") }
            i += 1
            skipWhitespace()
            out[key] = try value()
            skipWhitespace()
            guard i < bytes.count else { throw error("unexpected end of line") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            guard bytes[i] == UInt8(ascii: "}") else { throw error("expected ',' or '}'") }
            i += 1
            depth -= 1
            return .object(out)
        }
    }

    private mutating func array() throws(JSONParseError) -> JSONValue {
        try enter()
        i += 1
        var out: [JSONValue] = []
        skipWhitespace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "]") {
            i += 1
            depth -= 1
            return .array(out)
        }
        while true {
            skipWhitespace()
            out.append(try value())
            skipWhitespace()
            guard i < bytes.count else { throw error("unexpected end of line") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            guard bytes[i] == UInt8(ascii: "]") else { throw error("expected ',' or ']'") }
            i += 1
            depth -= 1
            return .array(out)
        }
    }

    private mutating func string() throws(JSONParseError) -> String {
        i += 1
        let start = i
        // Fast path: no escapes.
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "\"") {
                let s = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
                i += 1
                return s
            }
            if b == UInt8(ascii: "\\") { break }
            guard b >= 0x20 else { throw error("control character in a string") }
            i += 1
        }
        var out = [UInt8](UnsafeRawBufferPointer(rebasing: bytes[start..<i]))
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "\"") {
                i += 1
                return String(decoding: out, as: UTF8.self)
            }
            guard b >= 0x20 else { throw error("control character in a string") }
            guard b == UInt8(ascii: "\\") else {
                out.append(b)
                i += 1
                continue
            }
            i += 1
            guard i < bytes.count else { break }
            let e = bytes[i]
            i += 1
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800...0xDBFF).contains(scalar) {
                    guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
                        throw error("unpaired surrogate in a \\u escape")
                    }
                    i += 2
                    let low = try hex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate in a \\u escape") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw error("unpaired surrogate in a \\u escape")
                }
                out.append(contentsOf: String(Character(Unicode.Scalar(scalar)!)).utf8)
            default:
                throw error("unknown escape in a string")
            }
        }
        throw error("unterminated string")
    }

    private mutating func hex4() throws(JSONParseError) -> UInt32 {
        guard i + 4 <= bytes.count else { throw error("short \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[i]
            let d: UInt8
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = b - UInt8(ascii: "A") + 10
            default: throw error("bad \\u escape")
            }
            v = v << 4 | UInt32(d)
            i += 1
        }
        return v
    }

    private mutating func number() throws(JSONParseError) -> JSONValue {
        let start = i
        var integerOnly = true
        if bytes[i] == UInt8(ascii: "-") { i += 1 }
        guard i < bytes.count, isDigit(bytes[i]) else { throw error("bad number") }
        if bytes[i] == UInt8(ascii: "0") {
            i += 1
        } else {
            while i < bytes.count, isDigit(bytes[i]) { i += 1 }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            integerOnly = false
            i += 1
            guard i < bytes.count, isDigit(bytes[i]) else { throw error("bad number") }
            while i < bytes.count, isDigit(bytes[i]) { i += 1 }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            integerOnly = false
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard i < bytes.count, isDigit(bytes[i]) else { throw error("bad number") }
            while i < bytes.count, isDigit(bytes[i]) { i += 1 }
        }
        let length = i - start
        if integerOnly, length <= 18 {
            // No 18 characters overflow 64 bits: the plain loop (the checked one below cost
            // 6 % of decoding a request line, `locus-bench protocol`).
            var v: Int64 = 0
            var k = start
            let negative = bytes[k] == UInt8(ascii: "-")
            if negative { k += 1 }
            while k < i { v = v &* 10 &+ Int64(bytes[k] &- UInt8(ascii: "0")); k += 1 }
            if negative { v = 0 &- v }
            return exactIntegers ? .integer(v) : .number(Double(v))
        }
        if integerOnly, length <= 20 {
            var v: Int64 = 0
            var k = start
            let negative = bytes[k] == UInt8(ascii: "-")
            if negative { k += 1 }
            var fits = true
            while k < i, fits {
                let digit = Int64(bytes[k] - UInt8(ascii: "0"))
                let (times, o1) = v.multipliedReportingOverflow(by: 10)
                let (sum, o2) = negative ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
                (v, fits) = (sum, !o1 && !o2)
                k += 1
            }
            if fits { return exactIntegers ? .integer(v) : .number(Double(v)) }
        }
        // The grammar is checked above; strtod converts with correct rounding.
        return .number(withUnsafeTemporaryAllocation(of: CChar.self, capacity: length + 1) { buffer in
            for k in 0..<length { buffer[k] = CChar(bitPattern: bytes[start + k]) }
            buffer[length] = 0
            return strtod(buffer.baseAddress!, nil)
        })
    }

    @inline(__always) private func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }
}

extension JSONParser {
    /// Most lines are ASCII; only the others need the full check.
    package static func isValidUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var ascii = true
        for b in bytes where b >= 0x80 { ascii = false; break }
        if ascii { return true }
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }
}
