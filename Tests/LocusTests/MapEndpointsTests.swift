import Foundation
import LocusCore
import LocusEngine
import LocusEvaluation
import LocusHTTP
import LocusProtocol
import LocusServer
import LocusWire
import Testing

/// What the map page is drawn from, without a browser: the generalisation, the polygons and
/// points of a view against references, `/locus/…` against the operations, the page's files and
/// their token rules.
@Suite struct MapEndpointsTests {
    let client: HTTPTestClient

    init() throws {
        client = try HTTPTestClient { $0.mapPageDirectory = TestSupport.packageRoot.appendingPathComponent("Web/map").path }
    }

    // MARK: Generalisation

    /// A circle of 10,000 vertices generalised at a tolerance: far fewer vertices, every one of
    /// the original's, and no original vertex further than the tolerance from the kept outline.
    @Test(arguments: [1e-5, 1e-4, 1e-3])
    func ringsAreGeneralisedWithinTheTolerance(_ tolerance: Double) throws {
        let n = 10_000
        var ring = (0..<n).map { i -> GeoPoint in
            let a = Double(i) / Double(n) * 2 * .pi
            return GeoPoint(x: -122.6 + 0.01 * cos(a), y: 45.5 + 0.01 * sin(a) * (1 + 0.05 * sin(7 * a)))
        }
        ring.append(ring[0])
        let kept = try #require(RingSimplification.simplified(ring, tolerance: tolerance))
        #expect(kept.count < ring.count / 10 && kept.count >= 4)
        #expect(kept.first == kept.last)
        let original = Set(ring.map { [$0.x, $0.y] })
        #expect(kept.allSatisfy { original.contains([$0.x, $0.y]) })
        for p in ring {
            let nearest = (0..<(kept.count - 1)).map { RingSimplification.squaredDistance(p, kept[$0], kept[$0 + 1]) }.min() ?? .infinity
            #expect(nearest.squareRoot() <= tolerance * (1 + 1e-9))
        }
    }

    @Test func aRingSmallerThanTheToleranceIsDropped() {
        let square = [GeoPoint(x: 0, y: 0), GeoPoint(x: 1e-6, y: 0), GeoPoint(x: 1e-6, y: 1e-6), GeoPoint(x: 0, y: 1e-6), GeoPoint(x: 0, y: 0)]
        #expect(RingSimplification.simplified(square, tolerance: 1e-3) == nil)
        #expect(RingSimplification.simplified(square, tolerance: 1e-9) == square)
        #expect(RingSimplification.simplified(Array(square.prefix(2)), tolerance: 1e-9) == nil)
    }

    // MARK: A view's polygons and points

    /// `features(meeting:)` against GEOS's prepared `intersects` on Portland's 98 real polygons,
    /// for boxes of every size from a few metres to the whole city, many on boundaries.
    @Test func polygonsMeetingABoxAreGEOSsIntersects() throws {
        let index = try TestSupport.portland()
        let layer = try #require(index.layers["neighborhoods"])
        let geos = try GEOSReferenceLayer(polygonsWKB: index.layerWKB("neighborhoods"))
        var generator = SeededGenerator(seed: 14)
        let extent = layer.extentOfFeatures
        for i in 0..<600 {
            let side = [0.00005, 0.0005, 0.005, 0.05, 0.3][i % 5]
            let x = Double.random(in: (extent.minX - side)...extent.maxX, using: &generator)
            let y = Double.random(in: (extent.minY - side)...extent.maxY, using: &generator)
            let box = Envelope(minX: x, minY: y, maxX: x + side * Double.random(in: 0.2...1.5, using: &generator), maxY: y + side)
            let expected = try geos.meeting(box)
            #expect(layer.features(meeting: box) == expected, "\(box)")
        }
    }

    /// The points of a view are the points a scan of every address finds inside it.
    @Test func pointsInABoxAreThoseAScanFinds() throws {
        let addresses = try #require(try TestSupport.portland().addresses)
        var generator = SeededGenerator(seed: 15)
        for side in [0.0002, 0.002, 0.02, 0.2] {
            let x = Double.random(in: -122.75 ... -122.5, using: &generator), y = Double.random(in: 45.45...45.6, using: &generator)
            let box = Envelope(minX: x, minY: y, maxX: x + side, maxY: y + side * 0.7)
            var found: [Int] = []
            addresses.forEachPoint(in: box) { found.append($0) }
            let scanned = addresses.points.indices.filter { box.contains(x: addresses.points[$0].lon, y: addresses.points[$0].lat) }
            #expect(found.sorted() == scanned, "\(box)")
        }
        var none: [Int] = []
        addresses.forEachPoint(in: Envelope(minX: 10, minY: 10, maxX: 11, maxY: 11)) { none.append($0) }
        #expect(none.isEmpty)
    }

