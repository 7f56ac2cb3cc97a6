import ArgumentParser
import Foundation
import LocusBatch
import LocusCore
import LocusEngine
import LocusProtocol

/// "LON,LAT" as an option value.
struct PointOption: ExpressibleByArgument {
    var point: GeoPoint
    init?(argument: String) {
        let parts = argument.split(separator: ",").map { Double($0.trimmingWhitespace()) }
        guard parts.count == 2, let x = parts[0], let y = parts[1], x.isFinite, y.isFinite else { return nil }
        point = GeoPoint(x: x, y: y)
    }
}

/// "XMIN,YMIN,XMAX,YMAX" as an option value.
struct EnvelopeOption: ExpressibleByArgument {
    var envelope: Envelope
    init?(argument: String) {
        let v = argument.split(separator: ",").compactMap { Double($0.trimmingWhitespace()) }
        guard v.count == 4, v.allSatisfy(\.isFinite), v[0] < v[2], v[1] < v[3] else { return nil }
        envelope = Envelope(minX: v[0], minY: v[1], maxX: v[2], maxY: v[3])
    }
}

extension Locus {
    struct Suggest: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Suggestions for what has been typed so far: addresses, streets, postcodes, neighbourhoods.",
            discussion: "Example: locus suggest \"6132 ne 34\" --near=-122.63,45.57"
        )

        @Argument(help: "The text typed so far (a trailing space means the last word is complete).")
        var text: [String] = []
        @Option(name: [.customLong("max"), .customLong("max-results")], help: "At most this many suggestions.")
        var max: Int = 5
        @Option(help: ArgumentHelp("Rank places near this point higher: LON,LAT (in --wkid).", valueName: "lon,lat"))
        var near: PointOption?
        @Option(help: ArgumentHelp("Only places inside XMIN,YMIN,XMAX,YMAX (lon/lat).", valueName: "xmin,ymin,xmax,ymax"))
        var extent: EnvelopeOption?
        @OptionGroup var query: QueryOptions
        @OptionGroup var index: IndexOptions
        @OptionGroup var server: ServerOptions

        func validate() throws {
            guard (1...50).contains(max) else { throw ValidationError("--max must be 1 … 50") }
        }

        func run() async throws {
            let result: SuggestResult
            do {
                var request = SuggestRequest(text: text.joined(separator: " "))
                request.maxResults = max
                request.near = near?.point
                request.extent = extent?.envelope
                let reference = try SpatialReference(wkid: query.wkid)
                if server.address != nil {
                    result = try await server.ask(LocusRequest(.suggest, SuggestArguments(request: request, locationReference: reference)), as: SuggestResult.self)
                } else {
                    result = try Locator(index: try index.open(.search)).suggest(request, near: reference)
                }
            } catch {
                throw fail(error, json: query.json)
            }
            if query.json { return Output.json(result) }
            if result.suggestions.isEmpty { Output.line("no suggestions") }
            for s in result.suggestions { Output.line("\(s.text)  [\(s.type.rawValue), key \(s.key)]") }
        }
    }

    struct Geocode: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Locate an address, intersection, street, postcode or neighbourhood.",
            discussion: """
            Examples: locus geocode 6132 ne 34th \
                      locus geocode "NE 34th Ave & NE Killingsworth St" \
                      locus geocode --number 6132 --street "NE 34th Ave" --postcode 97211
            """
        )

        @Argument(help: "The address as typed.") var text: [String] = []
        @Option(help: ArgumentHelp("A suggestion's key.", valueName: "key")) var key: String?
        @Option(help: ArgumentHelp("House number.", valueName: "text")) var number: String?
        @Option(help: ArgumentHelp("Street.", valueName: "text")) var street: String?
        @Option(help: ArgumentHelp("City.", valueName: "text")) var city: String?
        @Option(help: ArgumentHelp("ZIP code.", valueName: "zip")) var postcode: String?
        @Option(name: [.customLong("max"), .customLong("max-results")], help: "At most this many candidates.")
        var max: Int = 5
        @Option(help: ArgumentHelp("Prefer candidates near LON,LAT (in --wkid).", valueName: "lon,lat")) var near: PointOption?
        @Option(help: ArgumentHelp("Leave out candidates scoring below this (0–100).", valueName: "score")) var minScore: Double = 60
        @Flag(help: "Say why each candidate scored what it did.") var explain = false
        @OptionGroup var query: QueryOptions
        @OptionGroup var index: IndexOptions
        @OptionGroup var server: ServerOptions

        var fieldsGiven: Bool { [number, street, city, postcode].contains { $0 != nil } }

        func validate() throws {
            let forms = [!text.isEmpty, key != nil, fieldsGiven].filter { $0 }.count
            guard forms == 1 else { throw ValidationError("give the address as text, or --key, or --number/--street/--city/--postcode: exactly one of them") }
            guard (1...100).contains(max) else { throw ValidationError("--max must be 1 … 100") }
            guard (0...100).contains(minScore) else { throw ValidationError("--min-score must be 0 … 100") }
        }

        func run() async throws {
            let result: GeocodeResult
            do {
                let input: GeocodeRequest.Input
                if let key { input = .key(key) } else if fieldsGiven {
                    input = .fields(number: number, street: street, city: city, postcode: postcode)
                } else {
                    input = .text(text.joined(separator: " "))
                }
                var request = GeocodeRequest(input)
                request.maxResults = max
                request.near = near?.point
                request.minScore = minScore
                request.explain = explain
                let inSR = try SpatialReference(wkid: query.wkid)
                let outSR = try query.outWkid.map { (w) throws(LocusError) in try SpatialReference(wkid: w) } ?? inSR
                if server.address != nil {
                    let arguments = GeocodeArguments(request: request, locationReference: inSR, out: outSR)
                    result = try await server.ask(LocusRequest(.geocode, arguments), as: GeocodeResult.self)
                } else {
                    result = try Locator(index: try index.open(.search)).geocode(request, near: inSR, outSpatialReference: outSR)
                }
            } catch {
                throw fail(error, json: query.json)
            }
            if query.json { return Output.json(result) }
            if result.candidates.isEmpty { Output.line("no candidates") }
            for c in result.candidates {
                Output.line("\(String(format: "%5.1f", c.score))  \(c.address)  [\(c.matchType.rawValue)]\(c.unit.map { "  unit: \($0)" } ?? "")")
                Output.line("       at \(c.location.x), \(c.location.y) (wkid \(c.location.wkid)), key \(c.key)")
                for note in c.explain ?? [] { Output.line("       · \(note)") }
            }
        }
    }
}

