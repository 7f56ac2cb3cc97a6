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

/// The Pelias and Nominatim dialects against the engine's own answers on the Portland index:
/// each answer is the protocol operation's, in the service's field names and shapes.
@Suite struct HTTPDialectTests {
    let client: HTTPTestClient
    let handler: RequestHandler

    init() throws {
        client = try HTTPTestClient()
        handler = RequestHandler(index: try TestSupport.portland())
    }

    func engineGeocode(_ text: String) throws -> GeocodeCandidate? {
        try handler.result(LocusRequest(.geocode, GeocodeArguments(request: GeocodeRequest(.text(text)))), as: GeocodeResult.self).candidates.first
    }

    func engineReverse(_ x: Double, _ y: Double) throws -> ReverseResult? {
        try handler.result(LocusRequest(.reverse, ReverseArguments(request: ReverseRequest(location: GeoPoint(x: x, y: y)))), as: ReverseReply.self).address
    }

    static func escaped(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
    }

    // MARK: Pelias

    @Test func peliasSearchIsTheGeocodeOperationsAnswer() async throws {
        let r = try await client.get("/v1/search?text=6132%20NE%2034th%20Ave")
        #expect(r.status == .ok)
        #expect(r.headers[.contentType]?.hasPrefix("application/json") == true)
        let engine = try #require(try engineGeocode("6132 NE 34th Ave"))
        #expect(r.json["type"].string == "FeatureCollection")
        #expect(r.json["geocoding"]["version"].string == "0.2")
        #expect(r.json["geocoding"]["engine"]["name"].string == "Locus")
        #expect(r.json["geocoding"]["query"]["text"].string == "6132 NE 34th Ave")
        #expect(r.json["geocoding"]["query"]["size"].number == 10)
        #expect((r.json["geocoding"]["timestamp"].number ?? 0) > 1.7e12)
        let first = r.json["features"][0]
        #expect(first["type"].string == "Feature")
        #expect(first["geometry"]["type"].string == "Point")
        let lon = try #require(first["geometry"]["coordinates"][0].number)
        let lat = try #require(first["geometry"]["coordinates"][1].number)
        #expect(GeoPoint(x: lon, y: lat).metres(to: GeoPoint(x: engine.location.x, y: engine.location.y)) < 30)
        let properties = first["properties"]
        #expect(properties["label"].string?.hasPrefix("6132 NE 34th Ave") == true)
        #expect(properties["label"].string == "6132 NE 34th Ave, Portland, OR, USA")
        #expect(properties["name"].string == "6132 NE 34th Ave")
        #expect(properties["housenumber"].string == "6132")
        #expect(properties["street"].string == "NE 34th Ave")
        #expect(properties["postalcode"].string == "97211")
        #expect(properties["neighbourhood"].string == "Concordia")
        #expect(properties["locality"].string == "Portland")
        #expect(properties["region"].string == "Oregon")
        #expect(properties["region_a"].string == "OR")
        #expect(properties["country_a"].string == "USA")
        #expect(properties["layer"].string == "address")
        #expect(properties["source"].string == "locus")
        #expect(properties["match_type"].string == "exact")
        #expect(properties["accuracy"].string == "point")
        #expect(properties["confidence"].number == engine.score / 100)
        #expect(properties["gid"].string == "locus:address:\(properties["id"].string ?? "")")
        #expect(properties["distance"] == nil)
        let bbox = try #require(r.json["bbox"].array)
        #expect(bbox.count == 4)
    }

    @Test func peliasSaysFallbackWhenTheHouseIsNotFound() async throws {
        let r = try await client.get("/v1/search?text=9999+NE+34th+Ave&size=1")
        let properties = r.json["features"][0]["properties"]
        #expect(properties["layer"].string == "street")
        #expect(properties["match_type"].string == "fallback")
        #expect(properties["accuracy"].string == "centroid")
        #expect(r.json["features"].array?.count == 1)
        let interpolated = try await client.get("/v1/search?text=6130+NE+34th+Ave&size=1")
        #expect(interpolated.json["features"][0]["properties"]["match_type"].string == "interpolated")
        // A postcode asked for is exact, not a fallback from a house.
        let zip = try await client.get("/v1/search?text=97211&size=1")
        #expect(zip.json["features"][0]["properties"]["layer"].string == "postalcode")
        #expect(zip.json["features"][0]["properties"]["match_type"].string == "exact")
        // A city is in no neighbourhood, though one covers its centre.
        let city = try await client.get("/v1/search?text=Portland&size=1")
        #expect(city.json["features"][0]["properties"]["layer"].string == "locality")
        #expect(city.json["features"][0]["properties"]["name"].string == "Portland")
        #expect(city.json["features"][0]["properties"]["neighbourhood"] == nil)
        let nominatimCity = try await client.get("/search?q=Portland&limit=1&addressdetails=1")
        #expect(nominatimCity.json[0]["type"].string == "city")
        #expect(nominatimCity.json[0]["address"]["neighbourhood"] == nil)
    }

