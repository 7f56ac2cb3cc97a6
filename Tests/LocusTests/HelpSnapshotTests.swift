import Foundation
import Testing

/// The help of every `locus` command against its snapshot in Tests/Snapshots/help, at 80
/// columns: a changed option, default or wording shows up in review as a diff of what users
/// read. `LOCUS_UPDATE_SNAPSHOTS=1 swift test --filter HelpSnapshotTests` rewrites them.
@Suite struct HelpSnapshotTests {
    static let commands = [
        [], ["index"], ["index", "build"], ["index", "info"], ["serve"], ["within"], ["reverse"], ["suggest"],
        ["geocode"], ["enrich"], ["assign"], ["eval"], ["ping"], ["map"],
    ]

    @Test(arguments: commands)
    func helpMatchesItsSnapshot(_ command: [String]) throws {
        let r = try TestSupport.run(TestSupport.locusBinary, command + ["--help"], environment: ["COLUMNS": "80"])
        #expect(r.status == 0)
        let name = (["locus"] + command).joined(separator: "-")
        let snapshot = TestSupport.packageRoot.appendingPathComponent("Tests/Snapshots/help/\(name).txt")
        if ProcessInfo.processInfo.environment["LOCUS_UPDATE_SNAPSHOTS"] == "1" {
            try r.stdout.write(to: snapshot, atomically: true, encoding: .utf8)
        }
        let expected = try String(contentsOf: snapshot, encoding: .utf8)
        #expect(r.stdout == expected, "locus \(command.joined(separator: " ")) --help differs from \(snapshot.path)")
        // Paragraphs are wrapped by the help formatter alone: no line is cut short of the width
        // by a hard newline in the middle of a sentence and then wrapped again.
        for line in r.stdout.split(separator: "\n") {
            #expect(line.count <= 80, "\(line)")
        }
    }

    /// Every subcommand `locus --help` lists has a snapshot.
    @Test func everyCommandHasASnapshot() throws {
        let r = try TestSupport.locus(["--help"])
        let listed = r.stdout.split(separator: "\n").drop { !$0.hasPrefix("SUBCOMMANDS:") }.dropFirst()
            .compactMap { line -> String? in
                guard line.hasPrefix("  "), !line.hasPrefix("   "), let word = line.split(separator: " ").first else { return nil }
                return String(word)
            }
        #expect(!listed.isEmpty)
        for name in listed where name != "See" {
            #expect(Self.commands.contains { $0.first == name }, "no help snapshot for locus \(name)")
        }
    }
}
