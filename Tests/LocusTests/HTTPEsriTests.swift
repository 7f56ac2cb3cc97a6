import Foundation
import Hummingbird
import LocusCore
import LocusEngine
import LocusHTTP
import LocusProtocol
import LocusServer
import LocusWire
import NIOConcurrencyHelpers
import Testing

/// The Esri dialect against the engine's own answers on the Portland index: every Esri answer is
/// the protocol operation's answer, in Esri's field names and shapes.
@Suite struct HTTPEsriTests {
    let client: HTTPTestClient
    let handler: RequestHandler
    static let base = "/arcgis/rest/services/Locus/GeocodeServer"

    init() throws {
        client = try HTTPTestClient()
        handler = RequestHandler(index: try TestSupport.portland())
    }

    func engineGeocode(_ text: String, out: SpatialReference = .wgs84) throws -> GeocodeCandidate? {
        try handler.result(LocusRequest(.geocode, GeocodeArguments(request: GeocodeRequest(.text(text)), out: out)), as: GeocodeResult.self).candidates.first
    }

    func engineReverse(_ x: Double, _ y: Double) throws -> ReverseResult? {
        try handler.result(LocusRequest(.reverse, ReverseArguments(request: ReverseRequest(location: GeoPoint(x: x, y: y)))), as: ReverseReply.self).address
    }

    @Test func findAddressCandidatesIsTheGeocodeOperationsAnswer() async throws {
        let r = try await client.get("\(Self.base)/findAddressCandidates?SingleLine=6132+NE+34th+Ave&outFields=*&f=json")
        #expect(r.status == .ok)
        #expect(r.headers[.contentType]?.hasPrefix("application/json") == true)
        let engine = try #require(try engineGeocode("6132 NE 34th Ave"))
        let first = r.json["candidates"][0]
        #expect(first["address"].string == engine.address)
        #expect(first["location"]["x"].number == engine.location.x)
        #expect(first["location"]["y"].number == engine.location.y)
        #expect(first["score"].number == engine.score)
        #expect(first["attributes"]["Match_addr"].string == engine.address)
        #expect(first["attributes"]["Addr_type"].string == "PointAddress")
        #expect(first["attributes"]["Nbrhd"].string == "Concordia")
        #expect(first["attributes"]["RegionAbbr"].string == "OR")
        #expect(first["attributes"]["Region"].string == "Oregon")
        #expect(r.json["spatialReference"]["wkid"].number == 4326)
        let xmin = try #require(first["extent"]["xmin"].number), xmax = try #require(first["extent"]["xmax"].number)
        #expect(xmin < engine.location.x && engine.location.x < xmax)
        // Without outFields, Esri returns no attributes.
        let bare = try await client.get("\(Self.base)/findAddressCandidates?SingleLine=6132+NE+34th+Ave")
        #expect(bare.json["candidates"][0]["attributes"] == .object([:]))
    }

    @Test func outSRGivesTheCandidateInTheCallersReference() async throws {
        let mercator = try await client.get("\(Self.base)/findAddressCandidates?SingleLine=6132+NE+34th+Ave&outSR=%7B%22wkid%22%3A102100%7D")
        #expect(mercator.json["spatialReference"]["wkid"].number == 102100)
        #expect(mercator.json["spatialReference"]["latestWkid"].number == 3857)
        let engine = try #require(try engineGeocode("6132 NE 34th Ave", out: .webMercator))
        #expect(abs((mercator.json["candidates"][0]["location"]["x"].number ?? 0) - engine.location.x) < 0.01)
        let statePlane = try await client.get("\(Self.base)/findAddressCandidates?SingleLine=6132+NE+34th+Ave&outSR=2913")
        let engineFeet = try #require(try engineGeocode("6132 NE 34th Ave", out: SpatialReference(wkid: 2913)))
        #expect(abs((statePlane.json["candidates"][0]["location"]["y"].number ?? 0) - engineFeet.location.y) < 0.01)
    }

