import Foundation
import LocusBatch
import LocusCore
import LocusEngine
import Testing

/// `locus eval --truth` on a hand-written fixture of Portland trees (Tests/Fixtures/truth_trees.csv)
/// whose every row's verdict follows from the address points around it:
///
///  1. 6132 NE 34TH AVE, 17 m in front of its point: right both ways; forward right.
///  2. The same, spelled out ("Northeast 34th Avenue"): the same key, the same verdicts.
///  3. 6036 NE 22ND AVE, a real tree nearer 6026 (same side), near the lots' boundary: both
///     methods answer 6026 (neighbour_lot).
///  4. 3405 NE AINSWORTH ST, a real tree at the corner of NE 34th: right both ways.
///  5. 3310 NE AINSWORTH ST recorded at the point of 3315, across the street: across_street both
///     ways; forward right (3310 is 47 m away).
///  6. 5303 N KERBY AVE at the point of 5301, one of three addresses on one spot: colocated.
///  7. 6132 NE 34TH AVE at the point of 3405 NE Ainsworth St, 111 m away: far_lot both ways;
///     forward right_street_too_far (point_address).
///  8. 0104 SW LANE ST (a leading zero, stored as 104), 8 m in front: right both ways.
///  9. 6120 NE 34TH AVE: no such point (plain, not among); forward interpolates it, right.
/// 10. 5331-5337 N KERBY AVE: a range whose 5331 is no point; forward interpolates it, right.
/// 11. 1640 WI/ NW 19TH AVE: a qualifier, not among; extrapolated on NW 19th Ave, but the tree
///     stands beyond 75 m of it (right_street_too_far).
/// 12. NW COR/ 27TH & NE SARATOGA ST: a corner, no address; the crossing, within 75 m.
/// 13. NE 34TH AVE: no number, no address; forward a street match far away (street_only).
/// 14. An empty address: no address, not geocoded.
/// 15. A longitude that is no number: without a position, judged for nothing.
@Suite struct TruthEvaluationTests {
    let index: LocusIndex
    static let fixture = TestSupport.fixtures.appendingPathComponent("truth_trees.csv").path

    init() throws { index = try TestSupport.portland() }

    func failures<E>(_ classes: [TruthReport.FailureClass<E>]) -> [String: Int] {
        var out: [String: Int] = [:]
        for c in classes {
            out[c.name] = c.count
            for s in c.subclasses ?? [] { out[c.name + "/" + s.name] = s.count }
        }
        return out
    }

