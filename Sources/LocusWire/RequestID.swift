import LocusCore

/// A request's id, echoed in its reply: a string or a number, as the client sent it.
public typealias RequestID = JSONValue

extension JSONValue {
    /// The kind of value, as an error message names it ("x must be a number, got a string").
    package var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .integer, .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// The id as a message quotes it: a long string cut short, a whole number without a fraction.
    package var idDescription: String {
        switch self {
        case .string(let s): "\"\(s.prefix(64))\""
        case .integer(let i): String(i)
        case .number(let d) where d.rounded() == d && abs(d) < 1e15: String(Int64(d))
        case .number(let d): String(d)
        default: "null"
        }
    }
}

extension JSONValue {
    /// Whether `other` names the request this id names: whole numbers compare as numbers, so a
    /// `cancel` of `5.0` reaches the request sent as `"id":5` (ids are read as integers when
    /// they are whole, and 5.0 is a double: it matched nothing).
    package func namesSameRequest(as other: JSONValue) -> Bool {
        switch (self, other) {
        case let (.integer(a), .number(b)), let (.number(b), .integer(a)): Int64(exactly: b) == a
        default: self == other
        }
    }
}
