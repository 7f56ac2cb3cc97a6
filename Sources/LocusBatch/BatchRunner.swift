import Foundation
import LocusCore
import LocusEngine

/// How a batch run goes.
public struct BatchOptions: Sendable {
    /// The output file; `.gz` to compress it.
    public var output: String
    /// Continue an interrupted run from its resume record.
    public var resume = false
    /// Rows worked on at once: in process, one worker per core; against a server, requests in
    /// flight on the connection.
    public var workers = ProcessInfo.processInfo.activeProcessorCount
    /// Rows per chunk: the unit of writing, of the resume record, and of the output's gzip
    /// members. Fixed, so that a resumed run writes the same bytes as an uninterrupted one.
    public var chunkRows = 4_096

    public init(output: String) { self.output = output }
}

/// What a batch run did, for the summary.
public struct BatchSummary: Sendable {
    public var rows = 0
    /// Rows already written by the interrupted run this one resumed.
    public var resumedRows = 0
    public var failed = 0
    public var categories: [String: Int] = [:]
    public var seconds = 0.0
    /// Bytes of the input that were not UTF-8 and were read as Windows-1252 (this run's part).
    public var windows1252Bytes = 0
    /// Rows with more fields than the header (this run's): their extra fields follow the
    /// appended columns, and a comma typed in an unquoted address ends up there.
    public var longRows = 0
    /// Empty lines between rows, skipped (this run's): output rows no longer follow input lines.
    public var blankLines = 0
}

/// Streams a CSV through a job: a chunk of rows at a time, the chunk's rows worked on in
/// parallel, the results written in input order, then the resume record moved on.
public enum BatchRunner {
    /// - Parameter makeBackend: a backend for one worker (in process: its own `Locator`).
    public static func run(input: CSVInput, job: some BatchJob, options: BatchOptions,
                           makeBackend: @escaping @Sendable () -> any QueryBackend,
                           progress: BatchProgress = BatchProgress()) async throws -> BatchSummary {
        let clock = ContinuousClock()
        let start = clock.now
        // The output is written in place (a device or link stays what it is), so the input named
        // again, or through a link, would be emptied while it is read.
        var a = stat(), b = stat()
        if stat(input.path, &a) == 0, stat(options.output, &b) == 0, a.st_dev == b.st_dev, a.st_ino == b.st_ino {
            throw LocusError(.invalidArgument, "\(options.output) is the input file: write the output to another file")
        }
        let identity = Checkpoint.identity(of: input.path)
        var summary = BatchSummary()
        var record = Checkpoint(job: job.fingerprint, input: input.path, inputSize: identity.size, inputModified: identity.modified,
                                rowsDone: 0, outputBytes: 0)
        let output: CSVOutput
        let existing = try Checkpoint.load(for: options.output)
        if options.resume, let existing {
            guard existing.job == record.job else {
                throw LocusError(.invalidArgument, "the interrupted run of \(options.output) used other options or another input header; rerun it with the same options, or leave out --resume to start over")
            }
            guard existing.inputSize == record.inputSize, existing.inputModified == record.inputModified else {
                throw LocusError(.invalidArgument, "\(input.path) has changed since the interrupted run of \(options.output); leave out --resume to start over")
            }
            output = try CSVOutput(path: options.output, delimiter: input.delimiter, lineEnding: input.lineEnding, resumeAt: existing.outputBytes)
            while input.rowsRead < existing.rowsDone {
                guard try input.next() != nil else {
                    throw LocusError(.invalidArgument, "\(input.path) has fewer rows than the interrupted run had done")
                }
            }
            record = existing
            summary.resumedRows = existing.rowsDone
            summary.categories = existing.categories ?? [:]
            summary.failed = existing.failed ?? 0
        } else {
            if options.resume, FileManager.default.fileExists(atPath: options.output),
               ((try? FileManager.default.attributesOfItem(atPath: options.output)[.size]) as? Int ?? 0) > 0 {
                throw LocusError(.invalidArgument, "\(options.output) has no resume record: it is complete or was not written by this job; remove it, or leave out --resume to overwrite it")
            }
            Checkpoint.remove(for: options.output)
            output = try CSVOutput(path: options.output, delimiter: input.delimiter, lineEnding: input.lineEnding)
            var head: [UInt8] = input.hasByteOrderMark ? [0xEF, 0xBB, 0xBF] : []
            if input.separatorLine { head += Array("sep=".utf8) + [UInt8(truncatingIfNeeded: input.delimiter.value)] + Array(input.lineEnding.utf8) }
            output.format(input.header + job.appendedColumns, into: &head)
            try output.write(head)
            record.outputBytes = output.size
            if output.isRegularFile { try record.save(for: options.output) }
        }

        let workers = max(1, options.workers)
        let reader = ChunkReader(input: input, size: options.chunkRows)
        var nextChunk = Task { try await reader.read() }
        while true {
            let (rows, damaged, fraction, stop) = try await nextChunk.value
            if rows.isEmpty { break }
            // The next chunk is parsed while this one is worked on.
            if stop == nil { nextChunk = Task { try await reader.read() } }
            let outcomes = try await process(rows, damaged: damaged, job: job, workers: workers, makeBackend: makeBackend)
            var bytes: [UInt8] = []
            bytes.reserveCapacity(rows.count * 160)
            for (row, outcome) in zip(rows, outcomes) {
                // Appended columns line up with the header: a short row is padded; fields beyond
                // the header's width are kept, after the appended ones.
                let width = input.header.count
                if row.count == width {
                    output.format(row + outcome.fields, into: &bytes)
                } else if row.count < width {
                    output.format(row + [String](repeating: "", count: width - row.count) + outcome.fields, into: &bytes)
                } else {
                    summary.longRows += 1
                    var extra = Array(row[width...])
                    while extra.last?.isEmpty == true { extra.removeLast() }
                    output.format(Array(row[..<width]) + outcome.fields + extra, into: &bytes)
                }
                summary.categories[outcome.category, default: 0] += 1
                if outcome.failed { summary.failed += 1 }
            }
            try output.write(bytes)
            summary.rows += rows.count
            record.rowsDone += rows.count
            record.outputBytes = output.size
            record.categories = summary.categories
            record.failed = summary.failed
            // A pipe or device (`-o /dev/stdout`) cannot be cut back to resume: no record beside it.
            if output.isRegularFile { try record.save(for: options.output) }
            progress.update(rows: summary.rows, fraction: fraction)
            // The rows read before the file's error are written, then the error ends the job.
            if let stop { throw stop }
        }
        progress.finish()
        summary.windows1252Bytes = input.windows1252Bytes
        summary.blankLines = input.blankLinesSkipped
        Checkpoint.remove(for: options.output)
        summary.seconds = (clock.now - start).inSeconds
        return summary
    }

