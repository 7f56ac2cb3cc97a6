import LocusCore

/// Decodes `Decodable` values from an already parsed `JSONValue`, and parses reply lines.
///
/// A client reads a reply's `id` and `ok` before it knows what type the result is; with this it
/// parses the line once (`JSONParser`) and decodes the result from the tree, instead of paying
/// Foundation's `JSONDecoder` twice per reply.
public struct JSONValueDecoder {
    public init() {}

    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try T(from: ValueDecoder(value: value, codingPath: []))
    }
}

extension JSONValue {
    /// Parses one line of JSON (UTF-8 checked).
    public init(parsing bytes: UnsafeRawBufferPointer) throws {
        guard JSONParser.isValidUTF8(bytes) else {
            throw JSONParseError(message: "not valid UTF-8", offset: 0)
        }
        self = try JSONParser.parse(bytes)
    }

    /// The value as one line of compact JSON (no newline).
    public var jsonBytes: [UInt8] {
        var out = JSONBytes(bytes: [])
        writeJSON(&out)
        return out.bytes
    }
}

extension JSONParseError: CustomStringConvertible {
    public var description: String { "\(message) at byte \(offset)" }
}

private struct ValueDecoder: Decoder {
    let value: JSONValue
    var codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func mismatch(_ expected: String) -> DecodingError {
        .typeMismatch(Any.self, .init(codingPath: codingPath, debugDescription: "expected \(expected), found \(value.typeName)"))
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let o) = value else { throw mismatch("an object") }
        return KeyedDecodingContainer(Keyed<Key>(object: o, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let a) = value else { throw mismatch("an array") }
        return Unkeyed(items: a, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { Single(value: value, codingPath: codingPath) }
}

private struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let object: [String: JSONValue]
    var codingPath: [any CodingKey]
    var allKeys: [Key] { object.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { object[key.stringValue] != nil }

    func child(_ key: Key) throws -> ValueDecoder {
        guard let v = object[key.stringValue] else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no \(key.stringValue)"))
        }
        return ValueDecoder(value: v, codingPath: codingPath + [key])
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        if case .null? = object[key.stringValue] { return true }
        return object[key.stringValue] == nil
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let c = try child(key)
        if T.self == JSONValue.self { return c.value.asDecoded as! T }
        return try T(from: c)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try child(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { try child(key).unkeyedContainer() }
    func superDecoder() throws -> any Decoder { ValueDecoder(value: .object(object), codingPath: codingPath) }
    func superDecoder(forKey key: Key) throws -> any Decoder { try child(key) }
}

private struct Unkeyed: UnkeyedDecodingContainer {
    let items: [JSONValue]
    var codingPath: [any CodingKey]
    var currentIndex = 0
    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    init(items: [JSONValue], codingPath: [any CodingKey]) {
        self.items = items
        self.codingPath = codingPath
    }

    mutating func next() throws -> ValueDecoder {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(Any.self, .init(codingPath: codingPath, debugDescription: "array ended"))
        }
        defer { currentIndex += 1 }
        return ValueDecoder(value: items[currentIndex], codingPath: codingPath)
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, case .null = items[currentIndex] else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let c = try next()
        if T.self == JSONValue.self { return c.value.asDecoded as! T }
        return try T(from: c)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try next().container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }
    mutating func superDecoder() throws -> any Decoder { try next() }
}

private struct Single: SingleValueDecodingContainer {
    let value: JSONValue
    var codingPath: [any CodingKey]

    func mismatch(_ expected: String) -> DecodingError {
        .typeMismatch(Any.self, .init(codingPath: codingPath, debugDescription: "expected \(expected), found \(value.typeName)"))
    }

    func decodeNil() -> Bool { value == .null }

    func decode(_ type: Bool.Type) throws -> Bool {
        guard case .bool(let b) = value else { throw mismatch("a boolean") }
        return b
    }

    func decode(_ type: String.Type) throws -> String {
        guard case .string(let s) = value else { throw mismatch("a string") }
        return s
    }

    func decode(_ type: Double.Type) throws -> Double {
        guard let d = value.numericValue else { throw mismatch("a number") }
        return d
    }

    func decode(_ type: Float.Type) throws -> Float { Float(try decode(Double.self)) }

    func integer<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
        if case .integer(let i) = value {
            guard let exact = I(exactly: i) else { throw mismatch("a whole number") }
            return exact
        }
        let d = try decode(Double.self)
        guard d.rounded() == d, let i = I(exactly: d) else { throw mismatch("a whole number") }
        return i
    }

    func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if T.self == JSONValue.self { return value.asDecoded as! T }
        return try T(from: ValueDecoder(value: value, codingPath: codingPath))
    }
}

extension JSONValue {
    /// The value `JSONValue(from:)` reads from the same text: a whole number that fits is an
    /// `integer`, as an attribute table had it before the server wrote it.
    var asDecoded: JSONValue {
        switch self {
        case .number(let d): Int64(exactly: d).map { .integer($0) } ?? self
        case .array(let a): .array(a.map(\.asDecoded))
        case .object(let o): .object(o.mapValues(\.asDecoded))
        default: self
        }
    }
}
