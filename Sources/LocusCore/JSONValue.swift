import Foundation

/// Any JSON value: an argument of a request line, a request's id, or a value in a polygon
/// layer's attribute table.
///
/// Numbers come in two cases because the two sources need both. A request line is read with
/// every number as a `Double`, as JSON itself defines them, so that an argument can be checked for
/// range by value. A layer's attribute table has integer columns whose values may be beyond
/// `Double`'s exact range (identifiers of 16 digits and more): those stay `integer`, written as
/// the digits they are. `.integer(12)` and `.number(12)` are different values that write the
/// same JSON; `numericValue` reads either.
public enum JSONValue: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// A whole number is read as an `integer` when it fits, as an attribute table holds it.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let i = try? c.decode(Int64.self) { self = .integer(i) }
        else if let d = try? c.decode(Double.self) { self = .number(d) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([JSONValue].self) { self = .array(a) }
        else { self = .object(try c.decode([String: JSONValue].self)) }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .integer(let i): try c.encode(i)
        case .number(let d):
            // The same text the reply writers give a whole number: no fraction below 10^15.
            if d.rounded() == d, abs(d) < 1e15 { try c.encode(Int64(d)) } else { try c.encode(d) }
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        }
    }

    /// The value of either kind of number.
    public var numericValue: Double? {
        switch self {
        case .integer(let i): Double(i)
        case .number(let d): d
        default: nil
        }
    }

    /// The value as text, for display and CSV output: a scalar as it reads (a real number as Swift
    /// writes it, `12.0`); an array or object, which no attribute table holds, as its JSON.
    public var text: String {
        switch self {
        case .string(let s): s
        case .integer(let i): String(i)
        case .number(let d): String(d)
        case .bool(let b): String(b)
        case .null: ""
        case .array, .object: (try? JSONEncoder().encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        }
    }
}
