import CSQLite
import Foundation
import LocusCore
import LocusEngine
import Testing

/// Issue 13: the address tables live after the database in the index file (`IndexSections`),
/// mapped (one-shot commands, `serve --map-index`) or copied into memory (the server's default).
@Suite struct IndexTablesTests {
    /// The sections' directory, read as a reader of the file format would.
    struct Section: Decodable { var name: String; var offset: Int; var length: Int }
    static func sections(_ path: String) throws -> [String: Section] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let footer = data.suffix(32)
        #expect(String(decoding: footer.prefix(8), as: UTF8.self) == "LOCUSSEC")
        let offset = footer.dropFirst(8).prefix(8).enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        let length = footer.dropFirst(16).prefix(8).enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        struct Directory: Decodable { var sections: [Section] }
        let directory = try JSONDecoder().decode(Directory.self, from: data.subdata(in: offset..<(offset + length)))
        return Dictionary(uniqueKeysWithValues: directory.sections.map { ($0.name, $0) })
    }

    /// Appends a new directory of these entries (JSON objects) and a footer pointing to it in
    /// place of the old footer; returns the directory's offset.
    @discardableResult
    static func replaceDirectory(of data: inout Data, with entries: [String]) -> Int {
        let directory = Data(#"{"sections":[\#(entries.joined(separator: ","))]}"#.utf8)
        data = data.prefix(data.count - 32)
        let offset = data.count
        data.append(directory)
        var tail = Data("LOCUSSEC".utf8)
        withUnsafeBytes(of: UInt64(offset).littleEndian) { tail.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt64(directory.count).littleEndian) { tail.append(contentsOf: $0) }
        tail.append(Data("LOCUSEND".utf8))
        data.append(tail)
        return offset
    }

    /// The neighbourhoods' grid (`LayerTables`).
    static let layerTables = Set(["grid", "cells", "entries", "band_edges", "edges", "edge_start", "labels"].map { "layer.neighborhoods.\($0)" })

    /// Tree positions in front of real lots, and addresses as typed, from the Portland index itself.
    static func queries(_ index: LocusIndex) throws -> (points: [GeoPoint], texts: [String]) {
        let addresses = try #require(index.addresses)
        var random = SeededGenerator(seed: 13)
        var points: [GeoPoint] = [], texts: [String] = []
        for _ in 0..<2_000 {
            let i = Int.random(in: 0..<addresses.count, using: &random)
            let p = addresses.points[i]
            points.append(GeoPoint(x: p.lon + Double.random(in: -0.0003...0.0003, using: &random),
                                   y: p.lat + Double.random(in: -0.0002...0.0002, using: &random)))
            if texts.count < 300 {
                let c = addresses.components(of: i)
                texts.append("\(c.number) \(c.street.lowercased()) \(c.city)")
            }
        }
        return (points, texts)
    }

    @Test func theTablesFollowTheDatabaseWhichSQLiteStillFindsWhole() throws {
        let path = try TestSupport.portlandIndexPath()
        let sections = try Self.sections(path)
        #expect(Set(sections.keys) == Set(["address_points", "address_cells", "address_frontage", "search_street_start", "search_by_street",
                                       "search_street_numbers", "search_number_keys", "search_number_start", "search_by_number", "search_street_places",
                                       "search_street_place_start", "search_posting_start", "search_postings", "search_lists",
                                       "search_areas", "search_core_start", "search_core_streets", "search_vocabulary",
                                       "search_vocabulary_start", "search_core_keys", "search_core_keys_start", "search_street_tokens",
                                       "search_street_tokens_start"]).union(Self.layerTables))
        #expect(sections["address_points"]?.length == 435_177 * 40)
        var db: OpaquePointer?
        #expect(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK)
        defer { sqlite3_close(db) }
        var statement: OpaquePointer?
        #expect(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &statement, nil) == SQLITE_OK)
        defer { sqlite3_finalize(statement) }
        #expect(sqlite3_step(statement) == SQLITE_ROW)
        #expect(String(cString: sqlite3_column_text(statement, 0)) == "ok")
        // The database ends where the first table begins (after 64-byte alignment).
        var pages: OpaquePointer?
        sqlite3_prepare_v2(db, "SELECT page_count * page_size FROM pragma_page_count, pragma_page_size", -1, &pages, nil)
        defer { sqlite3_finalize(pages) }
        #expect(sqlite3_step(pages) == SQLITE_ROW)
        let databaseBytes = Int(sqlite3_column_int64(pages, 0))
        #expect(sections.values.map(\.offset).min().map { $0 >= databaseBytes && $0 - databaseBytes < 64 } == true)
    }

    @Test func mappedAndCopiedTablesGiveTheSameAnswers() throws {
        let path = try TestSupport.portlandIndexPath()
        let mapped = try LocusIndex(path: path, mapped: true), copied = try LocusIndex(path: path, mapped: false)
        let (points, texts) = try Self.queries(copied)
        let a = Locator(index: mapped), b = Locator(index: copied)
        var answered = 0
        for p in points {
            for method in ReverseMethod.allCases {
                var r = ReverseRequest(location: p)
                r.method = method
                let x = try a.reverse(r), y = try b.reverse(r)
                #expect(x == y)
                if x != nil { answered += 1 }
            }
        }
        #expect(answered > 3_500)
        for t in texts {
            #expect(try a.geocode(GeocodeRequest(.text(t))) == (try b.geocode(GeocodeRequest(.text(t)))))
        }
    }

    /// Nothing checks the tables' payload at open (it would read all of it): values a damaged
    /// file holds (streets, places and neighbours beyond their tables, NaN and huge coordinates,
    /// cell starts out of order, ids beyond their tables) must answer without a trap. Without the
    /// clamps in `PointTable`, `AddressIndex.cellRange`, `StoredIDs`, `StoredRuns`,
    /// `StreetPlaceTable` and `BoundaryLayer.cellRange`, this test ends the test process.
    @Test(arguments: [true, false])
    func garbageInTheTablesAnswersWithoutATrap(mapped: Bool) throws {
        let good = try TestSupport.portlandIndexPath()
        var data = try Data(contentsOf: URL(fileURLWithPath: good))
        let sections = try Self.sections(good)
        var random = SeededGenerator(seed: 1313)
        let damaged = ["address_points", "address_cells", "address_frontage", "search_street_start", "search_by_street",
                       "search_street_numbers", "search_number_keys", "search_number_start", "search_by_number", "search_street_places",
                       "search_street_place_start", "search_posting_start", "search_postings", "search_core_start",
                       "search_core_streets", "search_vocabulary", "search_vocabulary_start", "search_core_keys",
                       "search_core_keys_start", "search_street_tokens", "search_street_tokens_start", "search_areas"]
            + Self.layerTables.subtracting(["layer.neighborhoods.grid"]).sorted()
        for name in damaged {
            let s = try #require(sections[name])
            // A run of 0xFF bytes and a run of random ones in every table.
            for i in (s.offset + s.length / 3)..<(s.offset + s.length / 3 + min(8_192, s.length / 4)) { data[i] = 0xFF }
            for i in (s.offset + s.length / 2)..<(s.offset + s.length / 2 + min(65_536, s.length / 4)) {
                data[i] = UInt8.random(in: 0...255, using: &random)
            }
        }
        let path = TestSupport.temporaryDirectory().appendingPathComponent("garbage-\(mapped).locus").path
        try data.write(to: URL(fileURLWithPath: path))
        let index = try LocusIndex(path: path, mapped: mapped)
        let (points, texts) = try Self.queries(try LocusIndex(path: good))
        let locator = Locator(index: index)
        var answers = 0
        for p in points {
            for method in ReverseMethod.allCases {
                var r = ReverseRequest(location: p)
                r.method = method
                if let a = try locator.reverse(r) {
                    answers += 1
                    #expect(a.distanceMetres.isFinite)
                }
            }
        }
        var covered = 0
        for p in points {
            var r = WithinRequest(location: p)
            r.nearestWithin = 500
            covered += try locator.within(r).features.isEmpty ? 0 : 1
        }
        for t in texts {
            _ = try locator.geocode(GeocodeRequest(.text(t)))
            _ = try locator.suggest(SuggestRequest(text: String(t.prefix(9))))
            _ = try locator.suggest(SuggestRequest(text: String(t.prefix(3))))
        }
        // Most of the tables are intact, so most answers are still there (fewer polygons: the
        // layer's tables are small, and their damage reaches more of them).
        #expect(answers > 3_000)
        #expect(covered > 500)
    }
}

