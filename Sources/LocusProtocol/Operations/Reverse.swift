import LocusCore
import LocusEngine
import LocusWire

extension Operation {
    /// Microseconds whatever the point: on the event loop.
    public static let reverse = Operation(
        name: "reverse",
        syntax: #"{"id":1,"op":"reverse","location":{"x":X,"y":Y,"wkid":4326},"max_distance":100,"out_wkid":W,"method":"frontage|nearest","layers":["neighborhoods"]}"#,
        summary: "The address of the lot the point fronts, within max_distance metres; with layers, also the covering polygons.",
        arguments: ["location", "max_distance", "out_wkid", "method", "layers"],
        decode: { (a) throws(WireError) in
            let (location, reference) = try a.requiredLocation("location")
            var r = ReverseRequest(location: location)
            r.spatialReference = reference
            r.maxDistance = try a.double("max_distance") ?? r.maxDistance
            r.outSpatialReference = try a.wkid("out_wkid")
            if let m = try a.string("method") {
                guard let method = ReverseMethod(rawValue: m) else {
                    throw WireError(.invalidArgument, "method must be \"frontage\" or \"nearest\"")
                }
                r.method = m.isEmpty ? .frontage : method
            }
            let layers = try a.strings("layers") ?? []
            guard layers.count <= a.limits.maximumLayers else {
                throw WireError(.tooLarge, "at most \(a.limits.maximumLayers) layers")
            }
            return ReverseArguments(request: r, layers: layers)
        },
        encode: { a in
            var out: [String: JSONValue] = [
                "location": .location(a.request.location, a.request.spatialReference),
                "max_distance": .number(a.request.maxDistance), "method": .string(a.request.method.rawValue),
            ]
            if let o = a.request.outSpatialReference { out["out_wkid"] = .number(Double(o.wkid)) }
            if !a.layers.isEmpty { out["layers"] = .array(a.layers.map(JSONValue.string)) }
            return out
        },
        // Another system than WGS 84 or Web Mercator may take PROJ 100–300 ms to set up on a
        // thread: on the workers, it holds up no other connection of the event loop (a client
        // cycling through such systems held every connection's pings for up to 8.6 s).
        answeredBy: { a in
            a.request.spatialReference.isQuickToSetUp && (a.request.outSpatialReference?.isQuickToSetUp ?? true) ? .eventLoop : .workers
        },
        run: { a, handler in try ReverseReply(a.request, layers: a.layers, locator: handler.locator) }
    )
}

/// The arguments of `reverse`: the engine's request, and the layers whose covering polygons the
/// reply adds.
public struct ReverseArguments: Sendable {
    public var request: ReverseRequest
    public var layers: [String]

    public init(request: ReverseRequest, layers: [String] = []) {
        self.request = request
        self.layers = layers
    }
}

extension ReverseReply {
    /// The answer to `reverse` with `layers` (the CLI's `reverse --layer`): the address and the
    /// covering polygons; not found only when there is neither an address nor a layer asked for.
    public init(_ request: ReverseRequest, layers: [String], locator: Locator) throws(LocusError) {
        var features: [FeatureMatch]?
        if !layers.isEmpty {
            var all: [FeatureMatch] = []
            for layer in layers {
                var w = WithinRequest(location: request.location)
                w.spatialReference = request.spatialReference
                w.layer = layer
                all += try locator.within(w).features
            }
            features = all
        }
        let address = try locator.reverse(request)
        if address == nil, features == nil {
            throw LocusError(.notFound, "no address within \(request.maxDistance) m of this point")
        }
        self.init(address: address, features: features)
    }
}
