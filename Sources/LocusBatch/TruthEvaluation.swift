import Foundation
import LocusCore
import LocusEngine

/// An address reduced to what decides whether two spellings name the same lot: the house number
/// (value and suffix) and the street's canonical tokens, city and ZIP aside.
///
/// Recorded addresses and the index's points go through the same normalisation
/// (`AddressText.tokens` then `AddressText.streetTokens`), so "6132 NE 34TH AVE" and
/// "6132 Northeast 34th Avenue" have one key. This is the only place keys are made.
public struct AddressKey: Hashable, Sendable {
    /// "6132", "7212 A", "12 1/2".
    public var number: String
    /// Canonical street tokens joined by spaces: "northeast 34th avenue".
    public var street: String

    init(number: HouseNumber, streetTokens: [String]) {
        let digits = HouseNumber.digits(of: number.value)
        self.number = number.suffix.isEmpty ? digits : "\(digits) \(number.suffix.uppercased())"
        street = streetTokens.joined(separator: " ")
    }

    /// The key of a parsed address; nil when it has no house number or no street. A lone
    /// directional is no street: the parser reads "NE 19" (a numbered street without its type)
    /// as number 19 on "northeast".
    public init?(_ parsed: ParsedAddress) {
        guard let n = parsed.number, !parsed.street.isEmpty, parsed.crossStreet == nil else { return nil }
        if parsed.street.count == 1, StreetNameParts.directionals.contains(parsed.street[0]) { return nil }
        self.init(number: n, streetTokens: parsed.street)
    }

    /// The key of a parsed address among the index's: with the digits after its number's hyphen
    /// where the index has such a number (Queens's "37-13"), else without (a range, "5331-5337",
    /// is its first number's).
    static func of(_ parsed: ParsedAddress, among keys: [AddressKey: [Int32]]) -> AddressKey? {
        guard let plain = AddressKey(parsed) else { return nil }
        guard let tail = parsed.numberTail, var n = parsed.number, n.suffix.isEmpty else { return plain }
        n.suffix = "-" + tail
        let hyphenated = AddressKey(number: n, streetTokens: parsed.street)
        return keys[hyphenated] != nil ? hyphenated : plain
    }

    /// The key of a number on a street named as the publisher spelled it ("Northeast 34th Avenue").
    public init?(number: String, publishedStreet: String) {
        guard let n = HouseNumber(parsing: number) else { return nil }
        let tokens = Self.streetTokens(publishedStreet)
        guard !tokens.isEmpty else { return nil }
        self.init(number: n, streetTokens: tokens)
    }

    /// A published street name in the tokens the parser gives a typed one.
    public static func streetTokens(_ publishedStreet: String) -> [String] {
        AddressText.streetTokens(AddressText.tokens(publishedStreet))
    }

    /// Every address point of the index by its key. Points sharing a key (the same number and
    /// street in two cities) are all kept: the one nearest a row is its true point.
    static func keysOfPoints(_ addresses: AddressIndex) -> [AddressKey: [Int32]] {
        let streets = addresses.streets.map { Self.streetTokens($0) }
        var out: [AddressKey: [Int32]] = [:]
        out.reserveCapacity(addresses.count)
        for (i, p) in addresses.points.enumerated() {
            let s = Int(p.street), x = Int(p.suffix)
            guard streets.indices.contains(s), !streets[s].isEmpty, addresses.suffixes.indices.contains(x) else { continue }
            // Through the printed number, as a reverse answer's number comes: one path for both.
            let printed = HouseNumber(value: Int(p.number), suffix: addresses.suffixes[x]).text
            guard let number = HouseNumber(parsing: printed) else { continue }
            out[AddressKey(number: number, streetTokens: streets[s]), default: []].append(Int32(i))
        }
        return out
    }
}

/// What kind of text the city typed, for seeing which inputs forward geocoding fails on.
public enum RecordedInput: String, Sendable, Codable, CaseIterable {
    /// "5331-5337 N KERBY AVE"
    case range
    /// A marker after the number: "1640 WI/ NW 19TH AVE", "5321 S/ NE 31ST AVE".
    case qualifier
    /// "NW COR/ 27TH & NE SARATOGA ST", "SEC/ CONCORD & N GOING CT".
    case corner
    /// "0104 SW LANE ST"
    case leadingZero = "leading_zero"
    /// "NE KILLINGSWORTH ST", "NE 19"
    case noNumber = "no_number"
    case plain