    @Test func aSuggestionsMagicKeyGeocodesToThatPlace() async throws {
        let s = try await client.get("\(Self.base)/suggest?text=6132+ne+34&f=json")
        let suggestion = s.json["suggestions"][0]
        let key = try #require(suggestion["magicKey"].string)
        #expect(suggestion["text"].string?.hasPrefix("6132 NE 34th Ave") == true)
        #expect(suggestion["isCollection"] == .bool(false))
        let text = try #require(suggestion["text"].string)
        let g = try await client.get("\(Self.base)/findAddressCandidates?magicKey=\(key)&SingleLine=\(text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")")
        #expect(g.json["candidates"][0]["address"].string == text)
        // A key Locus never issued falls back to the text sent with it.
        let stale = try await client.get("\(Self.base)/findAddressCandidates?magicKey=zzz999&SingleLine=6132+NE+34th+Ave")
        #expect(stale.json["candidates"][0]["address"].string == text)
    }

    @Test func multiFieldInputIsGeocodedAsOneLine() async throws {
        let r = try await client.get("\(Self.base)/findAddressCandidates?Address=6132+NE+34th+Ave&City=Portland&Region=OR&Postal=97211")
        #expect(r.json["candidates"][0]["address"].string == "6132 NE 34th Ave, Portland, OR 97211")
    }

    @Test func reverseGeocodeIsTheReverseOperationsAnswer() async throws {
        let r = try await client.get("\(Self.base)/reverseGeocode?location=-122.6296,45.5676&f=json")
        let engine = try #require(try engineReverse(-122.6296, 45.5676))
        #expect(r.json["address"]["Match_addr"].string == engine.address)
        #expect(r.json["address"]["Neighborhood"].string == "Concordia")
        #expect(r.json["location"]["x"].number == engine.location.x)
        #expect(r.json["location"]["spatialReference"]["wkid"].number == 4326)
        // The same point in Web Mercator, as the tree app sends it: answered in Web Mercator.
        let json = #"{"x":-13651064.6,"y":5711325.5,"spatialReference":{"wkid":102100}}"#
        let m = try await client.get("\(Self.base)/reverseGeocode?location=\(json.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")")
        #expect(m.json["address"]["Match_addr"].string == engine.address)
        #expect(m.json["location"]["spatialReference"]["latestWkid"].number == 3857)
        #expect(abs((m.json["location"]["x"].number ?? 0) + 13_651_064) < 100)
    }

    /// `f=json` is written by hand (the hot path), `f=pjson` by the `Encoder`: the same answers.
    @Test(arguments: ["-122.6296,45.5676", "-122.68,45.52", "-122.55,45.49",
                      "%7B%22x%22%3A-13651064.6%2C%22y%22%3A5711325.5%2C%22spatialReference%22%3A%7B%22wkid%22%3A102100%7D%7D"])
    func reverseGeocodesHandWrittenJSONIsTheEncodersJSON(_ location: String) async throws {
        let fast = try await client.get("\(Self.base)/reverseGeocode?location=\(location)&f=json")
        let encoded = try await client.get("\(Self.base)/reverseGeocode?location=\(location)&f=pjson")
        #expect(fast.json["address"]["Match_addr"].string?.isEmpty == false)
        #expect(fast.json == encoded.json)
    }

    @Test func noAddressInReachIsEsrisUnableToFind() async throws {
        let r = try await client.get("\(Self.base)/reverseGeocode?location=-140,30")
        #expect(r.status == .ok)
        #expect(r.json["error"]["code"].number == 400)
        #expect(r.json["error"]["details"][0].string == "Unable to find address for the specified location.")
    }

    @Test func geocodeAddressesKeepsEveryRecordWithItsResultID() async throws {
        let records = #"{"records":[{"attributes":{"OBJECTID":7,"SingleLine":"6132 NE 34th Ave"}},{"attributes":{"OBJECTID":8,"SingleLine":"qqqq zzzz"}},{"attributes":{"OBJECTID":9,"Address":"1120 SW 5th Ave","City":"Portland"}}]}"#
        let r = try await client.post("\(Self.base)/geocodeAddresses", form: "f=json&addresses=\(records.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")")
        let locations = try #require(r.json["locations"].array)
        #expect(locations.count == 3)
        #expect(locations[0]["attributes"]["ResultID"].number == 7)
        #expect(locations[0]["address"].string == "6132 NE 34th Ave, Portland, OR 97211")
        #expect(locations[1]["attributes"]["Status"].string == "U")
        #expect(locations[1]["location"]["x"].string == "NaN")
        #expect(locations[2]["attributes"]["Status"].string == "M")
        // Portland named: its SW 5th Ave, placed along the street's line from its one downtown
        // address (no point near 1120), not a house in Canby.
        #expect(locations[2]["address"].string == "1120 SW 5th Ave, Portland, OR 97204", "\(locations[2]["address"])")
    }

