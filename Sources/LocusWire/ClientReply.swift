import LocusCore

/// A reply as a client reads it.
public struct ClientReply: Sendable {
    public var id: RequestID?
    public var ok: Bool
    public var result: JSONValue?
    public var error: WireError?

    /// Reads a reply line; nil when it is not a protocol reply.
    public init?(line: UnsafeRawBufferPointer) {
        guard let value = try? JSONValue(parsing: line), case .object(let o) = value,
              case .bool(let ok)? = o["ok"] else { return nil }
        id = o["id"]
        self.ok = ok
        result = o["result"]
        if case .object(let e)? = o["error"], case .string(let code)? = e["code"] {
            var message = ""
            if case .string(let m)? = e["message"] { message = m }
            // A code this client does not know (a newer server's) still reads as an error.
            error = WireError(WireErrorCode(rawValue: code) ?? .internalError, message)
        }
        if !ok, error == nil { error = WireError(.internalError, "an error reply without an error") }
    }

    /// The result, decoded into `T`, or the server's error thrown.
    public func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if let error { throw error }
        return try JSONValueDecoder().decode(T.self, from: result ?? .null)
    }
}
