import ArgumentParser
import Foundation
import LocusBatch
import LocusClient
import LocusCore
import LocusEngine
import LocusProtocol
import LocusWire
import NIOConcurrencyHelpers
import UnixSignals

/// What `enrich` and `assign` share: files, CSV style, parallelism, resume, failures.
struct BatchFileOptions: ParsableArguments {
    // "-" is the standard stream, as for most Unix tools (it was taken as a file named "-").
    @Argument(help: ArgumentHelp("Input CSV (or .csv.gz) with a header row; - for standard input.", valueName: "in.csv"),
              transform: { $0 == "-" ? "/dev/stdin" : $0 })
    var input: String
    @Option(name: [.short, .customLong("output")], help: ArgumentHelp("Output CSV; .gz to compress it; - for standard output.", valueName: "out.csv"),
            transform: { $0 == "-" ? "/dev/stdout" : $0 })
    var output: String
    @Option(help: ArgumentHelp("Field delimiter of the input (and output). Default: told from the header line.", valueName: "char"))
    var delimiter: String?
    @Option(name: .customLong("layer"), help: ArgumentHelp("Polygon layer to look up (repeatable). Default: every layer of the index.", valueName: "name"))
    var layers: [String] = []
    @Flag(help: "Continue an interrupted run of the same command into the same output.")
    var resume = false
    @Flag(help: "Exit 0 even when some rows failed (they are in the output, with a status and a reason).")
    var allowFailures = false
    @Option(help: ArgumentHelp("Rows worked on at once. Default: one per core in process, 64 against a server.", valueName: "n"))
    var workers: Int?
    @Option(help: ArgumentHelp("With --server: connections to open; the server answers each on its own core.", valueName: "n"))
    var connections: Int = 4
    @Flag(help: "Print the summary (or the error) as one JSON object on standard output.")
    var json = false
    @OptionGroup var index: IndexOptions
    @OptionGroup var server: ServerOptions

    func validate() throws {
        if let delimiter, delimiter != "\\t", delimiter.unicodeScalars.count != 1 {
            throw ValidationError("--delimiter must be one character (or \\t)")
        }
        // A quote or line break cannot separate fields, and a delimiter beyond ASCII was written as
        // one byte of it: output that no reader, this one included, reads back.
        if let d = delimiterScalar, !d.isASCII || d == "\"" || d == "\r" || d == "\n" {
            throw ValidationError("--delimiter must be an ASCII character other than a quote or a line break")
        }
        if let workers, !(1...1_024).contains(workers) { throw ValidationError("--workers must be 1 … 1024") }
        guard (1...64).contains(connections) else { throw ValidationError("--connections must be 1 … 64") }
        if input == output { throw ValidationError("the output must not be the input") }
        if json, output == "/dev/stdout" {
            throw ValidationError("--json prints the summary on standard output, where -o - writes the rows: name an output file")
        }
    }

    var delimiterScalar: UnicodeScalar? {
        guard let delimiter else { return nil }
        return delimiter == "\\t" ? "\t" : delimiter.unicodeScalars.first
    }

    /// The index in this process (nil with --server) and the layers available, checked to have
    /// what `parts` needs: a server's index is asked through `info`.
    func source(_ parts: LocusIndex.Parts) async throws -> (index: LocusIndex?, layers: [String]) {
        guard server.address != nil else {
            let index = try self.index.open(parts, mapped: false)
            return (index, index.layers.keys.sorted())
        }
        let info = try await server.ask(LocusRequest(.info, ()), as: InfoLayers.self).index
        if !parts.isDisjoint(with: [.addresses, .search]), info.metadata["address_count"] == nil {
            throw LocusError(.notFound, "the server's index has no addresses")
        }
        return (nil, info.layers.map(\.name))
    }

    /// The layers to use: the ones asked for, checked against the index's, or all of them.
    func layers(available: [String]) throws -> [String] {
        if layers.isEmpty { return available }
        for l in layers where !available.contains(l) {
            throw LocusError(.notFound, "no layer named \"\(l)\" (this index has: \(available.isEmpty ? "none" : available.joined(separator: ", ")))")
        }
        var seen = Set<String>()
        return layers.filter { seen.insert($0).inserted }
    }

    /// On Ctrl-C or SIGTERM, says how far the job got and how to go on, then exits 130. Whatever
    /// moment it comes, the output and its resume record agree (see `Checkpoint`). Cancel the
    /// task when the job is over.
    static func onInterrupt(output: String) async -> Task<Void, Never> {
        // The default action would end the process before the message; the sequence's sources
        // receive the signals either way.
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        return Task.detached {
            for await _ in signals {
                let erase = Output.standardErrorIsTerminal ? "\r\u{1B}[K" : ""
                let advice = if let done = rowsWritten(output: output) {
                    "interrupted with \(BatchProgress.grouped(done)) rows written to \(output); run the same command with --resume to go on"
                } else {
                    "interrupted; \(noResumeRecord(output)), so run the same command again to start over"
                }
                FileHandle.standardError.write(Data("\(erase)locus: \(advice)\n".utf8))
                Foundation.exit(ExitStatus.interrupted.rawValue)
            }
        }
    }