    @Test func featureServerQueryByPointIsTheWithinOperationsAnswer() async throws {
        let q = "/arcgis/rest/services/Locus/FeatureServer/0/query?geometry=-122.6296,45.5676&geometryType=esriGeometryPoint&inSR=4326&spatialRel=esriSpatialRelIntersects&outFields=*&returnGeometry=true&f=json"
        let r = try await client.get(q)
        let features = try #require(r.json["features"].array)
        #expect(features.count == 1)
        #expect(features.first["attributes"]["name"].string == "Concordia")
        #expect(r.json["geometryType"].string == "esriGeometryPolygon")
        // The polygon returned contains the point asked about.
        let ring = try #require(features.first["geometry"]["rings"][0].array)
        let points = ring.compactMap { p -> GeoPoint? in
            guard let x = p[0].number, let y = p[1].number else { return nil }
            return GeoPoint(x: x, y: y)
        }
        #expect(points.count > 10)
        #expect(BoundaryLayerRing.contains(points, GeoPoint(x: -122.6296, y: 45.5676)))
        let geojson = try await client.get(q.replacingOccurrences(of: "f=json", with: "f=geojson"))
        #expect(geojson.json["type"].string == "FeatureCollection")
        #expect(geojson.json["features"][0]["properties"]["name"].string == "Concordia")
        #expect(["Polygon", "MultiPolygon"].contains(geojson.json["features"][0]["geometry"]["type"].string ?? ""))
        let count = try await client.get("/arcgis/rest/services/Locus/FeatureServer/0/query?where=1%3D1&returnCountOnly=true&f=json")
        #expect(count.json["count"].number == Double(try TestSupport.portland().metadata.layers[0].featureCount))
        let outside = try await client.get("/arcgis/rest/services/Locus/FeatureServer/0/query?geometry=-140,30&geometryType=esriGeometryPoint&f=json")
        #expect(outside.json["features"].array?.isEmpty == true)
        let layer = try await client.get("/arcgis/rest/services/Locus/FeatureServer/0?f=json")
        #expect(layer.json["objectIdField"].string == "OBJECTID")
        #expect(layer.json["fields"].array?.contains { $0["name"].string == "MAPLABEL" } == true)
    }

    /// A view wider than the world or panned past the antimeridian (as a wrapping web map sends
    /// it) selects what the same view within -180…180 does, in Web Mercator and in lon/lat.
    @Test func featureServerQueryByAViewThatWrapsAroundTheWorld() async throws {
        let query = "/arcgis/rest/services/Locus/FeatureServer/0/query?geometryType=esriGeometryEnvelope&returnCountOnly=true&f=json"
        func count(_ geometry: String, _ wkid: Int) async throws -> Double? {
            try await client.get("\(query)&inSR=\(wkid)&geometry=\(geometry)").json["count"].number
        }
        let all = Double(try TestSupport.portland().metadata.layers[0].featureCount)
        let world = 40_075_016.685_578_5
        let portland = try #require(try await count("-13655000,5700000,-13620000,5730000", 3857))
        #expect(portland > 10 && portland < all)
        #expect(try await count("-30000000,-30000000,30000000,30000000", 3857) == all)
        #expect(try await count("-1e9,-1e9,1e9,1e9", 3857) == all)
        #expect(try await count("\(-13655000 + world),5700000,\(-13620000 + world),5730000", 3857) == portland)
        #expect(try await count("\(-13655000 - 3 * world),5700000,\(-13620000 - 3 * world),5730000", 3857) == portland)
        // Across the antimeridian, at Portland's latitudes: nothing (it was every feature there).
        #expect(try await count("20000000,5700000,20100000,5730000", 3857) == 0)
        let lonLat = try #require(try await count("-122.64,45.56,-122.62,45.575", 4326))
        #expect(lonLat > 0)
        #expect(try await count("-482.64,45.56,-482.62,45.575", 4326) == lonLat)
        #expect(try await count("-540,-80,540,80", 4326) == all)
    }

