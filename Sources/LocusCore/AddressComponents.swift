/// The parts of a US street address, as an answer returns them.
public struct AddressComponents: Hashable, Sendable, Codable {
    /// The house number as people write it, suffix included ("7212 A").
    public var number: String
    /// The street in USPS style ("NE 34th Ave").
    public var street: String
    /// The street exactly as the publisher spelled it ("Northeast 34th Avenue").
    public var streetFull: String
    public var city: String
    public var state: String
    public var postcode: String

    public init(number: String, street: String, streetFull: String, city: String, state: String, postcode: String) {
        self.number = number
        self.street = street
        self.streetFull = streetFull
        self.city = city
        self.state = state
        self.postcode = postcode
    }

    enum CodingKeys: String, CodingKey {
        case number, street, city, state, postcode
        case streetFull = "street_full"
    }

    /// One line, the way an envelope is addressed: `6132 NE 34th Ave, Portland, OR 97211`.
    public var formatted: String {
        // Built by appending: every reverse answer formats one, so no intermediate arrays.
        var line = number
        func add(_ part: String, _ separator: String) {
            guard !part.isEmpty else { return }
            if !line.isEmpty { line += separator }
            line += part
        }
        add(street, " ")
        add(city, ", ")
        if !state.isEmpty || !postcode.isEmpty {
            add(state.isEmpty ? postcode : (postcode.isEmpty ? state : state + " " + postcode), ", ")
        }
        return line
    }
}

/// A house number split into its numeric value and whatever follows it ("7212 A", "12 1/2").
///
/// A number written with a leading zero ("0104") is another address than the one without: in
/// Portland it counts east from the zero line where the plain number counts west, so 0104 SW Lane
/// St and 104 SW Lane St stand on either side of it. Such a number is held as its negative
/// (`value` -104): along a street the numbers then run in order of position across the line, and
/// interpolating or extrapolating between 013 and 140 works on one scale.
public struct HouseNumber: Hashable, Sendable, Comparable {
    /// The number, negative for one written with a leading zero.
    public var value: Int
    public var suffix: String

    public init(value: Int, suffix: String = "") {
        self.value = value
        self.suffix = suffix
    }

    /// Parses the leading digits as the number and keeps the rest, trimmed, as the suffix.
    /// Returns nil when the text does not start with a digit.
    public init?(parsing text: some StringProtocol) {
        let trimmed = text.trimmingWhitespace()
        let digits = trimmed.prefix { $0.isASCII && $0.isNumber }
        guard let value = Self.value(ofDigits: digits) else { return nil }
        self.value = value
        self.suffix = String(trimmed.dropFirst(digits.count)).trimmingWhitespace().replacingHyphenPrefix()
    }

    /// The value of a number's digits: negative when they start with a zero ("0104" → -104,
    /// "0" → 0); nil for no digits, anything else, or more than nine.
    public static func value(ofDigits digits: some StringProtocol) -> Int? {
        guard !digits.isEmpty, digits.count <= 9, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
              let v = Int(digits) else { return nil }
        return digits.utf8.first == 0x30 ? -v : v
    }

    /// "0104" for -104: a number as written.
    public static func digits(of value: Int) -> String {
        value < 0 ? "0" + String(value.magnitude) : String(value)
    }

    /// The number's hundred, the block it is in ("5320" → 53, "0245" → -3, "045" → -1): a
    /// leading-zero number's blocks count down from -1 so that 045 and 45 are not one block.
    public static func hundred(of value: Int) -> Int {
        value >= 0 ? value / 100 : -1 - (-value) / 100
    }

    /// "7212", "7212 A", "12 1/2", "0104", "37-13", written as an address would print it.
    public var text: String {
        suffix.isEmpty ? Self.digits(of: value) : suffix.hasPrefix("-") ? Self.digits(of: value) + suffix : "\(Self.digits(of: value)) \(suffix)"
    }

    public static func < (a: HouseNumber, b: HouseNumber) -> Bool {
        (a.value, a.suffix) < (b.value, b.suffix)
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces, tabs and newlines.
    public func trimmingWhitespace() -> String {
        guard let start = firstIndex(where: { !$0.isWhitespace }) else { return "" }
        let end = lastIndex(where: { !$0.isWhitespace })!
        return String(self[start...end])
    }
}

extension String {
    /// "-A" → "A" ("816-A" is 816 A); "-13" stays: Queens's "37-13" is one house number, and a
    /// published range ("1002-1004") prints with its hyphen.
    fileprivate func replacingHyphenPrefix() -> String {
        guard hasPrefix("-") else { return self }
        let rest = String(dropFirst()).trimmingWhitespace()
        return !rest.isEmpty && rest.allSatisfy({ $0.isASCII && $0.isNumber }) ? "-" + rest : rest
    }
}
