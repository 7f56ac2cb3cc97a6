import Foundation
import LocusCore
import LocusEngine
import LocusWire

/// One answer as Nominatim describes a place: OSM's class and type, its rank, its address in
/// OSM's words (`house_number`, `road`, `city`, …) and its display name, written in the JSON
/// formats Nominatim has (`json`, `jsonv2`, `geojson`, `geocodejson`).
struct NominatimPlace: Sendable {
    var placeID: Int
    /// `node` for a point, `way` for a street, `relation` for an area, as OSM holds each kind.
    var osmType: String
    var location: GeoPoint
    /// OSM's key and value for the kind of place (`place`/`house`, `highway`/`road`).
    var osmKey: String
    var osmValue: String
    var placeRank: Int
    var importance: Double
    var addressType: String
    var name: String
    var displayName: String
    var address: Address
    /// Half the side of the bounding box, in degrees, as Nominatim draws one around a point.
    var extent: Double
    /// GeocodeJSON's word for the kind of place.
    var geocodeJSONType: String
    /// Metres from the point asked about (reverse).
    var distanceMetres: Double?

    /// Nominatim's `address` object, in its key order.
    struct Address: Encodable, Sendable {
        var houseNumber: String?
        var road: String?
        var neighbourhood: String?
        var city: String?
        var state: String?
        var stateCode: String?
        var postcode: String?
        var country = "United States"
        var countryCode = "us"

        enum CodingKeys: String, CodingKey {
            case houseNumber = "house_number", road, neighbourhood, city, state
            case stateCode = "ISO3166-2-lvl4", postcode, country, countryCode = "country_code"
        }
    }

    /// - Parameter score: the geocoder's 0–100, as Nominatim's `importance` (0–1): what a client
    ///   ranks by.
    init(_ type: MatchType, _ addressLine: String, _ c: AddressComponents, _ at: GeoPoint, score: Double, _ s: HTTPEngine.Session) {
        let neighbourhood = HTTPPlace.neighbourhood(type, at: at, s)
        // OSM spells street names out ("Northeast 34th Avenue"), as the publisher did.
        let road = c.streetFull.isEmpty ? c.street : c.streetFull
        func nonEmpty(_ text: String) -> String? { text.isEmpty ? nil : text }
        address = Address(houseNumber: HTTPPlace.isHouse(type) ? nonEmpty(c.number) : nil, road: nonEmpty(road),
                          neighbourhood: neighbourhood, city: nonEmpty(c.city),
                          state: c.state.isEmpty ? nil : USRegions.name(c.state),
                          stateCode: c.state.isEmpty ? nil : "US-\(c.state.uppercased())", postcode: nonEmpty(c.postcode))
        switch type {
        case .pointAddress, .interpolated, .extrapolated:
            (osmType, osmKey, osmValue, placeRank, addressType, geocodeJSONType, extent) = ("node", "place", "house", 30, "place", "house", 0.00005)
            name = ""
        case .block, .street, .intersection:
            (osmType, osmKey, osmValue, placeRank, addressType, geocodeJSONType, extent) = ("way", "highway", "road", 26, "road", "street", 0.005)
            name = road
        case .postcode:
            (osmType, osmKey, osmValue, placeRank, addressType, geocodeJSONType, extent) = ("relation", "place", "postcode", 21, "postcode", "locality", 0.05)
            name = c.postcode
        case .neighbourhood:
            (osmType, osmKey, osmValue, placeRank, addressType, geocodeJSONType, extent) = ("relation", "place", "neighbourhood", 22, "neighbourhood", "locality", 0.01)
            // The engine's neighbourhood answers carry no street or number: their polygon names them.
            name = neighbourhood ?? addressLine
        case .locality:
            (osmType, osmKey, osmValue, placeRank, addressType, geocodeJSONType, extent) = ("relation", "place", "city", 16, "city", "city", 0.16)
            name = c.city.isEmpty ? addressLine : c.city
        }
        location = at
        placeID = HTTPPlace.number(type, address: addressLine, name: name, at: at)
        importance = (score / 100 * 1e5).rounded() / 1e5
        let a = address
        displayName = [a.houseNumber, a.road, a.neighbourhood, a.city, a.state, a.postcode, a.country]
            .compactMap { $0 }.joined(separator: ", ")
    }