    @Test func peliasFocusLayersAndRectangle() async throws {
        let focused = try await client.get("/v1/search?text=6132+NE+34th+Ave&focus.point.lat=45.5676&focus.point.lon=-122.6296")
        let distance = try #require(focused.json["features"][0]["properties"]["distance"].number)
        #expect(distance > 0.005 && distance < 0.05)
        let streets = try await client.get("/v1/search?text=NE+34th+Ave&layers=street")
        let layers = try #require(streets.json["features"].array).map { $0["properties"]["layer"].string }
        #expect(!layers.isEmpty && layers.allSatisfy { $0 == "street" })
        let venues = try await client.get("/v1/search?text=6132+NE+34th+Ave&layers=venue")
        #expect(venues.status == .ok && venues.json["features"].array?.isEmpty == true)
        // Hillsboro's NE 34th Ave is outside a rectangle around Portland's.
        let rect = "boundary.rect.min_lon=-122.7&boundary.rect.min_lat=45.5&boundary.rect.max_lon=-122.6&boundary.rect.max_lat=45.6"
        let inside = try await client.get("/v1/search?text=NE+34th+Ave&\(rect)")
        let localities = try #require(inside.json["features"].array).map { $0["properties"]["locality"].string }
        #expect(localities.contains("Portland") && !localities.contains("Hillsboro"))
    }

    @Test func peliasStructuredSearch() async throws {
        let r = try await client.get("/v1/search/structured?address=6132+NE+34th+Ave&locality=Portland&region=Oregon&postalcode=97211")
        #expect(r.json["features"][0]["properties"]["label"].string == "6132 NE 34th Ave, Portland, OR, USA")
        #expect(r.json["geocoding"]["query"]["locality"].string == "Portland")
        let abroad = try await client.get("/v1/search/structured?address=6132+NE+34th+Ave&country=Germany")
        #expect(abroad.status == .ok && abroad.json["features"].array?.isEmpty == true)
        let neighbourhood = try await client.get("/v1/search/structured?neighbourhood=Concordia&size=1")
        #expect(neighbourhood.json["features"][0]["properties"]["layer"].string == "neighbourhood")
        #expect(neighbourhood.json["features"][0]["properties"]["name"].string == "Concordia")
    }

    @Test func peliasReverseIsTheReverseOperationsAnswer() async throws {
        let r = try await client.get("/v1/reverse?point.lat=45.5676&point.lon=-122.6296")
        #expect(r.status == .ok)
        let engine = try #require(try engineReverse(-122.6296, 45.5676))
        let first = r.json["features"][0]
        #expect(first["properties"]["name"].string == "6132 NE 34th Ave")
        #expect(first["properties"]["label"].string?.hasPrefix("6132 NE 34th Ave") == true)
        #expect(first["properties"]["neighbourhood"].string == "Concordia")
        #expect(first["geometry"]["coordinates"][0].number == engine.location.x)
        #expect(first["geometry"]["coordinates"][1].number == engine.location.y)
        #expect(first["properties"]["distance"].number == engine.distanceMetres.rounded() / 1_000)
        #expect(first["properties"]["confidence"].number == 0.8)
        #expect(r.json["geocoding"]["query"]["point.lat"].number == 45.5676)
        // Nothing in reach: an empty collection, not an error.
        let sea = try await client.get("/v1/reverse?point.lat=30&point.lon=-140")
        #expect(sea.status == .ok)
        #expect(sea.json["features"].array?.isEmpty == true)
        // A wider circle reaches what the default does not.
        let near = try await client.get("/v1/reverse?point.lat=45.5676&point.lon=-122.6296&boundary.circle.radius=0.001")
        #expect(near.json["features"].array?.isEmpty == true)
        let coarse = try await client.get("/v1/reverse?point.lat=45.5676&point.lon=-122.6296&layers=locality")
        #expect(coarse.json["features"].array?.isEmpty == true)
    }

