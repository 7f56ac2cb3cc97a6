import LocusCore
import LocusEngine
import LocusWire

extension Operation {
    /// Up to a millisecond on hostile text: on the worker threads.
    public static let suggest = Operation(
        name: "suggest",
        syntax: #"{"id":1,"op":"suggest","text":"6132 ne 34","max_results":5,"location":{"x":X,"y":Y},"extent":{"xmin":…,"ymin":…,"xmax":…,"ymax":…}}"#,
        summary: "Suggestions for what has been typed so far.",
        arguments: ["text", "max_results", "location", "extent"],
        decode: { (a) throws(WireError) in
            guard let text = try a.string("text") else { throw WireError(.invalidArgument, "suggest needs \"text\", a string") }
            var s = SuggestRequest(text: text)
            s.maxResults = try a.int("max_results") ?? s.maxResults
            var reference = SpatialReference.wgs84
            if let (p, srs) = try a.location("location", required: false) {
                s.near = p
                reference = srs
            }
            s.extent = try a.extent("extent")
            return SuggestArguments(request: s, locationReference: reference)
        },
        encode: { a in
            var out: [String: JSONValue] = ["text": .string(a.request.text), "max_results": .number(Double(a.request.maxResults))]
            if let near = a.request.near { out["location"] = .location(near, a.locationReference) }
            if let e = a.request.extent { out["extent"] = .extent(e) }
            return out
        },
        answeredBy: { _ in .workers },
        run: { a, handler in try handler.locator.suggest(a.request, near: a.locationReference) }
    )
}

/// The arguments of `suggest`: the engine's request, and the spatial reference of its `near`.
public struct SuggestArguments: Sendable {
    public var request: SuggestRequest
    public var locationReference: SpatialReference

    public init(request: SuggestRequest, locationReference: SpatialReference = .wgs84) {
        self.request = request
        self.locationReference = locationReference
    }
}
