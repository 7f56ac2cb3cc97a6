import Foundation
import LocusCore

/// Addresses by house number: the numbers in order, and each number's addresses in one run.
struct NumberIndex: Sendable {
    /// The house numbers in order (Int32).
    let keys: PackedRecords
    /// The addresses of `keys[k]` are `addresses[starts[k]]`.
    let starts: StoredRuns
    let addresses: StoredIDs

    subscript(number: Int32) -> Slice<StoredIDs>? {
        var lo = 0, hi = min(keys.count, starts.count)
        let count = hi
        while lo < hi {
            let mid = (lo + hi) / 2
            if keys.i32(mid, 0) < number { lo = mid + 1 } else { hi = mid }
        }
        guard lo < count, keys.i32(lo, 0) == number else { return nil }
        return addresses[starts[lo]]
    }
}

/// The street places as the index stores them: street, locality, count and representative
/// address (Int32 each), decoded one at a time, each id read as a valid one (see `StoredIDs`).
struct StreetPlaceTable: RandomAccessCollection, Sendable {
    static let stride = 16
    let records: PackedRecords
    let streetCount: Int32, localityCount: Int32, addressCount: Int32

    var startIndex: Int { 0 }
    var endIndex: Int { streetCount > 0 && localityCount > 0 && addressCount > 0 ? records.count : 0 }

    subscript(i: Int) -> AddressSearch.StreetPlace {
        precondition(i >= 0 && i < records.count, "street place index out of range")
        let street = records.i32(i, 0), locality = records.i32(i, 4), count = records.i32(i, 8), representative = records.i32(i, 12)
        return AddressSearch.StreetPlace(street: street >= 0 && street < streetCount ? street : 0,
                                         locality: locality >= 0 && locality < localityCount ? locality : 0,
                                         count: Swift.max(count, 0),
                                         representative: representative >= 0 && representative < addressCount ? representative : 0)
    }
}

/// What `AddressSearch` derives from the address points and street names, as the index stores it
/// (sections `search_*` of `IndexSections`): the builder works it out once; an open uses it where
/// it lies.
///
/// Two kinds of table: per address (each street's and each house number's addresses), whose
/// size grows with the addresses, and per street (street places, the word index, the lists),
/// which grows with the streets. Neither is copied or decoded at open: an open checks their
/// shapes (one run start per street, per number, per word), and ids are clamped as they are read
/// (`StoredIDs`, `StoredRuns`), so a damaged file answers wrongly or is refused, never traps.
enum SearchTables {
    /// The small lists, decoded at open (they grow with cities, not streets or addresses).
    struct Lists: Codable {
        /// City and state of each locality (places that share them).
        var localities: [[String]]
        /// The longest core key and vocabulary word, and every character of them (see
        /// `AddressSearch.typoAlphabet`).
        var longestCore: Int
        var longestWord: Int
        var alphabet: String
    }

    /// Postcodes and cities as areas: decoded when a query first needs them.
    struct Areas: Codable {
        var postcodes: [AddressSearch.Area]
        var cities: [AddressSearch.Area]
    }

    /// The tables in use: over a mapped or copied file, or over what the builder packed.
    struct Stored {
        /// Each street's search tokens, joined by spaces.
        var streetTokens: StoredStrings
        var streetStart: StoredRuns
        var byStreet: StoredIDs
        /// The house number of each of `byStreet` (Int32).
        var streetNumbers: PackedRecords
        var streetPlaces: StreetPlaceTable
        var streetPlaceStart: StoredRuns
        var byNumber: NumberIndex
        /// Sorted words of street places, and the street places of each (`postings[postingStart[w]]`).
        var vocabulary: StoredStrings
        var postings: StoredIDs
        var postingStart: StoredRuns
        /// Sorted core keys of the street names, and the streets of each (`coreStreets[coreStart[k]]`).
        var coreKeys: StoredStrings
        var coreStreets: StoredIDs
        var coreStart: StoredRuns
        var lists: Lists
        /// The JSON of `Areas`, decoded on first use.
        var areas: PackedRecords
    }

