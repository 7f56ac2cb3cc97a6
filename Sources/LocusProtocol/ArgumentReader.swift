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

    /// Refuses a key that is neither `known` nor one of `besides`, naming it, the known one it is
    /// likely a misspelling of, and the known ones. The first such key in sorted order, so that
    /// the same request always gets the same message.
    func refuseUnknown(besides: [String] = [], known: [String], of owner: String, kind: String) throws(WireError) {
        // The common case, every key known, costs a pass over a handful of short strings.
        guard object.keys.contains(where: { !known.contains($0) && !besides.contains($0) }) else { return }
        let unknown = object.keys.filter { !known.contains($0) && !besides.contains($0) }.sorted()
        guard let key = unknown.first else { return }
        var message = "\(owner) takes no \(kind) \"\(key.prefix(40))\""
        if let meant = Self.likelyMeant(key, among: known) { message += " (did you mean \"\(meant)\"?)" }
        message += known.isEmpty ? "; it takes none" : "; it takes \(known.joined(separator: ", "))"
        throw WireError(.invalidArgument, message)
    }

    /// Other geocoders' names for the same options, as clients written for them send them.
    private static let otherNames: [String: String] = [
        "near": "location", "point": "location", "maxlocations": "max_results", "maxsuggestions": "max_results",
        "limit": "max_results", "size": "max_results", "outsr": "out_wkid", "distance": "max_distance",
        "singleline": "text", "q": "text", "query": "text", "magickey": "key", "spatialreference": "wkid",
        "sr": "wkid", "insr": "wkid", "srid": "wkid", "epsg": "wkid", "zip": "postcode", "zipcode": "postcode",
        "postal": "postcode", "postalcode": "postcode", "housenumber": "number", "searchextent": "extent",
        "bbox": "extent", "lon": "x", "lng": "x", "longitude": "x", "lat": "y", "latitude": "y",
    ]

    /// The known key `key` most likely stands for: the same letters but for case and `_`/`-`
    /// ("maxResults", "out-wkid"), another geocoder's name for it, or one or two letters off.
    static func likelyMeant(_ key: String, among known: [String]) -> String? {
        func squeezed(_ s: String) -> String { String(s.lowercased().filter { $0 != "_" && $0 != "-" }) }
        let typed = squeezed(String(key.prefix(40)))
        if let same = known.first(where: { squeezed($0) == typed }) { return same }
        if let other = otherNames[typed], known.contains(other) { return other }
        guard typed.count >= 4 else { return nil }
        return known.map { ($0, EditDistance.distance(typed, squeezed($0), limit: 2)) }
            .compactMap { name, d in d.map { (name, $0) } }
            .min { $0.1 < $1.1 }?.0
    }

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
            try p.refuseUnknown(known: ["x", "y", "wkid"], of: key, kind: "member")
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
            try e.refuseUnknown(known: ["xmin", "ymin", "xmax", "ymax"], of: key, kind: "member")
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
