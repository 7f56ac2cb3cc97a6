import Foundation
import LocusCore
import LocusWire

/// Locus's JSON parser against Foundation's `JSONSerialization`, one document at a time: the
/// reference both `JSONReferenceTests` and the request fuzz target hold the parser to.
///
/// They must accept the same documents and read the same values, except where Locus deliberately
/// differs (each pinned by a test of its own in `JSONReferenceTests`):
/// - nesting deeper than 32 levels: refused by Locus, so a line cannot exhaust the stack;
/// - a trailing comma (`[1,]`, `{"a":1,}`): accepted by Foundation, refused by Locus, as
///   RFC 8259's grammar says;
/// - a number beyond `Double`'s range (`1e400`): refused by Foundation as a whole document, read
///   as ±infinity by Locus, so that the reply can name the argument that is not a finite number
///   (and still echo the request's id);
/// - a byte-order mark or UTF-16/32 text: read by Foundation, refused by Locus (request lines are
///   UTF-8, RFC 8259 §8.1);
/// - a number of more than 19 digits, which Foundation reads as a `Decimal`: compared to 12
///   significant digits, since the Decimal's conversion to Double is off by up to 1e-15;
/// - U+FEFF at the start of a string, or right after an escape in one: Foundation drops it (it
///   decodes each run of a string on its own and takes the character for a byte-order mark),
///   Locus keeps it, as RFC 8259 says; strings and keys are compared without U+FEFF.
public enum JSONReference {
    /// Why the two disagree on `bytes`, or nil when they agree.
    public static func difference(_ bytes: [UInt8]) -> String? {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) || bytes.prefix(4).contains(0) { return nil }
        let ours = try? JSONValue(parsing: bytes)
        let theirs = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
        switch (ours, theirs) {
        case (nil, nil):
            return nil
        case (let v?, let t?):
            return same(v, t) ? nil : "read differently: Locus \(v), Foundation \(t)"
        case (let v?, nil):
            return v.hasInfiniteNumber ? nil : "accepted by Locus only (as \(v))"
        case (nil, let t?):
            if depth(t) > JSONValue.maximumDepth { return nil }
            if let v = try? JSONValue(parsing: withoutTrailingCommas(bytes)), same(v, t) { return nil }
            return "accepted by Foundation only (as \(t))"
        }
    }

    /// Whether Locus's value is the one Foundation read. Strings compare scalar by scalar (not
    /// by Swift's canonical equivalence); numbers by value.
    public static func same(_ v: JSONValue, _ t: Any) -> Bool {
        switch v {
        case .null:
            return t is NSNull
        case .bool(let b):
            guard let n = t as? NSNumber, isBoolean(n) else { return false }
            return n.boolValue == b
        case .integer(let i):
            guard let n = t as? NSNumber, !isBoolean(n) else { return false }
            return n.int64Value == i
        case .number(let d):
            guard let n = t as? NSNumber, !isBoolean(n) else { return false }
            if n is NSDecimalNumber { return abs(n.doubleValue - d) <= abs(d) * 1e-12 }
            return n.doubleValue == d
        case .string(let s):
            guard let u = t as? String else { return false }
            return scalars(s) == scalars(u)
        case .array(let a):
            guard let u = t as? [Any], u.count == a.count else { return false }
            return zip(a, u).allSatisfy { same($0, $1) }
        case .object(let o):
            guard let u = t as? [String: Any] else { return false }
            // A key with U+FEFF in it may be another key to Foundation (or the same as another
            // of the object's): such keys are left out on both sides.
            var ours: [String: JSONValue] = [:], theirs: [String: Any] = [:], unsure = Set<String>()
            for (k, v) in o {
                let key = withoutBOM(k)
                if key != k || ours.updateValue(v, forKey: key) != nil { unsure.insert(key) }
            }
            for (k, v) in u { theirs[withoutBOM(k)] = v }
            for key in unsure {
                ours[key] = nil
                theirs[key] = nil
            }
            guard ours.count == theirs.count else { return false }
            return ours.allSatisfy { k, v in theirs[k].map { same(v, $0) } ?? false }
        }
    }

    /// A string's scalars, as compared: exactly, but for U+FEFF (see above).
    static func scalars(_ s: String) -> [Unicode.Scalar] { s.unicodeScalars.filter { $0 != "\u{FEFF}" } }

    static func withoutBOM(_ s: String) -> String { String(String.UnicodeScalarView(scalars(s))) }

    /// JSONSerialization's booleans are NSNumbers of C type `char`; its numbers never are.
    static func isBoolean(_ n: NSNumber) -> Bool { String(cString: n.objCType) == "c" }

    static func depth(_ t: Any) -> Int {
        if let a = t as? [Any] { return 1 + (a.map(depth).max() ?? 0) }
        if let o = t as? [String: Any] { return 1 + (o.values.map(depth).max() ?? 0) }
        return 0
    }

    /// The document without the commas that only whitespace separates from a closing bracket
    /// (outside strings).
    public static func withoutTrailingCommas(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var inString = false, escaped = false
        for (i, b) in bytes.enumerated() {
            if inString {
                if escaped {
                    escaped = false
                } else if b == UInt8(ascii: "\\") {
                    escaped = true
                } else if b == UInt8(ascii: "\"") {
                    inString = false
                }
            } else if b == UInt8(ascii: "\"") {
                inString = true
            } else if b == UInt8(ascii: ",") {
                let next = bytes[(i + 1)...].first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
                if next == UInt8(ascii: "]") || next == UInt8(ascii: "}") { continue }
            }
            out.append(b)
        }
        return out
    }
}

extension JSONValue {
    /// Whether a number anywhere in the value is ±infinity (read from beyond Double's range).
    public var hasInfiniteNumber: Bool {
        switch self {
        case .number(let d): !d.isFinite
        case .array(let a): a.contains { $0.hasInfiniteNumber }
        case .object(let o): o.values.contains { $0.hasInfiniteNumber }
        default: false
        }
    }
}
