import LocusCore

/// Works out what address search needs from the address points, fed one street, one ZIP code,
/// one city at a time: by the index builder from sorted passes over its database (so that a build
/// never holds every address: issue 13), and by `AddressSearch.derive` from the points in memory
/// (the evaluation, which holds some addresses out). Both feed it the same groups in the same
/// order, so both give the same tables.
///
/// What it keeps grows with streets, street places and areas, never with addresses.
struct SearchDerivation {
    /// One address as a group hands it in.
    struct Member {
        var id: Int32
        var lon: Double
        var lat: Double
    }

    /// Each street's name as search tokens (`AddressText.streetTokens`), by street index.
    let streetTokens: [[String]]
    /// Places that share a city and state are one locality.
    let placeLocality: [Int32]
    let localities: [(city: String, state: String)]
    /// The distinct non-empty ZIP codes and city names in order, and each place's (-1: none).
    let postcodeNames: [String]
    let placePostcode: [Int32]
    let cityNames: [String]
    let placeCity: [Int32]
    private let postcodeDetail: [String]
    private let cityDetail: [String]

    private(set) var streetStart: [Int32] = [0]
    private(set) var streetPlaces: [AddressSearch.StreetPlace] = []
    private(set) var postcodes: [AddressSearch.Area] = []
    private(set) var cities: [AddressSearch.Area] = []

    /// - Parameter placeCounts: how many addresses each place has (all of them, held out or not:
    ///   a ZIP code's city is the one most of its addresses name).
    init(streets: [String], places: [AddressPlace], placeCounts: [Int]) {
        streetTokens = streets.map { AddressText.streetTokens(AddressText.tokens($0)) }
        var localityOf: [String: Int32] = [:]
        var localities: [(city: String, state: String)] = []
        placeLocality = places.map { p -> Int32 in
            let key = p.city + "\u{1}" + p.state
            if let id = localityOf[key] { return id }
            localities.append((p.city, p.state))
            localityOf[key] = Int32(localities.count - 1)
            return Int32(localities.count - 1)
        }
        self.localities = localities
        postcodeNames = Set(places.map(\.postcode)).filter { !$0.isEmpty }.sorted()
        cityNames = Set(places.map(\.city)).filter { !$0.isEmpty }.sorted()
        let postcodeRank = Dictionary(uniqueKeysWithValues: postcodeNames.enumerated().map { ($1, Int32($0)) })
        let cityRank = Dictionary(uniqueKeysWithValues: cityNames.enumerated().map { ($1, Int32($0)) })
        placePostcode = places.map { postcodeRank[$0.postcode] ?? -1 }
        placeCity = places.map { cityRank[$0.city] ?? -1 }

        // A ZIP code reads as the city most of its addresses name ("97211, Portland, OR"); ties
        // go to the first such city in order, so that the same data gives the same index.
        var zipCity: [String: [String: Int]] = [:]
        for (p, place) in places.enumerated() where p < placeCounts.count && placeCounts[p] > 0 {
            zipCity[place.postcode, default: [:]][place.city + ", " + place.state, default: 0] += placeCounts[p]
        }
        postcodeDetail = postcodeNames.map { zip in
            zipCity[zip]?.max { ($0.value, $1.key) < ($1.value, $0.key) }.map { "\(zip), \($0.key)" } ?? zip
        }
        var cityState: [String: String] = [:]
        for p in places where !p.city.isEmpty { cityState[p.city] = p.state }
        cityDetail = cityNames.map { city in [city, cityState[city] ?? ""].filter { !$0.isEmpty }.joined(separator: ", ") }
    }

    /// The next street's addresses (streets in index order, each once, empty ones too), in number
    /// order (number, suffix, index), with each address's place.
    mutating func addStreet(_ members: [(member: Member, place: UInt32)]) {
        let street = Int32(streetStart.count - 1)
        streetStart.append(streetStart[streetStart.count - 1] + Int32(members.count))
        var groups: [Int32: [Member]] = [:]
        for m in members { groups[placeLocality[Int(m.place)], default: []].append(m.member) }
        // In locality order (which is their names' order): the order of the street's runs of
        // addresses (`AddressSearch.byStreet`), which the builder sorts by locality id.
        for (locality, group) in groups.sorted(by: { $0.key < $1.key }) {
            streetPlaces.append(AddressSearch.StreetPlace(street: street, locality: locality,
                                                          count: Int32(group.count), representative: Self.medoid(group)))
        }
    }

    /// The addresses of the next ZIP code of `postcodeNames` that has any, in index order.
    mutating func addPostcode(_ rank: Int32, members: [Member]) {
        guard !members.isEmpty, rank >= 0, Int(rank) < postcodeNames.count else { return }
        postcodes.append(Self.area(postcodeNames[Int(rank)], members, detail: postcodeDetail[Int(rank)]))
    }

    /// The addresses of the next city of `cityNames` that has any, in index order.
    mutating func addCity(_ rank: Int32, members: [Member]) {
        guard !members.isEmpty, rank >= 0, Int(rank) < cityNames.count else { return }
        cities.append(Self.area(cityNames[Int(rank)], members, detail: cityDetail[Int(rank)]))
    }

    static func area(_ name: String, _ members: [Member], detail: String) -> AddressSearch.Area {
        let rep = medoid(members)
        let m = members.first { $0.id == rep } ?? members[0]
        return AddressSearch.Area(name: name, tokens: AddressText.tokens(name), location: GeoPoint(x: m.lon, y: m.lat),
                                  count: members.count, detail: detail)
    }

    /// The word index over street places (street and city tokens), once every street is in.
    /// Each place's words are worked out twice rather than kept between the passes: kept, they
    /// were most of a build's memory at 100× Portland (a million street places).
    func wordIndex() -> (vocabulary: [String], postings: [[Int32]]) {
        let cityTokens = localities.map { AddressText.tokens($0.city) }
        func words(_ sp: AddressSearch.StreetPlace) -> Set<String> { Set(streetTokens[Int(sp.street)] + cityTokens[Int(sp.locality)]) }
        var vocabularySet = Set<String>()
        for sp in streetPlaces { vocabularySet.formUnion(words(sp)) }
        let vocabulary = vocabularySet.sorted()
        let vocabularyIndex = Dictionary(uniqueKeysWithValues: vocabulary.enumerated().map { ($1, Int32($0)) })
        var postings = [[Int32]](repeating: [], count: vocabulary.count)
        for (i, sp) in streetPlaces.enumerated() {
            for w in words(sp) { postings[Int(vocabularyIndex[w] ?? 0)].append(Int32(i)) }
        }
        return (vocabulary, postings)
    }

    /// The member nearest the members' mean position (ties: the first).
    static func medoid(_ members: [Member]) -> Int32 {
        var x = 0.0, y = 0.0
        for m in members {
            x += m.lon
            y += m.lat
        }
        x /= Double(members.count)
        y /= Double(members.count)
        var best = members[0].id, bestD = Double.infinity
        for m in members {
            let dx = m.lon - x, dy = m.lat - y
            let d = dx * dx + dy * dy
            if d < bestD { (best, bestD) = (m.id, d) }
        }
        return best
    }
}
