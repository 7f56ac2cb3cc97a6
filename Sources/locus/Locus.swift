import ArgumentParser
import Foundation
import LocusCore
import LocusEngine
import LocusWire

@main
struct Locus: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "locus",
        abstract: "Offline geocoding and spatial queries over one index file.",
        version: LocusVersion.current,
        subcommands: [Index.self, Serve.self, Map.self, Within.self, Reverse.self, Suggest.self, Geocode.self, Enrich.self, Assign.self, Eval.self, Ping.self]
    )

    /// As swift-argument-parser's, except that with `--json` a bad argument is reported as every
    /// other error is, one `{"error":…}` line with a code (`invalid_argument`, exit 64), so a
    /// script reading JSON never gets a usage text instead.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            let status = exitCode(for: error)
            // An `ExitCode` has been reported by the command itself.
            if !(error is ExitCode), CommandLine.arguments.dropFirst().contains("--json"), status == .validationFailure {
                let message = message(for: error).split(separator: "\n").first.map(String.init) ?? "bad arguments"
                Output.json(["error": ["code": "invalid_argument", "message": message.hasPrefix("Error: ") ? String(message.dropFirst(7)) : message]])
                Foundation.exit(status.rawValue)
            }
            exit(withError: error)
        }
    }
}

/// Where the index is, shared by every command that reads one.
struct IndexOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Index file. Default: the default index at $LOCUS_INDEX, else Index/portland.locus, built on first use.", valueName: "path"))
    var index: String?

    @Option(name: .long, help: ArgumentHelp("Folder holding the source data for the default index. Default: $LOCUS_DATA_DIR, else ../shared/data.", valueName: "dir"))
    var dataDir: String?

    @Option(name: .long, help: ArgumentHelp("A street synonyms file (from,to per line; # comments) to use besides those stored in the index. Repeatable.", valueName: "path"))
    var synonyms: [String] = []

    /// Opens the index, building the default one first if that is what is asked for and it is missing.
    /// One-shot commands map its address tables (`mapped`): they live for one query, and an open
    /// then costs the same at any index size.
    func open(_ parts: LocusIndex.Parts, mapped: Bool = true) throws -> LocusIndex {
        var extra = StreetSynonyms()
        for path in synonyms {
            try CommandError.requireInput(path, "a synonyms file")
            guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
                throw LocusError(.invalidArgument, "cannot read the synonyms file \(path)")
            }
            extra = extra.merging(try StreetSynonyms(parsing: text))
        }
        let path = try DefaultDataset(dataDirectory: dataDir).indexPath(named: index)
        return try unusableIfMissing { try LocusIndex(path: path, loading: parts, synonyms: extra, mapped: mapped) }
    }
}

/// To the CLI a missing index (or missing source data for the default one) is an unusable index,
/// exit 65; `not_found` (3) means the query found nothing. The engine keeps `not_found`, which the
/// server's `reload` reports as such.
func unusableIfMissing<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let e as LocusError where e.code == .notFound {
        throw LocusError(.invalidIndex, e.message)
    }
}

/// Options of every query command about coordinates and output.
struct QueryOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Spatial reference of the input coordinates: 4326 (lon/lat), 3857 or 102100 (Web Mercator), 2913 (Oregon North ft) or any EPSG code PROJ knows.", valueName: "wkid"))
    var wkid: Int = 4326

    @Option(name: .long, help: ArgumentHelp("Spatial reference of output locations. Default: the input's.", valueName: "wkid"))
    var outWkid: Int?

    @Flag(name: .long, help: "Print one JSON object (the protocol's result object).")
    var json = false

    func validate() throws {
        guard wkid > 0 else { throw ValidationError("--wkid must be a positive EPSG or Esri wkid") }
        if let outWkid, outWkid <= 0 { throw ValidationError("--out-wkid must be a positive EPSG or Esri wkid") }
    }
}

/// X and Y as plain arguments, negative numbers included (`locus reverse -122.63 45.57`).
struct Coordinates: ParsableArguments {
    @Argument(parsing: .allUnrecognized, help: ArgumentHelp("X (longitude) then Y (latitude) of the point; negative numbers as they are.", valueName: "x> <y"))
    var values: [String] = []

    var point: GeoPoint {
        GeoPoint(x: Double(values[0])!, y: Double(values[1])!)
    }

    func validate() throws {
        let unknown = values.filter { Double($0) == nil }
        if let bad = unknown.first {
            throw ValidationError(bad.hasPrefix("-") ? "unknown option '\(bad)'" : "'\(bad)' is not a number")
        }
        guard values.count == 2 else {
            throw ValidationError("give exactly two coordinates, X then Y (longitude then latitude): got \(values.count)")
        }
        guard values.allSatisfy({ Double($0)!.isFinite }) else {
            throw ValidationError("coordinates must be finite numbers")
        }
    }
}

enum Output {
    /// Standard error is a terminal: progress may redraw its line (`\r`, erase to end of line);
    /// in a log or a pipe it must not.
    static let standardErrorIsTerminal = isatty(STDERR_FILENO) == 1

    /// The server's encoder, so that `--json` prints what a reply's `result` holds, keys in the
    /// same order.
    static func json<T: Encodable>(_ value: T) {
        let bytes = (try? ReplyEncoder.json(value)) ?? Array("{}".utf8)
        FileHandle.standardOutput.write(Data(bytes + [0x0A]))
    }

    static func line(_ s: String = "") {
        FileHandle.standardOutput.write(Data((s + "\n").utf8))
    }

    static func note(_ s: String) {
        FileHandle.standardError.write(Data((s + "\n").utf8))
    }
}