    @Test func fixtureCountsEveryClass() async throws {
        let report = try await TruthEvaluation.run(truth: Self.fixture, index: index, options: TruthEvaluationOptions())
        #expect(report.rows.read == 15)
        #expect(report.rows.withoutPosition == 1)
        #expect(report.rows.noAddress == 3)
        #expect(report.rows.emptyAddress == 1)
        #expect(report.rows.amongIndexPoints == 8)
        #expect(report.rows.notAmongIndexPoints == 3)
        #expect(report.columns.address == "address" && report.columns.x == "lon" && report.columns.y == "lat")

        let reverse = try #require(report.reverse)
        #expect(reverse.methods.map(\.method) == ReverseMethod.allCases.map(\.rawValue))
        let frontage = try #require(reverse.methods.first { $0.method == "frontage" })
        #expect(frontage.amongIndexPoints.rows == 8 && frontage.amongIndexPoints.right == 4)
        #expect(frontage.overall.rows == 11 && frontage.overall.right == 4)
        #expect(failures(frontage.failures) == [
            "no_answer": 0, "colocated": 1, "neighbour_lot": 1, "across_street": 1,
            "different_street": 1, "different_street/corner_or_side_street": 0, "different_street/far_lot": 1,
        ])
        let nearest = try #require(reverse.methods.first { $0.method == "nearest" })
        #expect(nearest.amongIndexPoints.rows == 8 && nearest.amongIndexPoints.right == 4)
        #expect(nearest.amongIndexPoints.percent == 50)
        #expect(failures(nearest.failures) == [
            "no_answer": 0, "colocated": 1, "neighbour_lot": 1, "across_street": 1,
            "different_street": 1, "different_street/corner_or_side_street": 0, "different_street/far_lot": 1,
        ])
        let farLot = try #require(nearest.failures.last?.subclasses?.last?.examples.first)
        #expect(farLot.recorded == "6132 NE 34TH AVE")
        #expect(farLot.answer == "3405 NE Ainsworth St, Portland, OR 97211")
        #expect(farLot.answerDistanceM == 0)
        #expect((farLot.truePointDistanceM ?? 0) > 100)

        let forward = try #require(report.forward)
        #expect(forward.amongIndexPoints.rows == 8 && forward.amongIndexPoints.right == 7)
        #expect(forward.notAmongIndexPoints.rows == 5 && forward.notAmongIndexPoints.right == 4)
        #expect(forward.overall.rows == 13 && forward.overall.right == 11)
        #expect(forward.rightAddressAmongIndexPoints.right == 8)
        #expect(forward.truePointBeyondDistance == 1)
        #expect(failures(forward.failures) == [
            "no_candidate": 0, "street_only": 1, "wrong_street": 0, "wrong_directional": 0, "wrong_numbered_street": 0,
            "wrong_street_type": 0, "wrong_number": 0, "right_street_too_far": 1, "right_street_too_far/point_address": 1,
        ])
        let byInput = Dictionary(uniqueKeysWithValues: forward.notAmongByInput.map { ($0.input, ($0.tally.rows, $0.tally.right)) })
        func tally(_ input: String) -> [Int] { byInput[input].map { [$0.0, $0.1] } ?? [] }
        #expect(tally("range") == [1, 1])
        #expect(tally("qualifier") == [1, 1])
        #expect(tally("corner") == [1, 1])
        #expect(tally("leading_zero") == [0, 0])
        #expect(tally("no_number") == [1, 0])
        #expect(tally("plain") == [1, 1])
    }

    @Test func onlyAndLimitAndCity() async throws {
        var options = TruthEvaluationOptions()
        options.forward = false
        options.limit = 3
        options.workers = 1
        let report = try await TruthEvaluation.run(truth: Self.fixture, index: index, options: options)
        #expect(report.forward == nil)
        #expect(report.rows.read == 3)
        #expect(report.reverse?.methods.first { $0.method == "nearest" }?.amongIndexPoints.right == 2)

        // The right city changes nothing; a wrong one costs a few points of score, but the
        // street named as typed exists only in Portland, so every answer stays there.
        options = TruthEvaluationOptions()
        options.reverse = false
        options.city = "Portland"
        let portland = try await TruthEvaluation.run(truth: Self.fixture, index: index, options: options)
        #expect(portland.reverse == nil)
        #expect(portland.forward?.city == "Portland")
        #expect(portland.forward?.overall.right == 11)
        options.city = "Gresham"
        let gresham = try await TruthEvaluation.run(truth: Self.fixture, index: index, options: options)
        #expect(gresham.forward?.amongIndexPoints.right == 7)
        #expect(gresham.forward?.notAmongIndexPoints.right == 4)
    }

    @Test func keysAgreeAcrossSpellings() throws {
        let parser = try #require(index.search?.parser)
        func key(_ text: String) -> AddressKey? { AddressKey(parser.parse(text)) }
        let published = AddressKey(number: "6132", publishedStreet: "Northeast 34th Avenue")
        #expect(published != nil)
        #expect(key("6132 NE 34TH AVE") == published)
        #expect(key("6132 ne 34 ave") == published)
        #expect(key("6132 Northeast Thirty-Fourth Avenue") == published)
        // A leading zero is another address (Portland's zero line), as the index keeps it.
        #expect(key("0104 SW LANE ST") == AddressKey(number: "0104", publishedStreet: "Southwest Lane Street"))
        #expect(key("0104 SW LANE ST")?.number == "0104")
        #expect(key("0104 SW LANE ST") != AddressKey(number: "104", publishedStreet: "Southwest Lane Street"))
        #expect(key("7212A N PORTSMOUTH AVE") == AddressKey(number: "7212 A", publishedStreet: "North Portsmouth Avenue"))
        #expect(key("7212 N PORTSMOUTH AVE") != AddressKey(number: "7212 A", publishedStreet: "North Portsmouth Avenue"))
        #expect(key("6132 NE 34TH ST") != published)
        #expect(key("NE 19") == nil)
        #expect(key("NW COR/ 27TH & NE SARATOGA ST") == nil)
        #expect(key("") == nil)
    }

    @Test(arguments: [
        ("5331-5337 N KERBY AVE", RecordedInput.range), ("1640 WI/ NW 19TH AVE", .qualifier), ("5321 S/ NE 31ST AVE", .qualifier),
        ("NW COR/ 27TH & NE SARATOGA ST", .corner), ("SEC/ CONCORD & N GOING CT", .corner), ("0841 SW GAINES ST", .leadingZero),
        ("NE 19", .noNumber), ("NE KILLINGSWORTH ST", .noNumber), ("6132 NE 34TH AVE", .plain), ("", .noNumber), ("-", .noNumber),
        ("12-", .plain), ("0", .plain),
    ])
    func inputClasses(_ text: String, _ expected: RecordedInput) {
        #expect(RecordedInput(text) == expected)
    }

    /// Rows a careless reader would trap on: missing fields, numbers out of range, quotes, junk.
    @Test func hostileRowsAreCountedNotFatal() async throws {
        let dir = TestSupport.temporaryDirectory()
        let path = dir.appendingPathComponent("hostile.csv").path
        let rows = [
            "address,lon,lat",
            "6132 NE 34TH AVE,-122.629576,45.567553",
            "6132 NE 34TH AVE",
            "6132 NE 34TH AVE,1e400,45.5",
            "6132 NE 34TH AVE,nan,45.5",
            "6132 NE 34TH AVE,-122.6,95",
            "6132 NE 34TH AVE,-500,45",
            "99999999999999999999 NE 34TH AVE,-122.629576,45.567553",
            "\"\(String(repeating: "9 ", count: 800))\",-122.629576,45.567553",
            "#&@/-,-122.629576,45.567553",
            "\"6132 NE 34TH AVE, \"\"quoted\"\"\",-122.629576,45.567553,extra,fields",
            ",,",
        ]
        try (rows.joined(separator: "\r\n") + "\r\n").write(toFile: path, atomically: true, encoding: .utf8)
        let report = try await TruthEvaluation.run(truth: path, index: index, options: TruthEvaluationOptions())
        #expect(report.rows.read == 11)
        #expect(report.rows.withoutPosition == 6)
        #expect(report.rows.amongIndexPoints == 2)
        let judged = report.rows.read - report.rows.withoutPosition
        #expect(report.rows.noAddress + report.rows.amongIndexPoints + report.rows.notAmongIndexPoints == judged)
        #expect(report.forward?.overall.rows == judged)
    }

    @Test func columnsNamedOrExplained() async throws {
        let dir = TestSupport.temporaryDirectory()
        let path = dir.appendingPathComponent("columns.csv").path
        try "where,east,north\n6132 NE 34TH AVE,-122.629576,45.567553\n".write(toFile: path, atomically: true, encoding: .utf8)
        await #expect(throws: LocusError.self) {
            _ = try await TruthEvaluation.run(truth: path, index: index, options: TruthEvaluationOptions())
        }
        var options = TruthEvaluationOptions()
        options.addressColumn = "where"
        options.xColumn = "east"
        options.yColumn = "north"
        let report = try await TruthEvaluation.run(truth: path, index: index, options: options)
        #expect(report.rows.amongIndexPoints == 1)
        #expect(report.forward?.overall.right == 1)
    }
}

