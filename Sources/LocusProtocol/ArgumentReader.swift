import LocusCore
import LocusEngine
import LocusWire

/// Typed access to a request's arguments, each failure naming the argument, and the limits an
/// operation's decoding checks them against.
struct ArgumentReader {
    let object: [String: JSONValue]
    let limits: RequestLimits

    init(_ object: [String: JSONValue], limits: RequestLimits) {
        self.object = object
        self.limits = limits
    }

    /// The members of an object argument, read with the same limits.
    func nested(_ object: [String: JSONValue]) -> ArgumentReader { ArgumentReader(object, limits: limits) }

    func string(_ key: String) throws(WireError) -> String? {
        switch object[key] {
        case nil, .null?: return nil
        case .string(let s)?: return s
        case let v?: throw WireError(.invalidArgument, "\(key) must be a string, got \(v.typeName)")
        }
    }

    /// A string, or a number written as text (house numbers and ZIP codes come both ways).
    func text(_ key: String) throws(WireError) -> String? {
        if let d = object[key]?.numericValue {
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
        case let v? where v.numericValue?.isFinite == true: return v.numericValue
        case let v?: throw WireError(.invalidArgument, "\(key) must be a finite number, got \(v.typeName)")
        }
    }

    func int(_ key: String) throws(WireError) -> Int? {
        guard let d = try double(key) else { return nil }
        guard d.rounded() == d else { throw WireError(.invalidArgument, "\(key) must be a whole number") }
        guard abs(d) < 1e9 else { throw WireError(.invalidArgument, "\(key) must be below 1000000000") }
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
            let p = nested(o)
            guard let x = try p.double("x"), let y = try p.double("y") else {
                throw WireError(.invalidArgument, "\(key) needs numbers x and y")
            }
            return (GeoPoint(x: x, y: y), try p.wkid("wkid") ?? .wgs84)
        case let v?:
            throw WireError(.invalidArgument, "\(key) must be an object {\"x\": …, \"y\": …}, got \(v.typeName)")
        }
    }

    /// A location that must be there.
    func requiredLocation(_ key: String) throws(WireError) -> (GeoPoint, SpatialReference) {
        guard let found = try location(key, required: true) else {
            throw WireError(.invalidArgument, "\(key) is required: {\"x\": …, \"y\": …, \"wkid\": 4326}")
        }
        return found
    }

    /// `{"xmin":…,"ymin":…,"xmax":…,"ymax":…}` in lon/lat.
    func extent(_ key: String) throws(WireError) -> Envelope? {
        switch object[key] {
        case nil, .null?: return nil
        case .object(let o)?:
            let e = nested(o)
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

/// Arguments as a request line carries them: the inverse of `ArgumentReader`, for requests built
/// in code and sent to a server.
extension JSONValue {
    static func location(_ p: GeoPoint, _ srs: SpatialReference) -> JSONValue {
        .object(["x": .number(p.x), "y": .number(p.y), "wkid": .number(Double(srs.wkid))])
    }

    static func extent(_ e: Envelope) -> JSONValue {
        .object(["xmin": .number(e.minX), "ymin": .number(e.minY), "xmax": .number(e.maxX), "ymax": .number(e.maxY)])
    }
}
