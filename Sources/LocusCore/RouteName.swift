/// A numbered highway's name read as its route system and number, so that the ways one road is
/// written find each other: "State Route 9", "SR 9", "NY 9", "NY-9" and "NY Route 9" are one state
/// route; "US Highway 1", "US-1", "U.S. 1" and "US Route 1" one US highway; "Interstate 35", "I-35"
/// and "IH 35" one interstate; "County Road 42", "Co Rd 42", "CR 42" one county road; "FM 1960"
/// and "Farm to Market Road 1960" one farm road. "Route 9" and "Highway 9" name no system and may
/// be any of them, as residents say them.
///
/// Read from a street name's core in canonical search tokens (`AddressText.tokens`, then
/// `streetTokens`; directionals and the trailing type already off): "highway", "route" and "road"
/// are written out and the number is an ordinal ("9th").
public struct RouteName: Hashable, Sendable {
    public enum System: String, Sendable {
        case interstate, us, state, county, farmToMarket, ranchToMarket
        /// "Route 9", "Highway 9": the system is not said.
        case unspecified
    }

    public var system: System
    /// The route's number, with a letter it has ("9", "99e").
    public var number: String
    /// Words after the number ("business", "spur").
    public var rest: [String]

    /// The words that find a route's other names: the number and what follows it.
    public var lookupKey: String { ([number] + rest).joined(separator: " ") }

    /// What reading `other` for this route costs: 1 for the same system written otherwise, 3 when
    /// one of them names no system; nil for another road ("US 1" is not "State Route 1").
    public func cost(naming other: RouteName) -> Double? {
        guard number == other.number, rest == other.rest else { return nil }
        if system == other.system { return 1 }
        return system == .unspecified || other.system == .unspecified ? 3 : nil
    }

    /// The core's route reading; nil when it names no numbered route.
    public init?(core: [String]) {
        // Every street a query names passes here: most are told apart by their first word.
        guard core.count >= 2, core.count <= 8, Self.firstWords.contains(core[0]) else { return nil }
        for (prefix, system) in Self.prefixes where prefix.count < core.count && core.starts(with: prefix) {
            guard let number = Self.number(core[prefix.count]) else { continue }
            self.system = system
            self.number = number
            rest = Array(core[(prefix.count + 1)...])
            return
        }
        // A state's code before the number: "NY 9", "NY Route 9", "OR 99E". Codes that canonical
        // form reads as other words ("ne" northeast, "ct" court, "la" lane) are those words here.
        if Self.stateCodes.contains(core[0]) {
            var i = 1
            if i < core.count - 1, ["route", "highway", "state"].contains(core[i]) { i += 1 }
            if i < core.count - 1, core[i - 1] == "state", ["route", "highway", "road"].contains(core[i]) { i += 1 }
            guard let number = Self.number(core[i]) else { return nil }
            system = .state
            self.number = number
            rest = Array(core[(i + 1)...])
            return
        }
        return nil
    }

    /// "9th" → "9"; "99e" stays; anything else is no route number.
    static func number(_ token: String) -> String? {
        if let n = AddressText.ordinalNumber(token) { return n }
        guard let first = token.utf8.first, first >= 0x30, first <= 0x39, token.utf8.count <= 6 else { return nil }
        let letters = token.drop { $0.isASCII && $0.isNumber }
        guard letters.count <= 1, letters.allSatisfy({ $0.isASCII && $0.isLetter }) else { return nil }
        return AddressText.isNumber(token) ? String(Int(token.prefix(9)) ?? 0) : token
    }

    /// The words before a route's number, longest first, as canonical tokens.
    static let prefixes: [([String], System)] = {
        let systems: [(System, [String])] = [
            (.interstate, ["interstate highway", "interstate route", "interstate", "ih", "i"]),
            (.us, ["united states highway", "united states route", "us highway", "us route", "u s highway", "u s route",
                   "us", "u s"]),
            (.state, ["state route", "state road", "state highway", "state spur", "sr", "sh"]),
            (.county, ["county state aid highway", "county trunk highway", "county road", "county route", "county highway",
                       "co road", "co route", "co highway", "cty road", "cty highway", "cr", "csah", "cth"]),
            (.farmToMarket, ["farm to market road", "farm to market", "farm road", "fm road", "fm"]),
            (.ranchToMarket, ["ranch to market road", "ranch to market", "ranch road", "rm road", "rm", "rr"]),
            (.unspecified, ["highway", "route"]),
        ]
        return systems.flatMap { system, spellings in spellings.map { ($0.split(separator: " ").map(String.init), system) } }
            .sorted { $0.0.count > $1.0.count }
    }()

    /// Whether a lower-case word written before a number is a route system's short form or a
    /// state's code ("ih" of "IH 35", "ny" of "NY 9"): kept in capitals when a name is put in
    /// mixed case, where "Ih 35" and "Ny 9" read as words.
    public static func isSystemAbbreviation(_ word: String) -> Bool {
        word.utf8.count <= 4 && (stateCodes.contains(word) || prefixes.contains { $0.0 == [word] && $0.1 != .unspecified })
    }

    static let firstWords: Set<String> = Set(prefixes.compactMap(\.0.first)).union(stateCodes)

    static let stateCodes: Set<String> = Set(AddressVocabulary.states.values.filter { AddressText.canonical($0) == $0 })
}