    static let cornerMarkers: Set<String> = ["COR", "NEC", "NWC", "SEC", "SWC"]

    public init(_ text: String) {
        let words = text.uppercased().split(whereSeparator: \.isWhitespace)
        let first = words.first.map(String.init) ?? ""
        if words.contains(where: { $0.hasSuffix("/") && Self.cornerMarkers.contains(String($0.dropLast())) }) {
            self = .corner
        } else if !(first.first?.isNumber ?? false) {
            self = .noNumber
        } else if let dash = first.firstIndex(of: "-"), first[..<dash].allSatisfy(\.isNumber),
                  first[first.index(after: dash)...].first?.isNumber == true {
            self = .range
        } else if words.count > 1, words[1].hasSuffix("/") {
            self = .qualifier
        } else if first.count > 1, first.hasPrefix("0"), first.allSatisfy(\.isNumber) {
            self = .leadingZero
        } else {
            self = .plain
        }
    }

    /// The text without the inventory's markers, for telling which street was meant: a corner's
    /// "NW COR/", a qualifier's "WI/" and a side's "W SIDE/" dropped, a slash after a street's type
    /// read as "&". Used to judge failures, never for the key.
    static func withoutMarkers(_ text: String) -> String {
        var words = text.split(whereSeparator: \.isWhitespace).map(String.init)
        if let c = words.firstIndex(where: { $0.hasSuffix("/") && cornerMarkers.contains(String($0.dropLast()).uppercased()) }) {
            words.removeSubrange(...c)
        }
        // "W SIDE/ N WHITAKER RD": the side's directional is the marker's, not the street's.
        for k in words.indices.reversed() where k > 0 && words[k].uppercased() == "SIDE/"
            && StreetNameParts.directionals.contains(AddressText.canonical(words[k - 1].lowercased())) {
            words.remove(at: k - 1)
        }
        // "NE 60TH AVE/ NE COLUMBIA BLVD": after a street's type, the slash parts two streets.
        words = words.flatMap { w -> [String] in
            guard w.hasSuffix("/"), case let stem = String(w.dropLast()),
                  StreetNameParts.types.contains(AddressText.canonical(stem.lowercased())) else { return [w] }
            return [stem, "&"]
        }
        words.removeAll { $0.hasSuffix("/") }
        return words.joined(separator: " ")
    }
}

/// How `locus eval --truth` runs.
public struct TruthEvaluationOptions: Sendable {
    public var addressColumn: String?
    public var xColumn: String?
    public var yColumn: String?
    public var spatialReference: SpatialReference = .wgs84
    /// Appended as the city to addresses that name none.
    public var city: String?
    /// Forward geocoding succeeds when the top candidate is within this many metres of the row.
    public var distance = 75.0
    public var minScore = 60.0
    /// Examples listed per failure class.
    public var examples = 5
    /// Only the first this many data rows.
    public var limit: Int?
    public var reverse = true
    public var forward = true
    public var workers = ProcessInfo.processInfo.activeProcessorCount
    /// Where to write, for every row whose address is among the index's points, each address the
    /// frontage method weighs there with its features and whether it is the recorded one: what
    /// `scripts/fit_frontage.py` fits the method's weights on.
    public var frontageFeatures: String?

    public init() {}
}

