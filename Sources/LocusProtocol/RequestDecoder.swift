import LocusCore
import LocusWire

/// Limits on what one request may ask, with the defaults protocol v1 documents.
public struct RequestLimits: Sendable {
    /// Longest request line in bytes. Default 64 KiB.
    public var maximumLineBytes = 65_536
    /// Most layers `reverse` may name. Default 16.
    public var maximumLayers = 16

    public init() {}
}

/// Turns one request line into a typed request, or into the error its reply carries (with the id
/// when the line had a readable one). What is common to every request (UTF-8, JSON, an object,
/// `id`, `op`) is checked here; the arguments by the operation's own descriptor.
public struct RequestDecoder: Sendable {
    public var limits: RequestLimits

    public init(limits: RequestLimits = RequestLimits()) { self.limits = limits }

    public func decode(_ line: some Collection<UInt8>) -> Result<(id: RequestID?, request: LocusRequest), RequestFailure> {
        if let r = line.withContiguousStorageIfAvailable({ decode(UnsafeRawBufferPointer($0)) }) { return r }
        return Array(line).withUnsafeBytes { decode($0) }
    }

    public func decode(_ bytes: UnsafeRawBufferPointer) -> Result<(id: RequestID?, request: LocusRequest), RequestFailure> {
        guard bytes.count <= limits.maximumLineBytes else {
            return .failure(RequestFailure(id: nil, error: WireError(.tooLarge, "request line is longer than \(limits.maximumLineBytes) bytes")))
        }
        guard JSONParser.isValidUTF8(bytes) else {
            return .failure(RequestFailure(id: nil, error: WireError(.invalidJSON, "request line is not valid UTF-8")))
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes, exactIntegers: true)
        } catch {
            return .failure(RequestFailure(id: nil, error: WireError(.invalidJSON, "request line is not valid JSON: \(error.message) at byte \(error.offset)")))
        }
        guard case .object(let object) = value else {
            return .failure(RequestFailure(id: nil, error: WireError(.invalidRequest, "a request is one JSON object, got \(value.typeName)")))
        }
        var id: RequestID?
        switch object["id"] {
        case nil: id = nil
        // A whole number past 64 bits is read as a double and would come back as another number
        // (18446744073709551615 as 1.8446744073709552e19): the client would wait for a reply to
        // its id that never comes. Refused, so that it sends such an id as a string.
        case .number(let d)? where d.isFinite && d.rounded() == d && d.magnitude >= 0x1p63:
            return .failure(RequestFailure(id: nil, error: WireError(.invalidRequest, "id must be a string or a number a reply echoes exactly; a whole number beyond 64 bits is not (send it as a string)")))
        case let v? where { if case .string = v { return true }; return v.numericValue?.isFinite == true }():
            id = v
        case let v?:
            return .failure(RequestFailure(id: nil, error: WireError(.invalidRequest, "id must be a string or a finite number, got \(v.typeName == "a number" ? "one beyond a double's range" : v.typeName)")))
        }
        guard case .string(let op)? = object["op"] else {
            return .failure(RequestFailure(id: id, error: WireError(.invalidRequest, "a request needs \"op\", a string")))
        }
        guard let operation = Operation.named[op] else {
            let known = Operation.all.map(\.name).joined(separator: ", ")
            return .failure(RequestFailure(id: id, error: WireError(.unknownOp, "unknown op \"\(op.prefix(40))\" (ops: \(known))")))
        }
        do {
            return .success((id, try operation.request(ArgumentReader(object, limits: limits))))
        } catch {
            return .failure(RequestFailure(id: id, error: error))
        }
    }
}

/// A request that could not be decoded: the error for its reply, and its id if it had one.
public struct RequestFailure: Error, Sendable {
    public var id: RequestID?
    public var error: WireError
}
