import Foundation
import LocusCore
import LocusEngine

/// A request's id, echoed in its reply: a string or a number, as the client sent it.
public typealias RequestID = JSONValue

/// A request line, decoded and validated into what the engine runs.
public enum LocusRequest: Sendable {
    case ping
    case info
    case stats
    case cancel(RequestID)
    case auth(token: String)
    case reload(path: String?)
    case reverse(ReverseRequest, layers: [String])
    case within(WithinRequest)
    case suggest(SuggestRequest, locationReference: SpatialReference)
    case geocode(GeocodeRequest, locationReference: SpatialReference, out: SpatialReference)

    public var op: String {
        switch self {
        case .ping: "ping"
        case .info: "info"
        case .stats: "stats"
        case .cancel: "cancel"
        case .auth: "auth"
        case .reload: "reload"
        case .reverse: "reverse"
        case .within: "within"
        case .suggest: "suggest"
        case .geocode: "geocode"
        }
    }
}

/// Limits on what one request may ask, with the defaults protocol v1 documents.
public struct RequestLimits: Sendable {
    /// Longest request line in bytes. Default 64 KiB.
    public var maximumLineBytes = 65_536
    /// Most layers `reverse` may name. Default 16.
    public var maximumLayers = 16

    public init() {}
}

/// Turns one request line into a typed request, or into the error its reply carries (with the id
/// when the line had a readable one).
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
        guard Self.isValidUTF8(bytes) else {
            return .failure(RequestFailure(id: nil, error: WireError(.invalidJSON, "request line is not valid UTF-8")))
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            return .failure(RequestFailure(id: nil, error: WireError(.invalidJSON, "request line is not valid JSON: \(error.message) at byte \(error.offset)")))
        }
        guard case .object(let object) = value else {
            return .failure(RequestFailure(id: nil, error: WireError(.invalidRequest, "a request is one JSON object, got \(value.typeName)")))
        }
        var id: RequestID?
        switch object["id"] {
        case nil: id = nil
        case let v? where { if case .string = v { return true }; if case .number = v { return true }; return false }():
            id = v
        case let v?:
            return .failure(RequestFailure(id: nil, error: WireError(.invalidRequest, "id must be a string or a number, got \(v.typeName)")))
        }
        guard case .string(let op)? = object["op"] else {
            return .failure(RequestFailure(id: id, error: WireError(.invalidRequest, "a request needs \"op\", a string")))
        }
        do {
            let arguments = Arguments(object)
            return .success((id, try request(op, arguments)))
        } catch {
            return .failure(RequestFailure(id: id, error: error))
        }
    }

    private func request(_ op: String, _ a: Arguments) throws(WireError) -> LocusRequest {
        switch op {
        case "ping": return .ping
        case "info": return .info
        case "stats": return .stats
        case "cancel":
            guard let target = a.object["request"], target != .null else {
                throw WireError(.invalidArgument, "cancel needs \"request\": the id of the request to cancel")
            }
            return .cancel(target)
        case "auth":
            guard let token = try a.string("token") else { throw WireError(.invalidArgument, "auth needs \"token\", a string") }
            return .auth(token: token)
        case "reload":
            return .reload(path: try a.string("path"))
        case "reverse":
            var r = ReverseRequest(location: GeoPoint(x: 0, y: 0))
            (r.location, r.spatialReference) = try a.location("location", required: true)!
            r.maxDistance = try a.double("max_distance") ?? r.maxDistance
            r.outSpatialReference = try a.wkid("out_wkid")
            if let m = try a.string("method") {
                guard let method = ReverseMethod(rawValue: m) else {
                    throw WireError(.invalidArgument, "method must be \"frontage\" or \"nearest\"")
                }
                r.method = m.isEmpty ? .frontage : method
            }
            let layers = try a.strings("layers") ?? []
            guard layers.count <= limits.maximumLayers else {
                throw WireError(.tooLarge, "at most \(limits.maximumLayers) layers")
            }
            return .reverse(r, layers: layers)
        case "within":
            var w = WithinRequest(location: GeoPoint(x: 0, y: 0))
            (w.location, w.spatialReference) = try a.location("location", required: true)!
            w.layer = try a.string("layer") ?? w.layer
            w.nearestWithin = try a.double("nearest_within")
            return .within(w)
        case "suggest":
            guard let text = try a.string("text") else { throw WireError(.invalidArgument, "suggest needs \"text\", a string") }
            var s = SuggestRequest(text: text)
            s.maxResults = try a.int("max_results") ?? s.maxResults
            var reference = SpatialReference.wgs84
            if let (p, srs) = try a.location("location", required: false) {
                s.near = p
                reference = srs
            }
            s.extent = try a.extent("extent")
            return .suggest(s, locationReference: reference)
        case "geocode":
            let input: GeocodeRequest.Input
            let given = ["text", "key", "address"].filter { a.object[$0] != nil }
            guard given.count == 1 else {
                throw WireError(.invalidArgument, "geocode needs exactly one of \"text\", \"key\" or \"address\"")
            }
            if let text = try a.string("text") {
                input = .text(text)
            } else if let key = try a.string("key") {
                input = .key(key)
            } else {
                guard case .object(let fields)? = a.object["address"] else {
                    throw WireError(.invalidArgument, "address must be an object of number, street, city, postcode")
                }
                let f = Arguments(fields)
                input = .fields(number: try f.text("number"), street: try f.string("street"), city: try f.string("city"), postcode: try f.text("postcode"))
            }
            var g = GeocodeRequest(input)
            g.maxResults = try a.int("max_results") ?? g.maxResults
            g.minScore = try a.double("min_score") ?? g.minScore
            g.explain = try a.bool("explain") ?? false
            var reference = SpatialReference.wgs84
            if let (p, srs) = try a.location("location", required: false) {
                g.near = p
                reference = srs
            }
            return .geocode(g, locationReference: reference, out: try a.wkid("out_wkid") ?? .wgs84)
        default:
            throw WireError(.unknownOp, "unknown op \"\(op.prefix(40))\" (ops: \(Operation.all.map(\.name).joined(separator: ", ")))")
        }
    }
}

