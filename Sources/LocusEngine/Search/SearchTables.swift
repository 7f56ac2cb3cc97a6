import Foundation
import LocusCore

/// Addresses by house number: the numbers in order, and each number's addresses in one run.
struct NumberIndex: Sendable {
    let keys: [Int32]
    /// The addresses of `keys[k]` are `addresses[starts[k] ..< starts[k + 1]]`.
    let starts: [Int32]
    let addresses: [Int32]

    init(keys: [Int32], starts: [Int32], addresses: [Int32]) {
        self.keys = keys
        self.starts = starts
        self.addresses = addresses
    }

    /// Each number's list kept in its order.
    init(_ lists: [Int32: [Int32]]) {
        var keys: [Int32] = [], starts: [Int32] = [0], addresses: [Int32] = []
        for k in lists.keys.sorted() {
            keys.append(k)
            addresses += lists[k] ?? []
            starts.append(Int32(addresses.count))
        }
        self.init(keys: keys, starts: starts, addresses: addresses)
    }

    subscript(number: Int32) -> ArraySlice<Int32>? {
        var lo = 0, hi = keys.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if keys[mid] < number { lo = mid + 1 } else { hi = mid }
        }
        guard lo < keys.count, keys[lo] == number else { return nil }
        return addresses[Int(starts[lo])..<Int(starts[lo + 1])]
    }
}

/// What `AddressSearch` derives from every address point, as the index stores it (sections
/// `search_*` of `IndexSections`): the builder works it out once; an open reads it.
///
/// Read, it is checked as it is copied (every address within the points, every run in order),
/// so that a damaged file is refused rather than trapped on: one pass over memory, about 10 ms
/// per million addresses here, where deriving it took about 1.3 s per million.
enum SearchTables {
    struct Lists: Codable {
        var localities: [[String]]
        var vocabulary: [String]
        var postcodes: [AddressSearch.Area]
        var cities: [AddressSearch.Area]
    }