extension Locus {
    struct Eval: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Measure geocoding accuracy against a ground-truth file of your own (--truth).",
            discussion: """
            --truth FILE: a CSV (or .csv.gz) of addresses recorded at known positions (columns \
            guessed like `locus assign`/`enrich`, or named). Each recorded address is parsed as the \
            geocoder parses queries into a key, house number + canonical street ("NE 34TH AVE" = \
            "Northeast 34th Avenue"); it is "among the index's points" when an index address point \
            has that key, and the nearest such point is its true point. Rows with no house number \
            or street count as "no address" and are not judged in reverse.

            Reverse: every method answers at the row's position (default max distance); right when \
            the answer's key is the recorded one. Failures among index points: no_answer, colocated \
            (another address within 2 m of the true point), neighbour_lot (same street, same \
            parity), across_street (same street, other parity), different_street \
            (corner_or_side_street: true point within 60 m of the row; far_lot: farther).

            Forward: the recorded text (plus --city when it names none) is geocoded (min score 60, \
            top candidate); right within --distance metres of the row. Failures: no_candidate, \
            street_only, wrong_street, wrong_directional, wrong_numbered_street, wrong_street_type, \
            wrong_number, right_street_too_far (by match type). Rows not among the index's points \
            are also split by input: range, qualifier, corner, leading_zero, no_number, plain.

            Example: locus eval --truth ../shared/data/portland/street_trees_dev.csv.gz
            """
        )
        enum Part: String, ExpressibleByArgument, CaseIterable { case reverse, forward }

        @Option(help: ArgumentHelp("Ground-truth CSV (or .csv.gz): an address and the x/y where it was recorded.", valueName: "file"))
        var truth: String
        @Option(help: ArgumentHelp("With --truth: column with the address.", valueName: "name")) var addressColumn: String?
        @Option(help: ArgumentHelp("With --truth: column with x (longitude).", valueName: "name")) var xColumn: String?
        @Option(help: ArgumentHelp("With --truth: column with y (latitude).", valueName: "name")) var yColumn: String?
        @Option(help: ArgumentHelp("With --truth: spatial reference of x/y.", valueName: "wkid")) var wkid: Int = 4326
        @Option(help: ArgumentHelp("With --truth: city appended to addresses that name none (default: none).", valueName: "text"))
        var city: String?
        @Option(help: ArgumentHelp("With --truth: forward geocoding is right within this many metres of the row.", valueName: "metres"))
        var distance: Double = 75
        @Option(help: ArgumentHelp("With --truth: examples listed per failure class.", valueName: "n")) var examples: Int = 5
        @Option(help: ArgumentHelp("With --truth: only the first N rows.", valueName: "n")) var limit: Int?
        @Option(help: ArgumentHelp("With --truth: only reverse or only forward geocoding (default both).", valueName: "reverse|forward"))
        var only: Part?
        @Flag(help: "With --truth: the whole report as one JSON object.") var json = false
        @Option(help: ArgumentHelp("With --truth: write the frontage method's candidates at every row whose address is among the index's points, with their features and whether each is the recorded address (what scripts/fit_frontage.py fits its weights on).", valueName: "out.csv"))
        var frontageFeatures: String?
        @OptionGroup var index: IndexOptions

        func validate() throws {
            guard wkid > 0 else { throw ValidationError("--wkid must be a positive wkid") }
            guard distance.isFinite, distance > 0 else { throw ValidationError("--distance must be a positive number of metres") }
            guard (0...10_000).contains(examples) else { throw ValidationError("--examples must be 0 … 10000") }
            if let limit, limit <= 0 { throw ValidationError("--limit must be positive") }
        }

        func run() async throws {
            do {
                try CommandError.requireInput(truth, "the ground-truth file")
                var options = TruthEvaluationOptions()
                options.addressColumn = addressColumn
                options.xColumn = xColumn
                options.yColumn = yColumn
                options.spatialReference = try SpatialReference(wkid: wkid)
                options.city = city
                options.distance = distance
                options.examples = examples
                options.limit = limit
                options.reverse = only != .forward
                options.forward = only != .reverse
                options.frontageFeatures = frontageFeatures
                let report = try await TruthEvaluation.run(truth: truth, index: try index.open(.all), options: options)
                if json {
                    FileHandle.standardOutput.write(try report.json() + Data("\n".utf8))
                } else {
                    for l in report.lines { Output.line(l) }
                }
            } catch {
                throw fail(error, json: json)
            }
        }
    }
}