    /// Puts Ctrl-C and SIGTERM back to ending the process at once.
    static func restoreSignals(_ watcher: Task<Void, Never>) {
        watcher.cancel()
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }

    /// The rows an interrupted job's resume record says are in `output`; nil without a record,
    /// which `--resume` needs: standard output or another pipe or device has none (told to go on
    /// with `--resume`, the user met "is not a file: a run into it cannot be resumed"), nor has a
    /// file before the job's first rows are done.
    static func rowsWritten(output: String) -> Int? {
        FileManager.default.contents(atPath: output + ".locus-resume")
            .flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
            .map { $0["rowsDone"] as? Int ?? 0 }
    }

    /// Why a job into `output` cannot go on with `--resume`.
    static func noResumeRecord(_ output: String) -> String {
        "\(output) has no resume record (it is not a file, or no rows were done yet)"
    }

    /// Runs the job in process or against the server, prints the summary, picks the exit status.
    func run(_ job: some BatchJob, input: CSVInput, loadIndex: () throws -> LocusIndex?, describe: String,
             report: (BatchSummary) -> [String]) async throws {
        var options = BatchOptions(output: output)
        options.resume = resume
        let interruption = await Self.onInterrupt(output: output)
        defer { Self.restoreSignals(interruption) }
        let summary: BatchSummary
        if let address = server.address {
            options.workers = workers ?? 64
            let token = try server.resolvedToken()
            var backends: [ServerBackend] = []
            for _ in 0..<connections { backends.append(ServerBackend(client: try await LocusClient.connect(to: address, token: token))) }
            let pool = backends
            let next = NIOLockedValueBox(0)
            do {
                summary = try await BatchRunner.run(input: input, job: job, options: options, makeBackend: {
                    pool[next.withLockedValue { n in defer { n += 1 }; return n % pool.count }]
                })
            } catch let e as LocusClientError {
                // The server went away mid-job (killed, restarted): what is written stays, and the
                // user needs to know it is there and how to go on, not only that a connection closed.
                let advice = if let done = Self.rowsWritten(output: output) {
                    "\(BatchProgress.grouped(done)) rows are written to \(output): once the server answers again, run the same command with --resume to go on"
                } else {
                    "\(Self.noResumeRecord(output)): once the server answers again, run the same command again to start over"
                }
                throw LocusClientError(description: "\(e.description); \(advice)")
            }
            for b in pool { await b.client.close() }
        } else {
            options.workers = workers ?? ProcessInfo.processInfo.activeProcessorCount
            guard let index = try loadIndex() else { throw LocusError(.internalError, "no index") }
            summary = try await BatchRunner.run(input: input, job: job, options: options, makeBackend: { LocatorBackend(index: index) })
        }
        let rate = summary.seconds > 0 ? Double(summary.rows) / summary.seconds : 0
        var lines = ["\(BatchProgress.grouped(summary.rows + summary.resumedRows)) rows"
            + (summary.resumedRows > 0 ? " (\(BatchProgress.grouped(summary.resumedRows)) from the interrupted run)" : "")
            + String(format: " in %.1f s, %@ rows/s; %@", summary.seconds, BatchProgress.grouped(Int(rate)), describe)]
        lines += report(summary)
        if summary.longRows > 0 {
            lines.append("  \(BatchProgress.grouped(summary.longRows)) rows had more fields than the header (an unquoted comma?): the extra fields follow the appended columns")
        }
        if summary.blankLines > 0 {
            lines.append("  \(BatchProgress.grouped(summary.blankLines)) empty lines were skipped")
        }
        if summary.windows1252Bytes > 0 {
            lines.append("  \(BatchProgress.grouped(summary.windows1252Bytes)) bytes were not UTF-8 and were read as Windows-1252 (a spreadsheet's CSV export); the output is UTF-8")
        }
        lines.append("wrote \(output)")
        if json {
            Output.json(BatchReport(summary, output: output))
        } else {
            for l in lines { Output.note(l) }
        }
        if summary.failed > 0, !allowFailures {
            // In the words of the summary's own categories: "3 rows unmatched", not "3 rows failed"
            // after "unmatched 3".
            let kinds = ["unmatched", "failed"].filter { (summary.categories[$0] ?? 0) > 0 }
            let what = kinds.isEmpty ? "failed" : kinds.joined(separator: " or ")
            let detail = kinds.count > 1 ? " (" + kinds.map { "\($0) \(BatchProgress.grouped(summary.categories[$0] ?? 0))" }.joined(separator: ", ") + ")" : ""
            if !json {
                Output.note("locus: \(BatchProgress.grouped(summary.failed)) rows \(what)\(detail); they are in the output with their status and reason (--allow-failures to exit 0)")
            }
            throw ExitCode(ExitStatus.rowsFailed.rawValue)
        }
    }
}