    /// Nominatim writes coordinates as strings with seven decimals (a centimetre).
    static func degrees(_ value: Double) -> String { String(format: "%.7f", value) }

    // MARK: Writing

    /// The places in `format`; `single` (reverse) writes one object, or Nominatim's "Unable to
    /// geocode" when there is none.
    static func write(_ places: [NominatimPlace], _ format: NominatimAnswers.Format, details: Bool, query: String,
                      single: Bool) -> HTTPReply {
        if single, places.isEmpty { return .json(["error": "Unable to geocode"]) }
        switch format {
        case .json, .jsonv2:
            let objects = places.map { Plain(place: $0, classKey: format == .json ? "class" : "category", details: details) }
            guard single, let first = objects.first else { return .json(objects) }
            return .json(first)
        case .geojson:
            return .json(GeoJSONCollection(features: places.map { GeoJSONFeature(place: $0, details: details) }))
        case .geocodejson:
            return .json(GeocodeJSONCollection(geocoding: .init(query: query.isEmpty ? nil : query),
                                               features: places.map { GeocodeJSONFeature(place: $0, details: details) }))
        }
    }

    static let licence = "Data from the publishers of this server's index (locus index info names them), served by Locus"

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// `json` and `jsonv2`: alike but for the name of the class key (`class`, `category`).
    struct Plain: Encodable, Sendable {
        var place: NominatimPlace
        var classKey: String
        var details: Bool

        func encode(to encoder: any Encoder) throws {
            let p = place
            var c = encoder.container(keyedBy: Key.self)
            try c.encode(p.placeID, forKey: Key("place_id"))
            try c.encode(NominatimPlace.licence, forKey: Key("licence"))
            try c.encode(p.osmType, forKey: Key("osm_type"))
            try c.encode(p.placeID, forKey: Key("osm_id"))
            try c.encode(NominatimPlace.degrees(p.location.y), forKey: Key("lat"))
            try c.encode(NominatimPlace.degrees(p.location.x), forKey: Key("lon"))
            try c.encode(p.osmKey, forKey: Key(classKey))
            try c.encode(p.osmValue, forKey: Key("type"))
            try c.encode(p.placeRank, forKey: Key("place_rank"))
            try c.encode(p.importance, forKey: Key("importance"))
            try c.encode(p.addressType, forKey: Key("addresstype"))
            try c.encode(p.name, forKey: Key("name"))
            try c.encode(p.displayName, forKey: Key("display_name"))
            if details { try c.encode(p.address, forKey: Key("address")) }
            // latmin, latmax, lonmin, lonmax: strings, as Nominatim writes them.
            let box = [p.location.y - p.extent, p.location.y + p.extent, p.location.x - p.extent, p.location.x + p.extent]
            try c.encode(box.map(NominatimPlace.degrees), forKey: Key("boundingbox"))
        }
    }

    struct Point: Encodable, Sendable {
        var lon: Double
        var lat: Double