/// `locus eval --truth FILE`: reverse and forward geocoding measured against a file of real
/// addresses recorded at real positions (a street-tree inventory, a permit register).
///
/// Every row's recorded address is reduced to an `AddressKey`; a row is "among the index's
/// points" when its key is the key of an index address point, and its true point is the nearest
/// such point. Rows without a house number or street are "no address" and judge nothing in
/// reverse.
///
/// Reverse: each `ReverseMethod` is asked for the address at the row's position (default
/// maximum distance); the answer is right when its key is the recorded key. Wrong answers of
/// rows among the index's points are classed against the true point: `no_answer`; `colocated`
/// (another address within 2 m of the true point); `neighbour_lot` (same street, same number
/// parity); `across_street` (same street, other parity); `different_street`, split into
/// `corner_or_side_street` (true point within 60 m of the row) and `far_lot` (farther).
///
/// Forward: the recorded text (with the city appended when asked) is geocoded; the row succeeds
/// when the top candidate lies within the distance of its position. Failures: `no_candidate`;
/// `street_only` (a street, locality, postcode or neighbourhood answer); `wrong_street`,
/// `wrong_directional`, `wrong_numbered_street`, `wrong_street_type` (the street differs from
/// the recorded one in its name, its directional, its number, or only its type); `wrong_number`
/// (right street, another house number); `right_street_too_far` (right street and number, or a
/// corner's intersection, beyond the distance), by match type.
public enum TruthEvaluation {
    /// Metres within which another address counts as sharing the true point's spot.
    static let colocatedMetres = 2.0
    /// Metres within which a true point on another street means the row stands at a corner or
    /// beside a side street rather than at a far-off lot.
    static let sideStreetMetres = 60.0

    public static func run(truth path: String, index: LocusIndex, options: TruthEvaluationOptions) async throws -> TruthReport {
        let clock = ContinuousClock()
        let start = clock.now
        guard let addresses = index.addresses, let search = index.search else {
            throw LocusError(.notFound, "the index has no addresses to evaluate")
        }
        let input = try CSVInput(path: path)
        let columns = try TruthColumns(header: input.header, options: options)
        // Opened before the rows are judged: a path that cannot be written fails at once.
        let features = try options.frontageFeatures.map { p throws(LocusError) in try CSVOutput(path: p, delimiter: ",", lineEnding: "\n") }
        var rows: [RecordedRow] = []
        while options.limit.map({ rows.count < $0 }) ?? true, let row = try input.next() {
            func field(_ i: Int) -> String { i < row.count ? row[i].trimmingWhitespace() : "" }
            rows.append(RecordedRow(text: field(columns.address), x: field(columns.x), y: field(columns.y)))
        }
        let context = Context(index: index, addresses: addresses, parser: search.parser, keys: AddressKey.keysOfPoints(addresses),
                              options: options)
        let verdicts = try await judge(rows, context)
        if let features { try writeFrontageFeatures(verdicts, to: features, addresses) }
        var report = TruthReport.tally(rows: rows, verdicts: verdicts, options: options)
        report.truth = path
        report.columns = TruthReport.Columns(address: input.header[columns.address], x: input.header[columns.x], y: input.header[columns.y],
                                             wkid: options.spatialReference.wkid)
        report.workers = max(1, options.workers)
        report.seconds = ((clock.now - start).inSeconds * 10).rounded() / 10
        return report
    }

    /// Everything a worker reads, shared.
    struct Context: Sendable {
        let index: LocusIndex
        let addresses: AddressIndex
        let parser: AddressParser
        let keys: [AddressKey: [Int32]]
        let options: TruthEvaluationOptions
    }

    /// Verdicts in row order; workers take every n-th row, each with a `Locator` of its own.
    static func judge(_ rows: [RecordedRow], _ context: Context) async throws -> [RowVerdict] {
        let n = max(1, min(context.options.workers, rows.count))
        return try await withThrowingTaskGroup(of: [(Int, RowVerdict)].self) { group in
            for w in 0..<n {
                group.addTask {
                    let locator = Locator(index: context.index)
                    var out: [(Int, RowVerdict)] = []
                    out.reserveCapacity(rows.count / n + 1)
                    for i in stride(from: w, to: rows.count, by: n) {
                        out.append((i, judge(rows[i], context, locator)))
                    }
                    return out
                }
            }
            var all = [RowVerdict](repeating: RowVerdict(), count: rows.count)
            for try await part in group {
                for (i, v) in part where all.indices.contains(i) { all[i] = v }
            }
            return all
        }
    }

