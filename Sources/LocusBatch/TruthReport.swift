import Foundation
import LocusCore
import LocusEngine

/// What `locus eval --truth` found: the same content as text (`lines`) and as JSON (`json()`,
/// snake_case keys, sorted). Percentages have two decimals.
public struct TruthReport: Codable, Sendable {
    public struct Columns: Codable, Sendable {
        public var address: String
        public var x: String
        public var y: String
        public var wkid: Int
    }

    /// How the rows divide before any geocoding.
    public struct Rows: Codable, Sendable {
        public var read = 0
        /// Coordinates missing, not numbers, or no place on Earth: judged for nothing.
        public var withoutPosition = 0
        /// No house number or no street in the recorded address (empty ones included).
        public var noAddress = 0
        /// Of `noAddress`: nothing recorded at all.
        public var emptyAddress = 0
        public var amongIndexPoints = 0
        /// With a house number and street that no index point has.
        public var notAmongIndexPoints = 0
    }

    /// `right` of `rows`: for reverse the recorded address, for forward a top candidate within
    /// the distance.
    public struct Tally: Codable, Sendable {
        public var rows = 0
        public var right = 0
        public var percent: Double { TruthReport.percent(right, of: rows) }

        enum CodingKeys: String, CodingKey { case rows, right, percent }

        init(rows: Int = 0, right: Int = 0) {
            self.rows = rows
            self.right = right
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            rows = try c.decode(Int.self, forKey: .rows)
            right = try c.decode(Int.self, forKey: .right)
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(rows, forKey: .rows)
            try c.encode(right, forKey: .right)
            try c.encode(percent, forKey: .percent)
        }

        mutating func add(_ isRight: Bool) {
            rows += 1
            if isRight { right += 1 }
        }
    }

    /// A kind of failure: how many rows, their share of the group judged, the first examples in
    /// file order, and finer classes when there are any.
    public struct FailureClass<Example: Codable & Sendable>: Codable, Sendable {
        public var name: String
        public var count: Int
        public var percent: Double
        /// Of `count`: rows whose recorded address is among the index's points (forward only).
        public var amongIndexPoints: Int?
        public var examples: [Example]
        public var subclasses: [FailureClass<Example>]?
    }

    public struct ReverseExample: Codable, Sendable {
        public var recorded: String
        public var answer: String?
        public var answerDistanceM: Double?
        public var truePointDistanceM: Double?
        public var lon: Double
        public var lat: Double
    }

    public struct ReverseMethodReport: Codable, Sendable {
        public var method: String
        /// The headline: rows whose recorded address is an index point.
        public var amongIndexPoints: Tally
        /// Every row with a house number and street.
        public var overall: Tally
        /// Of the rows among the index's points.
        public var failures: [FailureClass<ReverseExample>]
    }

    public struct ReverseReport: Codable, Sendable {
        public var maxDistanceM: Double
        public var methods: [ReverseMethodReport]
    }

    public struct ForwardExample: Codable, Sendable {
        public var recorded: String
        public var input: String
        public var candidate: String?
        public var matchType: String?
        public var score: Double?
        public var distanceM: Double?
        public var lon: Double
        public var lat: Double
    }

    public struct InputTally: Codable, Sendable {
        public var input: String
        public var tally: Tally
    }

    public struct ForwardReport: Codable, Sendable {
        public var distanceM: Double
        public var minScore: Double
        public var city: String?
        /// Right: the top candidate within the distance of the row (the headline).
        public var amongIndexPoints: Tally
        public var notAmongIndexPoints: Tally
        /// Every row with address text (with or without a house number).
        public var overall: Tally
        /// Right: a candidate scoring at least the minimum, wherever it lies.
        public var answeredAmongIndexPoints: Tally
        public var answeredNotAmongIndexPoints: Tally
        /// Right: the top candidate is the recorded address, wherever it lies.
        public var rightAddressAmongIndexPoints: Tally
        /// Rows among the index's points whose true point is itself beyond the distance: no
        /// geocoder can be right for them, so `amongIndexPoints` is at most the rest.
        public var truePointBeyondDistance: Int
        /// Of every row geocoded.
        public var failures: [FailureClass<ForwardExample>]
        /// The rows not among the index's points, by what kind of text was recorded.
        public var notAmongByInput: [InputTally]
    }

    public var truth = ""
    public var columns = Columns(address: "", x: "", y: "", wkid: 4326)
    public var rows = Rows()
    public var workers = 1
    public var seconds = 0.0
    public var reverse: ReverseReport?
    public var forward: ForwardReport?

