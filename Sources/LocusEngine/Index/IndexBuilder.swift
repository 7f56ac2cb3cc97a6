import Crypto
import Foundation
import LocusCore

/// A polygon layer to import, named the way queries will ask for it.
public struct LayerSource: Sendable, Equatable, Codable {
    /// The name queries use (`--layer neighborhoods`).
    public var name: String
    /// Any vector file GDAL reads: GeoJSON, Shapefile, GeoPackage, FlatGeobuf, KML …
    public var path: String
    /// The layer inside a multi-layer file. Default: the first.
    public var layer: String? = nil
    /// The CRS to assume ("EPSG:2913", WKT or a PROJ string), overriding what the file declares.
    /// Default: the file's own; a file that declares none must be given one.
    public var crs: String? = nil
    /// The attribute that names a feature. Default: found among common names ("name", "label" …),
    /// preferring a mixed-case label over an all-capitals name with the same text.
    public var nameField: String? = nil
    /// The attribute that identifies a feature. Default: "id", "objectid" … if unique, else the
    /// row number GDAL gives.
    public var idField: String? = nil

    public init(name: String, path: String) {
        self.name = name
        self.path = path
    }

    enum CodingKeys: String, CodingKey {
        case name, path, layer, crs
        case nameField = "name_field"
        case idField = "id_field"
    }
}

/// What `locus index build` is asked to do.
/// What a build is doing, for a progress display: a city's build takes seconds, a state's
/// minutes, and a silent command for minutes looks hung.
public enum IndexBuildProgress: Sendable {
    /// Rows of the address file read so far (reported every 50,000).
    case addresses(rows: Int)
    /// Importing a polygon layer.
    case layer(name: String)
    /// Linking address points to the lots covering them.
    case lots(layer: String)
    /// Working out what address search needs from the points (stored, so that opens need not).
    case searchTables
    /// Sorting and writing the search structures and metadata.
    case writing
}

public struct IndexBuildConfiguration: Sendable {
    /// Called as the build goes; nil: nothing is reported.
    public var progress: (@Sendable (IndexBuildProgress) -> Void)? = nil
    /// CSV (plain or .gz) of address points. Default: none (an index of polygon layers only).
    public var addresses: String? = nil
    /// How to read the address CSV. Default: found from the header.
    public var addressColumns = AddressColumns()
    /// Polygon layers. Default: none.
    public var layers: [LayerSource] = []
    /// Where to write the index. Written to a temporary file beside it and renamed into place.
    public var output: String
    /// The build time to record. Default: now; the executable honours SOURCE_DATE_EPOCH so that
    /// the same inputs give a byte-identical file.
    public var buildDate = Date()
    /// Side of an address grid cell in metres. Default 50: a handful of addresses per cell in a
    /// dense city, so the dozen nearest to a point are found within a few cells.
    public var addressCellMetres: Double = 50
    /// Fail the build when more than this share of address rows is rejected: that is a wrong
    /// column mapping, not bad rows. Default 0.5.
    public var maximumRejectedShare: Double = 0.5
    /// How many import issues per source are written into the index (all are counted). Default 1,000.
    public var listedIssuesPerSource = 1_000
    /// Street synonym files (`from,to` per line, see `StreetSynonyms`), stored in the index so that
    /// it stays one file. Default: none.
    public var synonyms: [String] = []
    /// The layer (one of `layers`) whose polygons are lots or building footprints: reverse
    /// geocoding answers a point on or in front of a lot with the address inside it (`LotLayer`).
    /// Needs `addresses`. Default: none.
    public var lotLayer: String? = nil
    /// How far in front of a lot (metres) a point still belongs to it. Default `LotLayer.defaultReach`.
    public var lotReach: Double = LotLayer.defaultReach
    /// Bytes the build may hold for what grows with the addresses (SQLite's sorter and page cache,
    /// the band of points a frontage pass reads); beyond it, sorted runs go to temporary files
    /// (`$TMPDIR`, about the size of the index). What grows with streets and places (their names,
    /// each street's places) and the address grid are held besides. Default 1 GiB.
    public var maxMemory = 1 << 30

    public init(output: String) {
        self.output = output
    }
}

/// One row or feature that was not imported as it stood.
public struct ImportIssue: Sendable, Codable, Hashable {
    public enum Outcome: String, Sendable, Codable {
        case rejected
        case repaired
    }
    public var source: String
    /// Record number in the source (1-based, after any header).
    public var row: Int
    public var outcome: Outcome
    public var reason: String
}