    static func judge(_ row: RecordedRow, _ context: Context, _ locator: Locator) -> RowVerdict {
        var v = RowVerdict()
        guard let x = Double(row.x), let y = Double(row.y),
              let position = try? locator.lonLat(GeoPoint(x: x, y: y), from: context.options.spatialReference) else { return v }
        v.position = position
        guard !row.text.isEmpty else { return v }
        let parsed = context.parser.parse(row.text)
        v.key = AddressKey.of(parsed, among: context.keys)
        var truePoint: (index: Int, metres: Double)?
        if let key = v.key, let points = context.keys[key] {
            for p in points {
                let a = context.addresses.points[Int(p)]
                let d = position.metres(to: GeoPoint(x: a.lon, y: a.lat))
                if truePoint.map({ d < $0.metres }) ?? true { truePoint = (Int(p), d) }
            }
        }
        v.trueMetres = truePoint?.metres
        if context.options.frontageFeatures != nil, let key = v.key, truePoint != nil {
            v.frontage = locator.frontageCandidates(at: position, maxDistance: ReverseRequest(location: position).maxDistance).map {
                let c = context.addresses.components(of: $0.index)
                return ($0, AddressKey(number: c.number, publishedStreet: c.streetFull) == key)
            }
        }
        if context.options.reverse, let key = v.key {
            let truth = truePoint.map { context.addresses.points[$0.index] }
            v.reverse = ReverseMethod.allCases.map { method in
                reverseVerdict(key: key, truth: truth, position: position, method: method, locator: locator)
            }
        }
        if context.options.forward {
            v.forward = forwardVerdict(row.text, parsed, position: position, context, locator)
        }
        return v
    }

    /// One line per candidate of each row that has some: the row's number among the file's data
    /// rows (1 is the first after the header), the candidate, whether it is the recorded address,
    /// and its features.
    static func writeFrontageFeatures(_ verdicts: [RowVerdict], to out: CSVOutput, _ addresses: AddressIndex) throws(LocusError) {
        var bytes: [UInt8] = []
        out.format(["row", "address", "recorded", "distance", "has_direction", "along", "in_front", "overshoot", "along_angle",
                    "across_own_street", "end_lots", "streets_between", "streets_between_depth"], into: &bytes)
        for (row, v) in verdicts.enumerated() {
            for (c, recorded) in v.frontage {
                let f = c.features
                out.format([String(row + 1), addresses.components(of: c.index).formatted, recorded ? "1" : "0"]
                           + [f.distance, f.hasDirection ? 1 : 0, f.along, f.inFront, f.overshoot, f.alongAngle, f.acrossOwnStreet,
                              f.endLots, f.streetsBetween, f.streetsBetweenDepth].map { String($0) }, into: &bytes)
            }
            if bytes.count > 1 << 20 { try out.write(bytes); bytes.removeAll(keepingCapacity: true) }
        }
        try out.write(bytes)
    }

    static func reverseVerdict(key: AddressKey, truth: AddressIndex.Point?, position: GeoPoint, method: ReverseMethod,
                               locator: Locator) -> ReverseVerdict {
        var request = ReverseRequest(location: position)
        request.method = method
        guard let answer = try? locator.reverse(request) else { return ReverseVerdict(outcome: .failed(.noAnswer)) }
        let at = GeoPoint(x: answer.location.x, y: answer.location.y)
        let answered = AddressKey(number: answer.components.number, publishedStreet: answer.components.streetFull)
        var verdict = ReverseVerdict(outcome: .right, answer: answer.address, answerMetres: position.metres(to: at))
        if answered == key { return verdict }
        guard let truth else {
            verdict.outcome = .wrongNotAmong
            return verdict
        }
        let truthAt = GeoPoint(x: truth.lon, y: truth.lat)
        if at.metres(to: truthAt) <= colocatedMetres {
            verdict.outcome = .failed(.colocated)
        } else if let answered, answered.street == key.street {
            let parity = HouseNumber(parsing: answer.components.number).map { ($0.value & 1) == (Int(truth.number) & 1) } ?? false
            verdict.outcome = .failed(parity ? .neighbourLot : .acrossStreet)
        } else {
            verdict.outcome = .failed(position.metres(to: truthAt) <= sideStreetMetres ? .cornerOrSideStreet : .farLot)
        }
        return verdict
    }