    static func percent(_ n: Int, of total: Int) -> Double {
        total == 0 ? 0 : (Double(n) * 10_000 / Double(total)).rounded() / 100
    }

    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return try encoder.encode(self)
    }

    public static func decode(_ data: Data) throws -> TruthReport {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(TruthReport.self, from: data)
    }
}

/// Counts per class and the first examples of each, in file order.
struct ClassCollector<Example: Codable & Sendable> {
    let examples: Int
    var counts: [String: Int] = [:]
    var among: [String: Int] = [:]
    var found: [String: [Example]] = [:]

    mutating func add(_ name: String, among isAmong: Bool = false, _ example: @autoclosure () -> Example) {
        counts[name, default: 0] += 1
        if isAmong { among[name, default: 0] += 1 }
        if found[name, default: []].count < examples { found[name, default: []].append(example()) }
    }

    /// - Parameter splitsAmong: the class also says how many of its rows are among the index's points.
    func failureClass(_ name: String, of total: Int, subclasses: [String]? = nil, splitsAmong: Bool = false) -> TruthReport.FailureClass<Example> {
        let subs = subclasses.map { names in names.map { failureClass($0, of: total, splitsAmong: splitsAmong) } }
        let count = subs.map { $0.reduce(0) { $0 + $1.count } } ?? counts[name, default: 0]
        let amongCount = subs.map { $0.reduce(0) { $0 + ($1.amongIndexPoints ?? 0) } } ?? among[name, default: 0]
        let examples = subs.map { s in Array(s.flatMap(\.examples).prefix(self.examples)) } ?? found[name, default: []]
        return TruthReport.FailureClass(name: name, count: count, percent: TruthReport.percent(count, of: total),
                                        amongIndexPoints: splitsAmong ? amongCount : nil, examples: examples, subclasses: subs)
    }
}

extension TruthReport {
    static func rounded(_ d: Double?) -> Double? { d.map { ($0 * 10).rounded() / 10 } }

    static func tally(rows recorded: [RecordedRow], verdicts: [RowVerdict], options: TruthEvaluationOptions) -> TruthReport {
        var report = TruthReport()
        let methods = ReverseMethod.allCases
        var reverseAmong = [Tally](repeating: Tally(), count: methods.count)
        var reverseOverall = [Tally](repeating: Tally(), count: methods.count)
        var reverseClasses = [ClassCollector<ReverseExample>](repeating: ClassCollector(examples: options.examples), count: methods.count)
        var among = Tally(), notAmong = Tally(), overall = Tally()
        var answeredAmong = Tally(), answeredNotAmong = Tally(), rightAddress = Tally()
        var truePointBeyond = 0
        var forwardClasses = ClassCollector<ForwardExample>(examples: options.examples)
        var byInput: [RecordedInput: Tally] = [:]

        for (row, v) in zip(recorded, verdicts) {
            report.rows.read += 1
            guard let position = v.position else {
                report.rows.withoutPosition += 1
                continue
            }
            if v.key == nil {
                report.rows.noAddress += 1
                if row.text.isEmpty { report.rows.emptyAddress += 1 }
            } else if v.amongIndexPoints {
                report.rows.amongIndexPoints += 1
            } else {
                report.rows.notAmongIndexPoints += 1
            }
            for (m, r) in v.reverse.enumerated() where m < methods.count {
                reverseOverall[m].add(r.outcome == .right)
                guard v.amongIndexPoints else { continue }
                reverseAmong[m].add(r.outcome == .right)
                if case .failed(let failure) = r.outcome {
                    reverseClasses[m].add(failure.rawValue, ReverseExample(
                        recorded: row.text, answer: r.answer, answerDistanceM: rounded(r.answerMetres),
                        truePointDistanceM: rounded(v.trueMetres), lon: position.x, lat: position.y))
                }
            }
            if let f = v.forward {
                let right = f.failure == nil
                overall.add(right)
                if v.amongIndexPoints {
                    among.add(right)
                    answeredAmong.add(f.candidate != nil)
                    rightAddress.add(f.rightAddress)
                    if let d = v.trueMetres, d > options.distance { truePointBeyond += 1 }
                } else {
                    notAmong.add(right)
                    answeredNotAmong.add(f.candidate != nil)
                    byInput[f.input, default: Tally()].add(right)
                }
                if let failure = f.failure {
                    let example = ForwardExample(recorded: row.text, input: f.input.rawValue, candidate: f.candidate,
                                                 matchType: f.matchType?.rawValue, score: f.score, distanceM: rounded(f.metres),
                                                 lon: position.x, lat: position.y)
                    forwardClasses.add(failure.rawValue, among: v.amongIndexPoints, example)
                    if failure == .rightStreetTooFar {
                        forwardClasses.add("\(failure.rawValue)/\(f.matchType?.rawValue ?? "none")", among: v.amongIndexPoints, example)
                    }
                }
            }
        }

        if options.reverse {
            report.reverse = ReverseReport(maxDistanceM: ReverseRequest(location: GeoPoint(x: 0, y: 0)).maxDistance, methods: methods.indices.map { m in
                let c = reverseClasses[m], total = reverseAmong[m].rows
                return ReverseMethodReport(
                    method: methods[m].rawValue, amongIndexPoints: reverseAmong[m], overall: reverseOverall[m],
                    failures: [c.failureClass("no_answer", of: total), c.failureClass("colocated", of: total),
                               c.failureClass("neighbour_lot", of: total), c.failureClass("across_street", of: total),
                               c.failureClass("different_street", of: total, subclasses: ["corner_or_side_street", "far_lot"])])
            })
        }
        if options.forward {
            let total = overall.rows
            let tooFar = ForwardFailure.rightStreetTooFar.rawValue
            let matchTypes = forwardClasses.counts.keys.filter { $0.hasPrefix(tooFar + "/") }.sorted {
                (forwardClasses.counts[$0] ?? 0, $1) > (forwardClasses.counts[$1] ?? 0, $0)
            }
            let failures = ForwardFailure.allCases.map { f -> FailureClass<ForwardExample> in
                guard f == .rightStreetTooFar else { return forwardClasses.failureClass(f.rawValue, of: total, splitsAmong: true) }
                var c = forwardClasses.failureClass(f.rawValue, of: total, subclasses: matchTypes, splitsAmong: true)
                // Sub-classes read as "point_address", not "right_street_too_far/point_address".
                c.subclasses = c.subclasses?.map { s in
                    var s = s
                    s.name = String(s.name.dropFirst(tooFar.count + 1))
                    return s
                }
                return c
            }
            report.forward = ForwardReport(distanceM: options.distance, minScore: options.minScore, city: options.city,
                                           amongIndexPoints: among, notAmongIndexPoints: notAmong, overall: overall,
                                           answeredAmongIndexPoints: answeredAmong, answeredNotAmongIndexPoints: answeredNotAmong,
                                           rightAddressAmongIndexPoints: rightAddress, truePointBeyondDistance: truePointBeyond, failures: failures,
                                           notAmongByInput: RecordedInput.allCases.map { InputTally(input: $0.rawValue, tally: byInput[$0] ?? Tally()) })
        }
        return report
    }
}

