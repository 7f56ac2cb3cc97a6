import LocusCore

/// Encodes replies, one line each: `{"id":…,"ok":true,"result":{…},"elapsed":…}` or
/// `{"id":…,"ok":false,"error":{"code":…,"message":…},"elapsed":…}`.
public enum ReplyEncoder {
    /// Seconds rounded to the microsecond.
    static func seconds(_ d: Duration) -> Double {
        (d.inSeconds * 1e6).rounded() / 1e6
    }

    public static func success(id: RequestID?, result: some Encodable, elapsed: Duration) -> [UInt8] {
        var out = JSONBytes(bytes: [])
        out.bytes.reserveCapacity(512)
        head(id, ok: true, &out)
        out.append(#","result":"#)
        do {
            try write(result, &out)
        } catch {
            return failure(id: id, error: WireError(.internalError, "internal error"), elapsed: elapsed)
        }
        tail(elapsed, &out)
        return out.bytes
    }

    public static func failure(id: RequestID?, error: WireError, elapsed: Duration) -> [UInt8] {
        var out = JSONBytes(bytes: [])
        out.bytes.reserveCapacity(160)
        head(id, ok: false, &out)
        out.append(#","error":{"code":"#)
        out.writeString(error.code.rawValue)
        out.append(#","message":"#)
        out.writeString(error.message)
        out.append("}")
        tail(elapsed, &out)
        return out.bytes
    }

    /// A result object alone, as compact JSON with the keys in the order a reply has them: what
    /// the CLI prints with `--json`, so that it matches the server's `result` for the same answer.
    /// Dictionaries (a layer's attributes), in no particular order in a reply, have their keys
    /// sorted, so the same answer prints the same every time.
    public static func json(_ value: some Encodable) throws -> [UInt8] {
        var out = JSONBytes(bytes: [], sortsKeys: true)
        try write(value, &out)
        return out.bytes
    }

    private static func write(_ value: some Encodable, _ out: inout JSONBytes) throws {
        if let w = value as? any JSONLineWritable {
            w.writeJSON(&out)
        } else {
            let sink = ByteSink(out: JSONBytes(bytes: []))
            swap(&sink.out, &out)
            defer { swap(&sink.out, &out) }
            try sink.write(value, codingPath: [])
        }
    }

    private static func head(_ id: RequestID?, ok: Bool, _ out: inout JSONBytes) {
        out.append(#"{"id":"#)
        if let id { id.writeJSON(&out) } else { out.append("null") }
        out.append(ok ? #","ok":true"# : #","ok":false"#)
    }

    private static func tail(_ elapsed: Duration, _ out: inout JSONBytes) {
        out.append(#","elapsed":"#)
        out.writeDouble(seconds(elapsed))
        out.append("}\n")
    }
}

extension JSONValue: JSONLineWritable {
    func writeJSON(_ out: inout JSONBytes) {
        switch self {
        case .null: out.append("null")
        case .bool(let b): out.append(b ? "true" : "false")
        case .integer(let i): out.writeInteger(i)
        case .number(let d): out.writeDouble(d)
        case .string(let s): out.writeString(s)
        case .array(let a): a.writeJSON(&out)
        case .object(let o): o.writeJSON(&out)
        }
    }
}

extension JSONBytes {
    /// A JSON value, for writers outside this module that write the rest of their answer by hand.
    package mutating func writeValue(_ value: JSONValue) { value.writeJSON(&self) }
}
