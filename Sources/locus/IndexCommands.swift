import ArgumentParser
import Foundation
import LocusCore
import LocusEngine

extension Locus {
    struct Index: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Build an index file and show what is in one.",
            subcommands: [Build.self, Info.self]
        )
    }
}

/// Column mapping options for the address CSV.
struct AddressColumnOptions: ParsableArguments {
    @Option(help: ArgumentHelp("House number column (several: comma-separated, joined). Default: found by name.", valueName: "name")) var numberColumn: String?
    @Option(help: ArgumentHelp("Street column, or its parts comma-separated in order (PREDIR,NAME,TYPE,SUFDIR). Default: found by name, whole or in parts.", valueName: "name")) var streetColumn: String?
    @Option(help: ArgumentHelp("Column with number and street together (\"123 N Main St Apt 4\"), split at import. Default: found by name when there is no number or street column.", valueName: "name")) var addressColumn: String?
    @Option(help: ArgumentHelp("City column. Default: found by name, else none.", valueName: "name")) var cityColumn: String?
    @Option(help: ArgumentHelp("State column. Default: found by name, else none.", valueName: "name")) var stateColumn: String?
    @Option(help: ArgumentHelp("ZIP code column. Default: found by name, else none.", valueName: "name")) var postcodeColumn: String?
    @Option(help: ArgumentHelp("X / longitude column. Default: lon, longitude, x …", valueName: "name")) var xColumn: String?
    @Option(help: ArgumentHelp("Y / latitude column. Default: lat, latitude, y …", valueName: "name")) var yColumn: String?
    @Option(help: ArgumentHelp("Column with the point as WKT (\"POINT (x y)\") or \"(lat, lon)\". Default: found by name (the_geom, geometry, location …) when there are no x/y columns.", valueName: "name")) var pointColumn: String?
    @Option(help: ArgumentHelp("Spatial reference of the address x/y.", valueName: "wkid")) var addressWkid: Int = 4326
    @Option(help: ArgumentHelp("CSV field delimiter (one character; \\t for tab). Default a comma, or what a header without commas is separated by (; tab |).", valueName: "char")) var delimiter: String = ","
    @Option(help: ArgumentHelp("City of every address the file gives none (no city column, or an empty one).", valueName: "name")) var defaultCity: String?
    @Option(help: ArgumentHelp("State (USPS code) of every address the file gives none.", valueName: "code")) var defaultState: String?

    var columns: AddressColumns {
        var c = AddressColumns()
        c.number = numberColumn
        c.street = streetColumn
        c.address = addressColumn
        c.city = cityColumn
        c.state = stateColumn
        c.postcode = postcodeColumn
        c.x = xColumn
        c.y = yColumn
        c.point = pointColumn
        c.wkid = addressWkid
        c.delimiter = delimiter == "\\t" ? "\t" : delimiter
        c.defaultCity = defaultCity
        c.defaultState = defaultState
        return c
    }

    var isCustomised: Bool {
        [numberColumn, streetColumn, addressColumn, cityColumn, stateColumn, postcodeColumn, xColumn, yColumn, pointColumn,
         defaultCity, defaultState].contains { $0 != nil }
            || addressWkid != 4326 || delimiter != ","
    }

    func validate() throws {
        guard (delimiter == "\\t" ? "\t" : delimiter).unicodeScalars.count == 1 else {
            throw ValidationError("--delimiter must be one character")
        }
        guard addressWkid > 0 else { throw ValidationError("--address-wkid must be a positive wkid") }
        if let defaultState, defaultState.count != 2 || !defaultState.allSatisfy({ $0.isASCII && $0.isLetter }) {
            throw ValidationError("--default-state must be a two-letter USPS code, got \"\(defaultState)\"")
        }
    }
}