    static func forwardVerdict(_ text: String, _ parsed: ParsedAddress, position: GeoPoint, _ context: Context,
                               _ locator: Locator) -> ForwardVerdict {
        var query = text
        if let city = context.options.city, !city.isEmpty, parsed.city == nil { query += ", " + city }
        var request = GeocodeRequest(.text(query))
        request.maxResults = 1
        request.minScore = context.options.minScore
        var verdict = ForwardVerdict(input: RecordedInput(text))
        guard let top = (try? locator.geocode(request))?.candidates.first else {
            verdict.failure = .noCandidate
            return verdict
        }
        let metres = position.metres(to: GeoPoint(x: top.location.x, y: top.location.y))
        verdict.candidate = top.address
        verdict.matchType = top.matchType
        verdict.score = top.score
        verdict.metres = metres
        if let key = AddressKey.of(parsed, among: context.keys) {
            verdict.rightAddress = AddressKey(number: top.components.number, publishedStreet: top.components.streetFull) == key
        }
        if metres <= context.options.distance { return verdict }
        let search = context.index.search
        verdict.failure = forwardFailure(recorded: context.parser.parse(RecordedInput.withoutMarkers(text)), top,
                                         synonym: { search?.synonym(of: $0) }, named: { search?.streetsNamedWithoutTypo($0) ?? [] })
        return verdict
    }

    /// Why a candidate beyond the distance is wrong, judged against the address as recorded
    /// (the inventory's markers aside). A recorded street is also read as its synonym (`synonym`,
    /// "NE PORTLAND BLVD" → NE Rosa Parks Way), and its name as the names of the streets it reads as
    /// with no typo (`named`, `AddressSearch.streetsNamedWithoutTypo`: "NE M L KING BLVD"), as the
    /// geocoder reads them: of the dev trees' 345 `wrong_street` rows, 224 were on the street
    /// recorded, so read, or had a side's directional ("W SIDE/") read as the street's.
    static func forwardFailure(recorded: ParsedAddress, _ top: GeocodeCandidate,
                               synonym: ([String]) -> [String]? = { _ in nil },
                               named: ([String]) -> Set<String> = { _ in [] }) -> ForwardFailure {
        let houseLevel = top.matchType == .pointAddress || top.matchType == .interpolated || top.matchType == .extrapolated
        // An intersection's street_full is "A & B": either street may be the recorded one.
        let candidateStreets = top.components.streetFull.components(separatedBy: " & ")
            .map { ($0, StreetNameParts(tokens: AddressKey.streetTokens($0))) }.filter { !$0.1.core.isEmpty }
        guard !candidateStreets.isEmpty else { return .streetOnly }
        let recordedStreets = ([recorded.street] + (recorded.crossStreet.map { [$0] } ?? [])).filter { !$0.isEmpty }
            .flatMap { [$0] + (synonym($0).map { [$0] } ?? []) }
        var best = StreetComparison.wrongStreet
        for tokens in recordedStreets {
            let r = StreetNameParts(tokens: tokens)
            var readAs: Set<String>?
            for (full, c) in candidateStreets {
                var comparison = StreetComparison(recorded: r, candidate: c)
                if comparison == .wrongStreet {
                    if readAs == nil { readAs = named(tokens) }
                    if readAs?.contains(full) == true { comparison = StreetComparison(recorded: r, candidate: c, sameName: true) }
                }
                best = min(best, comparison)
            }
        }
        switch best {
        case .wrongStreet: return .wrongStreet
        case .wrongNumberedStreet: return .wrongNumberedStreet
        case .wrongDirectional: return .wrongDirectional
        case .wrongStreetType: return .wrongStreetType
        case .same: break
        }
        if !houseLevel && top.matchType != .intersection { return .streetOnly }
        if houseLevel, let n = recorded.number, let answered = HouseNumber(parsing: top.components.number),
           answered.value != n.value || answered.suffix.uppercased() != n.suffix.uppercased() {
            return .wrongNumber
        }
        return .rightStreetTooFar
    }