    @Test func peliasAutocompleteGivesFeaturesWithGeometry() async throws {
        let r = try await client.get("/v1/autocomplete?text=6132+ne+34")
        let features = try #require(r.json["features"].array)
        let house = try #require(features.first { $0["properties"]["name"].string == "6132 NE 34th Ave" })
        let engine = try #require(try engineGeocode("6132 NE 34th Ave"))
        #expect(house["geometry"]["coordinates"][0].number == engine.location.x)
        #expect(house["geometry"]["coordinates"][1].number == engine.location.y)
        #expect(house["properties"]["layer"].string == "address")
        let streets = try await client.get("/v1/autocomplete?text=concor&layers=street&size=2")
        let names = try #require(streets.json["features"].array)
        #expect(names.count == 2)
        #expect(names.allSatisfy { $0["properties"]["layer"].string == "street" })
    }

    @Test(arguments: [
        "/v1/search",
        "/v1/search?text=",
        "/v1/search?text=%20%20",
        "/v1/search?text=x&size=0",
        "/v1/search?text=x&size=1000",
        "/v1/search?text=x&size=ten",
        "/v1/search?text=x&layers=foo",
        "/v1/search?text=x&sources=osm",
        "/v1/search?text=x&focus.point.lat=45.5",
        "/v1/search?text=x&focus.point.lat=95&focus.point.lon=-122",
        "/v1/search?text=x&focus.point.lat=abc&focus.point.lon=-122",
        "/v1/search?text=x&boundary.rect.min_lon=-122&boundary.rect.min_lat=45",
        "/v1/search?text=x&boundary.rect.min_lon=-122&boundary.rect.min_lat=46&boundary.rect.max_lon=-121&boundary.rect.max_lat=45",
        "/v1/search?text=%ZZ",
        "/v1/search/structured",
        "/v1/search/structured?address=x&size=-1",
        "/v1/autocomplete",
        "/v1/autocomplete?text=x&size=41",
        "/v1/reverse",
        "/v1/reverse?point.lat=45.5",
        "/v1/reverse?point.lat=91&point.lon=-122",
        "/v1/reverse?point.lat=45.5&point.lon=-181",
        "/v1/reverse?point.lat=nan&point.lon=-122",
        "/v1/reverse?point.lat=1e400&point.lon=-122",
        "/v1/reverse?point.lat=45.5&point.lon=-122.6&boundary.circle.radius=0",
        "/v1/reverse?point.lat=45.5&point.lon=-122.6&boundary.circle.radius=500",
        "/v1/reverse?point.lat=45.5&point.lon=-122.6&size=0",
    ])
    func peliasBadParametersArePelias400s(_ target: String) async throws {
        let r = try await client.get(target)
        #expect(r.status == .badRequest, "\(target): \(r.text.prefix(200))")
        #expect(r.json["type"].string == "FeatureCollection", "\(target)")
        #expect(r.json["features"].array?.isEmpty == true, "\(target)")
        #expect(r.json["geocoding"]["errors"][0].string?.isEmpty == false, "\(target)")
    }

    @Test func peliasUnknownPathIsAPelias404AndTextTooLongIsStillPelias() async throws {
        let r = try await client.get("/v1/place?ids=locus:address:1")
        #expect(r.status == .notFound)
        #expect(r.json["geocoding"]["errors"][0].string?.isEmpty == false)
        let long = try await client.get("/v1/search?text=\(String(repeating: "a", count: 300))")
        #expect(long.status.code >= 400 && long.status.code < 500)
        #expect(long.json["geocoding"]["errors"][0].string?.isEmpty == false)
    }

    @Test func peliasTakesItsApiKeyParameterAsTheToken() async throws {
        var server = SocketServerConfiguration()
        server.tokens = ["s3cret"]
        let locked = try HTTPTestClient(server: server)
        let path = "/v1/search?text=6132+NE+34th+Ave"
        let refused = try await locked.get(path)
        #expect(refused.status == .unauthorized)
        #expect(refused.json["geocoding"]["errors"][0].string?.isEmpty == false)
        #expect(try await locked.get(path + "&api_key=s3cret").json["features"][0]["properties"]["name"].string == "6132 NE 34th Ave")
        // Nominatim's monitoring endpoint answers without one.
        #expect(try await locked.get("/status").text == "OK")
        #expect(try await locked.get("/search?q=6132+NE+34th+Ave").status == .unauthorized)
    }