/// Parses NAME=VALUE options.
func keyValue(_ text: String, option: String) throws -> (String, String) {
    guard let eq = text.firstIndex(of: "="), eq != text.startIndex, text.index(after: eq) != text.endIndex else {
        throw ValidationError("\(option) takes NAME=VALUE, got '\(text)'")
    }
    return (String(text[..<eq]), String(text[text.index(after: eq)...]))
}

extension Locus.Index {
    struct Build: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Build an index from address points and polygon layers.",
            discussion: """
            With no sources given, builds the default Portland dataset (Data/portland/dataset.json) \
            from the data folder. Rows and polygons that cannot be imported are counted, listed in \
            the index and reported here; none is dropped silently.
            """
        )

        @Option(name: .long, help: ArgumentHelp("CSV of address points (plain or .gz).", valueName: "path"))
        var addresses: String?

        @Option(name: .long, help: ArgumentHelp("A polygon layer: NAME=PATH to any file GDAL reads (GeoJSON, Shapefile, GeoPackage …). Repeatable.", valueName: "name=path"))
        var layer: [String] = []

        @Option(name: .long, help: ArgumentHelp("CRS of a layer, overriding its file: NAME=EPSG:CODE (or WKT). Repeatable.", valueName: "name=crs"))
        var srs: [String] = []

        @Option(name: .long, help: ArgumentHelp("Attribute naming a layer's features: NAME=FIELD. Repeatable.", valueName: "name=field"))
        var nameField: [String] = []

        @Option(name: .long, help: ArgumentHelp("Attribute identifying a layer's features: NAME=FIELD. Repeatable.", valueName: "name=field"))
        var idField: [String] = []

        @Option(name: .long, help: ArgumentHelp("A dataset definition (JSON) to build instead of naming sources.", valueName: "path"))
        var dataset: String?

        @Option(name: .long, help: ArgumentHelp("Folder the dataset's paths are relative to. Default: $LOCUS_DATA_DIR, else ../shared/data.", valueName: "dir"))
        var dataDir: String?

        @OptionGroup var columns: AddressColumnOptions

        @Option(name: .long, help: ArgumentHelp("A street synonyms file (from,to per line; # comments) to store in the index, besides the dataset's. Repeatable.", valueName: "path"))
        var synonyms: [String] = []

        @Option(name: .long, help: ArgumentHelp("The layer (one of --layer, or of the dataset) holding lot polygons or building footprints: reverse geocoding answers a point on or in front of a lot with the address inside it.", valueName: "name"))
        var lots: String?

        @Option(name: .long, help: ArgumentHelp("How far in front of a lot (metres) a point still belongs to it. Default \(LotLayer.defaultReach.formatted()).", valueName: "metres"))
        var lotReach: Double?

        @Option(name: .long, help: ArgumentHelp("Memory (MiB) the build may hold for what grows with the addresses; past it, sorting spills to temporary files in $TMPDIR (about the index's size). Default 1024.", valueName: "MiB"))
        var maxMemory: Int?

        @Option(name: [.short, .customLong("output")], help: ArgumentHelp("Index file to write. Default: $LOCUS_INDEX, else Index/portland.locus.", valueName: "path"))
        var output: String?

        @Flag(name: .long, help: "Print the build report as JSON.")
        var json = false

        func validate() throws {
            if dataset != nil, addresses != nil || !layer.isEmpty {
                throw ValidationError("give either --dataset or --addresses/--layer, not both")
            }
            let names = try Set(layer.map { try keyValue($0, option: "--layer").0 })
            for (option, values) in [("--srs", srs), ("--name-field", nameField), ("--id-field", idField)] {
                for v in values {
                    let (name, _) = try keyValue(v, option: option)
                    guard names.contains(name) else { throw ValidationError("\(option) names layer '\(name)', which no --layer defines") }
                }
            }
            if columns.isCustomised, addresses == nil {
                throw ValidationError("address column options need --addresses")
            }
            if let lots, dataset == nil, addresses != nil || !layer.isEmpty, !names.contains(lots) {
                throw ValidationError("--lots names layer '\(lots)', which no --layer defines")
            }
            if let r = lotReach, !(r.isFinite && (0...100).contains(r)) {
                throw ValidationError("--lot-reach is 0 … 100 metres")
            }
            if lotReach != nil, lots == nil, dataset == nil, addresses != nil || !layer.isEmpty {
                throw ValidationError("--lot-reach needs --lots")
            }
            if let m = maxMemory, !(64...1 << 20).contains(m) {
                throw ValidationError("--max-memory is 64 … 1048576 MiB")
            }
        }

        func configuration() throws -> IndexBuildConfiguration {
            let defaults = DefaultDataset(dataDirectory: dataDir)
            let out = output ?? defaults.indexPath
            if addresses == nil, layer.isEmpty {
                let path = dataset ?? defaults.datasetPath
                let definition = try DatasetDefinition.load(path: path)
                var config = try definition.buildConfiguration(dataDirectory: defaults.dataDirectory, output: out, definitionPath: path)
                config.synonyms += synonyms
                if let lots { config.lotLayer = lots }
                if let lotReach { config.lotReach = lotReach }
                return config
            }
            var config = IndexBuildConfiguration(output: out)
            config.synonyms = synonyms
            config.addresses = addresses
            config.addressColumns = columns.columns
            let crs = Dictionary(try srs.map { try keyValue($0, option: "--srs") }, uniquingKeysWith: { $1 })
            let names = Dictionary(try nameField.map { try keyValue($0, option: "--name-field") }, uniquingKeysWith: { $1 })
            let ids = Dictionary(try idField.map { try keyValue($0, option: "--id-field") }, uniquingKeysWith: { $1 })
            config.layers = try layer.map {
                let (name, path) = try keyValue($0, option: "--layer")
                var source = LayerSource(name: name, path: path)
                source.crs = crs[name]
                source.nameField = names[name]
                source.idField = ids[name]
                return source
            }
            config.lotLayer = lots
            if let lotReach { config.lotReach = lotReach }
            return config
        }

        func run() throws {
            do {
                var config = try configuration()
                if let path = config.addresses { try CommandError.requireInput(path, "the address CSV") }
                for l in config.layers { try CommandError.requireInput(l.path, "layer \(l.name)") }
                for path in config.synonyms { try CommandError.requireInput(path, "a synonyms file") }
                if let maxMemory { config.maxMemory = maxMemory << 20 }
                config.buildDate = BuildClock.now
                config.progress = BuildProgressDisplay.make()
                let report = try IndexBuilder.build(config)
                BuildProgressDisplay.finish()
                if json { return Output.json(report) }
                // The report is about the build, as a batch job's summary is: standard error, like
                // theirs; standard output carries only what --json asks for.
                Output.note("wrote \(config.output) (\(String(format: "%.1f", Double(report.bytes) / 1_048_576)) MB) in \(String(format: "%.1f", report.seconds)) s")
                if config.addresses != nil {
                    let rejected = report.addressRows - report.addresses
                    Output.note("addresses: \(report.addresses) indexed of \(report.addressRows) rows, \(rejected) rejected")
                    let parts = ["number", "street", "address", "city", "state", "postcode", "x", "y", "point"]
                    Output.note("  columns: " + parts.compactMap { p in report.addressColumns[p].map { "\(p) = \($0)" } }.joined(separator: ", ")
                        + [config.addressColumns.defaultCity.map { "city otherwise \($0)" }, config.addressColumns.defaultState.map { "state otherwise \($0)" }]
                            .compactMap { $0 }.map { ", " + $0 }.joined())
                    for (reason, n) in report.rejectedAddresses.sorted(by: { $0.value > $1.value }) {
                        Output.note("  \(n) × \(reason)")
                    }
                    if report.numbersWithLeadingZero > 0 {
                        Output.note(report.leadingZerosArePadding
                            ? "  \(report.numbersWithLeadingZero) house numbers start with 0: taken for padding, dropped (\"00123\" = 123)"
                            : "  \(report.numbersWithLeadingZero) house numbers start with 0: each kept as its own address (\"0104\" is not 104)")
                    }
                }
                for l in report.layers {
                    Output.note("layer \(l.name): \(l.features) polygons from \(l.crs), \(l.repaired) repaired, \(l.rejected) rejected (name: \(l.nameField.isEmpty ? "id" : l.nameField), id: \(l.idField))")
                }
                if let l = report.lots {
                    Output.note("lots (layer \(l.layer)): \(l.addressesOnLots) addresses on \(l.lotsWithAddresses) of \(l.lots) lots")
                }
                if !report.issues.isEmpty {
                    Output.note("first import issues (all are listed by `locus index info --issues`):")
                    for i in report.issues.prefix(10) { Output.note("  \(i.source) row \(i.row): \(i.outcome.rawValue): \(i.reason)") }
                }
            } catch {
                throw fail(error, json: json)
            }
        }
    }

    struct Info: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show an index's metadata: schema, build, sources, counts, layers.")

        @Argument(help: ArgumentHelp("Index file. Default: as for every command.", valueName: "path"))
        var path: String?

        @Option(name: .long, help: ArgumentHelp("Folder holding the source data for the default index.", valueName: "dir"))
        var dataDir: String?

        @Flag(name: .long, help: "List the import issues recorded in the index.")
        var issues = false

        @Flag(name: .long, help: "Print JSON.")
        var json = false

        func run() throws {
            do {
                let indexPath = try DefaultDataset(dataDirectory: dataDir).indexPath(named: path)
                let m = try unusableIfMissing { try LocusIndex.metadata(path: indexPath) }
                if json { return Output.json(m) }
                Output.line("index      \(m.path)")
                Output.line("schema     \(m.schemaVersion) (Locus \(m.values["locus_version"] ?? "?"))")
                Output.line("built      \(m.values["build_time"] ?? "?")")
                Output.line("crs        \(m.values["crs"] ?? "?")")
                Output.line("content    sha256 \(m.values["content_sha256"] ?? "?")")
                if let n = m.values["address_count"] {
                    Output.line("addresses  \(n) indexed of \(m.values["address_rows"] ?? "?") rows, \(m.values["address_rejected"] ?? "0") rejected")
                }
                for l in m.layers {
                    Output.line("layer      \(l.name): \(l.featureCount) polygons, from \(l.source) (\(l.crs)); name field \(l.nameField), id field \(l.idField)")
                    Output.line("           fields: \(l.fields.joined(separator: ", "))")
                }
                if let lots = m.values["lot_layer"] {
                    Output.line("lots       layer \(lots): \(m.values["addresses_on_lots"] ?? "?") addresses on \(m.values["lots_with_addresses"] ?? "?") lots, reach \(m.values["lot_reach"] ?? "?") m")
                }
                Output.line("sources")
                for s in m.sources {
                    // A synonyms file has no coordinates, so no CRS.
                    Output.line("  \(s.name): \(s.file), \(s.size) bytes, sha256 \(s.sha256)\(s.crs.isEmpty ? "" : ", \(s.crs)")")
                }
                if !m.issueCounts.isEmpty {
                    Output.line("import issues")
                    for (source, counts) in m.issueCounts.sorted(by: { $0.key < $1.key }) {
                        Output.line("  \(source): " + counts.sorted(by: { $0.key < $1.key }).map { "\($0.value) \($0.key)" }.joined(separator: ", "))
                    }
                }
                if issues {
                    let index = try LocusIndex(path: indexPath, loading: [])
                    for source in Set(m.sources.map(\.name)).sorted() {
                        for i in try index.importIssues(source: source, limit: 1_000) {
                            Output.line("  \(i.source) row \(i.row): \(i.outcome.rawValue): \(i.reason)")
                        }
                    }
                }
            } catch let error as LocusError {
                throw fail(error, json: json)
            }
        }
    }
}