    /// Tables that grow with the streets (and their places), the cities and the postcodes.
    static func packPerStreet(_ d: AddressSearch.PointDerived) -> [(name: String, bytes: [UInt8])] {
        let t = streetTables(d)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        func strings(_ name: String, _ values: [String]) -> [(name: String, bytes: [UInt8])] {
            let (b, starts) = StoredStrings.pack(values)
            return [(name, b), (name + "_start", bytes(starts))]
        }
        return [
            ("search_street_places", bytes(t.places)), ("search_street_place_start", bytes(t.placeStart)),
            ("search_posting_start", bytes(t.postingStart)), ("search_postings", bytes(t.postings)),
            ("search_core_start", bytes(t.coreStart)), ("search_core_streets", bytes(t.coreStreets)),
            ("search_lists", Array((try? encoder.encode(t.lists)) ?? Data())),
            ("search_areas", Array((try? encoder.encode(Areas(postcodes: d.postcodes, cities: d.cities))) ?? Data())),
        ] + strings("search_vocabulary", d.vocabulary) + strings("search_core_keys", t.coreKeys)
            + strings("search_street_tokens", d.streetTokens.map { $0.joined(separator: " ") })
    }

    /// The street-level tables, as arrays.
    static func streetTables(_ d: AddressSearch.PointDerived)
        -> (places: [Int32], placeStart: [Int32], postingStart: [Int32], postings: [Int32],
            coreKeys: [String], coreStart: [Int32], coreStreets: [Int32], lists: Lists) {
        var places: [Int32] = []
        places.reserveCapacity(d.streetPlaces.count * 4)
        var placeStart = [Int32](repeating: 0, count: d.streetTokens.count + 1)
        for sp in d.streetPlaces {
            places += [sp.street, sp.locality, sp.count, sp.representative]
            placeStart[Int(sp.street) + 1] += 1
        }
        for i in 0..<d.streetTokens.count { placeStart[i + 1] += placeStart[i] }
        var postingStart: [Int32] = [0], postings: [Int32] = []
        for list in d.postings {
            postings += list
            postingStart.append(Int32(postings.count))
        }
        var byCore: [String: [Int32]] = [:]
        for (i, tokens) in d.streetTokens.enumerated() { byCore[StreetNameParts(tokens: tokens).coreKey, default: []].append(Int32(i)) }
        let coreKeys = byCore.keys.sorted()
        var coreStart: [Int32] = [0], coreStreets: [Int32] = []
        for key in coreKeys {
            coreStreets += byCore[key] ?? []
            coreStart.append(Int32(coreStreets.count))
        }
        var alphabet = Set<Character>()
        for key in coreKeys { alphabet.formUnion(key) }
        for word in d.vocabulary { alphabet.formUnion(word) }
        let lists = Lists(localities: d.localities, longestCore: coreKeys.map(\.count).max() ?? 0,
                          longestWord: d.vocabulary.map(\.count).max() ?? 0, alphabet: String(alphabet.sorted()))
        return (places, placeStart, postingStart, postings, coreKeys, coreStart, coreStreets, lists)
    }