    @Test func aViewGetsItsPointsOrTheirDensityNeverMoreThanTheLimit() async throws {
        let small = try await client.get("/locus/addresses?bbox=-122.6305,45.5670,-122.6285,45.5682")
        let points = try #require(small.json["points"].array)
        #expect(small.status == .ok && small.json["count"].number == Double(points.count) && !points.isEmpty)
        #expect(points.contains { $0["address"].string == "6132 NE 34th Ave, Portland, OR 97211" })
        // The whole city: its density, on at most 64 × 64 cells, counting every address.
        let city = try await client.get("/locus/addresses?bbox=-123.4,45.1,-121.9,45.8")
        let cells = try #require(city.json["cells"].array)
        #expect(city.json["points"] == nil && cells.count <= 64 * 64 && cells.count > 100)
        let total = cells.reduce(0.0) { $0 + ($1["count"].number ?? 0) }
        let all = Double(try TestSupport.portland().addresses?.count ?? 0)
        #expect(total == city.json["count"].number && total == all)
        let limited = try await client.get("/locus/addresses?bbox=-122.6305,45.5670,-122.6285,45.5682&limit=1")
        #expect(limited.json["cells"].array?.isEmpty == false && limited.json["limit"].number == 1)
        for bad in ["/locus/addresses", "/locus/addresses?bbox=1,2,3", "/locus/addresses?bbox=-122.6,45.5,-122.7,45.6",
                    "/locus/addresses?bbox=-122.6,45.5,-122.5,45.6&limit=99999999", "/locus/addresses?bbox=-122.6,45.5,-122.5,95"] {
            let r = try await client.get(bad)
            #expect(r.status == .badRequest && r.json["error"]["code"].string == "invalid_argument", "\(bad): \(r.text.prefix(200))")
        }
    }