/// What a build did, for the CLI to print and for `index info` to show again later.
public struct IndexBuildReport: Sendable, Codable {
    public struct LayerSummary: Sendable, Codable {
        public var name: String
        public var crs: String
        public var features: Int
        public var repaired: Int
        public var rejected: Int
        public var nameField: String
        public var idField: String

        enum CodingKeys: String, CodingKey {
            case name, crs, features, repaired, rejected
            case nameField = "name_field"
            case idField = "id_field"
        }
    }
    public var addressRows = 0
    public var addresses = 0
    /// The address file's columns each part was read from (part → column names, " + " between).
    public var addressColumns: [String: String] = [:]
    /// Rejected address rows per reason.
    public var rejectedAddresses: [String: Int] = [:]
    /// Kept rows whose house number is written with a leading zero ("0104").
    public var numbersWithLeadingZero = 0
    /// Whether so many numbers have a leading zero that the zeros were taken for padding and
    /// dropped ("00123" = 123); else each is a number of its own (`HouseNumber`).
    public var leadingZerosArePadding = false
    public var layers: [LayerSummary] = []
    /// The first issues of each source, as stored in the index.
    public var issues: [ImportIssue] = []
    /// The lot layer's links, when one was given.
    public var lots: LotSummary?
    public var seconds = 0.0
    public var bytes = 0

    public struct LotSummary: Sendable, Codable {
        public var layer: String
        public var lots: Int
        public var lotsWithAddresses: Int
        public var addressesOnLots: Int

        enum CodingKeys: String, CodingKey {
            case layer, lots
            case lotsWithAddresses = "lots_with_addresses"
            case addressesOnLots = "addresses_on_lots"
        }
    }

    enum CodingKeys: String, CodingKey {
        case addressRows = "address_rows", addresses
        case addressColumns = "address_columns"
        case rejectedAddresses = "rejected_addresses"
        case numbersWithLeadingZero = "numbers_with_leading_zero", leadingZerosArePadding = "leading_zeros_are_padding"
        case layers, issues, lots, seconds, bytes
    }
}

