import Foundation
import LocusCore

/// How far a batch job got: written beside the output after every chunk, removed when the job
/// completes. `--resume` cuts the output back to `outputBytes` (a chunk that was being written
/// when the job was killed is dropped whole) and skips `rowsDone` input rows, so no row is lost and
/// none is written twice, and the result is byte for byte what an uninterrupted run writes.
struct Checkpoint: Codable, Equatable {
    var version = 1
    /// The job and every option that shapes its output; a resume with other options is refused.
    var job: String
    var input: String
    var inputSize: Int
    var inputModified: Double
    var rowsDone: Int
    var outputBytes: Int
    /// The rows done so far by outcome, and those not answered: a resumed run's summary and exit
    /// status count the whole output, not only its own rows (10 failed rows before a kill were
    /// "matched 100 %", exit 0). Optional: records written before they were kept have none.
    var categories: [String: Int]?
    var failed: Int?

    static func path(for output: String) -> String { output + ".locus-resume" }

    static func load(for output: String) throws(LocusError) -> Checkpoint? {
        let p = path(for: output)
        guard FileManager.default.fileExists(atPath: p) else { return nil }
        guard let data = FileManager.default.contents(atPath: p), let c = try? JSONDecoder().decode(Checkpoint.self, from: data) else {
            throw LocusError(.invalidArgument, "\(p) is not a resume record; remove it to start over")
        }
        return c
    }

    /// Replaces the record atomically: a kill leaves either the old one or the new one.
    func save(for output: String) throws(LocusError) {
        let p = Self.path(for: output)
        do {
            let data = try JSONEncoder().encode(self)
            try data.write(to: URL(fileURLWithPath: p + ".tmp"))
            guard rename(p + ".tmp", p) == 0 else { throw CocoaError(.fileWriteUnknown) }
        } catch {
            throw LocusError(.invalidArgument, "cannot write the resume record \(p): \(error.localizedDescription)")
        }
    }

    static func remove(for output: String) {
        try? FileManager.default.removeItem(atPath: path(for: output))
        try? FileManager.default.removeItem(atPath: path(for: output) + ".tmp")
    }

    /// The input file's identity: a resume against a changed input is refused.
    static func identity(of input: String) -> (size: Int, modified: Double) {
        let a = try? FileManager.default.attributesOfItem(atPath: input)
        return ((a?[.size] as? Int) ?? 0, (a?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)
    }
}