    /// The FeatureServer's view query: the polygons meeting the envelope, generalised by
    /// `maxAllowableOffset`, with a label point inside each.
    @Test func featureServerAnswersAViewGeneralised() async throws {
        let base = "/arcgis/rest/services/Locus/FeatureServer/0/query?geometry=-122.64,45.56,-122.62,45.575&geometryType=esriGeometryEnvelope&inSR=4326&outFields=id,name&returnCentroid=true&f=geojson"
        let full = try await client.get(base)
        let generalised = try await client.get(base + "&maxAllowableOffset=0.0005")
        let names = try #require(full.json["features"].array).compactMap { $0["properties"]["name"].string }
        let layer = try #require(try TestSupport.portland().layers["neighborhoods"])
        let expected = layer.features(meeting: Envelope(minX: -122.64, minY: 45.56, maxX: -122.62, maxY: 45.575)).map { layer.features[$0].name }
        #expect(names == expected && names.contains("Concordia"))
        #expect(generalised.json["features"].array?.compactMap { $0["properties"]["name"].string } == names)
        func vertices(_ r: HTTPTestClient.Reply) -> Int {
            (r.json["features"].array ?? []).reduce(0) { n, f in
                let coordinates = f["geometry"]["coordinates"].array ?? []
                let polygons = f["geometry"]["type"].string == "Polygon" ? [JSONValue.array(coordinates)] : coordinates
                return n + polygons.reduce(0) { $0 + ($1.array ?? []).reduce(0) { $0 + ($1.array?.count ?? 0) } }
            }
        }
        #expect(vertices(generalised) < vertices(full) / 3, "\(vertices(generalised)) of \(vertices(full))")
        for f in try #require(full.json["features"].array) {
            let c = try #require(f["centroid"].array)
            let point = GeoPoint(x: c.first?.numericValue ?? 0, y: c.last?.numericValue ?? 0)
            let i = try #require(layer.features.firstIndex { $0.name == f["properties"]["name"].string })
            #expect(layer.covering(x: point.x, y: point.y).contains(i), "the label of \(layer.features[i].name) is inside it")
        }
        let esri = try await client.get(base.replacingOccurrences(of: "f=geojson", with: "f=json") + "&maxAllowableOffset=0.0005")
        #expect(esri.json["features"][0]["centroid"]["x"].number != nil && esri.json["features"][0]["geometry"]["rings"].array?.isEmpty == false)
        let bad = try await client.get(base + "&maxAllowableOffset=-1")
        #expect(bad.json["error"]["code"].number == 400)
    }

    // MARK: /locus/ and the operations

    @Test func locusEndpointsAreTheOperationsAnswers() async throws {
        let handler = RequestHandler(index: try TestSupport.portland())
        let info = try await client.get("/locus/info")
        #expect(info.json["locator"]["index"]["layers"][0]["name"].string == "neighborhoods")
        #expect(info.json["locator"]["index"]["metadata"]["address_count"].string == "435177")
        #expect(info.json["service_name"].string == "Locus" && (info.json["extent"]["xmin"].number ?? 0) < -122.6)

        let suggest = try await client.get("/locus/suggest?text=6132+ne+34&maxSuggestions=3")
        #expect(suggest.json["suggestions"][0]["text"].string == "6132 NE 34th Ave, Portland, OR 97211")
        let key = try #require(suggest.json["suggestions"][0]["key"].string)
        let geocode = try await client.get("/locus/geocode?magicKey=\(key)")
        #expect(geocode.json["candidates"][0]["address"].string == "6132 NE 34th Ave, Portland, OR 97211")
        #expect(geocode.json["candidates"][0]["explain"].array?.isEmpty == false, "explain is on by default")

        for method in ReverseMethod.allCases {
            var request = ReverseRequest(location: GeoPoint(x: -122.629576, y: 45.567553))
            request.method = method
            let expected = try handler.result(LocusRequest(.reverse, ReverseArguments(request: request, layers: ["neighborhoods"])), as: ReverseReply.self)
            let r = try await client.get("/locus/reverse?location=-122.629576,45.567553&method=\(method.rawValue)")
            #expect(r.json["address"].string == expected.address?.address && r.json["match_type"].string == expected.address?.matchType.rawValue)
            #expect(r.json["location"]["x"].number == expected.address?.location.x)
            #expect(r.json["features"][0]["name"].string == "Concordia")
        }
        // Far from every address and polygon: an answer all the same, with nothing in it.
        let nowhere = try await client.get("/locus/reverse?location=-100,40")
        #expect(nowhere.status == .ok && nowhere.json["features"].array?.isEmpty == true && nowhere.json["address"] == .null)
        for (bad, status) in [("/locus/reverse", 400), ("/locus/reverse?location=-122.6,45.5&method=psychic", 400),
                              ("/locus/reverse?location=-122.6,45.5&layers=zoning", 404), ("/locus/suggest", 400),
                              ("/locus/geocode", 400), ("/locus/suggest?text=x&maxSuggestions=99", 400), ("/locus/nothing", 404)] {
            let r = try await client.get(bad)
            #expect(Int(r.status.code) == status && r.json["error"]["message"].string?.isEmpty == false, "\(bad): \(r.text.prefix(200))")
        }
    }

    // MARK: The page

    @Test func thePageAndLeafletArePublicTheDataIsNot() async throws {
        var server = SocketServerConfiguration()
        server.tokens = ["s3cret"]
        let locked = try HTTPTestClient(server: server) { $0.mapPageDirectory = TestSupport.packageRoot.appendingPathComponent("Web/map").path }
        let page = try await locked.get("/")
        #expect(page.status == .ok && page.headers[.contentType]?.hasPrefix("text/html") == true && page.text.contains("/leaflet/leaflet.js"))
        #expect(try await locked.get("/map/map.js").text.contains("/locus/reverse"))
        let leaflet = try await locked.get("/leaflet/leaflet.js")
        #expect(leaflet.status == .ok && leaflet.headers[.contentType]?.hasPrefix("text/javascript") == true && leaflet.body.count > 100_000)
        #expect(try await locked.get("/leaflet/images/marker-icon.png").headers[.contentType] == "image/png")
        for missing in ["/leaflet/../../../etc/passwd", "/leaflet/nothing.js", "/map/index.html", "/map/..%2F..%2FPackage.swift"] {
            #expect(try await locked.get(missing).status == .notFound, "\(missing)")
        }
        for data in ["/locus/info", "/locus/reverse?location=-122.6,45.5", "/locus/addresses?bbox=-122.6,45.5,-122.5,45.6"] {
            #expect(try await locked.get(data).status == .unauthorized, "\(data)")
            #expect(try await locked.get(data, headers: [.authorization: "Bearer s3cret"]).status == .ok, "\(data)")
        }
    }

    @Test func withoutLeafletThePageSaysWhatToInstall() async throws {
        let bare = try HTTPTestClient {
            $0.mapPageDirectory = TestSupport.packageRoot.appendingPathComponent("Web/map").path
            $0.leafletDirectory = "/nonexistent/leaflet"
        }
        let page = try await bare.get("/")
        #expect(page.status == .notFound && page.text.contains("libjs-leaflet") && page.text.contains("/nonexistent/leaflet"))
        #expect(try await bare.get("/leaflet/leaflet.js").json["error"]["message"].string?.contains("libjs-leaflet") == true)
        let noPage = try HTTPTestClient()
        #expect(try await noPage.get("/").text.contains("--web-dir"))
        // The rest answers regardless.
        #expect(try await bare.get("/locus/suggest?text=6132+ne+34").status == .ok)
    }
}