    @Test(arguments: [
        "\(base)/findAddressCandidates?SingleLine=x&maxLocations=abc",
        "\(base)/findAddressCandidates?SingleLine=x&outSR=foo",
        "\(base)/findAddressCandidates?SingleLine=x&f=html",
        "\(base)/findAddressCandidates?f=json",
        "\(base)/findAddressCandidates?SingleLine=x&location=1,2,3",
        "\(base)/findAddressCandidates?SingleLine=\(String(repeating: "a", count: 300))",
        "\(base)/reverseGeocode?location=200,100",
        "\(base)/reverseGeocode?location=%7B%22x%22%3A1",
        "\(base)/reverseGeocode?location=-122.6,45.5&distance=-5",
        "\(base)/suggest?text=",
        "\(base)/geocodeAddresses?addresses=%5B1%5D",
        "/arcgis/rest/services/Other/GeocodeServer/findAddressCandidates?SingleLine=x",
        "/arcgis/rest/services/Locus/FeatureServer/7/query?geometry=1,2",
        "/arcgis/rest/services/Locus/FeatureServer/0/query?geometry=-122.6,45.5&geometryType=esriGeometryPolygon",
        "/arcgis/rest/services/Locus/FeatureServer/0/query?where=name%3D%27x%27",
        "/arcgis/rest/services/Locus/FeatureServer/0/query?geometry=-122.6,45.5&inSR=999999",
        "/arcgis/rest/services/Locus/GeocodeServer/findAddressCandidates?SingleLine=%ZZ",
        "/arcgis/rest/services/Locus/NoSuchServer",
    ])
    func badParametersAreEsriErrorsNeverA500(_ target: String) async throws {
        let r = try await client.get(target)
        #expect(r.status == .ok, "\(target)")
        let code = try #require(r.json["error"]["code"].number, "\(target): \(r.text.prefix(200))")
        // 413 for a value longer than the engine takes (SingleLine of 300 bytes).
        #expect(code == 400 || code == 413, "\(target)")
        #expect(r.json["error"]["details"][0].string?.isEmpty == false)
    }

    @Test func tokensAreEsrisTokenParameterOrABearerHeader() async throws {
        var server = SocketServerConfiguration()
        server.tokens = ["s3cret"]
        let locked = try HTTPTestClient(server: server)
        let path = "\(Self.base)/findAddressCandidates?SingleLine=6132+NE+34th+Ave"
        #expect(try await locked.get(path).json["error"]["code"].number == 499)
        #expect(try await locked.get(path + "&token=nope").json["error"]["code"].number == 498)
        #expect(try await locked.get(path + "&token=s3cret").json["candidates"][0]["score"].number == 100)
        #expect(try await locked.get(path, headers: [.authorization: "Bearer s3cret"]).json["candidates"][0]["score"].number == 100)
        #expect(try await locked.post("\(Self.base)/findAddressCandidates", form: "SingleLine=6132+NE+34th+Ave&token=s3cret").json["candidates"][0]["score"].number == 100)
        // Load balancers probe without a token.
        #expect(try await locked.get("/health").status == .ok)
        #expect(try await locked.get("/ready").status == .ok)
        #expect(try await locked.get("/metrics").status == .unauthorized)
        #expect(try await locked.get("/arcgis/rest/info?f=json").json["authInfo"]["isTokenBasedSecurity"] == .bool(true))
    }

    @Test func limitsAnswerInTheDialectsShape() async throws {
        let small = try HTTPTestClient { $0.maximumURLBytes = 512; $0.maximumBodyBytes = 2_048; $0.maximumBatchRecords = 2 }
        let long = try await small.get("\(Self.base)/findAddressCandidates?SingleLine=\(String(repeating: "a", count: 600))")
        #expect(long.json["error"]["code"].number == 413)
        let big = try await small.post("\(Self.base)/findAddressCandidates", form: "SingleLine=\(String(repeating: "b", count: 3_000))")
        #expect(big.json["error"]["code"].number == 413)
        let records = #"{"records":[{"attributes":{"SingleLine":"a"}},{"attributes":{"SingleLine":"b"}},{"attributes":{"SingleLine":"c"}}]}"#
        let batch = try await small.post("\(Self.base)/geocodeAddresses", form: "addresses=\(records.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")")
        #expect(batch.json["error"]["code"].number == 413)
        let plain = try await small.get("/ready?\(String(repeating: "a", count: 600))")
        #expect(plain.status == .uriTooLong)
    }

