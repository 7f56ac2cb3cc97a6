import LocusCore
import LocusEngine
import LocusWire

extension Operation {
    /// Up to a millisecond on hostile text: on the worker threads.
    public static let geocode = Operation(
        name: "geocode",
        syntax: #"{"id":1,"op":"geocode","text":"…"} | "key":"…" | "address":{"number":…,"street":…,"city":…,"postcode":…}; "max_results","location","min_score","out_wkid","explain""#,
        summary: "Candidates for an address, intersection, street, postcode or area, best first.",
        arguments: ["text", "key", "address", "max_results", "location", "min_score", "out_wkid", "explain"],
        decode: { (a) throws(WireError) in
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
                let f = a.nested(fields)
                try f.refuseUnknown(known: ["number", "street", "city", "postcode"], of: "address", kind: "member")
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
            return GeocodeArguments(request: g, locationReference: reference, out: try a.wkid("out_wkid") ?? .wgs84)
        },
        encode: { a in
            var out: [String: JSONValue] = [
                "max_results": .number(Double(a.request.maxResults)), "min_score": .number(a.request.minScore),
                "explain": .bool(a.request.explain), "out_wkid": .number(Double(a.out.wkid)),
            ]
            switch a.request.input {
            case .text(let t): out["text"] = .string(t)
            case .key(let k): out["key"] = .string(k)
            case .fields(let number, let street, let city, let postcode):
                var fields: [String: JSONValue] = [:]
                for (name, value) in [("number", number), ("street", street), ("city", city), ("postcode", postcode)] {
                    if let value { fields[name] = .string(value) }
                }
                out["address"] = .object(fields)
            }
            if let near = a.request.near { out["location"] = .location(near, a.locationReference) }
            return out
        },
        answeredBy: { _ in .workers },
        run: { a, handler in try handler.locator.geocode(a.request, near: a.locationReference, outSpatialReference: a.out) }
    )
}

/// The arguments of `geocode`: the engine's request, the spatial reference of its `near`, and
/// the one the candidates' locations are given in.
public struct GeocodeArguments: Sendable {
    public var request: GeocodeRequest
    public var locationReference: SpatialReference
    public var out: SpatialReference

    public init(request: GeocodeRequest, locationReference: SpatialReference = .wgs84, out: SpatialReference = .wgs84) {
        self.request = request
        self.locationReference = locationReference
        self.out = out
    }
}
