import Foundation
import LocusCore
import LocusEngine

/// What the Pelias and Nominatim dialects say alike about an answer: its stable number, and
/// the country and state words of a US index.
enum HTTPPlace {
    /// A place's number (Nominatim's `place_id`, Pelias's `id`): the same for the same place
    /// whether found by search or by reverse (a reverse answer has no key), and across rebuilds
    /// of the index (keys are row numbers). FNV-1a of the kind and the address line, cut to 53
    /// bits so that JavaScript clients read it exactly.
    static func number(_ type: MatchType, address: String, name: String, at point: GeoPoint) -> Int {
        // A neighbourhood's candidate has no address line: its name, else its point, tells it apart.
        let identity = !address.isEmpty ? address : !name.isEmpty ? name : "\(point.x),\(point.y)"
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ byte: UInt8) {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        for byte in type.rawValue.utf8 { mix(byte) }
        mix(0)
        for byte in identity.utf8 { mix(byte) }
        return Int(truncatingIfNeeded: hash & ((1 << 53) - 1))
    }

    /// Whether a `country` parameter names the index's country: Locus indexes US addresses, and
    /// a search restricted to another country finds nothing, as it would in a real service.
    static func isUnitedStates(_ country: String) -> Bool {
        let c = country.trimmingWhitespace().lowercased().replacingOccurrences(of: ".", with: "")
        return ["us", "usa", "united states", "united states of america", "america"].contains(c)
    }

    /// The USPS code for a state's name or code ("Oregon", "or" → "OR"): the address parser
    /// reads codes; the text itself when it is neither.
    static func stateCode(_ text: String) -> String {
        let t = text.trimmingWhitespace()
        if USRegions.names[t.uppercased()] != nil { return t.uppercased() }
        return USRegions.names.first { $0.value.lowercased() == t.lowercased() }?.key ?? t
    }

    /// Whether the text asks for a house: a number and a street ("6132 NE 34th Ave"), read by the
    /// index's own parser (which knows its cities and ZIP codes, so that "97211" is a postcode).
    /// An answer coarser than a house to such a question is Pelias's `fallback`.
    static func asksForHouse(_ text: String, _ s: HTTPEngine.Session) -> Bool {
        let parsed = (s.locator.index.search?.parser ?? AddressParser(knownCities: [])).parse(text)
        return parsed.number != nil && !parsed.street.isEmpty
    }

    /// The neighbourhood an answer lies in: a house's or a street's (at its point); an area's own
    /// name for a neighbourhood; none for a postcode or a city, which the polygon at their centre
    /// does not contain.
    static func neighbourhood(_ type: MatchType, at point: GeoPoint, _ s: HTTPEngine.Session) -> String? {
        switch type {
        case .pointAddress, .interpolated, .extrapolated, .block, .street, .intersection, .neighbourhood: s.neighbourhood(at: point)
        case .postcode, .locality: nil
        }
    }

    /// Whether an answer of this kind stands for one house (found or placed on its street).
    static func isHouse(_ type: MatchType) -> Bool {
        switch type {
        case .pointAddress, .interpolated, .extrapolated: true
        case .block, .street, .intersection, .postcode, .neighbourhood, .locality: false
        }
    }
}