    /// The tables that grow with streets and street places; the builder streams the four that
    /// grow with addresses (`search_by_street`, `search_number_keys`, `search_number_start`,
    /// `search_by_number`) itself.
    static func packStreetLevel(_ d: SearchDerivation) -> [(name: String, content: SectionContent)] {
        var localities: [[String]] = [], localityID: [String: Int32] = [:]
        var places: [Int32] = []
        for sp in d.streetPlaces {
            let key = sp.city + "\u{1}" + sp.state
            let id = localityID[key] ?? {
                localities.append([sp.city, sp.state])
                localityID[key] = Int32(localities.count - 1)
                return Int32(localities.count - 1)
            }()
            places += [sp.street, id, sp.count, sp.representative]
        }
        let (vocabulary, postingLists) = d.wordIndex()
        var postingStart: [Int32] = [0], postings: [Int32] = []
        for list in postingLists {
            postings += list
            postingStart.append(Int32(postings.count))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let lists = (try? encoder.encode(Lists(localities: localities, vocabulary: vocabulary, postcodes: d.postcodes, cities: d.cities))) ?? Data()
        return [
            ("search_street_start", .bytes(bytes(d.streetStart))), ("search_street_places", .bytes(bytes(places))),
            ("search_posting_start", .bytes(bytes(postingStart))), ("search_postings", .bytes(bytes(postings))),
            ("search_lists", .bytes(Array(lists))),
            // Tokens never hold spaces or line breaks (they are split on them).
            ("search_street_tokens", .bytes(Array(d.streetTokens.map { $0.joined(separator: " ") }.joined(separator: "\n").utf8))),
        ]
    }

    static func unpack(_ sections: [String: PackedBytes], addresses: AddressIndex, path: String) throws(LocusError) -> AddressSearch.PointDerived {
        let damaged = LocusError(.invalidIndex, "\(path): the search tables are missing or damaged; rebuild the index")
        func ints(_ name: String) throws(LocusError) -> [Int32] {
            guard let s = sections[name], s.bytes.count % 4 == 0 else { throw damaged }
            return withExtendedLifetime(s.owner) {
                (0..<(s.bytes.count / 4)).map { Int32(littleEndian: s.bytes.loadUnaligned(fromByteOffset: $0 * 4, as: Int32.self)) }
            }
        }
        /// Values all in `0 ..< limit`.
        func within(_ values: [Int32], _ limit: Int) -> Bool { values.allSatisfy { $0 >= 0 && Int($0) < limit } }
        /// Run starts: from 0, in order, ending at `total`.
        func runs(_ starts: [Int32], count: Int, total: Int) -> Bool {
            starts.count == count + 1 && starts.first == 0 && Int(starts[count]) == total && zip(starts, starts.dropFirst()).allSatisfy { $0 <= $1 }
        }
        let n = addresses.points.count, streetCount = addresses.streets.count
        guard let listBytes = sections["search_lists"],
              let lists = withExtendedLifetime(listBytes.owner, { try? JSONDecoder().decode(Lists.self, from: Data(listBytes.bytes)) }),
              lists.localities.allSatisfy({ $0.count == 2 }) else { throw damaged }
        let streetStart = try ints("search_street_start"), byStreet = try ints("search_by_street")
        let keys = try ints("search_number_keys"), numberStart = try ints("search_number_start"), byNumber = try ints("search_by_number")
        let places = try ints("search_street_places")
        let postingStart = try ints("search_posting_start"), postings = try ints("search_postings")
        guard runs(streetStart, count: streetCount, total: byStreet.count), within(byStreet, n),
              runs(numberStart, count: keys.count, total: byNumber.count), within(byNumber, n),
              zip(keys, keys.dropFirst()).allSatisfy({ $0 < $1 }),
              places.count % 4 == 0, runs(postingStart, count: lists.vocabulary.count, total: postings.count),
              within(postings, places.count / 4) else { throw damaged }
        // Tokenising every street name was a third of an open's time (perf, Portland).
        guard let tokenText = sections["search_street_tokens"] else { throw damaged }
        let streetTokens = withExtendedLifetime(tokenText.owner) {
            String(decoding: tokenText.bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
                .map { $0.split(separator: " ").map(String.init) }
        }
        guard streetTokens.count == streetCount || (streetCount == 0 && streetTokens == [[]]) else { throw damaged }
        var streetPlaces: [AddressSearch.StreetPlace] = []
        streetPlaces.reserveCapacity(places.count / 4)
        var previousStreet: Int32 = -1
        for k in stride(from: 0, to: places.count, by: 4) {
            let street = places[k], locality = places[k + 1], count = places[k + 2], representative = places[k + 3]
            // Street places are in street order: `AddressSearch` finds a street's by counting.
            guard street >= previousStreet, Int(street) < streetCount, locality >= 0, Int(locality) < lists.localities.count,
                  count >= 0, representative >= 0, Int(representative) < n else { throw damaged }
            previousStreet = street
            let l = lists.localities[Int(locality)]
            streetPlaces.append(AddressSearch.StreetPlace(street: street, city: l[0], state: l[1], count: count, representative: representative))
        }
        let postingLists = (0..<lists.vocabulary.count).map { Array(postings[Int(postingStart[$0])..<Int(postingStart[$0 + 1])]) }
        return AddressSearch.PointDerived(streetTokens: streetCount == 0 ? [] : streetTokens, streetStart: streetStart, byStreet: byStreet, streetPlaces: streetPlaces,
                                          byNumber: NumberIndex(keys: keys, starts: numberStart, addresses: byNumber),
                                          vocabulary: lists.vocabulary, postings: postingLists, postcodes: lists.postcodes, cities: lists.cities)
    }

    static func bytes(_ values: [Int32]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: values.count * 4)
        out.withUnsafeMutableBytes { raw in
            for (i, v) in values.enumerated() { raw.storeBytes(of: v.littleEndian, toByteOffset: i * 4, as: Int32.self) }
        }
        return out
    }
}