/// The command as a user runs it.
@Suite struct TruthEvaluationCLITests {
    let index: String

    init() throws { index = try TestSupport.portlandIndexPath() }

    @Test func jsonReportDecodes() throws {
        let r = try TestSupport.locus(["eval", "--truth", TruthEvaluationTests.fixture, "--json", "--examples", "1", "--index", index])
        #expect(r.status == 0, "\(r.stderr)")
        let report = try TruthReport.decode(Data(r.stdout.utf8))
        #expect(report.rows.read == 15)
        #expect(report.rows.amongIndexPoints == 8)
        #expect(report.reverse?.methods.first { $0.method == "nearest" }?.amongIndexPoints.right == 4)
        #expect(report.forward?.overall.right == 11)
        #expect(report.forward?.failures.allSatisfy { $0.examples.count <= 1 } == true)
        // Stable, snake_case keys.
        let object = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let forward = try #require(object["forward"] as? [String: Any])
        #expect(forward["among_index_points"] is [String: Any])
        #expect(forward["not_among_by_input"] is [Any])
        #expect(forward["distance_m"] as? Double == 75)
    }

    @Test func textReportLeadsWithTheHeadline() throws {
        let r = try TestSupport.locus(["eval", "--truth", TruthEvaluationTests.fixture, "--index", index])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("reverse (address among index points): frontage 50.00 % · nearest 50.00 %"))
        #expect(r.stdout.contains("forward within 75 m: among index points 87.50 % · not among 80.00 % · overall 84.62 %"))
        #expect(r.stdout.contains("| · far_lot | 1 | 12.50 % |"))
    }

    /// What `scripts/fit_frontage.py` fits on: every candidate at each row whose address is among
    /// the index's points (rows 1–8 and 3405 of the fixture's), the recorded one marked.
    @Test func frontageFeaturesForFitting() throws {
        let out = TestSupport.temporaryDirectory().appendingPathComponent("features.csv").path
        let r = try TestSupport.locus(["eval", "--truth", TruthEvaluationTests.fixture, "--only", "reverse",
                                       "--frontage-features", out, "--index", index])
        #expect(r.status == 0, "\(r.stderr)")
        let input = try CSVInput(path: out)
        #expect(input.header == ["row", "address", "recorded", "distance", "has_direction", "along", "in_front", "overshoot",
                                 "along_angle", "across_own_street", "end_lots", "streets_between", "streets_between_depth"])
        var rows: [[String]] = []
        while let row = try input.next() { rows.append(row) }
        // The fixture's rows whose address is among the index's points: data rows 1-8.
        #expect(Set(rows.compactMap { Int($0[0]) }) == Set(1...8))
        #expect(rows.allSatisfy { $0.count == 13 })
        // Row 1: 6132 NE 34th Ave recorded, 16.6 m from its tree; several candidates, nearest first.
        let first = rows.filter { $0[0] == "1" }
        #expect(first.count > 1)
        let recorded = first.filter { $0[2] == "1" }
        #expect(recorded.map { $0[1] } == ["6132 NE 34th Ave, Portland, OR 97211"])
        #expect(abs((Double(recorded.first?[3] ?? "") ?? 0) - 16.6) < 0.1)
        let distances = first.compactMap { Double($0[3]) }
        #expect(distances == distances.sorted())

        // A path that cannot be written is refused before any row is judged.
        let unwritable = try TestSupport.locus(["eval", "--truth", TruthEvaluationTests.fixture, "--only", "reverse",
                                                "--frontage-features", "/nonexistent/dir/features.csv", "--index", index])
        #expect(unwritable.status == 64)
        #expect(unwritable.stderr.contains("/nonexistent/dir/features.csv"), "stderr was: \(unwritable.stderr)")
    }

    @Test func badOptionsSayWhy() throws {
        let missing = try TestSupport.locus(["eval", "--truth", "/nonexistent/truth.csv", "--index", index])
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("truth.csv"), "stderr was: \(missing.stderr)")
        let column = try TestSupport.locus(["eval", "--truth", TruthEvaluationTests.fixture, "--address-column", "nope", "--index", index])
        #expect(column.status == 64)
        #expect(column.stderr.contains("no column \"nope\""), "stderr was: \(column.stderr)")
        // The synthetic evaluation is locus-bench's (a development tool); locus evaluates a file.
        let noTruth = try TestSupport.locus(["eval", "--index", index])
        #expect(noTruth.status == 64)
        #expect(noTruth.stderr.contains("--truth"), "stderr was: \(noTruth.stderr)")
    }
}