extension TruthReport {
    /// The report as text: headline figures first, then the tables and examples.
    public var lines: [String] {
        func n(_ i: Int) -> String { BatchProgress.grouped(i) }
        func pct(_ t: Tally) -> String { String(format: "%.2f %%", t.percent) }
        func metres(_ d: Double?) -> String { d.map { String(format: "%.1f m", $0) } ?? "–" }
        func at(_ lon: Double, _ lat: Double) -> String { String(format: "%.6f, %.6f", lon, lat) }
        var out: [String] = []
        out.append("ground truth: \(truth) (address \"\(columns.address)\", position \"\(columns.x)\", \"\(columns.y)\", wkid \(columns.wkid))")
        let withAddress = rows.amongIndexPoints + rows.notAmongIndexPoints
        out.append("rows: \(n(rows.read)) · without a position \(n(rows.withoutPosition)) · no address \(n(rows.noAddress)) (\(n(rows.emptyAddress)) empty)"
            + " · address among the index's points \(n(rows.amongIndexPoints)) (\(String(format: "%.2f", Self.percent(rows.amongIndexPoints, of: withAddress))) %"
            + " of \(n(withAddress)) with an address) · not among \(n(rows.notAmongIndexPoints))")
        out.append(String(format: "%.1f s", seconds) + " with \(workers) workers")
        out.append("")
        if let reverse {
            out.append("reverse (address among index points): " + reverse.methods.map { "\($0.method) \(pct($0.amongIndexPoints))" }.joined(separator: " · "))
        }
        if let forward {
            out.append("forward within \(String(format: "%g", forward.distanceM)) m: among index points \(pct(forward.amongIndexPoints)) · "
                + "not among \(pct(forward.notAmongIndexPoints)) · overall \(pct(forward.overall))")
        }

        if let reverse {
            out.append("")
            out.append("## reverse (default max distance \(String(format: "%g", reverse.maxDistanceM)) m)")
            out.append("")
            out.append("| method | right, address among index points | right, every row with an address |")
            out.append("| --- | ---: | ---: |")
            for m in reverse.methods {
                out.append("| \(m.method) | \(pct(m.amongIndexPoints)) (\(n(m.amongIndexPoints.right)) of \(n(m.amongIndexPoints.rows))) "
                    + "| \(pct(m.overall)) (\(n(m.overall.right)) of \(n(m.overall.rows))) |")
            }
            for m in reverse.methods {
                out += failureSection("reverse \(m.method): failures among index points (share of \(n(m.amongIndexPoints.rows)))", m.failures) { e in
                    "\"\(e.recorded)\" → \(e.answer ?? "nothing") (answer \(metres(e.answerDistanceM)), true point \(metres(e.truePointDistanceM))) at \(at(e.lon, e.lat))"
                }
            }
        }

        if let forward {
            let d = String(format: "%g", forward.distanceM)
            out.append("")
            out.append("## forward (min score \(String(format: "%g", forward.minScore)), right within \(d) m\(forward.city.map { ", city \"\($0)\" appended" } ?? ""))")
            out.append("")
            out.append("| rows | geocoded | within \(d) m | any candidate | top candidate is the recorded address |")
            out.append("| --- | ---: | ---: | ---: | ---: |")
            let answeredOverall = Tally(rows: forward.overall.rows,
                                        right: forward.answeredAmongIndexPoints.right + forward.answeredNotAmongIndexPoints.right)
            for (label, t, answered, address) in [
                ("address among index points", forward.amongIndexPoints, forward.answeredAmongIndexPoints, Optional(forward.rightAddressAmongIndexPoints)),
                ("not among", forward.notAmongIndexPoints, forward.answeredNotAmongIndexPoints, nil),
                ("overall", forward.overall, answeredOverall, nil),
            ] {
                out.append("| \(label) | \(n(t.rows)) | \(pct(t)) (\(n(t.right))) | \(pct(answered)) | \(address.map(pct) ?? "–") |")
            }
            out.append("")
            out.append("\(n(forward.truePointBeyondDistance)) rows among index points stand more than \(d) m from their true point: "
                + "within \(d) m is at most \(String(format: "%.2f", Self.percent(forward.amongIndexPoints.rows - forward.truePointBeyondDistance, of: forward.amongIndexPoints.rows))) % for them.")
            out.append("")
            out.append("### forward: not among index points, by input")
            out.append("")
            out.append("| input | rows | within \(d) m |")
            out.append("| --- | ---: | ---: |")
            for i in forward.notAmongByInput {
                out.append("| \(i.input) | \(n(i.tally.rows)) | \(pct(i.tally)) (\(n(i.tally.right))) |")
            }
            out += failureSection("forward: failures (share of \(n(forward.overall.rows)) geocoded)", forward.failures) { e in
                "\"\(e.recorded)\" [\(e.input)] → " + (e.candidate.map {
                    "\($0) [\(e.matchType ?? "?"), score \(String(format: "%g", e.score ?? 0))] \(metres(e.distanceM)) away"
                } ?? "no candidate") + " at \(at(e.lon, e.lat))"
            }
        }
        return out
    }

    /// A failure section: its heading, the table of classes, and examples of each.
    private func failureSection<E>(_ heading: String, _ classes: [FailureClass<E>], _ example: (E) -> String) -> [String] {
        ["", "### " + heading, ""] + classTable(classes) + [""] + examples(classes, example)
    }

    private func classTable<E>(_ classes: [FailureClass<E>]) -> [String] {
        let split = classes.contains { $0.amongIndexPoints != nil }
        var out = split ? ["| class | rows | share | of which among index points |", "| --- | ---: | ---: | ---: |"]
                        : ["| class | rows | share |", "| --- | ---: | ---: |"]
        func row(_ name: String, _ c: FailureClass<E>) -> String {
            "| \(name) | \(BatchProgress.grouped(c.count)) | \(String(format: "%.2f", c.percent)) % |"
                + (split ? " \(c.amongIndexPoints.map(BatchProgress.grouped) ?? "") |" : "")
        }
        for c in classes {
            out.append(row(c.name, c))
            for s in c.subclasses ?? [] { out.append(row("· " + s.name, s)) }
        }
        return out
    }

    private func examples<E>(_ classes: [FailureClass<E>], _ describe: (E) -> String) -> [String] {
        var out: [String] = []
        for c in classes {
            for s in c.subclasses ?? [c] where !s.examples.isEmpty {
                out.append(s.name == c.name ? "\(c.name):" : "\(c.name) / \(s.name):")
                for e in s.examples { out.append("- " + describe(e)) }
            }
        }
        return out
    }
}
