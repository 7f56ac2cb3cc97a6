import LocusWire

/// What `locus serve --http` (and `--metrics`) can be told about the HTTP endpoints. Tokens and
/// the beyond-loopback rule are the socket server's (`ServerConfiguration`): one set of rules.
public struct HTTPConfiguration: Sendable {
    /// Which endpoints a listener serves.
    public enum Endpoints: Sendable {
        /// Esri, Pelias and Nominatim dialects, and the operations endpoints.
        case all
        /// `/metrics`, `/health` and `/ready` only: the `--metrics` listener.
        case operations
    }

    /// Where to listen (`tcp://HOST:PORT` or `unix:/path`). Default `tcp://127.0.0.1:8080`.
    public var listen: ListenAddress = .tcp(host: "127.0.0.1", port: 8080)
    /// What this listener serves. Default: everything.
    public var endpoints: Endpoints = .all
    /// The locator's service name in Esri paths: `/arcgis/rest/services/<name>/GeocodeServer`.
    /// Default `Locus`.
    public var serviceName: String = "Locus"
    /// Also answer under the name `World`, for clients with ArcGIS Online's path built in (geopy's
    /// `ArcGIS`, many scripts). Default true.
    public var answerAsWorld: Bool = true
    /// The one web origin allowed to call from a browser (`Access-Control-Allow-Origin`), or `*`.
    /// Default nil: no CORS headers, so browsers refuse other sites' pages.
    public var corsOrigin: String? = nil
    /// Longest request target (path and query) in bytes; a longer one is answered 414. Default
    /// 8 KiB, the limit of common proxies.
    public var maximumURLBytes: Int = 8_192
    /// Largest request body (a form-encoded `geocodeAddresses` batch, a POSTed query) in bytes;
    /// larger is answered 413. Default 1 MiB.
    public var maximumBodyBytes: Int = 1_048_576
    /// Most records one `geocodeAddresses` request may carry (its `MaxBatchSize`). Default 1,000.
    public var maximumBatchRecords: Int = 1_000
    /// The polygon layer whose covering feature names an answer's neighbourhood (Pelias's
    /// `neighbourhood`, Nominatim's `address.neighbourhood`, Esri's `Nbrhd`). Default nil: the
    /// index's first layer.
    public var neighbourhoodLayer: String? = nil
    /// The folder holding the map page (`index.html`, `map.js`, `map.css`: `Web/map` in the
    /// checkout), served at `/`. Default nil: `/` answers 404, saying where the page would be.
    public var mapPageDirectory: String? = nil
    /// Where Debian's `libjs-leaflet` installed Leaflet, which the map page draws with; served
    /// at `/leaflet/`. Default `/usr/share/javascript/leaflet`.
    public var leafletDirectory: String = "/usr/share/javascript/leaflet"
    /// Most address points `/locus/addresses` returns for one view; a view holding more is
    /// answered with their density instead. Default 5,000 (about 300 KB of JSON).
    public var maximumPointsInView: Int = 5_000
    /// Seconds a connection has to send a request's head (its request line and headers), from
    /// opening or from its last answer; then it is closed. A client trickling header lines is
    /// never idle, and a thousand of them held every connection. Default 30 s.
    public var headTimeout: Double = 30

    public init() {}

    /// The configuration's own contradictions, as messages for the user; empty when usable.
    public func problems() -> [String] {
        var out: [String] = []
        if serviceName.isEmpty || serviceName.contains("/") || serviceName.contains("?") {
            out.append("the service name must be non-empty, without '/' or '?'")
        }
        if maximumURLBytes < 256 { out.append("the URL limit must be at least 256 bytes") }
        if maximumBodyBytes < 1_024 { out.append("the body limit must be at least 1024 bytes") }
        if maximumBatchRecords < 1 { out.append("a batch must be allowed at least one record") }
        if !(1...100_000).contains(maximumPointsInView) { out.append("the points in a view must be 1 … 100000") }
        if !(headTimeout > 0 && headTimeout <= 3_600) { out.append("the head timeout must be positive and at most 3600 s") }
        if let o = corsOrigin, o.isEmpty || o.contains(where: { $0 == "\r" || $0 == "\n" || $0 == " " }) {
            out.append("--cors-origin must be an origin such as https://maps.example.org, or *")
        }
        return out
    }
}