extension IndexTablesTests {
    /// What an open reads whole (the search lists, a layer's grid header) or relies on the shape
    /// of (one run start per street, per number, per word; one cell start per cell) is checked at
    /// open: damage there is a refused index, never a trap in a later query.
    @Test(arguments: [("search_lists", 0), ("layer.neighborhoods.grid", 0), ("search_street_start", 4), ("search_number_start", 4),
                      ("search_posting_start", 4), ("search_street_place_start", 4), ("search_core_start", 4),
                      ("search_vocabulary_start", 4), ("search_street_tokens_start", 4), ("layer.neighborhoods.cells", 4),
                      ("layer.neighborhoods.edge_start", 4), ("layer.neighborhoods.labels", 16)])
    func damagedOrCutTablesAreARefusedIndex(_ name: String, cut: Int) throws {
        let good = try TestSupport.portlandIndexPath()
        var data = try Data(contentsOf: URL(fileURLWithPath: good))
        let s = try #require(try Self.sections(good)[name])
        if cut == 0 {
            for i in s.offset..<(s.offset + min(64, s.length)) { data[i] = 0xFF }
        } else {
            // One record fewer: a new directory says the table is shorter than its shape.
            let entries = try Self.sections(good).values.map { e in
                #"{"length":\#(e.name == name ? e.length - cut : e.length),"name":"\#(e.name)","offset":\#(e.offset)}"#
            }
            Self.replaceDirectory(of: &data, with: entries)
        }
        let path = TestSupport.temporaryDirectory().appendingPathComponent("\(name).locus").path
        try data.write(to: URL(fileURLWithPath: path))
        for mapped in [true, false] {
            #expect { try LocusIndex(path: path, mapped: mapped) } throws: { ($0 as? LocusError)?.code == .invalidIndex }
            if !name.hasPrefix("layer.") {
                // Without search, the same file still answers reverse geocoding.
                #expect(try LocusIndex(path: path, loading: [.addresses], mapped: mapped).addresses?.count == 435_177)
            }
        }
    }
}

extension IndexTablesTests {
    /// A directory listing one table many times (or tables overlapping) would have a server that
    /// copies its tables allocate many times the file: refused instead.
    @Test func aDirectoryThatListsATableTwiceIsRefused() throws {
        let good = try TestSupport.portlandIndexPath()
        var data = try Data(contentsOf: URL(fileURLWithPath: good))
        let points = try #require(try Self.sections(good)["address_points"])
        let footer = data.count - 32
        let offset = data[(footer + 8)..<(footer + 16)].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        // A new directory after the old one: the points table 200 times under other names.
        let entries = (0..<200).map { #"{"length":\#(points.length),"name":"copy\#($0)","offset":\#(points.offset)}"# }
        let newOffset = Self.replaceDirectory(of: &data, with: entries)
        #expect(offset < newOffset)
        let path = TestSupport.temporaryDirectory().appendingPathComponent("repeated.locus").path
        try data.write(to: URL(fileURLWithPath: path))
        for mapped in [true, false] {
            #expect { try LocusIndex(path: path, mapped: mapped) } throws: { ($0 as? LocusError)?.code == .invalidIndex }
        }
    }
}
