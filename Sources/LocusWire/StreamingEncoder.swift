/// Writes `Encodable` values as compact JSON straight into bytes, in one pass: the replies whose
/// results do not write their own JSON (`HotPathJSON.swift`) come through here.
///
/// Foundation's `JSONEncoder` builds a tree of boxed values and then serialises it; for a reply
/// of a few hundred bytes that is several times the engine's own time, on every request. This
/// writes each key and value as the value's `encode(to:)` produces it. Keys come out in the order
/// the type encodes them (declaration order for synthesised conformances), not sorted; JSON
/// objects are unordered, and the CLI's `--json` output keeps Foundation's sorted keys. Integral
/// doubles are written without a fraction (`100`, not `100.0`), as Foundation does; non-finite
/// numbers, which JSON cannot express, are written as `null`.
///
/// This holds the bytes being written and the frames of the containers still open.
final class ByteSink {
    var out: JSONBytes

    init(out: JSONBytes) { self.out = out }

    /// One value being encoded: what container it opened, how many members it has written, and
    /// a nested container it opened that must be closed before its next member.
    final class Frame {
        enum Kind { case unopened, object, array, single }
        var kind = Kind.unopened
        var count = 0
        var openChild: Frame?
    }

    func write<T: Encodable>(_ value: T, codingPath: [any CodingKey]) throws {
        switch value {
        case let s as String: return writeString(s)
        case let d as Double: return writeDouble(d)
        case let n as Int: return writeInteger(n)
        case let b as Bool: return append(b ? "true" : "false")
        case let w as any JSONLineWritable: return w.writeJSON(&out)
        case let d as any StringKeyedEncodable where out.sortsKeys: return try d.writeSorted(self, codingPath: codingPath)
        default: break
        }
        let frame = Frame()
        try value.encode(to: StreamingEncoder(sink: self, frame: frame, codingPath: codingPath))
        finish(frame)
    }

    func finish(_ frame: Frame) {
        closeChildren(of: frame)
        switch frame.kind {
        case .object: out.bytes.append(UInt8(ascii: "}"))
        case .array: out.bytes.append(UInt8(ascii: "]"))
        case .unopened: append("{}")
        case .single: break
        }
    }

    func closeChildren(of frame: Frame) {
        guard let child = frame.openChild else { return }
        frame.openChild = nil
        finish(child)
    }

    func open(_ frame: Frame, as kind: Frame.Kind) {
        guard frame.kind == .unopened else { return }
        frame.kind = kind
        switch kind {
        case .object: out.bytes.append(UInt8(ascii: "{"))
        case .array: out.bytes.append(UInt8(ascii: "["))
        default: break
        }
    }

    /// Starts a member of an object or array: closes a nested container left open, adds the comma.
    func member(of frame: Frame) {
        closeChildren(of: frame)
        if frame.count > 0 { out.bytes.append(UInt8(ascii: ",")) }
        frame.count += 1
    }

    func key(_ key: some CodingKey, in frame: Frame) {
        member(of: frame)
        writeString(key.stringValue)
        out.bytes.append(UInt8(ascii: ":"))
    }

    @inline(__always) func append(_ s: StaticString) { out.append(s) }
    @inline(__always) func writeString(_ s: String) { out.writeString(s) }
    @inline(__always) func writeInteger<I: FixedWidthInteger>(_ v: I) { out.writeInteger(v) }
    @inline(__always) func writeDouble(_ d: Double) { out.writeDouble(d) }
}

/// A dictionary with string keys, which `ByteSink` writes with its keys sorted when asked to.
protocol StringKeyedEncodable {
    func writeSorted(_ sink: ByteSink, codingPath: [any CodingKey]) throws
}

extension Dictionary: StringKeyedEncodable where Key == String, Value: Encodable {
    func writeSorted(_ sink: ByteSink, codingPath: [any CodingKey]) throws {
        sink.append("{")
        for (n, (key, value)) in sorted(by: { $0.key < $1.key }).enumerated() {
            if n > 0 { sink.append(",") }
            sink.writeString(key)
            sink.append(":")
            try sink.write(value, codingPath: codingPath)
        }
        sink.append("}")
    }
}