    /// The tables over sections, their shapes checked (not their contents: see the type's note).
    static func unpack(_ sections: [String: PackedBytes], addresses: AddressIndex, path: String) throws(LocusError) -> Stored {
        let damaged = LocusError(.invalidIndex, "\(path): the search tables are missing or damaged; rebuild the index")
        func table(_ name: String, stride: Int = 4) throws(LocusError) -> PackedRecords {
            guard let s = sections[name], s.bytes.count % stride == 0 else { throw damaged }
            return PackedRecords(bytes: s.bytes, stride: stride, owner: s.owner)
        }
        func strings(_ name: String) throws(LocusError) -> StoredStrings {
            StoredStrings(bytes: try table(name, stride: 1), starts: try table(name + "_start"))
        }
        let n = addresses.points.count, streetCount = addresses.streets.count
        let listBytes = try table("search_lists", stride: 1)
        guard let lists = try? JSONDecoder().decode(Lists.self, from: Data(listBytes.bytes)),
              lists.localities.allSatisfy({ $0.count == 2 }) else { throw damaged }
        let streetStart = try table("search_street_start"), byStreet = try table("search_by_street")
        let streetNumbers = try table("search_street_numbers")
        let keys = try table("search_number_keys"), numberStart = try table("search_number_start"), byNumber = try table("search_by_number")
        let places = try table("search_street_places", stride: StreetPlaceTable.stride), placeStart = try table("search_street_place_start")
        let postingStart = try table("search_posting_start"), postings = try table("search_postings")
        let coreStart = try table("search_core_start"), coreStreets = try table("search_core_streets")
        let vocabulary = try strings("search_vocabulary"), coreKeys = try strings("search_core_keys"), tokens = try strings("search_street_tokens")
        // The shapes: one run start per street, per number, per word, per core key.
        guard streetStart.count == streetCount + 1, streetNumbers.count == byStreet.count, numberStart.count == keys.count + 1,
              placeStart.count == streetCount + 1,
              postingStart.count == vocabulary.count + 1, coreStart.count == coreKeys.count + 1, tokens.count == streetCount
        else { throw damaged }
        let streetPlaces = StreetPlaceTable(records: places, streetCount: Int32(clamping: streetCount),
                                            localityCount: Int32(clamping: lists.localities.count), addressCount: Int32(clamping: n))
        return Stored(streetTokens: tokens, streetStart: StoredRuns(streetStart, total: byStreet.count), byStreet: StoredIDs(byStreet, limit: n),
                      streetNumbers: streetNumbers, streetPlaces: streetPlaces, streetPlaceStart: StoredRuns(placeStart, total: streetPlaces.count),
                      byNumber: NumberIndex(keys: keys, starts: StoredRuns(numberStart, total: byNumber.count),
                                            addresses: StoredIDs(byNumber, limit: n)),
                      vocabulary: vocabulary, postings: StoredIDs(postings, limit: streetPlaces.count),
                      postingStart: StoredRuns(postingStart, total: postings.count),
                      coreKeys: coreKeys, coreStreets: StoredIDs(coreStreets, limit: streetCount),
                      coreStart: StoredRuns(coreStart, total: coreStreets.count), lists: lists, areas: try table("search_areas", stride: 1))
    }

    /// What the builder derived, in the form an open reads (the builder's own search, and the
    /// evaluation's, which derives one holding some addresses out).
    static func inMemory(_ d: AddressSearch.PointDerived, addresses: AddressIndex) -> Stored {
        let t = streetTables(d)
        let n = addresses.points.count
        let streetPlaces = StreetPlaceTable(records: PackedRecords(packed: bytes(t.places), stride: StreetPlaceTable.stride),
                                            streetCount: Int32(clamping: d.streetTokens.count),
                                            localityCount: Int32(clamping: d.localities.count), addressCount: Int32(clamping: n))
        let areas = (try? JSONEncoder().encode(Areas(postcodes: d.postcodes, cities: d.cities))) ?? Data()
        return Stored(streetTokens: StoredStrings(d.streetTokens.map { $0.joined(separator: " ") }),
                      streetStart: StoredRuns(d.streetStart, total: d.byStreet.count),
                      byStreet: StoredIDs(d.byStreet, limit: n),
                      streetNumbers: PackedRecords(packed: bytes(d.streetNumbers), stride: 4), streetPlaces: streetPlaces,
                      streetPlaceStart: StoredRuns(t.placeStart, total: streetPlaces.count),
                      byNumber: NumberIndex(keys: PackedRecords(packed: bytes(d.numberKeys), stride: 4),
                                            starts: StoredRuns(d.numberStart, total: d.byNumber.count), addresses: StoredIDs(d.byNumber, limit: n)),
                      vocabulary: StoredStrings(d.vocabulary), postings: StoredIDs(t.postings, limit: streetPlaces.count),
                      postingStart: StoredRuns(t.postingStart, total: t.postings.count),
                      coreKeys: StoredStrings(t.coreKeys), coreStreets: StoredIDs(t.coreStreets, limit: d.streetTokens.count),
                      coreStart: StoredRuns(t.coreStart, total: t.coreStreets.count), lists: t.lists,
                      areas: PackedRecords(packed: Array(areas), stride: 1))
    }

    static func bytes(_ values: [Int32]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: values.count * 4)
        out.withUnsafeMutableBytes { raw in
            for (i, v) in values.enumerated() { raw.storeBytes(of: v.littleEndian, toByteOffset: i * 4, as: Int32.self) }
        }
        return out
    }
}
