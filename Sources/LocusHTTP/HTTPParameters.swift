import LocusCore
import LocusWire

/// The parameters of one HTTP request: the query string's and, for a form-encoded POST, the
/// body's, as one case-insensitive set (Esri clients write `SingleLine`, `singleLine` and
/// `singleline`; names differ in nothing else across the dialects).
///
/// Read with the typed getters, which answer a value that is there but wrong with a
/// `HTTPFailure` naming the parameter — the 400 each dialect writes in its own shape.
struct HTTPParameters: Sendable {
    private var values: [String: String] = [:]

    init() {}

    /// Parses `a=1&b=two+words&c=%C3%A9` (query strings and `application/x-www-form-urlencoded`
    /// bodies alike). The first value of a repeated name wins. Bytes that are not UTF-8 after
    /// percent-decoding, or a `%` not followed by two hex digits, are refused.
    init(formEncoded text: some StringProtocol) throws(HTTPFailure) {
        try add(formEncoded: text)
    }

    mutating func add(formEncoded text: some StringProtocol) throws(HTTPFailure) {
        for pair in text.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            let name = try Self.decode(parts[0]).lowercased()
            let value = parts.count > 1 ? try Self.decode(parts[1]) : ""
            if values[name] == nil { values[name] = value }
        }
    }

    private static func decode(_ bytes: some Collection<UInt8>) throws(HTTPFailure) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        while i != bytes.endIndex {
            let b = bytes[i]
            if b == UInt8(ascii: "+") {
                out.append(UInt8(ascii: " "))
            } else if b == UInt8(ascii: "%") {
                let h = bytes.index(after: i)
                guard h != bytes.endIndex, bytes.index(after: h) != bytes.endIndex,
                      let hi = hexValue(bytes[h]), let lo = hexValue(bytes[bytes.index(after: h)]) else {
                    throw HTTPFailure(.badRequest, "a '%' in the query is not followed by two hex digits")
                }
                out.append(hi << 4 | lo)
                i = bytes.index(after: bytes.index(after: h))
                continue
            } else {
                out.append(b)
            }
            i = bytes.index(after: i)
        }
        guard let text = String(validating: out, as: UTF8.self) else {
            throw HTTPFailure(.badRequest, "the query is not UTF-8 once decoded")
        }
        return text
    }

    private static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): b - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): b - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): b - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The value as given, nil when absent; empty values count as absent, as clients send every
    /// field of a form whether filled in or not.
    func string(_ name: String) -> String? {
        guard let v = values[name.lowercased()], !v.trimmingWhitespace().isEmpty else { return nil }
        return v
    }

    func contains(_ name: String) -> Bool { string(name) != nil }

    fileprivate mutating func setValue(_ value: String, for key: String) { values[key] = value }

    func double(_ name: String) throws(HTTPFailure) -> Double? {
        guard let v = string(name) else { return nil }
        guard let d = Double(v.trimmingWhitespace()), d.isFinite else {
            throw HTTPFailure(.badRequest, "\(name) must be a number, got '\(v.prefix(40))'", parameter: name)
        }
        return d
    }

    /// A whole number within `range`.
    func int(_ name: String, in range: ClosedRange<Int>) throws(HTTPFailure) -> Int? {
        guard let v = string(name) else { return nil }
        guard let i = Int(v.trimmingWhitespace()), range.contains(i) else {
            throw HTTPFailure(.badRequest, "\(name) must be a whole number \(range.lowerBound) … \(range.upperBound), got '\(v.prefix(40))'", parameter: name)
        }
        return i
    }

    /// `true`/`false` (also `1`/`0`, `yes`/`no`, any case).
    func bool(_ name: String) throws(HTTPFailure) -> Bool? {
        guard let v = string(name) else { return nil }
        switch v.trimmingWhitespace().lowercased() {
        case "true", "1", "yes": return true
        case "false", "0", "no": return false
        default: throw HTTPFailure(.badRequest, "\(name) must be true or false, got '\(v.prefix(40))'", parameter: name)
        }
    }

    /// A comma-separated list, items trimmed, empty items dropped.
    func list(_ name: String) -> [String]? {
        string(name).map { $0.split(separator: ",").map { String($0.trimmingWhitespace()) }.filter { !$0.isEmpty } }
    }

    /// A JSON value (Esri's geometry, spatial reference and record parameters).
    func json(_ name: String) throws(HTTPFailure) -> JSONValue? {
        guard let v = string(name) else { return nil }
        do {
            return try JSONValue(parsing: Array(v.utf8))
        } catch {
            throw HTTPFailure(.badRequest, "\(name) is not valid JSON: \(error.message)", parameter: name)
        }
    }
}

extension HTTPParameters {
    /// Sets a parameter (a batch record's field, read as if it had been sent alone).
    mutating func set(_ name: String, _ value: String) {
        setValue(value, for: name.lowercased())
    }
}