extension RequestDecoder {
    /// Most lines are ASCII; only the others need the full check.
    static func isValidUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
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

/// A request that could not be decoded: the error for its reply, and its id if it had one.
public struct RequestFailure: Error, Sendable {
    public var id: RequestID?
    public var error: WireError
}

/// Typed access to a request's arguments, each failure naming the argument.
struct Arguments {
    let object: [String: JSONValue]
    init(_ object: [String: JSONValue]) { self.object = object }

    func string(_ key: String) throws(WireError) -> String? {
        switch object[key] {
        case nil, .null?: return nil
        case .string(let s)?: return s
        case let v?: throw WireError(.invalidArgument, "\(key) must be a string, got \(v.typeName)")
        }
    }

    /// A string, or a number written as text (house numbers and ZIP codes come both ways).
    func text(_ key: String) throws(WireError) -> String? {
        if case .number(let d)? = object[key] {
            // JSON numbers may be any size (1e400 reads as infinity): only a whole number a house
            // number or ZIP code could be is written out; the rest is an error, never a trap.
            guard let n = Int64(exactly: d), abs(n) < 1_000_000_000_000 else {
                throw WireError(.invalidArgument, "\(key) must be a whole number below 10^12 or a string")
            }
            return String(n)
        }
        return try string(key)
    }

    func double(_ key: String) throws(WireError) -> Double? {
        switch object[key] {
        case nil, .null?: return nil
        case .number(let d)? where d.isFinite: return d
        case let v?: throw WireError(.invalidArgument, "\(key) must be a finite number, got \(v.typeName)")
        }
    }

    func int(_ key: String) throws(WireError) -> Int? {
        guard let d = try double(key) else { return nil }
        guard d.rounded() == d, abs(d) < 1e9 else { throw WireError(.invalidArgument, "\(key) must be a whole number") }
        return Int(d)
    }

    func bool(_ key: String) throws(WireError) -> Bool? {
        switch object[key] {
        case nil, .null?: return nil
        case .bool(let b)?: return b
        case let v?: throw WireError(.invalidArgument, "\(key) must be true or false, got \(v.typeName)")
        }
    }

    func strings(_ key: String) throws(WireError) -> [String]? {
        switch object[key] {
        case nil, .null?: return nil
        case .array(let items)?:
            var out: [String] = []
            for item in items {
                guard case .string(let s) = item else { throw WireError(.invalidArgument, "\(key) must be an array of strings") }
                out.append(s)
            }
            return out
        case let v?: throw WireError(.invalidArgument, "\(key) must be an array of strings, got \(v.typeName)")
        }
    }

    func wkid(_ key: String) throws(WireError) -> SpatialReference? {
        guard let w = try int(key) else { return nil }
        do { return try SpatialReference(wkid: w) } catch { throw WireError(error) }
    }

    /// `{"x":…,"y":…,"wkid":…}`, wkid optional (4326).
    func location(_ key: String, required: Bool) throws(WireError) -> (GeoPoint, SpatialReference)? {
        switch object[key] {
        case nil, .null?:
            if required { throw WireError(.invalidArgument, "\(key) is required: {\"x\": …, \"y\": …, \"wkid\": 4326}") }
            return nil
        case .object(let o)?:
            let p = Arguments(o)
            guard let x = try p.double("x"), let y = try p.double("y") else {
                throw WireError(.invalidArgument, "\(key) needs numbers x and y")
            }
            return (GeoPoint(x: x, y: y), try p.wkid("wkid") ?? .wgs84)
        case let v?:
            throw WireError(.invalidArgument, "\(key) must be an object {\"x\": …, \"y\": …}, got \(v.typeName)")
        }
    }

    /// `{"xmin":…,"ymin":…,"xmax":…,"ymax":…}` in lon/lat.
    func extent(_ key: String) throws(WireError) -> Envelope? {
        switch object[key] {
        case nil, .null?: return nil
        case .object(let o)?:
            let e = Arguments(o)
            guard let x0 = try e.double("xmin"), let y0 = try e.double("ymin"), let x1 = try e.double("xmax"), let y1 = try e.double("ymax"),
                  x0 < x1, y0 < y1 else {
                throw WireError(.invalidArgument, "\(key) needs xmin < xmax and ymin < ymax")
            }
            return Envelope(minX: x0, minY: y0, maxX: x1, maxY: y1)
        case let v?:
            throw WireError(.invalidArgument, "\(key) must be an object, got \(v.typeName)")
        }
    }
}
