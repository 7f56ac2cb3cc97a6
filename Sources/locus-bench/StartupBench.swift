import ArgumentParser
import Foundation
import LocusClient
import LocusCore
import LocusEngine
import LocusProtocol
import LocusServer
import LocusWire

extension LocusBench {
    struct StartupBench: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "startup",
            abstract: "Start `locus serve` as a process: time from start to the first answer, and its memory with the full index.",
            discussion: "Runs the server --runs times; reports each start-to-first-reverse-answer time, then resident memory after every op has been used."
        )
        @Option(help: "Starts to time.") var runs: Int = 5
        /// A point in Portland with an address and a neighbourhood.
        static let here: JSONValue = .object(["x": .number(-122.6296), "y": .number(45.5676), "wkid": .number(4326)])
        @OptionGroup var index: IndexOptions

        func run() async throws {
            let path = index.path
            guard FileManager.default.fileExists(atPath: path) else { throw ValidationError("no index at \(path)") }
            // The server timed is the `locus` built beside this executable.
            let executable = Output.executable.deletingLastPathComponent().appendingPathComponent("locus")
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("locus-startup-\(getpid())")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            let socket = dir.appendingPathComponent("s.sock").path
            var times: [Double] = []
            for run in 0..<runs {
                let process = Process()
                process.executableURL = executable
                process.arguments = ["serve", "--index", path, "--listen", "unix:\(socket)", "--log-level", "warning"]
                process.standardOutput = FileHandle.nullDevice
                let clock = ContinuousClock()
                let start = clock.now
                try process.run()
                var answered = false
                while !answered, clock.now - start < .seconds(30), process.isRunning {
                    if let c = try? await LocusClient.connect(to: .unix(path: socket), retry: .none) {
                        let r = try? await c.send(op: "reverse", ["location": Self.here])
                        answered = r?.ok == true
                        await c.close()
                    }
                    if !answered { try await Task.sleep(for: .milliseconds(5)) }
                }
                let seconds = (clock.now - start).inSeconds
                guard answered else { throw ValidationError("locus serve did not answer") }
                times.append(seconds)
                if run == runs - 1 {
                    // Every op once, so every lazily built part is in memory, then read the RSS.
                    let c = try await LocusClient.connect(to: .unix(path: socket))
                    _ = try await c.send(op: "within", ["location": Self.here])
                    _ = try await c.send(op: "suggest", ["text": .string("6132 ne 34")])
                    _ = try await c.send(op: "geocode", ["text": .string("6132 ne 43rd avenu portlnd")])
                    _ = try await c.send(op: "info")
                    try await Task.sleep(for: .seconds(2))  // the typo indexes are built in the background at start
                    _ = try await c.send(op: "geocode", ["text": .string("6123 ne 34th av")])
                    await c.close()
                    let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
                    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS") || line.hasPrefix("VmHWM") {
                        Output.line("locus serve \(line.replacingOccurrences(of: "\t", with: " ").replacingOccurrences(of: "  ", with: ""))")
                    }
                }
                process.terminate()
                process.waitUntilExit()
            }
            Output.line("start to first reverse answer: " + times.map { String(format: "%.0f ms", $0 * 1000) }.joined(separator: ", ")
                        + String(format: " (median %.0f ms)", times.sorted()[times.count / 2] * 1000))
        }
    }
}
