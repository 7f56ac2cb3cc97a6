import Foundation
import LocusProtocol
import LocusWire
import Testing

/// PROTOCOL.md against the table of operations (`Operation.all`): every operation documented, and
/// every `→` request run through the handler: its reply must agree with the document's `←` line on
/// `id`, `ok`, the error code, and every plain value the line shows.
@Suite struct ProtocolDocumentTests {
    static func document() throws -> String {
        try String(contentsOf: TestSupport.packageRoot.appendingPathComponent("PROTOCOL.md"), encoding: .utf8)
    }

    static func examples() throws -> [(request: String, expected: String)] {
        let lines = try document().split(separator: "\n").map(String.init)
        var out: [(String, String)] = []
        for (i, line) in lines.enumerated() where line.hasPrefix("→ ") && i + 1 < lines.count && lines[i + 1].hasPrefix("← ") {
            out.append((String(line.dropFirst(2)), String(lines[i + 1].dropFirst(2))))
        }
        return out
    }

    /// Ops the connection answers itself, and which need it; in process there is none (`ping`
    /// needs nothing of it, and is answered in process too).
    static let serverOps = Operation.all.filter { $0.isAnsweredByConnection && $0 !== Operation.ping }.map { #""op":"\#($0.name)""# }

    /// Each operation of the table has its section under "Operations", with an example; and each
    /// section there is an operation of the table.
    @Test func everyOperationIsDocumented() throws {
        let text = try Self.document()
        let operations = try #require(text.components(separatedBy: "\n## Operations\n").last?.components(separatedBy: "\n## ").first)
        let sections = operations.split(separator: "\n").filter { $0.hasPrefix("### ") }.map { String($0.dropFirst(4)) }
        #expect(sections == Operation.all.map(\.name))
        let requests = try Self.examples().map(\.request)
        for operation in Operation.all {
            #expect(requests.contains { $0.contains(#""op":"\#(operation.name)""#) }, "no example of \(operation.name)")
        }
    }

    /// The operations PROTOCOL.md tells clients they may send again after a lost connection are
    /// the table's idempotent ones, and the others are named as not.
    @Test func theIdempotentOperationsAreTheTables() throws {
        let text = try Self.document()
        let section = try #require(text.components(separatedBy: "\n## Lost connections and retrying\n").last?.components(separatedBy: "\n## ").first)
        let sentences = section.components(separatedBy: ". ")
        let may = try #require(sentences.first { $0.hasPrefix("These operations are idempotent:") })
        let mayNot = try #require(sentences.first { $0.hasPrefix("These are not:") })
        func named(_ s: String) -> Set<String> {
            Set(s.components(separatedBy: "`").enumerated().filter { $0.offset % 2 == 1 }.map(\.element).filter(Operation.names.contains))
        }
        #expect(named(may) == Set(Operation.all.filter(\.isIdempotent).map(\.name)))
        #expect(named(mayNot) == Set(Operation.all.filter { !$0.isIdempotent }.map(\.name)))
    }

    @Test func everyExampleAnswersAsDocumentedInProcess() throws {
        let handler = RequestHandler(index: try TestSupport.portland())
        let examples = try Self.examples()
        #expect(examples.count >= 12)
        for (request, expected) in examples where !Self.serverOps.contains(where: request.contains) {
            let reply = String(decoding: handler.reply(to: Array(request.utf8)), as: UTF8.self)
            // Fragments of the documented reply between "…" elisions must appear in the real reply,
            // modulo key order: check them key by key.
            for fragment in Self.checkedFragments(expected) {
                #expect(reply.contains(fragment), "\(request)\n  reply \(reply.prefix(400))\n  lacks \(fragment)")
            }
        }
    }

    @Test func everyExampleAnswersAsDocumentedOverTheSocket() async throws {
        let live = try await LiveServer.start()
        let raw = try await RawConnection(port: live.port)
        let examples = try Self.examples()
        #expect(examples.count >= 16)
        for (n, (request, expected)) in examples.enumerated() {
            try await raw.send(request + "\n")
            let reply = try await raw.lines(atLeast: n + 1)[n]
            for fragment in Self.checkedFragments(expected) {
                #expect(reply.contains(fragment), "\(request)\n  reply \(reply.prefix(400))\n  lacks \(fragment)")
            }
        }
        await raw.close()
        try await live.stop()
    }

    /// `"key":value` pairs of the documented reply whose value is a plain string, number, bool
    /// or null, and not elided.
    static func checkedFragments(_ line: String) -> [String] {
        var out: [String] = []
        let pattern = try! NSRegularExpression(pattern: #""([a-z_]+)":("(?:[^"\\…]|\\.)*"|-?[0-9.]+|true|false|null)(?=[,}])"#)
        let ns = line as NSString
        for m in pattern.matches(in: line, range: NSRange(location: 0, length: ns.length)) {
            let key = ns.substring(with: m.range(at: 1)), value = ns.substring(with: m.range(at: 2))
            // Locations and timings vary with the index build; the rest is the contract.
            if ["elapsed", "x", "y"].contains(key) { continue }
            out.append("\"\(key)\":\(value)")
        }
        return out
    }
}