/// The spatial reference of `wkid`, refused before the first row when PROJ cannot place points
/// in it (`--out-wkid 99999999` failed every matched row of a whole file, one by one).
func checkedSpatialReference(_ wkid: Int, _ option: String) throws -> SpatialReference {
    let srs = try SpatialReference(wkid: wkid)
    do throws(LocusError) {
        try SpatialReferenceCatalog.shared.check(srs)
        if !srs.isGeographicWGS84 { _ = try CoordinateTransform(from: .wgs84, to: srs) }
    } catch {
        throw LocusError(.invalidArgument, "\(option) \(wkid): \(error.message)")
    }
    return srs
}

/// "matched 430,012 (98.8 %): point_address 400,000, …" from a summary's categories.
func categoryLine(_ label: String, _ names: [String], _ s: BatchSummary) -> String? {
    let parts = names.compactMap { n in s.categories[n].map { "\(n) \(BatchProgress.grouped($0))" } }
    let total = names.reduce(0) { $0 + (s.categories[$1] ?? 0) }
    guard total > 0 else { return nil }
    // Floored, so that 15 unmatched rows of 435,177 never read as "100.00 %" matched.
    let pct = (Double(total) * 10_000 / Double(max(1, s.rows + s.resumedRows))).rounded(.down) / 100
    let shown = pct == 0 ? "<0.01" : String(format: "%.2f", pct)
    return "  \(label) \(BatchProgress.grouped(total)) (\(shown) %)" + (parts.count > 1 || parts.first?.hasPrefix(label) == false ? ": " + parts.joined(separator: ", ") : "")
}

