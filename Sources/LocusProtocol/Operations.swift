/// Every operation of protocol v1, in one machine-readable list: name, syntax and what it does.
/// `info` returns it, PROTOCOL.md documents it, and the request decoder accepts exactly these.
public struct Operation: Sendable, Codable, Hashable {
    public var name: String
    public var syntax: String
    public var summary: String

    public static let all: [Operation] = [
        Operation(name: "ping", syntax: #"{"id":1,"op":"ping"}"#, summary: "Answers at once: is the server alive."),
        Operation(name: "info", syntax: #"{"id":1,"op":"info"}"#,
                  summary: "Locator info: name, version, index metadata, layers and their fields, operations, spatial references."),
        Operation(name: "reverse", syntax: #"{"id":1,"op":"reverse","location":{"x":X,"y":Y,"wkid":4326},"max_distance":100,"out_wkid":W,"method":"frontage|nearest","layers":["neighborhoods"]}"#,
                  summary: "The address of the lot the point fronts, within max_distance metres; with layers, also the covering polygons."),
        Operation(name: "within", syntax: #"{"id":1,"op":"within","location":{"x":X,"y":Y,"wkid":4326},"layer":"neighborhoods","nearest_within":M}"#,
                  summary: "Every polygon of the layer that covers the point, smallest first; the nearest within M metres when none does."),
        Operation(name: "suggest", syntax: #"{"id":1,"op":"suggest","text":"6132 ne 34","max_results":5,"location":{"x":X,"y":Y},"extent":{"xmin":…,"ymin":…,"xmax":…,"ymax":…}}"#,
                  summary: "Suggestions for what has been typed so far."),
        Operation(name: "geocode", syntax: #"{"id":1,"op":"geocode","text":"…"} | "key":"…" | "address":{"number":…,"street":…,"city":…,"postcode":…}; "max_results","location","min_score","out_wkid","explain""#,
                  summary: "Candidates for an address, intersection, street, postcode or area, best first."),
        Operation(name: "cancel", syntax: #"{"id":2,"op":"cancel","request":1}"#, summary: "Cancels a pending request of this connection by its id."),
        Operation(name: "stats", syntax: #"{"id":1,"op":"stats"}"#, summary: "Counters: requests by op and outcome, connections, index reloads, uptime."),
        Operation(name: "auth", syntax: #"{"id":1,"op":"auth","token":"…"}"#,
                  summary: "Authenticates the connection when the server requires a token; until then only ping and auth are answered."),
        Operation(name: "reload", syntax: #"{"id":1,"op":"reload","path":"/optional/other.locus"}"#,
                  summary: "Admin: switches to a new index file (default: the same path, rebuilt); refused unless the server has tokens and the connection authenticated."),
    ]

    public static let names = Set(all.map(\.name))
}