    /// The chunk's outcomes in row order; workers take every `workers`-th row.
    static func process(_ rows: [[String]], damaged: Set<Int> = [], job: some BatchJob, workers: Int,
                        makeBackend: @escaping @Sendable () -> any QueryBackend) async throws -> [RowOutcome] {
        let n = min(workers, rows.count)
        let unreadable = RowOutcome(fields: ["failed", "the row is not valid UTF-8; its bad bytes are shown as U+FFFD"]
                                        + [String](repeating: "", count: job.appendedColumns.count - 2),
                                    category: "failed", failed: true)
        return try await withThrowingTaskGroup(of: [(Int, RowOutcome)].self) { group in
            for w in 0..<n {
                group.addTask {
                    let backend = makeBackend()
                    var out: [(Int, RowOutcome)] = []
                    out.reserveCapacity(rows.count / n + 1)
                    for i in stride(from: w, to: rows.count, by: n) {
                        out.append((i, damaged.contains(i) ? unreadable : try await job.run(rows[i], on: backend)))
                    }
                    return out
                }
            }
            var all = [RowOutcome?](repeating: nil, count: rows.count)
            for try await part in group {
                for (i, o) in part { all[i] = o }
            }
            return all.map { $0! }
        }
    }
}

/// Reads chunks of rows on a thread of its own, so parsing the next chunk overlaps working on
/// this one. One read at a time: the runner awaits each before asking for the next.
final class ChunkReader: @unchecked Sendable {
    private let input: CSVInput
    private let size: Int
    private let queue = DispatchQueue(label: "locus.batch.read")

    init(input: CSVInput, size: Int) {
        self.input = input
        self.size = size
    }

    /// The next rows (empty at the end), which of them held bytes that are not UTF-8, how far
    /// through the file they reach, and the error that ended the reading after them (a `.gz` cut
    /// short, a quote never closed): the rows before it are kept, not lost with their chunk.
    func read() async throws -> (rows: [[String]], damaged: Set<Int>, fraction: Double, stop: (any Error)?) {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                var rows: [[String]] = []
                rows.reserveCapacity(self.size)
                var damaged = Set<Int>()
                do {
                    while rows.count < self.size, let row = try self.input.next() {
                        if self.input.isDamaged(row) { damaged.insert(rows.count) }
                        rows.append(row)
                    }
                    continuation.resume(returning: (rows, damaged, self.input.fraction, nil))
                } catch {
                    if rows.isEmpty {
                        continuation.resume(throwing: error)
                    } else {
                        continuation.resume(returning: (rows, damaged, self.input.fraction, error))
                    }
                }
            }
        }
    }
}
