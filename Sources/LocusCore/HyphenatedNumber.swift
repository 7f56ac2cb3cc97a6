/// A house number typed with a hyphen: Queens's "37-13" (house 13 of block 37) or a range
/// "5331-5337". The index keeps a hyphenated number's digits after the hyphen as its suffix
/// ("-13"); what typed digits say of an address with the same first number is one rule
/// (`relation`), which the geocoder turns into a penalty and suggest into a filter.
public struct HyphenatedNumber: Hashable, Sendable {
    /// The digits before the hyphen, as typed ("37").
    public var number: String
    /// The digits after it ("13").
    public var tail: String

    /// Nil unless the token is digits, a hyphen and digits, each at most nine.
    public init?(_ token: some StringProtocol) {
        guard let dash = token.firstIndex(of: "-") else { return nil }
        let head = token[..<dash], tail = token[token.index(after: dash)...]
        guard HouseNumber.value(ofDigits: head) != nil, HouseNumber.value(ofDigits: tail) != nil else { return nil }
        number = String(head)
        self.tail = String(tail)
    }

    /// Whether it reads as a range of house numbers ("5509-5523", a building's first and last)
    /// rather than one number (Queens's "37-13", whose part after the hyphen is two digits): three
    /// or more digits after the hyphen, above the first number.
    public var isRange: Bool {
        guard tail.count >= 3, let first = HouseNumber.value(ofDigits: number), let last = HouseNumber.value(ofDigits: tail) else { return false }
        return last > first
    }

    /// What the typed tail says of an address with the same first number.
    public enum Relation: Sendable {
        /// The address's own tail is the one typed (begins with it, while it is being typed).
        case same
        /// The address has no suffix: the typed range's first number, or a house of the block.
        case untailed
        /// Another tail, or a letter ("5331 A"): another house.
        case other
    }

    /// The relation of `tail` to an address whose number suffix in the index is `suffix`.
    /// `begun`: the tail is still being typed ("37-1" may become "37-13").
    public static func relation(tail: String, toSuffix suffix: String, begun: Bool = false) -> Relation {
        guard suffix.hasPrefix("-") else { return suffix.isEmpty ? .untailed : .other }
        let own = suffix.dropFirst()
        return (begun ? own.hasPrefix(tail) : own == tail) ? .same : .other
    }
}