    // MARK: Nominatim

    @Test func nominatimSearchIsTheGeocodeOperationsAnswer() async throws {
        let r = try await client.get("/search?q=6132+NE+34th+Ave&format=json&limit=1")
        #expect(r.status == .ok)
        let engine = try #require(try engineGeocode("6132 NE 34th Ave"))
        let places = try #require(r.json.array)
        #expect(places.count == 1)
        let first = places[0]
        // Strings, with Nominatim's seven decimals.
        #expect(first["lat"].string == String(format: "%.7f", engine.location.y))
        #expect(first["lon"].string == String(format: "%.7f", engine.location.x))
        #expect(first["class"].string == "place")
        #expect(first["category"] == nil)
        #expect(first["type"].string == "house")
        #expect(first["place_rank"].number == 30)
        #expect(first["display_name"].string == "6132, Northeast 34th Avenue, Concordia, Portland, Oregon, 97211, United States")
        #expect(first["address"] == nil)
        let box = try #require(first["boundingbox"].array)
        #expect(box.count == 4 && box.allSatisfy { $0.string != nil })
        #expect(first["place_id"].number != nil && first["place_id"].number == first["osm_id"].number)
        let detailed = try await client.get("/search?q=6132+NE+34th+Ave&format=jsonv2&addressdetails=1&limit=1")
        let place = detailed.json[0]
        #expect(place["category"].string == "place")
        #expect(place["class"] == nil)
        #expect(place["address"]["house_number"].string == "6132")
        #expect(place["address"]["road"].string == "Northeast 34th Avenue")
        #expect(place["address"]["neighbourhood"].string == "Concordia")
        #expect(place["address"]["city"].string == "Portland")
        #expect(place["address"]["state"].string == "Oregon")
        #expect(place["address"]["ISO3166-2-lvl4"].string == "US-OR")
        #expect(place["address"]["postcode"].string == "97211")
        #expect(place["address"]["country_code"].string == "us")
        #expect(place["place_id"] == first["place_id"])
        // The default format is jsonv2, and the default limit 10.
        let plain = try await client.get("/search.php?q=NE+34th+Ave")
        #expect(plain.json[0]["category"].string == "highway")
        #expect((plain.json.array?.count ?? 0) > 1)
    }

    @Test func nominatimStructuredViewboxAndCountries() async throws {
        let r = try await client.get("/search?street=6132+NE+34th+Ave&city=Portland&state=Oregon&postalcode=97211&format=json")
        #expect(r.json[0]["display_name"].string?.hasPrefix("6132, Northeast 34th Avenue") == true)
        let abroad = try await client.get("/search?q=6132+NE+34th+Ave&countrycodes=de")
        #expect(abroad.status == .ok && abroad.json.array?.isEmpty == true)
        let usa = try await client.get("/search?street=6132+NE+34th+Ave&country=USA")
        #expect(usa.json.array?.isEmpty == false)
        // A bounded viewbox around Hillsboro keeps its NE 34th Ave only.
        let hillsboro = try await client.get("/search?q=NE+34th+Ave&viewbox=-123.0,45.5,-122.9,45.6&bounded=1&addressdetails=1")
        let cities = try #require(hillsboro.json.array).map { $0["address"]["city"].string }
        #expect(!cities.isEmpty && cities.allSatisfy { $0 == "Hillsboro" })
    }

    @Test func nominatimGeoJSONAndGeocodeJSON() async throws {
        let g = try await client.get("/search?q=6132+NE+34th+Ave&format=geojson&limit=1&addressdetails=1")
        #expect(g.json["type"].string == "FeatureCollection")
        let feature = g.json["features"][0]
        #expect(feature["properties"]["category"].string == "place")
        #expect(feature["properties"]["address"]["road"].string == "Northeast 34th Avenue")
        #expect(feature["geometry"]["type"].string == "Point")
        #expect(feature["bbox"].array?.count == 4)
        let c = try await client.get("/search?q=6132+NE+34th+Ave&format=geocodejson&limit=1&addressdetails=1")
        #expect(c.json["geocoding"]["version"].string == "0.1.0")
        #expect(c.json["geocoding"]["query"].string == "6132 NE 34th Ave")
        let properties = c.json["features"][0]["properties"]["geocoding"]
        #expect(properties["type"].string == "house")
        #expect(properties["housenumber"].string == "6132")
        #expect(properties["street"].string == "Northeast 34th Avenue")
        #expect(properties["admin"]["level4"].string == "Oregon")
    }