    /// featureTypes: an Esri type Locus does not answer finds nothing; a word that is no type is a
    /// bad parameter (it was "Unable to find address" too).
    @Test func featureTypesAreChecked() async throws {
        let at = "\(Self.base)/reverseGeocode?location=-122.6296,45.5676&f=json"
        #expect(try await client.get(at + "&featureTypes=PointAddress").json["address"]["Match_addr"].string?.hasPrefix("6132") == true)
        #expect(try await client.get(at + "&featureTypes=POI").json["error"]["code"].number == 400)
        let bogus = try await client.get(at + "&featureTypes=Bogus").json["error"]
        #expect(bogus["code"].number == 400 && bogus["details"][0].string?.contains("no feature type") == true)
    }

    /// HEAD is GET without the body: load balancers probe `HEAD /health` (it was 404 on every path,
    /// though the CORS preflight offers HEAD).
    @Test(arguments: ["/health", "/ready", "/arcgis/rest/services/Locus/GeocodeServer?f=json", "/v1/search?text=6132+ne+34th+ave"])
    func headIsGetWithoutTheBody(_ target: String) async throws {
        let head = try await client.send(.head, target, headers: [:], body: nil)
        let get = try await client.get(target)
        #expect(head.status == .ok && get.status == .ok)
        #expect(head.body.isEmpty && head.headers[.contentLength] == String(get.body.count))
    }

    @Test func corsIsOffUnlessAnOriginIsGiven() async throws {
        let closed = try await client.get("/health", headers: [.origin: "https://maps.example.org"])
        #expect(closed.headers[.accessControlAllowOrigin] == nil)
        let open = try HTTPTestClient { $0.corsOrigin = "https://maps.example.org" }
        let r = try await open.get("/health", headers: [.origin: "https://maps.example.org"])
        #expect(r.headers[.accessControlAllowOrigin] == "https://maps.example.org")
    }

    @Test func everyAnswerIsCountedByDialectOperationAndOutcome() async throws {
        let seen = NIOLockedValueBox<[String]>([])
        let counting = try HTTPTestClient(observer: HTTPObserver(finished: { dialect, op, outcome, _ in
            seen.withLockedValue { $0.append("\(dialect) \(op) \(outcome)") }
        }))
        _ = try await counting.get("\(Self.base)/findAddressCandidates?SingleLine=6132+NE+34th+Ave")
        _ = try await counting.get("\(Self.base)/reverseGeocode?location=oops")
        _ = try await counting.get("/health")
        #expect(seen.withLockedValue { $0 } == ["esri geocode ok", "esri reverse invalid_argument", "http health ok"])
    }

    @Test func theMetricsListenerServesOnlyTheOperationsEndpoints() async throws {
        let operations = try HTTPTestClient(observer: HTTPObserver(exposition: { "locus_up 1\n" })) { $0.endpoints = .operations }
        #expect(try await operations.get("/metrics").text == "locus_up 1\n")
        #expect(try await operations.get("/metrics").headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
        #expect(try await operations.get("/ready").status == .ok)
        #expect(try await operations.get("\(Self.base)/findAddressCandidates?SingleLine=x").status == .notFound)
    }

    @Test func theWorldPathAnswersToo() async throws {
        let r = try await client.get("/arcgis/rest/services/World/GeocodeServer?f=pjson")
        #expect(r.json["singleLineAddressField"]["name"].string == "SingleLine")
        #expect(r.json["capabilities"].string?.contains("ReverseGeocode") == true)
        #expect(r.text.contains("\n"))
        // ArcGIS paths ignore case.
        let lower = try await client.get("/arcgis/rest/services/locus/geocodeserver/findaddresscandidates?singleline=6132+NE+34th+Ave")
        #expect(lower.json["candidates"][0]["score"].number == 100)
    }
}