        enum CodingKeys: String, CodingKey { case type, coordinates }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode("Point", forKey: .type)
            try c.encode([lon, lat], forKey: .coordinates)
        }
    }

    struct GeoJSONProperties: Encodable, Sendable {
        var placeID: Int
        var osmType: String
        var osmID: Int
        var placeRank: Int
        var category: String
        var type: String
        var importance: Double
        var addresstype: String
        var name: String
        var displayName: String
        var address: Address?

        enum CodingKeys: String, CodingKey {
            case placeID = "place_id", osmType = "osm_type", osmID = "osm_id", placeRank = "place_rank"
            case category, type, importance, addresstype, name, displayName = "display_name", address
        }
    }

    struct GeoJSONFeature: Encodable, Sendable {
        var type = "Feature"
        var properties: GeoJSONProperties
        /// lonmin, latmin, lonmax, latmax: numbers, in GeoJSON's order.
        var bbox: [Double]
        var geometry: Point

        init(place p: NominatimPlace, details: Bool) {
            properties = GeoJSONProperties(placeID: p.placeID, osmType: p.osmType, osmID: p.placeID, placeRank: p.placeRank,
                                           category: p.osmKey, type: p.osmValue, importance: p.importance,
                                           addresstype: p.addressType, name: p.name, displayName: p.displayName,
                                           address: details ? p.address : nil)
            bbox = [p.location.x - p.extent, p.location.y - p.extent, p.location.x + p.extent, p.location.y + p.extent]
            geometry = Point(lon: p.location.x, lat: p.location.y)
        }
    }

    struct GeoJSONCollection: Encodable, Sendable {
        var type = "FeatureCollection"
        var licence = NominatimPlace.licence
        var features: [GeoJSONFeature]
    }

    struct GeocodeJSONProperties: Encodable, Sendable {
        var placeID: Int
        var osmType: String
        var osmID: Int
        var osmKey: String
        var osmValue: String
        var type: String
        /// Metres from the point asked about, for a reverse geocode.
        var accuracy: Int?
        var label: String
        var name: String?
        var housenumber: String?
        var postcode: String?
        var street: String?
        var locality: String?
        var city: String?
        var state: String?
        var country: String?
        var countryCode: String?
        var admin: [String: String]?

        enum CodingKeys: String, CodingKey {
            case placeID = "place_id", osmType = "osm_type", osmID = "osm_id", osmKey = "osm_key", osmValue = "osm_value"
            case type, accuracy, label, name, housenumber, postcode, street, locality, city, state, country
            case countryCode = "country_code", admin
        }
    }

    struct GeocodeJSONFeature: Encodable, Sendable {
        struct Properties: Encodable, Sendable {
            var geocoding: GeocodeJSONProperties
        }
        var type = "Feature"
        var properties: Properties
        var geometry: Point

        init(place p: NominatimPlace, details: Bool) {
            let a = p.address
            // The reach of a reverse geocode is at most 50 km: a whole number of metres fits.
            let accuracy = p.distanceMetres.flatMap { $0.isFinite && $0 >= 0 && $0 < 1e9 ? Int($0.rounded()) : nil }
            var g = GeocodeJSONProperties(placeID: p.placeID, osmType: p.osmType, osmID: p.placeID, osmKey: p.osmKey,
                                          osmValue: p.osmValue, type: p.geocodeJSONType, accuracy: accuracy,
                                          label: p.displayName, name: p.name.isEmpty ? nil : p.name)
            if details {
                g.housenumber = a.houseNumber
                g.postcode = a.postcode
                // A street's own name is its `name`; an address's street is its `street`.
                g.street = p.geocodeJSONType == "street" ? nil : a.road
                g.locality = a.neighbourhood
                g.city = a.city
                g.state = a.state
                g.country = a.country
                g.countryCode = a.countryCode
                var admin: [String: String] = [:]
                if let state = a.state { admin["level4"] = state }
                if let city = a.city { admin["level8"] = city }
                g.admin = admin
            }
            properties = Properties(geocoding: g)
            geometry = Point(lon: p.location.x, lat: p.location.y)
        }
    }

    struct GeocodeJSONCollection: Encodable, Sendable {
        struct Header: Encodable, Sendable {
            var version = "0.1.0"
            var attribution = NominatimPlace.licence
            var query: String?
        }
        var type = "FeatureCollection"
        var geocoding: Header
        var features: [GeocodeJSONFeature]
    }
}