struct StreamingEncoder: Encoder {
    let sink: ByteSink
    let frame: ByteSink.Frame
    var codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        sink.open(frame, as: .object)
        return KeyedEncodingContainer(KeyedStream<Key>(sink: sink, frame: frame, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        sink.open(frame, as: .array)
        return UnkeyedStream(sink: sink, frame: frame, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        if frame.kind == .unopened { frame.kind = .single }
        return SingleStream(sink: sink, codingPath: codingPath)
    }
}

struct KeyedStream<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let sink: ByteSink
    let frame: ByteSink.Frame
    var codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws { sink.key(key, in: frame); sink.append("null") }
    mutating func encode(_ value: Bool, forKey key: Key) throws { sink.key(key, in: frame); sink.append(value ? "true" : "false") }
    mutating func encode(_ value: String, forKey key: Key) throws { sink.key(key, in: frame); sink.writeString(value) }
    mutating func encode(_ value: Double, forKey key: Key) throws { sink.key(key, in: frame); sink.writeDouble(value) }
    mutating func encode(_ value: Float, forKey key: Key) throws { sink.key(key, in: frame); sink.writeDouble(Double(value)) }
    mutating func encode(_ value: Int, forKey key: Key) throws { sink.key(key, in: frame); sink.writeInteger(value) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { sink.key(key, in: frame); sink.writeInteger(value) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { sink.key(key, in: frame); sink.writeInteger(value) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { sink.key(key, in: frame); sink.writeInteger(value) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { sink.key(key, in: frame); sink.writeInteger(value) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { sink.key(key, in: frame); sink.writeInteger(value) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { sink.key(key, in: frame); sink.writeInteger(value) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { sink.key(key, in: frame); sink.writeInteger(value) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { sink.key(key, in: frame); sink.writeInteger(value) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { sink.key(key, in: frame); sink.writeInteger(value) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        sink.key(key, in: frame)
        try sink.write(value, codingPath: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        sink.key(key, in: frame)
        let child = ByteSink.Frame()
        frame.openChild = child
        sink.open(child, as: .object)
        return KeyedEncodingContainer(KeyedStream<NestedKey>(sink: sink, frame: child, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        sink.key(key, in: frame)
        let child = ByteSink.Frame()
        frame.openChild = child
        sink.open(child, as: .array)
        return UnkeyedStream(sink: sink, frame: child, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder { superEncoder(forKey: Key(stringValue: "super")!) }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        sink.key(key, in: frame)
        let child = ByteSink.Frame()
        frame.openChild = child
        return StreamingEncoder(sink: sink, frame: child, codingPath: codingPath + [key])
    }
}

struct UnkeyedStream: UnkeyedEncodingContainer {
    let sink: ByteSink
    let frame: ByteSink.Frame
    var codingPath: [any CodingKey]
    var count: Int { frame.count }

    mutating func encodeNil() throws { sink.member(of: frame); sink.append("null") }
    mutating func encode(_ value: String) throws { sink.member(of: frame); sink.writeString(value) }
    mutating func encode(_ value: Double) throws { sink.member(of: frame); sink.writeDouble(value) }
    mutating func encode(_ value: Int) throws { sink.member(of: frame); sink.writeInteger(value) }
    mutating func encode(_ value: Bool) throws { sink.member(of: frame); sink.append(value ? "true" : "false") }

    mutating func encode<T: Encodable>(_ value: T) throws {
        sink.member(of: frame)
        try sink.write(value, codingPath: codingPath)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        sink.member(of: frame)
        let child = ByteSink.Frame()
        frame.openChild = child
        sink.open(child, as: .object)
        return KeyedEncodingContainer(KeyedStream<NestedKey>(sink: sink, frame: child, codingPath: codingPath))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        sink.member(of: frame)
        let child = ByteSink.Frame()
        frame.openChild = child
        sink.open(child, as: .array)
        return UnkeyedStream(sink: sink, frame: child, codingPath: codingPath)
    }

    mutating func superEncoder() -> any Encoder {
        sink.member(of: frame)
        let child = ByteSink.Frame()
        frame.openChild = child
        return StreamingEncoder(sink: sink, frame: child, codingPath: codingPath)
    }
}

struct SingleStream: SingleValueEncodingContainer {
    let sink: ByteSink
    var codingPath: [any CodingKey]

    mutating func encodeNil() throws { sink.append("null") }
    mutating func encode(_ value: Bool) throws { sink.append(value ? "true" : "false") }
    mutating func encode(_ value: String) throws { sink.writeString(value) }
    mutating func encode(_ value: Double) throws { sink.writeDouble(value) }
    mutating func encode(_ value: Float) throws { sink.writeDouble(Double(value)) }
    mutating func encode(_ value: Int) throws { sink.writeInteger(value) }
    mutating func encode(_ value: Int8) throws { sink.writeInteger(value) }
    mutating func encode(_ value: Int16) throws { sink.writeInteger(value) }
    mutating func encode(_ value: Int32) throws { sink.writeInteger(value) }
    mutating func encode(_ value: Int64) throws { sink.writeInteger(value) }
    mutating func encode(_ value: UInt) throws { sink.writeInteger(value) }
    mutating func encode(_ value: UInt8) throws { sink.writeInteger(value) }
    mutating func encode(_ value: UInt16) throws { sink.writeInteger(value) }
    mutating func encode(_ value: UInt32) throws { sink.writeInteger(value) }
    mutating func encode(_ value: UInt64) throws { sink.writeInteger(value) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try sink.write(value, codingPath: codingPath)
    }
}