/// Even-odd containment, to check returned rings independently of the engine.
enum BoundaryLayerRing {
    static func contains(_ ring: [GeoPoint], _ p: GeoPoint) -> Bool {
        var inside = false
        for i in 0..<max(ring.count - 1, 0) {
            let a = ring[i], b = ring[i + 1]
            if (a.y > p.y) != (b.y > p.y), p.x < a.x + (p.y - a.y) * (b.x - a.x) / (b.y - a.y) { inside.toggle() }
        }
        return inside
    }
}

/// Hostile parameters on every dialect: each gets an answer (a 4xx or a real answer) quickly,
/// never a 500, and the service keeps answering.
@Suite struct HTTPHostileInputTests {
    static let esri = "/arcgis/rest/services/Locus/GeocodeServer"
    static let deepJSON = String(repeating: "%5B", count: 5_000)

    @Test(arguments: [
        "\(esri)/findAddressCandidates?SingleLine=x&maxLocations=1e300",
        "\(esri)/findAddressCandidates?SingleLine=x&maxLocations=99999999999999999999999",
        "\(esri)/findAddressCandidates?SingleLine=x&outSR=99999999999999",
        "\(esri)/findAddressCandidates?SingleLine=x&location=nan,nan",
        "\(esri)/findAddressCandidates?SingleLine=x&location=1e308,1e308",
        "\(esri)/findAddressCandidates?SingleLine=x&searchExtent=-180,-90,180,90",
        "\(esri)/reverseGeocode?location=0,90",
        "\(esri)/reverseGeocode?location=180,-90&distance=1e300",
        "\(esri)/reverseGeocode?location=\(deepJSON)",
        "\(esri)/reverseGeocode?location=-122.6,45.5&outSR=\(deepJSON)",
        "\(esri)/geocodeAddresses?addresses=\(deepJSON)",
        "\(esri)/suggest?text=\(String(repeating: "6132+ne+", count: 600))",
        "/arcgis/rest/services/Locus/FeatureServer/0/query?geometry=0,90&geometryType=esriGeometryPoint",
        "/arcgis/rest/services/Locus/FeatureServer/0/query?geometry=-122.6,45.5&outSR=2913&returnGeometry=true&resultRecordCount=99999999999",
        "/arcgis/rest/services/Locus/FeatureServer/99999999999999999999/query?geometry=1,2",
        "/v1/reverse?point.lat=90&point.lon=180",
        "/v1/reverse?point.lat=1e999&point.lon=0",
        "/v1/reverse?point.lat=45.5&point.lon=-122.6&boundary.circle.radius=1e300",
        "/v1/search?text=\(String(repeating: "a", count: 3_000))",
        "/v1/search?text=x&size=1e300",
        "/v1/search?text=x&focus.point.lat=nan&focus.point.lon=0",
        "/v1/autocomplete?text=%00%00%00",
        "/search?q=x&viewbox=1e308,1e308,-1e308,-1e308&bounded=1&format=json",
        "/search?q=x&limit=-1",
        "/reverse?lat=-90&lon=-180&format=json",
        "/reverse?lat=inf&lon=0",
        "/reverse?lat=45.5&lon=-122.6&zoom=99999999999999999999",
    ])
    func answersEveryHostileRequestWithoutA500(_ target: String) async throws {
        let client = try HTTPTestClient()
        let clock = ContinuousClock()
        let start = clock.now
        let r = try await client.get(target)
        #expect(r.status.code < 500, "\(target.prefix(120)): \(r.status) \(r.text.prefix(200))")
        #expect(clock.now - start < .seconds(1), "\(target.prefix(120))")
        // Still answering.
        #expect(try await client.get("/v1/reverse?point.lat=45.5676&point.lon=-122.6296").json["features"][0]["properties"]["housenumber"].string == "6132")
    }

    /// A full batch of the costliest records is bounded too.
    @Test func aFullBatchOfNonsenseIsBounded() async throws {
        let client = try HTTPTestClient()
        let record = #"{"attributes":{"SingleLine":"\#(String(repeating: "zq xv ", count: 40))"}}"#
        let records = "{\"records\":[" + Array(repeating: record, count: 1_000).joined(separator: ",") + "]}"
        let clock = ContinuousClock()
        let start = clock.now
        let r = try await client.post("\(Self.esri)/geocodeAddresses",
                                      form: "addresses=\(records.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")")
        #expect(r.json["locations"].array?.count == 1_000)
        #expect(clock.now - start < .seconds(10))
    }
}
