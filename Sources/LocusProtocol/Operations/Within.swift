import LocusCore
import LocusEngine
import LocusWire

extension Operation {
    /// On the event loop, but with `nearest_within` on the worker threads: the nearest polygon
    /// within 50 km of a point far from all of them takes about a millisecond; so does a point in
    /// a system other than WGS 84 or Web Mercator (`Reverse.swift`).
    public static let within = Operation(
        name: "within",
        syntax: #"{"id":1,"op":"within","location":{"x":X,"y":Y,"wkid":4326},"layer":"neighborhoods","nearest_within":M}"#,
        summary: "Every polygon of the layer that covers the point, smallest first; the nearest within M metres when none does.",
        arguments: ["location", "layer", "nearest_within"],
        decode: { (a) throws(WireError) in
            let (location, reference) = try a.requiredLocation("location")
            var w = WithinRequest(location: location)
            w.spatialReference = reference
            w.layer = try a.string("layer") ?? w.layer
            w.nearestWithin = try a.double("nearest_within")
            return w
        },
        encode: { w in
            var out: [String: JSONValue] = ["location": .location(w.location, w.spatialReference), "layer": .string(w.layer)]
            if let d = w.nearestWithin { out["nearest_within"] = .number(d) }
            return out
        },
        answeredBy: { w in w.nearestWithin == nil && w.spatialReference.isQuickToSetUp ? .eventLoop : .workers },
        run: { w, handler in try handler.locator.within(w) }
    )
}
