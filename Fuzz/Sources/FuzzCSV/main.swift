// Target (c): arbitrary bytes as the CSV file of a batch job. Checked:
// - `UTF8Repair` gives well-formed UTF-8, three bytes (U+FFFD) for each byte it replaces, the input
//   itself when it was well formed, and the same bytes however the input is cut into reads;
// - `CSVInput` reads any file to its end or stops with a coded error, never a trap;
// - `enrich` and `assign` (whichever the header allows) run through `BatchRunner` on the fixture
//   index, in chunks of eight rows, and write every row they read, in order, its fields as read
//   (a short row padded), followed by a status.

import Foundation
import FuzzSupport
import LocusBatch
import LocusCore
import LocusEngine

Fuzzer.begin()

let index = FuzzIndexes.open(FuzzIndexes.fixturePath)
let inputPath = FuzzIndexes.scratch.appendingPathComponent("input.csv").path
let outputPath = FuzzIndexes.scratch.appendingPathComponent("output.csv").path
let statuses: Set<String> = ["matched", "unmatched", "failed", "covered", "nearest", "outside"]

@MainActor func checkRepair(_ bytes: [UInt8], input: UnsafeRawBufferPointer) {
    let whole = UTF8Repair.repair(bytes, final: true)
    guard whole.consumed == bytes.count else { Fuzzer.fail("UTF8Repair left bytes unconsumed at the end", input: input) }
    guard String(validating: whole.output, as: UTF8.self) != nil else { Fuzzer.fail("UTF8Repair gave bytes that are not UTF-8", input: input) }
    guard whole.output.count == bytes.count + 2 * whole.replaced else {
        Fuzzer.fail("UTF8Repair: \(whole.replaced) bytes replaced, but \(bytes.count) bytes became \(whole.output.count)", input: input)
    }
    if String(validating: bytes, as: UTF8.self) != nil, whole.output != bytes {
        Fuzzer.fail("UTF8Repair changed well-formed UTF-8", input: input)
    }
    guard !bytes.isEmpty else { return }
    for cut in Set([bytes.count / 3, bytes.count / 2, Int(bytes[0]) % bytes.count]) {
        let first = UTF8Repair.repair(Array(bytes[..<cut]), final: false)
        guard cut - first.consumed <= 3 else { Fuzzer.fail("UTF8Repair held back \(cut - first.consumed) bytes", input: input) }
        let second = UTF8Repair.repair(Array(bytes[first.consumed...]), final: true)
        guard first.output + second.output == whole.output, first.replaced + second.replaced == whole.replaced else {
            Fuzzer.fail("UTF8Repair reads differently when the input is cut at \(cut)", input: input)
        }
    }
}

/// Every row of a CSV file, or the coded error that stopped the reading.
@MainActor func rows(_ path: String, delimiter: UnicodeScalar? = nil) -> (header: [String], rows: [[String]], delimiter: UnicodeScalar)? {
    do throws(LocusError) {
        let csv = try CSVInput(path: path, delimiter: delimiter)
        var all: [[String]] = []
        while let row = try csv.next() { all.append(row) }
        return (csv.header, all, csv.delimiter)
    } catch {
        return nil
    }
}

/// A result handed from a task to the thread waiting on a semaphore for it.
final class Outcome<T: Sendable>: @unchecked Sendable { var result: Result<T, any Error>? }

/// Runs an async body to its end from the fuzzer's (synchronous) callback.
func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) -> Result<T, any Error> {
    let box = Outcome<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        do { box.result = .success(try await body()) } catch { box.result = .failure(error) }
        done.signal()
    }
    done.wait()
    return box.result!
}

@MainActor func run(_ job: some BatchJob, expected: (header: [String], rows: [[String]], delimiter: UnicodeScalar), input: UnsafeRawBufferPointer) {
    var chunked = BatchOptions(output: outputPath)
    chunked.workers = 1
    chunked.chunkRows = 8
    let options = chunked
    let outcome = blocking {
        let csv = try CSVInput(path: inputPath)
        return try await BatchRunner.run(input: csv, job: job, options: options, makeBackend: { LocatorBackend(index: index) },
                                         progress: BatchProgress(enabled: false))
    }
    switch outcome {
    case .failure(let e as LocusError):
        // The rows read once already; reading them again must not fail.
        Fuzzer.fail("the job stopped: \(e.code) \(e.message)", input: input)
    case .failure(let e):
        Fuzzer.fail("the job threw a non-Locus error: \(e)", input: input)
    case .success(let summary):
        guard summary.rows == expected.rows.count else {
            Fuzzer.fail("the job did \(summary.rows) rows of \(expected.rows.count)", input: input)
        }
    }
    guard let written = rows(outputPath, delimiter: expected.delimiter) else { Fuzzer.fail("the output cannot be read back", input: input) }
    guard written.header == expected.header + job.appendedColumns else {
        Fuzzer.fail("output header \(written.header), expected \(expected.header + job.appendedColumns)", input: input)
    }
    guard written.rows.count == expected.rows.count else {
        Fuzzer.fail("\(expected.rows.count) rows in, \(written.rows.count) out", input: input)
    }
    let width = expected.header.count
    for (i, (row, out)) in zip(expected.rows, written.rows).enumerated() {
        let kept = row.count >= width ? Array(row[..<width]) : row + [String](repeating: "", count: width - row.count)
        guard out.count >= width + job.appendedColumns.count, Array(out[..<width]) == kept, statuses.contains(out[width]) else {
            Fuzzer.fail("row \(i + 1): \(row) came out as \(out)", input: input)
        }
    }
}

Fuzzer.run { input in
    let bytes = [UInt8](input)
    checkRepair(bytes, input: input)

    guard FileManager.default.createFile(atPath: inputPath, contents: Data(bytes)) else { Fuzzer.fail("cannot write \(inputPath)") }
    guard let expected = rows(inputPath) else { return }
    if let job = try? EnrichJob(header: expected.header, columns: EnrichJob.Columns(), layers: ["neighborhoods"]) {
        run(job, expected: expected, input: input)
    }
    if let job = try? AssignJob(header: expected.header, xColumn: nil, yColumn: nil, layers: ["neighborhoods"],
                                nearestWithin: 1_000, reverseWithin: 100) {
        run(job, expected: expected, input: input)
    }
}