extension Locus {
    struct Enrich: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Geocode every row of a CSV of addresses: coordinates, score, match type, the address as matched, and its polygons.",
            discussion: """
            Every input column and row is kept, in order; a row that cannot be matched stays, with \
            its status (matched, unmatched, failed) and reason. The address comes from one column \
            (found by name: address, full_address, street_address, …; completed by city, state \
            and ZIP columns when present) or from parts (--number-column, --street-column, …).

            Example: locus enrich addresses.csv -o enriched.csv
            """
        )
        @OptionGroup var files: BatchFileOptions
        @Option(help: ArgumentHelp("Column with the whole address.", valueName: "name")) var addressColumn: String?
        @Option(help: ArgumentHelp("Column with the house number.", valueName: "name")) var numberColumn: String?
        @Option(help: ArgumentHelp("Column with the street.", valueName: "name")) var streetColumn: String?
        @Option(help: ArgumentHelp("Column with the city.", valueName: "name")) var cityColumn: String?
        @Option(help: ArgumentHelp("Column with the state.", valueName: "name")) var stateColumn: String?
        @Option(help: ArgumentHelp("Column with the ZIP code.", valueName: "name")) var postcodeColumn: String?
        @Option(help: ArgumentHelp("Spatial reference of the coordinates written: 4326 (longitude, latitude) or any wkid (x, y).", valueName: "wkid"))
        var outWkid: Int = 4326
        @Option(help: ArgumentHelp("Rows whose best candidate scores below this are unmatched (0–100).", valueName: "score")) var minScore: Double = 60

        func validate() throws {
            guard (0...100).contains(minScore) else { throw ValidationError("--min-score must be 0 … 100") }
            guard outWkid > 0 else { throw ValidationError("--out-wkid must be a positive wkid") }
            if addressColumn != nil, numberColumn != nil || streetColumn != nil {
                throw ValidationError("give the address as one column (--address-column) or as parts (--number-column, --street-column), not both")
            }
        }

        func run() async throws {
            do {
                try CommandError.requireInput(files.input, "the input CSV")
                let input = try CSVInput(path: files.input, delimiter: files.delimiterScalar)
                var columns = EnrichJob.Columns()
                columns.address = addressColumn
                columns.number = numberColumn
                columns.street = streetColumn
                columns.city = cityColumn
                columns.state = stateColumn
                columns.postcode = postcodeColumn
                let (index, available) = try await files.source(.search)
                let job = try EnrichJob(header: input.header, columns: columns, layers: try files.layers(available: available),
                                        outSpatialReference: try checkedSpatialReference(outWkid, "--out-wkid"), minScore: minScore)
                try await files.run(job, input: input, loadIndex: { index }, describe: job.columnsDescription) { s in
                    let matched = s.categories.keys.filter { !["unmatched", "failed"].contains($0) }.sorted { s.categories[$0]! > s.categories[$1]! }
                    return [categoryLine("matched", matched, s), categoryLine("unmatched", ["unmatched"], s), categoryLine("failed", ["failed"], s)].compactMap { $0 }
                }
            } catch let e as ExitCode {
                throw e
            } catch {
                throw fail(error, json: files.json)
            }
        }
    }

    struct Assign: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The polygons covering every point of a CSV: neighbourhood (or any layer) for each row, optionally its address.",
            discussion: """
            Every input column and row is kept, in order. Points come from lon/lat columns (found by \
            name: lon, longitude, lng, x / lat, latitude, y) or --x-column/--y-column in --wkid.

            Example: locus assign trees.csv -o trees-with-neighbourhoods.csv --nearest-within 500
            """
        )
        @OptionGroup var files: BatchFileOptions
        @Option(help: ArgumentHelp("Column with x (longitude).", valueName: "name")) var xColumn: String?
        @Option(help: ArgumentHelp("Column with y (latitude).", valueName: "name")) var yColumn: String?
        @Option(help: ArgumentHelp("Spatial reference of the points: 4326, 3857/102100, 2913 or any EPSG code.", valueName: "wkid"))
        var wkid: Int = 4326
        @Option(help: ArgumentHelp("When no polygon covers a point, the nearest within this many metres, with its distance.", valueName: "metres"))
        var nearestWithin: Double?
        @Flag(help: "Also write the address at each point (reverse geocoding).") var reverse = false
        @Option(help: ArgumentHelp("With --reverse: search radius in metres.", valueName: "metres")) var maxDistance: Double = 100

        func validate() throws {
            guard wkid > 0 else { throw ValidationError("--wkid must be a positive wkid") }
            if let d = nearestWithin, !(d >= 0 && d <= QueryLimits.maximumDistance) {
                throw ValidationError("--nearest-within must be between 0 and \(Int(QueryLimits.maximumDistance)) metres")
            }
            guard maxDistance >= 0, maxDistance <= QueryLimits.maximumDistance else {
                throw ValidationError("--max-distance must be between 0 and \(Int(QueryLimits.maximumDistance)) metres")
            }
        }

        func run() async throws {
            do {
                try CommandError.requireInput(files.input, "the input CSV")
                let input = try CSVInput(path: files.input, delimiter: files.delimiterScalar)
                let (index, available) = try await files.source(reverse ? [.layers, .addresses] : .layers)
                let job = try AssignJob(header: input.header, xColumn: xColumn, yColumn: yColumn, spatialReference: try checkedSpatialReference(wkid, "--wkid"),
                                        layers: try files.layers(available: available), nearestWithin: nearestWithin,
                                        reverseWithin: reverse ? maxDistance : nil)
                try await files.run(job, input: input, loadIndex: { index }, describe: job.columnsDescription) { s in
                    [categoryLine("covered", ["covered"], s), categoryLine("nearest", ["nearest"], s), categoryLine("outside", ["outside"], s),
                     categoryLine("failed", ["failed"], s)].compactMap { $0 }
                }
            } catch let e as ExitCode {
                throw e
            } catch {
                throw fail(error, json: files.json)
            }
        }
    }
}

/// The part of `info` a batch job needs from a server: its layers and whether it has addresses.
struct InfoLayers: Decodable {
    struct Index: Decodable {
        struct Layer: Decodable { var name: String }
        var layers: [Layer]
        var metadata: [String: String]
    }
    var index: Index
}

/// A batch job's summary as `--json` prints it.
struct BatchReport: Encodable {
    var rows: Int
    var resumedRows: Int
    var seconds: Double
    var rowsPerSecond: Double
    /// Rows by status or match type: `point_address`, `unmatched`, `covered`, `failed`, …
    var categories: [String: Int]
    /// Rows counted as not answered (unmatched or failed): the exit status is 2 when any are.
    var failed: Int
    var output: String
    /// Input bytes read as Windows-1252 because they were not UTF-8; absent when none were.
    var windows1252Bytes: Int?

    init(_ s: BatchSummary, output: String) {
        rows = s.rows + s.resumedRows
        resumedRows = s.resumedRows
        seconds = (s.seconds * 1000).rounded() / 1000
        rowsPerSecond = s.seconds > 0 ? (Double(s.rows) / s.seconds).rounded() : 0
        categories = s.categories
        failed = s.failed
        self.output = output
        windows1252Bytes = s.windows1252Bytes > 0 ? s.windows1252Bytes : nil
    }

    enum CodingKeys: String, CodingKey {
        case rows, seconds, categories, failed, output
        case resumedRows = "resumed_rows"
        case rowsPerSecond = "rows_per_second"
        case windows1252Bytes = "windows1252_bytes"
    }
}
