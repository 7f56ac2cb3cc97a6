import Foundation
import LocusCore
import Testing

/// PROTOCOL.md's HTTP section: every `GET`/`POST` example is sent through the routes, and the
/// status and every plain value of the documented body must be in the real answer.
@Suite struct HTTPDocumentTests {
    struct Example {
        var method: String
        var target: String
        var form: String?
        var status: Int
        var body: String
    }

    static func examples() throws -> [Example] {
        let text = try String(contentsOf: TestSupport.packageRoot.appendingPathComponent("PROTOCOL.md"), encoding: .utf8)
        let http = try #require(text.components(separatedBy: "\n# HTTP endpoints\n").last)
        let lines = http.split(separator: "\n").map(String.init)
        var out: [Example] = []
        for (i, line) in lines.enumerated() where (line.hasPrefix("GET /") || line.hasPrefix("POST /")) && i + 1 < lines.count {
            let answer = lines[i + 1]
            guard answer.hasPrefix("⇐ "), let status = Int(answer.dropFirst(2).prefix(3)) else { continue }
            let parts = line.split(separator: " ", maxSplits: 2).map(String.init)
            out.append(Example(method: parts[0], target: parts[1], form: parts.count > 2 ? parts[2] : nil, status: status,
                               body: String(answer.dropFirst(6))))
        }
        return out
    }

    /// `"key":value` pairs of plain values in a documented body; coordinates vary with the build.
    static func fragments(_ body: String) -> [String] {
        let pattern = try? NSRegularExpression(pattern: #""([A-Za-z_][A-Za-z0-9_.\-]*)":("(?:[^"\\…]|\\.)*"|-?[0-9.]+|true|false|null)(?=[,}\]])"#)
        let ns = body as NSString
        var out: [String] = []
        for m in pattern?.matches(in: body, range: NSRange(location: 0, length: ns.length)) ?? [] {
            let key = ns.substring(with: m.range(at: 1)), value = ns.substring(with: m.range(at: 2))
            if ["x", "y", "lat", "lon", "timestamp", "index", "xmin", "ymin", "xmax", "ymax", "distance"].contains(key) { continue }
            out.append("\"\(key)\":\(value)")
        }
        return out
    }

    @Test func everyExampleAnswersAsDocumented() async throws {
        let client = try HTTPTestClient()
        let examples = try Self.examples()
        #expect(examples.count >= 22)
        for e in examples {
            let reply = e.method == "POST" ? try await client.post(e.target, form: e.form ?? "") : try await client.get(e.target)
            #expect(Int(reply.status.code) == e.status, "\(e.target)")
            for fragment in Self.fragments(e.body) {
                #expect(reply.text.contains(fragment), "\(e.method) \(e.target)\n  answer \(reply.text.prefix(400))\n  lacks \(fragment)")
            }
        }
    }
}
