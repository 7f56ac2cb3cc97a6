import LocusCore

/// Arguments of a reverse geocode, validated.
public struct ReverseRequest: Sendable {
    public var location: GeoPoint
    /// The spatial reference `location` is in. Default WGS 84.
    public var spatialReference: SpatialReference = .wgs84
    /// Metres to search. Default 100.
    public var maxDistance: Double = 100
    /// The spatial reference for the answer's location. Default: the request's.
    public var outSpatialReference: SpatialReference? = nil
    /// How to choose among the addresses in reach. Default: the lot the point fronts.
    public var method: ReverseMethod = .frontage

    public init(location: GeoPoint) { self.location = location }
}

/// How the reverse geocoder chooses an address.
public enum ReverseMethod: String, Sendable, CaseIterable {
    /// The lot the point stands on or in front of: from the index's lots where it has them
    /// (`LotLayer`), else nearby addresses scored on distance, how far the point stands beside
    /// rather than before each lot, and the streets in between (see `FrontageChooser`).
    case frontage
    /// The nearest address point.
    case nearest
}

/// Arguments of a point-in-polygon query, validated.
public struct WithinRequest: Sendable {
    public var location: GeoPoint
    /// The spatial reference `location` is in. Default WGS 84.
    public var spatialReference: SpatialReference = .wgs84
    /// The polygon layer to search. Default "neighborhoods", or an index's one layer of another
    /// name (New York's "nta").
    public var layer: String = WithinRequest.defaultLayer
    public static let defaultLayer = "neighborhoods"
    /// When no polygon covers the point, return the nearest within this many metres. Default: off.
    public var nearestWithin: Double? = nil

    public init(location: GeoPoint) { self.location = location }
}

/// Limits that keep a single query cheap, whatever a client asks.
public enum QueryLimits {
    /// The largest search radius for reverse geocoding and nearest polygons, in metres.
    public static let maximumDistance = 50_000.0
    /// Longest address text (geocode `text`, suggest `text`, or every `address` field together),
    /// in UTF-8 bytes. Real addresses are under 100; typo tolerance costs grow with the square of
    /// a word's length and matching with the number of words, so both are cut off before any of it.
    public static let maximumTextBytes = 256
    /// Most words in an address text (or in every `address` field together).
    public static let maximumTextWords = 24
    /// Longest suggestion key, in bytes.
    public static let maximumKeyBytes = 64

    /// Refuses text beyond the limits, naming what was too long.
    public static func check(text: String, _ what: String) throws(LocusError) {
        let bytes = text.utf8.count
        guard bytes <= maximumTextBytes else {
            throw LocusError(.tooLarge, "\(what) is \(bytes) bytes; at most \(maximumTextBytes)")
        }
        // The parser's own words ("&" and "#" count), not a split on spaces: "1-2-3-4" is four.
        let words = AddressText.rawTokens(text).count
        guard words <= maximumTextWords else {
            throw LocusError(.tooLarge, "\(what) has \(words) words; at most \(maximumTextWords)")
        }
    }

    static func check(_ input: GeocodeRequest.Input) throws(LocusError) {
        switch input {
        case .text(let t):
            try check(text: t, "address text")
        case .key(let k):
            guard k.utf8.count <= maximumKeyBytes else { throw LocusError(.tooLarge, "a key is at most \(maximumKeyBytes) bytes") }
        case .fields(let number, let street, let city, let postcode):
            try check(text: [number, street, city, postcode].compactMap { $0 }.joined(separator: " "), "the address fields together")
        }
    }
}

/// The transformations a locator keeps, the most recently used first. Each holds a PROJ context
/// (about 400 KB): a client naming one spatial reference after another must not grow a server
/// thread's memory with each, so only the last `capacity` stay.
struct TransformCache {
    static let capacity = 16
    private var entries: [(wkid: Int, transform: CoordinateTransform)] = []

    var count: Int { entries.count }

    mutating func take(_ wkid: Int) -> CoordinateTransform? {
        guard let i = entries.firstIndex(where: { $0.wkid == wkid }) else { return nil }
        if i > 0 { entries.insert(entries.remove(at: i), at: 0) }
        return entries[0].transform
    }

    mutating func keep(_ transform: CoordinateTransform, for wkid: Int) {
        entries.insert((wkid, transform), at: 0)
        if entries.count > Self.capacity { entries.removeLast() }
    }
}