    /// How a candidate's street relates to the recorded one, best first.
    enum StreetComparison: Int, Comparable {
        case same, wrongStreetType, wrongDirectional, wrongNumberedStreet, wrongStreet

        /// `sameName`: the recorded name reads as the candidate's, though spelled otherwise.
        init(recorded r: StreetNameParts, candidate c: StreetNameParts, sameName: Bool = false) {
            // A part the city left out ("NE 19" has no type) is no disagreement.
            func differ(_ a: String?, _ b: String?) -> Bool { a != nil && b != nil && a != b }
            if r.core == c.core || sameName {
                if differ(r.predirectional, c.predirectional) || differ(r.postdirectional, c.postdirectional) {
                    self = .wrongDirectional
                } else if differ(r.type, c.type) {
                    self = .wrongStreetType
                } else {
                    self = .same
                }
            } else if r.core.count == 1, c.core.count == 1, AddressText.ordinalNumber(r.core[0]) != nil,
                      AddressText.ordinalNumber(c.core[0]) != nil {
                self = .wrongNumberedStreet
            } else {
                self = .wrongStreet
            }
        }

        static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
    }
}

/// The columns a ground-truth file is read from, named or guessed from its header.
struct TruthColumns {
    let address: Int
    let x: Int
    let y: Int

    init(header: [String], options: TruthEvaluationOptions) throws(LocusError) {
        let find = ColumnFinder(header: header)
        func pick(_ given: String?, _ option: String, _ names: [String], _ what: String) throws(LocusError) -> Int {
            if let given { return try find.named(given, option: option) }
            guard let i = find.guess(names) else {
                throw LocusError(.invalidArgument, "cannot tell which column holds \(what) (columns: \(header.joined(separator: ", "))); name it with \(option)")
            }
            return i
        }
        address = try pick(options.addressColumn, "--address-column", ColumnFinder.singleAddress, "the address")
        x = try pick(options.xColumn, "--x-column", ColumnFinder.x, "x (longitude)")
        y = try pick(options.yColumn, "--y-column", ColumnFinder.y, "y (latitude)")
    }
}

/// One row as read: the recorded address and its position, as text.
struct RecordedRow: Sendable {
    var text: String
    var x: String
    var y: String
}

enum ReverseFailure: String, CaseIterable, Sendable {
    case noAnswer = "no_answer", colocated, neighbourLot = "neighbour_lot", acrossStreet = "across_street"
    case cornerOrSideStreet = "corner_or_side_street", farLot = "far_lot"
}

enum ForwardFailure: String, CaseIterable, Sendable {
    case noCandidate = "no_candidate", streetOnly = "street_only", wrongStreet = "wrong_street"
    case wrongDirectional = "wrong_directional", wrongNumberedStreet = "wrong_numbered_street"
    case wrongStreetType = "wrong_street_type", wrongNumber = "wrong_number", rightStreetTooFar = "right_street_too_far"
}

struct ReverseVerdict: Sendable {
    enum Outcome: Sendable, Equatable {
        case right
        /// Wrong, for a row whose address is not among the index's points (it cannot be right).
        case wrongNotAmong
        case failed(ReverseFailure)
    }
    var outcome: Outcome
    var answer: String?
    var answerMetres: Double?
}

struct ForwardVerdict: Sendable {
    var input: RecordedInput
    var failure: ForwardFailure?
    /// The top candidate is the recorded address (its key), wherever it lies.
    var rightAddress = false
    var candidate: String?
    var matchType: MatchType?
    var score: Double?
    var metres: Double?
}

/// One row judged. No position: the row counts for nothing but the tally of such rows.
struct RowVerdict: Sendable {
    var position: GeoPoint?
    var key: AddressKey?
    /// Metres from the row to its true point, when its address is among the index's points.
    var trueMetres: Double?
    /// One per `ReverseMethod.allCases`, empty when not judged.
    var reverse: [ReverseVerdict] = []
    var forward: ForwardVerdict?
    /// With `frontageFeatures`: the frontage method's candidates, and whether each is the recorded address.
    var frontage: [(candidate: FrontageChooser.Candidate, recorded: Bool)] = []

    var amongIndexPoints: Bool { trueMetres != nil }
}