    @Test func nominatimReverseIsTheReverseOperationsAnswer() async throws {
        let r = try await client.get("/reverse?lat=45.5676&lon=-122.6296&format=jsonv2")
        #expect(r.status == .ok)
        let engine = try #require(try engineReverse(-122.6296, 45.5676))
        #expect(r.json["lat"].string == String(format: "%.7f", engine.location.y))
        #expect(r.json["lon"].string == String(format: "%.7f", engine.location.x))
        #expect(r.json["category"].string == "place")
        #expect(r.json["display_name"].string?.hasPrefix("6132, Northeast 34th Avenue, Concordia, Portland") == true)
        // Address details by default on reverse.
        #expect(r.json["address"]["house_number"].string == "6132")
        let bare = try await client.get("/reverse.php?lat=45.5676&lon=-122.6296&format=json&addressdetails=0&zoom=18")
        #expect(bare.json["class"].string == "place")
        #expect(bare.json["address"] == nil)
        let coded = try await client.get("/reverse?lat=45.5676&lon=-122.6296&format=geocodejson")
        #expect(coded.json["features"][0]["properties"]["geocoding"]["accuracy"].number == engine.distanceMetres.rounded())
        let sea = try await client.get("/reverse?lat=30&lon=-140&format=json")
        #expect(sea.status == .ok)
        #expect(sea.json["error"].string == "Unable to geocode")
    }

    @Test func nominatimStatus() async throws {
        let text = try await client.get("/status")
        #expect(text.status == .ok)
        #expect(text.text == "OK")
        let json = try await client.get("/status.php?format=json")
        #expect(json.json["status"].number == 0)
        #expect(json.json["message"].string == "OK")
        #expect(json.json["software_version"].string == LocusVersion.current)
        #expect(json.json["data_updated"].string?.hasSuffix("+00:00") == true)
        let bad = try await client.get("/status?format=xml")
        #expect(bad.status == .badRequest)
    }

    @Test(arguments: [
        "/search",
        "/search?q=",
        "/search?q=x&format=xml",
        "/search?q=x&limit=0",
        "/search?q=x&limit=1000",
        "/search?q=x&limit=many",
        "/search?q=x&addressdetails=perhaps",
        "/search?q=x&street=y",
        "/search?q=x&viewbox=1,2,3",
        "/search?q=x&viewbox=1,2,1,5",
        "/search?q=x&viewbox=a,b,c,d",
        "/search?q=%ZZ",
        "/reverse",
        "/reverse?lat=45.5",
        "/reverse?lat=abc&lon=-122",
        "/reverse?lat=91&lon=-122",
        "/reverse?lat=45.5&lon=200",
        "/reverse?lat=inf&lon=-122",
        "/reverse?lat=45.5&lon=-122.6&zoom=99",
        "/reverse?lat=45.5&lon=-122.6&format=html",
    ])
    func nominatimBadParametersAreNominatim400s(_ target: String) async throws {
        let r = try await client.get(target)
        #expect(r.status == .badRequest, "\(target): \(r.text.prefix(200))")
        #expect(r.json["error"]["code"].number == 400, "\(target)")
        #expect(r.json["error"]["message"].string?.isEmpty == false, "\(target)")
    }

    @Test func answersAreCountedUnderTheirDialects() async throws {
        let seen = NIOLockedValueBox<[String]>([])
        let counting = try HTTPTestClient(observer: HTTPObserver(finished: { dialect, op, outcome, _ in
            seen.withLockedValue { $0.append("\(dialect) \(op) \(outcome)") }
        }))
        _ = try await counting.get("/v1/search?text=6132+NE+34th+Ave")
        _ = try await counting.get("/v1/reverse?point.lat=oops&point.lon=1")
        _ = try await counting.get("/search?q=6132+NE+34th+Ave")
        _ = try await counting.get("/reverse?lat=30&lon=-140")
        #expect(seen.withLockedValue { $0 } == ["pelias geocode ok", "pelias reverse invalid_argument", "nominatim geocode ok", "nominatim reverse ok"])
    }
}