/// Answers queries against one index from one thread: it owns the PROJ transformations, which are
/// not thread-safe. Make one per thread (or per connection); they share the `LocusIndex`.
public final class Locator {
    public let index: LocusIndex
    private var toLonLat = TransformCache()
    private var fromLonLat = TransformCache()
    private let geodesic = Geodesic()
    private var frontage: FrontageChooser?

    public init(index: LocusIndex) { self.index = index }

    /// The point in lon/lat, checked to be a real place.
    public func lonLat(_ p: GeoPoint, from srs: SpatialReference) throws(LocusError) -> GeoPoint {
        guard p.x.isFinite, p.y.isFinite else { throw LocusError(.invalidArgument, "coordinates must be finite numbers") }
        if srs.isGeographicWGS84 {
            try validateLonLat(p)
            return p
        }
        let t = try transform(&toLonLat, srs) { () throws(LocusError) in try CoordinateTransform(from: srs, to: .wgs84) }
        guard let q = t.transform(p) else {
            throw LocusError(.invalidArgument, "(\(p.x), \(p.y)) is outside the area wkid \(srs.wkid) can express")
        }
        try validateLonLat(q)
        return q
    }

    public func location(_ lonLat: GeoPoint, in srs: SpatialReference) throws(LocusError) -> Location {
        if srs.isGeographicWGS84 { return Location(x: lonLat.x, y: lonLat.y, wkid: srs.wkid) }
        let t = try transform(&fromLonLat, srs) { () throws(LocusError) in try CoordinateTransform(from: .wgs84, to: srs) }
        guard let q = t.transform(lonLat) else {
            throw LocusError(.invalidArgument, "the answer cannot be expressed in wkid \(srs.wkid)")
        }
        return Location(x: q.x, y: q.y, wkid: srs.wkid)
    }

    private func transform(_ cache: inout TransformCache, _ srs: SpatialReference,
                           _ make: () throws(LocusError) -> CoordinateTransform) throws(LocusError) -> CoordinateTransform {
        if let t = cache.take(srs.latestWkid) { return t }
        try SpatialReferenceCatalog.shared.check(srs)
        let t: CoordinateTransform
        do {
            t = try make()
        } catch {
            SpatialReferenceCatalog.shared.recordFailure(srs, error)
            throw error
        }
        cache.keep(t, for: srs.latestWkid)
        return t
    }

    /// PROJ transformations held by this locator, both directions: at most
    /// 2 × `maximumCachedTransforms` whatever spatial references its requests name.
    public var cachedTransforms: Int { toLonLat.count + fromLonLat.count }
    public static let maximumCachedTransforms = TransformCache.capacity

    private func checkDistance(_ d: Double, _ name: String) throws(LocusError) {
        guard d.isFinite, d >= 0 else { throw LocusError(.invalidArgument, "\(name) must be a distance in metres ≥ 0") }
        guard d <= QueryLimits.maximumDistance else {
            throw LocusError(.invalidArgument, "\(name) is at most \(Int(QueryLimits.maximumDistance)) m")
        }
    }

    /// The nearest address within the distance, or nil when there is none.
    public func reverse(_ request: ReverseRequest) throws(LocusError) -> ReverseResult? {
        try checkDistance(request.maxDistance, "max distance")
        guard let addresses = index.addresses else { throw LocusError(.notFound, "this index has no addresses") }
        let q = try lonLat(request.location, from: request.spatialReference)
        let hit: (index: Int, planarMetres: Double)
        switch request.method {
        case .nearest:
            guard let h = addresses.nearest(lon: q.x, lat: q.y, maxDistance: request.maxDistance) else { return nil }
            hit = h
        case .frontage:
            // A lot the point is on or in front of settles it, where the index has lots.
            if let lots = index.lots, let h = lots.address(atLon: q.x, lat: q.y, maxDistance: request.maxDistance, in: addresses) {
                hit = h
                break
            }
            guard let h = frontageChooser(addresses).choose(q, maxDistance: request.maxDistance) else { return nil }
            hit = h
        }
        let p = addresses.points[hit.index]
        let at = GeoPoint(x: p.lon, y: p.lat)
        let components = addresses.components(of: hit.index)
        // Within a kilometre a plane fitted at the mid-latitude is within a millimetre of the
        // geodesic, at a tenth of its cost; beyond, the geodesic.
        let metres = hit.planarMetres < 1_000 ? q.metres(to: at) : geodesic.distance(q, at)
        let distance = (metres * 10).rounded() / 10
        return ReverseResult(address: components.formatted, components: components,
                             location: try location(at, in: request.outSpatialReference ?? request.spatialReference),
                             distanceMetres: distance, matchType: .pointAddress)
    }