/// Turns open data into one index file.
public enum IndexBuilder {
    public static func build(_ config: IndexBuildConfiguration) throws(LocusError) -> IndexBuildReport {
        let started = Date()
        guard config.addresses != nil || !config.layers.isEmpty else {
            throw LocusError(.invalidArgument, "nothing to index: give --addresses and/or --layer NAME=PATH")
        }
        var seen = Set<String>()
        for layer in config.layers {
            guard LayerName.isValid(layer.name) else {
                throw LocusError(.invalidArgument, "layer name \"\(layer.name)\" must be letters, digits, _ or - (up to 64)")
            }
            guard seen.insert(layer.name).inserted else {
                throw LocusError(.invalidArgument, "layer \"\(layer.name)\" is given twice")
            }
        }
        if let lots = config.lotLayer {
            guard seen.contains(lots) else {
                throw LocusError(.invalidArgument, "the lot layer \"\(lots)\" is not one of the layers given")
            }
            guard config.addresses != nil else {
                throw LocusError(.invalidArgument, "a lot layer links lots to address points: give --addresses too")
            }
            guard config.lotReach.isFinite, (0...100).contains(config.lotReach) else {
                throw LocusError(.invalidArgument, "the lot reach is 0 … 100 m")
            }
        }
        let outputURL = URL(fileURLWithPath: config.output)
        try? FileManager.default.createDirectory(at: outputURL.deletingLastPathComponent(), withIntermediateDirectories: true)
        let temporary = outputURL.deletingLastPathComponent()
            .appendingPathComponent(".\(outputURL.lastPathComponent).\(getpid()).partial").path
        try? FileManager.default.removeItem(atPath: temporary)
        removeLeftovers(of: outputURL)
        var report = IndexBuildReport()
        var sections: [(name: String, content: SectionContent)] = []
        // The rows while they are sorted, and the tables before they join the index: removed at the end.
        let scratchPrefix = temporary + ".scratch-"
        defer { try? FileManager.default.removeItem(atPath: scratchPrefix + "staging") }
        do {
            let db = try SQLiteDatabase(path: temporary, mode: .create)
            // A build writes once, alone: no journal to fsync, and DELETE (never WAL) so the finished
            // file opens from a read-only directory.
            try db.execute("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA page_size=4096;")
            try db.execute(IndexSchema.create)
            try db.prepare("ATTACH DATABASE ? AS staging").run([.text(scratchPrefix + "staging")])
            // SQLite's sorter holds up to the main database's cache size before it spills sorted runs
            // to temporary files; the rest of the setting is for what grows with streets and places,
            // the grid, and the band of mapped points a frontage pass reads.
            let cacheKiB = max(config.maxMemory / 8 / 1024, 2048)
            try db.execute("""
                PRAGMA staging.journal_mode=OFF; PRAGMA staging.synchronous=OFF; PRAGMA temp_store=FILE;
                PRAGMA main.cache_size=-\(cacheKiB); PRAGMA staging.cache_size=-\(cacheKiB / 2);
                \(IndexSchema.staging)
                """)
            var writer = IndexWriter(db: db, config: config, scratchPrefix: scratchPrefix)
            defer { sections = writer.sections }
            try db.transaction { () throws(LocusError) in
                if let path = config.addresses {
                    try writer.importAddresses(path: path, report: &report)
                }
                for layer in config.layers {
                    config.progress?(.layer(name: layer.name))
                    try writer.importLayer(layer, report: &report)
                }
                if let lots = config.lotLayer {
                    config.progress?(.lots(layer: lots))
                    try writer.linkLots(lots, report: &report)
                }
                config.progress?(.writing)
                try writer.importSynonyms(config.synonyms)
                try writer.writeMetadata(report: report)
            }
            try db.execute("DETACH DATABASE staging")
            try db.execute("VACUUM")
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw error
        }
        do {
            // After the database is closed (above): SQLite ignores what follows its last page.
            try IndexSections.append(sections, to: temporary)
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw error
        }
        // rename(2) replaces an existing index atomically: a server reading the old file keeps it.
        guard rename(temporary, config.output) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: temporary)
            throw LocusError(.internalError, "cannot move the new index into place at \(config.output): \(reason)")
        }
        report.seconds = Date().timeIntervalSince(started)
        report.bytes = (try? FileManager.default.attributesOfItem(atPath: config.output)[.size] as? Int) ?? 0
        return report
    }
}

extension IndexBuilder {
    /// What a build of the same index that was killed left beside it (`.NAME.PID.partial` and its
    /// scratch files, as large as the index together): removed when that process is gone.
    static func removeLeftovers(of output: URL) {
        let directory = output.deletingLastPathComponent()
        let prefix = ".\(output.lastPathComponent)."
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        for name in names where name.hasPrefix(prefix) {
            let rest = name.dropFirst(prefix.count)
            guard let dot = rest.firstIndex(of: "."), rest[dot...].hasPrefix(".partial"), let pid = Int32(rest[..<dot]),
                  pid > 0, pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
        }
    }
}

/// Names of layers are used in requests and file names: keep them plain.
public enum LayerName {
    public static func isValid(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 64 && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }
    }
}

/// The state of one build: the open database, the content hash and the metadata gathered so far.
struct IndexWriter {
    let db: SQLiteDatabase
    let config: IndexBuildConfiguration
    let content = ContentDigest()
    var metadata: [String: String] = [:]
    var grid: AddressIndex.Grid?
    /// The address points in stored order, for linking them to lots after the layers are in.
    var pointsFile: ScratchFile?
    /// The address tables, written after the database (`IndexSections`).
    var sections: [(name: String, content: SectionContent)] = []
    /// Where scratch files go: beside the index being written, named after it.
    let scratchPrefix: String

    init(db: SQLiteDatabase, config: IndexBuildConfiguration, scratchPrefix: String) {
        self.db = db
        self.config = config
        self.scratchPrefix = scratchPrefix
    }

    // MARK: Provenance

    mutating func recordSource(name: String, kind: String, files: [String], crs: String) throws(LocusError) {
        let insert = try db.prepare("INSERT OR REPLACE INTO sources(name, kind, file, size, sha256, crs) VALUES (?,?,?,?,?,?)")
        for file in files {
            let (size, digest) = try Self.hashFile(file)
            try insert.run([.text(name), .text(kind), .text(URL(fileURLWithPath: file).lastPathComponent),
                            .integer(Int64(size)), .text(digest), .text(crs)])
            content.update("\(name)\u{1}\(digest)\u{1}")
        }
    }

