import Foundation
import LocusCore

/// A dataset Locus can build an index from, described in a JSON file (see `Data/portland/dataset.json`).
/// Paths inside it are relative to a data directory, so the same definition works wherever the
/// files were downloaded to.
public struct DatasetDefinition: Sendable, Codable {
    public struct Addresses: Sendable, Codable {
        public var path: String
        public var columns: AddressColumns?
    }

    public var name: String
    public var title: String?
    public var addresses: Addresses?
    public var layers: [LayerSource]
    public var attribution: [String]?
    /// A street synonyms file (`from,to` per line), relative to the definition's own folder, where
    /// it is kept with the definition (Data/portland/synonyms.csv), or else to the data directory.
    public var synonyms: String?
    /// The layer (one of `layers`) holding lot polygons or building footprints, if the city
    /// publishes them (see `IndexBuildConfiguration.lotLayer`).
    public var lots: String?
    /// How far in front of a lot (metres) a point still belongs to it.
    public var lotReach: Double?

    enum CodingKeys: String, CodingKey {
        case name, title, addresses, layers, attribution, synonyms, lots
        case lotReach = "lot_reach"
    }

    public static func load(path: String) throws(LocusError) -> DatasetDefinition {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw LocusError(.notFound, "no dataset definition at \(path)")
        }
        do {
            return try JSONDecoder().decode(DatasetDefinition.self, from: data)
        } catch {
            throw LocusError(.invalidArgument, "\(path) is not a valid dataset definition: \(error)")
        }
    }

    /// The build configuration for this dataset with its files under `dataDirectory`.
    /// - Parameter definitionPath: where the definition was read from, to find its synonyms file.
    public func buildConfiguration(dataDirectory: String, output: String, definitionPath: String? = nil) throws(LocusError) -> IndexBuildConfiguration {
        var config = IndexBuildConfiguration(output: output)
        let base = URL(fileURLWithPath: dataDirectory)
        func resolve(_ p: String) throws(LocusError) -> String {
            let full = p.hasPrefix("/") ? p : base.appendingPathComponent(p).path
            guard FileManager.default.fileExists(atPath: full) else {
                throw LocusError(.notFound, "the \(name) dataset needs \(full), which is missing; see Data/\(name)/README.md for where to get it, and point LOCUS_DATA_DIR (or --data-dir) at the folder that holds it")
            }
            return full
        }
        if let a = addresses {
            config.addresses = try resolve(a.path)
            if let c = a.columns { config.addressColumns = c }
        }
        config.layers = try layers.map { (l) throws(LocusError) in
            var copy = l
            copy.path = try resolve(l.path)
            return copy
        }
        config.lotLayer = lots
        if let lotReach { config.lotReach = lotReach }
        if let s = synonyms {
            let beside = definitionPath.map { URL(fileURLWithPath: $0).deletingLastPathComponent().appendingPathComponent(s).path }
            if !s.hasPrefix("/"), let beside, FileManager.default.fileExists(atPath: beside) {
                config.synonyms = [beside]
            } else {
                config.synonyms = [try resolve(s)]
            }
        }
        return config
    }
}