    private func frontageChooser(_ addresses: AddressIndex) -> FrontageChooser {
        if let f = frontage, f.addresses === addresses { return f }
        let f = FrontageChooser(addresses: addresses)
        frontage = f
        return f
    }

    /// The addresses the frontage method weighs at a lon/lat point, with what it weighs about
    /// each (for fitting its weights on a city's own records); empty when none is within
    /// `maxDistance` metres.
    public func frontageCandidates(at q: GeoPoint, maxDistance: Double) -> [FrontageChooser.Candidate] {
        guard let addresses = index.addresses, q.x.isFinite, q.y.isFinite, maxDistance.isFinite, maxDistance >= 0,
              maxDistance <= QueryLimits.maximumDistance else { return [] }
        return frontageChooser(addresses).candidates(q, maxDistance: maxDistance)
    }

    private func searchIndex() throws(LocusError) -> AddressSearch {
        guard let s = index.search else { throw LocusError(.notFound, "this index has no addresses to search") }
        return s
    }

    /// Geocode candidates, best first, located in `outSpatialReference`. A key that names nothing
    /// in this index is `not_found`.
    public func geocode(_ request: GeocodeRequest, near nearSR: SpatialReference = .wgs84,
                        outSpatialReference: SpatialReference = .wgs84) throws(LocusError) -> GeocodeResult {
        var r = request
        guard (1...100).contains(r.maxResults) else { throw LocusError(.invalidArgument, "max results must be 1 … 100") }
        guard r.minScore.isFinite, (0...100).contains(r.minScore) else { throw LocusError(.invalidArgument, "min score must be 0 … 100") }
        try QueryLimits.check(r.input)
        if let near = r.near { r.near = try lonLat(near, from: nearSR) }
        guard var candidates = try searchIndex().candidates(for: r) else {
            throw LocusError(.notFound, "no such key in this index: a key is good for the index whose suggestion or answer gave it, not one rebuilt since")
        }
        for i in candidates.indices {
            let l = candidates[i].location
            candidates[i].location = try location(GeoPoint(x: l.x, y: l.y), in: outSpatialReference)
        }
        return GeocodeResult(candidates: candidates)
    }

    public func suggest(_ request: SuggestRequest, near nearSR: SpatialReference = .wgs84) throws(LocusError) -> SuggestResult {
        var r = request
        guard (1...50).contains(r.maxResults) else { throw LocusError(.invalidArgument, "max results must be 1 … 50") }
        try QueryLimits.check(text: r.text, "suggest text")
        if let near = r.near { r.near = try lonLat(near, from: nearSR) }
        return SuggestResult(suggestions: try searchIndex().suggest(r))
    }

    /// Every polygon of the layer covering the point, smallest first; with `nearestWithin`, the
    /// nearest polygon when none covers it.
    public func within(_ request: WithinRequest) throws(LocusError) -> WithinResult {
        let only = request.layer == WithinRequest.defaultLayer && index.layers.count == 1 ? index.layers.values.first : nil
        guard let layer = index.layers[request.layer] ?? only else {
            let known = index.layers.keys.sorted().joined(separator: ", ")
            throw LocusError(.notFound, "no layer named \"\(request.layer)\" (this index has: \(known.isEmpty ? "none" : known))")
        }
        if let d = request.nearestWithin { try checkDistance(d, "nearest-within distance") }
        let q = try lonLat(request.location, from: request.spatialReference)
        let covering = layer.covering(x: q.x, y: q.y)
        if !covering.isEmpty {
            return WithinResult(features: covering.map { match(layer, $0, .covers, 0) })
        }
        if let d = request.nearestWithin, let near = layer.nearest(x: q.x, y: q.y, maxDistance: d) {
            return WithinResult(features: [match(layer, near.feature, .nearest, (near.distanceMetres * 10).rounded() / 10)])
        }
        return WithinResult(features: [])
    }

    private func match(_ layer: BoundaryLayer, _ i: Int, _ relation: FeatureRelation, _ distance: Double) -> FeatureMatch {
        let f = layer.features[i]
        return FeatureMatch(layer: layer.name, id: f.id, name: f.name, attributes: f.attributes, relation: relation, distanceMetres: distance)
    }
}