    static func hashFile(_ path: String) throws(LocusError) -> (Int, String) {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw LocusError(.notFound, "cannot read \(path)")
        }
        defer { try? handle.close() }
        var hasher = SHA256()
        var size = 0
        while true {
            let chunk: Data
            do { chunk = try handle.read(upToCount: 1 << 20) ?? Data() } catch {
                throw LocusError(.importFailed, "cannot read \(path): \(error.localizedDescription)")
            }
            if chunk.isEmpty { break }
            size += chunk.count
            hasher.update(data: chunk)
        }
        return (size, hasher.finalize().map { String(format: "%02x", $0) }.joined())
    }

    mutating func recordIssues(_ issues: [ImportIssue], report: inout IndexBuildReport) throws(LocusError) {
        let listed = issues.prefix(config.listedIssuesPerSource)
        let insert = try db.prepare("INSERT INTO import_issues(source, row, outcome, reason) VALUES (?,?,?,?)")
        for issue in listed {
            try insert.run([.text(issue.source), .integer(Int64(issue.row)), .text(issue.outcome.rawValue), .text(issue.reason)])
        }
        report.issues.append(contentsOf: listed.prefix(20))
    }

    static func stateCode(_ s: String) -> String {
        s.count == 2 && s.allSatisfy(\.isLetter) ? s.uppercased() : StreetStyle.mixedCase(s)
    }

    /// Groups reasons that embed row values ("duplicate of row 12") under one key for counting.
    static func reasonClass(_ reason: String) -> String {
        if let colon = reason.firstIndex(of: ":") { return String(reason[..<colon]) }
        if reason.hasPrefix("duplicate of row") { return "duplicate" }
        return reason
    }

    static func json<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
    }

    // MARK: Polygon layers

    struct ImportedFeature {
        var id: String
        var name: String
        var attributes: [String: JSONValue]
        var area: Double
        var envelope: Envelope
        var wkb: [UInt8]
    }

    mutating func importLayer(_ source: LayerSource, report: inout IndexBuildReport) throws(LocusError) {
        let dataset = try VectorDataset(path: source.path)
        let declared = try dataset.declaredCRS(layer: source.layer)
        let crsName: String, crsDefinition: String
        if let given = source.crs {
            crsName = given
            crsDefinition = given
        } else if let declared {
            crsName = declared.name
            crsDefinition = declared.definition
        } else {
            throw LocusError(.importFailed, "\(source.path) declares no coordinate reference system; give one with --srs \(source.name)=EPSG:CODE")
        }
        let isLonLat = crsName == "EPSG:4326" || crsName == "OGC:CRS84"
        let transform = isLonLat ? nil : try CoordinateTransform(from: crsDefinition, to: "EPSG:4326")
        let geos = try GEOSContext()

        var rows: [(fid: Int64, fields: [(name: String, value: JSONValue)], row: Int)] = []
        var geometries: [GEOSGeometryHandle?] = []
        var issues: [ImportIssue] = []
        var fieldNames: [String] = []
        var row = 0
        var repaired = 0
        try dataset.forEachFeature(layer: source.layer) { (feature) throws(LocusError) in
            row += 1
            if fieldNames.isEmpty { fieldNames = feature.fields.map(\.name) }
            func reject(_ reason: String) {
                issues.append(ImportIssue(source: source.name, row: row, outcome: .rejected, reason: reason))
            }
            guard let wkb = feature.wkb else { return reject("no geometry") }
            let geometry: GEOSGeometryHandle
            do throws(LocusError) {
                var g = try geos.readWKB(wkb)
                if let transform { g = try g.transformed(transform) }
                geometry = g
            } catch {
                return reject(error.message)
            }
            guard geometry.kind == .polygon || geometry.kind == .multiPolygon || geometry.kind == .collection else {
                return reject("not a polygon (\(geometry.kind.map { "\($0)" } ?? "unknown geometry"))")
            }
            var valid = geometry
            if let reason = geometry.invalidityReason() {
                guard let fixed = try? geometry.makeValid() else { return reject("invalid and not repairable: \(reason)") }
                valid = fixed
                issues.append(ImportIssue(source: source.name, row: row, outcome: .repaired, reason: reason))
                repaired += 1
            }
            let parts = valid.polygonParts()
            guard !parts.isEmpty else { return reject("empty polygon") }
            let polygonal = try (parts.count == 1 ? parts[0] : geos.multiPolygon(parts))
            let envelope = polygonal.envelope
            guard envelope.minX >= -180, envelope.maxX <= 180, envelope.minY >= -90, envelope.maxY <= 90 else {
                return reject("coordinates outside the lon/lat range after reprojection from \(crsName): is the CRS right?")
            }
            rows.append((feature.fid, feature.fields, row))
            geometries.append(polygonal)
        }
        guard !rows.isEmpty else {
            throw LocusError(.importFailed, "layer \(source.name) (\(source.path)) has no usable polygons\(issues.first.map { ": \($0.reason)" } ?? "")")
        }

        let idField = try Self.chooseIDField(source, fieldNames: fieldNames, rows: rows.map(\.fields))
        let nameField = try Self.chooseNameField(source, fieldNames: fieldNames, rows: rows.map(\.fields), idField: idField)
        var features: [ImportedFeature] = []
        for (i, r) in rows.enumerated() {
            let g = geometries[i]!
            let values = Dictionary(r.fields.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
            let id = idField.map { values[$0]?.text ?? "" } ?? String(r.fid)
            let name = nameField.map { values[$0]?.text ?? "" } ?? id
            let e = g.envelope
            let scale = LocalMetricScale(latitude: (e.minY + e.maxY) / 2)
            let area = g.area * scale.metresPerDegreeX * scale.metresPerDegreeY
            features.append(ImportedFeature(id: id, name: name, attributes: values, area: area, envelope: e, wkb: try g.wkb()))
        }
        // Names all in capitals ("UPTOWN", "LINCOLN SQUARE", "NORTH PARK") are shown in mixed case, as
        // addresses published so are; codes ("QN28") and numbers are left as they are.
        if nameField != nil, features.contains(where: { $0.name.contains(where: \.isLetter) }),
           features.allSatisfy({ f in !f.name.contains(where: \.isLowercase) && Self.isWordsOfLetters(f.name) }) {
            for i in features.indices { features[i].name = StreetStyle.mixedCase(features[i].name) }
        }
        // Rank: smallest first, so the most specific polygon leads every answer.
        features.sort { ($0.area, $0.id) < ($1.area, $1.id) }

        let insert = try db.prepare("""
            INSERT INTO features(layer, rank, id, name, attributes, area_m2, min_x, min_y, max_x, max_y, geometry)
            VALUES (?,?,?,?,?,?,?,?,?,?,?)
            """)
        for (rank, f) in features.enumerated() {
            let attributes = Self.json(f.attributes)
            try insert.run([.text(source.name), .integer(Int64(rank)), .text(f.id), .text(f.name), .text(attributes),
                            .real(f.area), .real(f.envelope.minX), .real(f.envelope.minY), .real(f.envelope.maxX),
                            .real(f.envelope.maxY), .blob(f.wkb)])
            content.update("\(source.name)\u{1}\(f.id)\u{1}\(f.name)\u{1}\(attributes)")
            content.update(f.wkb)
        }
        // The layer's grid, as an open used to build it from the rows just written (`LayerTables`).
        sections += LayerTables.pack(try LocusIndex.loadLayer(db, name: source.name, expected: features.count)).map { ($0.name, .bytes($0.bytes)) }
        let rejected = issues.filter { $0.outcome == .rejected }.count
        try db.prepare("INSERT INTO layers(name, source, crs, name_field, id_field, feature_count, fields) VALUES (?,?,?,?,?,?,?)")
            .run([.text(source.name), .text(URL(fileURLWithPath: source.path).lastPathComponent), .text(crsName),
                  .text(nameField ?? ""), .text(idField ?? "(row number)"), .integer(Int64(features.count)), .text(Self.json(fieldNames))])
        try recordIssues(issues, report: &report)
        try recordSource(name: source.name, kind: "layer", files: dataset.files, crs: crsName)
        report.layers.append(.init(name: source.name, crs: crsName, features: features.count, repaired: repaired,
                                   rejected: rejected, nameField: nameField ?? "", idField: idField ?? "(row number)"))
    }

    /// Whether a name is words of letters (with ' - . &), or ordinals ("14TH"): a name, not a code.
    static func isWordsOfLetters(_ name: String) -> Bool {
        name.split(separator: " ").allSatisfy { w in
            w.allSatisfy { $0.isLetter || "'-.&/".contains($0) } || AddressText.ordinalNumber(w.lowercased()) != nil
        }
    }

    static let idCandidates = ["id", "objectid", "fid", "gid", "ogc_fid", "globalid"]
    static let nameCandidates = ["name", "label", "maplabel", "map_label", "display_name", "nbhd_name", "neighborhood",
                                 "neighbourhood", "nhood", "district", "title", "namelsad"]

    static func field(_ wanted: String, in names: [String], layer: LayerSource) throws(LocusError) -> String {
        guard let match = names.first(where: { $0.lowercased() == wanted.lowercased() }) else {
            throw LocusError(.importFailed, "layer \(layer.name) has no field \"\(wanted)\" (fields: \(names.joined(separator: ", ")))")
        }
        return match
    }

    static func chooseIDField(_ layer: LayerSource, fieldNames: [String], rows: [[(name: String, value: JSONValue)]]) throws(LocusError) -> String? {
        if let given = layer.idField { return try field(given, in: fieldNames, layer: layer) }
        func unique(_ name: String) -> Bool {
            let values = rows.map { r in r.first { $0.name == name }?.value ?? .null }
            return !values.contains(.null) && Set(values).count == values.count
        }
        for candidate in idCandidates {
            guard let name = fieldNames.first(where: { $0.lowercased() == candidate }) else { continue }
            if unique(name) { return name }
        }
        // A publisher's own key: "NBHD_ID", "NTACode", "GEOID" (a row number otherwise).
        return fieldNames.first { f in
            let l = f.lowercased()
            return (l.hasSuffix("id") || l.hasSuffix("code")) && unique(f)
        }
    }

    /// Fields holding ZIP codes: the name of a ZIP-code layer's features.
    static let postcodeCandidates = ["zcta5ce20", "zcta5ce10", "zcta5ce", "zcta5", "zip", "zipcode", "zip_code", "postcode",
                                     "postal_code", "postalcode"]

    static func chooseNameField(_ layer: LayerSource, fieldNames: [String], rows: [[(name: String, value: JSONValue)]],
                                idField: String? = nil) throws(LocusError) -> String? {
        if let given = layer.nameField { return try field(given, in: fieldNames, layer: layer) }
        func texts(_ name: String) -> [String] { rows.map { r in r.first { $0.name == name }?.value.text ?? "" } }
        let idTexts = idField.map(texts)
        // A name that is a number or the id again is an opaque code: people cannot read it.
        func isCode(_ name: String) -> Bool {
            let values = texts(name)
            if let idTexts, name != idField, values == idTexts { return true }
            let filled = values.filter { !$0.isEmpty }
            return filled.isEmpty || filled.allSatisfy { $0.allSatisfy { $0.isNumber || $0 == "-" || $0 == "." } }
        }
        let named = nameCandidates.compactMap { c in fieldNames.first { $0.lowercased() == c } }
        let present = named.filter { !isCode($0) }
        // Any field whose name says it is one ("NTAName" beside "NTACode", "NEIGHBORHOOD_NAME"):
        // distinct text, mixed case before capitals ("NEIGHNAME" beside it). The first field of
        // distinct text (below) was New York's NTACode: "QN28" for Jackson Heights.
        if present.isEmpty {
            let nameLike = fieldNames.filter { f in
                guard f != idField, f.lowercased().contains("name"), !isCode(f) else { return false }
                let values = texts(f).filter { !$0.isEmpty }
                return values.count * 10 >= rows.count * 9 && Set(values).count * 10 >= values.count * 9
            }
            if let mixed = nameLike.first(where: { texts($0).contains { $0 != $0.uppercased() } }) ?? nameLike.first { return mixed }
        }
        guard let first = present.first else {
            // No readable name: a ZIP-code layer's ZIP field, then any other field of distinct text
            // values, then the code after all (better than a row number).
            if let zip = postcodeCandidates.lazy.compactMap({ c in fieldNames.first { $0.lowercased() == c } }).first { return zip }
            let text = fieldNames.first { f in
                guard f != idField, !isCode(f) else { return false }
                let values = texts(f).filter { !$0.isEmpty }
                return values.count * 10 >= rows.count * 9 && Set(values).count * 10 >= values.count * 9
            }
            return text ?? named.first
        }
        let firstTexts = texts(first)
        // Many publishers keep an all-capitals official NAME beside a mixed-case map label that is
        // the same name or its short form ("SUMNER ASSOCIATION OF NEIGHBORS" / "Sumner"): people
        // want the label.
        let capitals = firstTexts.filter { $0 == $0.uppercased() }.count
        if capitals * 10 >= firstTexts.count * 9 {
            for other in present.dropFirst() {
                let otherTexts = texts(other)
                let related = zip(firstTexts, otherTexts).filter { !$1.isEmpty && $0.lowercased().utf8.contains($1.lowercased().utf8) }.count
                if otherTexts.contains(where: { $0 != $0.uppercased() }), related * 10 >= firstTexts.count * 9 { return other }
            }
        }
        return first
    }

    // MARK: Lots

    /// Links every address point to the lot it stands in, read back from the layer just written
    /// so that the links follow the stored feature order.
    mutating func linkLots(_ name: String, report: inout IndexBuildReport) throws(LocusError) {
        let count = try db.prepare("SELECT count(*) FROM features WHERE layer = ?")
        try count.bind([.text(name)])
        _ = try count.step()
        let layer = try LocusIndex.loadLayer(db, name: name, expected: Int(count.int64(0)))
        // The positions of every address in memory: lot layers are a city's, not a country's.
        var positions: [GeoPoint] = []
        if let file = pointsFile, file.count > 0 {
            let mapped = try MappedFile(path: file.path)
            let stride = IndexSchema.packedAddressSize
            positions = (0..<(file.count / stride)).map { i in
                GeoPoint(x: Double(bitPattern: UInt64(littleEndian: mapped.bytes.loadUnaligned(fromByteOffset: i * stride, as: UInt64.self))),
                         y: Double(bitPattern: UInt64(littleEndian: mapped.bytes.loadUnaligned(fromByteOffset: i * stride + 8, as: UInt64.self))))
            }
        }
        let (start, ids) = LotLayer.link(layer: layer, points: positions)
        let packed = LotLayer.pack(start: start, addressIDs: ids)
        try db.prepare("INSERT INTO blobs(name, data) VALUES (?, ?)").run([.text("lot_addresses"), .blob(packed)])
        content.update(packed)
        let addressed = zip(start, start.dropFirst()).filter { $0 < $1 }.count
        metadata["lot_layer"] = name
        metadata["lot_reach"] = String(config.lotReach)
        metadata["lots_with_addresses"] = String(addressed)
        metadata["addresses_on_lots"] = String(ids.count)
        report.lots = .init(layer: name, lots: start.count - 1, lotsWithAddresses: addressed, addressesOnLots: ids.count)
    }

    // MARK: Synonyms

    mutating func importSynonyms(_ paths: [String]) throws(LocusError) {
        guard !paths.isEmpty else { return }
        var all = StreetSynonyms()
        for path in paths {
            guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
                throw LocusError(.notFound, "cannot read the synonyms file \(path)")
            }
            do throws(LocusError) {
                all = all.merging(try StreetSynonyms(parsing: text))
            } catch {
                throw LocusError(.invalidArgument, "\(path): \(error.message)")
            }
        }
        metadata["synonyms"] = all.text
        metadata["synonym_count"] = String(all.entries.count)
        try recordSource(name: "synonyms", kind: "synonyms", files: paths, crs: "")
    }

    // MARK: Metadata

    mutating func writeMetadata(report: IndexBuildReport) throws(LocusError) {
        var m = metadata
        m["format"] = "locus-index"
        m["schema_version"] = String(IndexSchema.version)
        m["locus_version"] = LocusVersion.current
        m["crs"] = "EPSG:4326"
        m["build_time"] = ISO8601DateFormatter().string(from: config.buildDate)
        m["layers"] = Self.json(config.layers.map(\.name))
        m["content_sha256"] = content.hex
        let insert = try db.prepare("INSERT INTO metadata(key, value) VALUES (?, ?)")
        for (k, v) in m.sorted(by: { $0.key < $1.key }) { try insert.run([.text(k), .text(v)]) }
    }
}

/// The version of Locus, recorded in every index it builds and reported by `info`.
public enum LocusVersion {
    public static let current = "0.1.0"
}
