import Foundation
import LocusCore
import LocusProtocol
import LocusTesting
import LocusWire
import Testing

/// The request parser against Foundation's `JSONSerialization` on generated documents, valid and
/// not: both accept exactly the same ones and read the same values, but for the deliberate
/// differences `JSONReference` lists, each pinned below.
@Suite struct JSONReferenceTests {
    /// Documents from a seeded generator: the same ones on every run.
    @Test(.timeLimit(.minutes(1)))
    func parserAgreesWithJSONSerializationOnGeneratedDocuments() throws {
        var generator = JSONDocumentGenerator(seed: 0x10CA5)
        var accepted = 0, refused = 0
        for n in 0..<20_000 {
            let document = n % 2 == 0 ? generator.valid() : generator.invalid()
            if let difference = JSONReference.difference(document) {
                Issue.record("document \(n) \(String(decoding: document, as: UTF8.self).debugDescription): \(difference)")
                return
            }
            if (try? JSONValue(parsing: document)) != nil { accepted += 1 } else { refused += 1 }
        }
        // Both kinds in numbers: a parser that took everything, or nothing, would disagree.
        #expect(accepted > 9_000)
        #expect(refused > 5_000)
    }

    @Test func generatedValidDocumentsReadBackAsGenerated() throws {
        var generator = JSONDocumentGenerator(seed: 7)
        for _ in 0..<2_000 {
            let (value, document) = generator.document()
            let parsed = try JSONValue(parsing: document)
            #expect(parsed == value, "\(String(decoding: document, as: UTF8.self))")
        }
    }

    // The deliberate differences.

    @Test func nestingDeeperThan32LevelsIsRefusedThoughFoundationReadsIt() throws {
        let deepest = Array((String(repeating: "[", count: 32) + String(repeating: "]", count: 32)).utf8)
        let deeper = Array((String(repeating: "[", count: 33) + String(repeating: "]", count: 33)).utf8)
        #expect((try? JSONValue(parsing: deepest)) != nil)
        #expect((try? JSONValue(parsing: deeper)) == nil)
        #expect((try? JSONSerialization.jsonObject(with: Data(deeper))) != nil)
        #expect(JSONReference.difference(deeper) == nil)
    }

    @Test(arguments: ["[1,]", #"{"a":1,}"#, "[1 ,\n]", #"{"a":[true,],}"#])
    func aTrailingCommaIsRefusedThoughFoundationReadsIt(_ text: String) throws {
        #expect((try? JSONValue(parsing: Array(text.utf8))) == nil)
        #expect((try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])) != nil)
        #expect(JSONReference.difference(Array(text.utf8)) == nil)
        // The reference does not excuse anything else Foundation reads that Locus does not.
        #expect(JSONReference.withoutTrailingCommas(Array(#"["a,]",]"#.utf8)) == Array(#"["a,]"]"#.utf8))
    }

    @Test(arguments: ["1e400", "-1e400", "[1.7976931348623159e308]"])
    func aNumberBeyondDoubleReadsAsInfinityThoughFoundationRefusesIt(_ text: String) throws {
        let value = try JSONValue(parsing: Array(text.utf8))
        #expect(value.hasInfiniteNumber)
        #expect((try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])) == nil)
    }

    @Test func aByteOrderMarkOrUTF16IsRefusedThoughFoundationReadsIt() throws {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("{}".utf8)
        let utf16: [UInt8] = [0x7B, 0x00, 0x7D, 0x00]
        for document in [bom, utf16] {
            #expect((try? JSONValue(parsing: document)) == nil)
            #expect((try? JSONSerialization.jsonObject(with: Data(document))) != nil)
        }
    }

    @Test func aByteOrderMarkCharacterInAStringIsKeptThoughFoundationDropsIt() throws {
        // U+FEFF raw at the start of a string, and after an escape: found by the comparison above.
        for (text, kept) in [("\"\u{FEFF}a\"", "\u{FEFF}a"), (#""\u002A\#u{FEFF}b""#, "*\u{FEFF}b")] {
            #expect(try JSONValue(parsing: Array(text.utf8)) == .string(kept))
            let foundation = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) as? String)
            #expect(!foundation.unicodeScalars.contains("\u{FEFF}"))
            #expect(JSONReference.difference(Array(text.utf8)) == nil)
        }
    }

    @Test func invalidUTF8IsRefusedByBoth() throws {
        for document: [UInt8] in [[0x22, 0xFF, 0x22], [0x22, 0xC3, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22]] {
            #expect((try? JSONValue(parsing: document)) == nil)
            #expect(JSONReference.difference(document) == nil)
        }
    }
}

/// JSON documents from a seeded generator: valid ones, written with every form the grammar allows
/// (whitespace, escapes, number syntax, raw UTF-8), and invalid ones, made from valid ones by the
/// mistakes a hostile or broken client makes.
struct JSONDocumentGenerator {
    var rng: SeededGenerator

    init(seed: UInt64) { rng = SeededGenerator(seed: seed) }

    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &rng) < p }
    mutating func pick<T>(_ items: [T]) -> T { items[Int.random(in: 0..<items.count, using: &rng)] }

    mutating func valid() -> [UInt8] { document().bytes }

    /// A value and a text of it.
    mutating func document() -> (value: JSONValue, bytes: [UInt8]) {
        var out: [UInt8] = []
        whitespace(&out)
        let v = chance(0.02) ? chain(levels: Int.random(in: 30...32, using: &rng), &out) : value(depth: 0, maximumDepth: Int.random(in: 0...5, using: &rng), &out)
        whitespace(&out)
        return (v, out)
    }

    /// Arrays and objects nested `levels` deep around a scalar: the depth limit itself must hold.
    mutating func chain(levels: Int, _ out: inout [UInt8]) -> JSONValue {
        guard levels > 0 else { return value(depth: 0, maximumDepth: 0, &out) }
        if chance(0.5) {
            out.append(UInt8(ascii: "["))
            let inner = chain(levels: levels - 1, &out)
            out.append(UInt8(ascii: "]"))
            return .array([inner])
        }
        out += Array(#"{"k":"#.utf8)
        let inner = chain(levels: levels - 1, &out)
        out.append(UInt8(ascii: "}"))
        return .object(["k": inner])
    }

    mutating func whitespace(_ out: inout [UInt8]) {
        guard chance(0.3) else { return }
        for _ in 0..<Int.random(in: 1...3, using: &rng) { out.append(pick([0x20, 0x09, 0x0A, 0x0D])) }
    }

    mutating func value(depth: Int, maximumDepth: Int, _ out: inout [UInt8]) -> JSONValue {
        let containers = depth < maximumDepth
        switch Int.random(in: 0..<(containers ? 8 : 6), using: &rng) {
        case 0:
            out += Array("null".utf8)
            return .null
        case 1:
            let b = chance(0.5)
            out += Array((b ? "true" : "false").utf8)
            return .bool(b)
        case 2, 3:
            return .number(number(&out))
        case 4, 5:
            return .string(string(&out))
        case 6:
            out.append(UInt8(ascii: "["))
            whitespace(&out)
            var items: [JSONValue] = []
            for i in 0..<Int.random(in: 0...4, using: &rng) {
                if i > 0 { out.append(UInt8(ascii: ",")); whitespace(&out) }
                items.append(value(depth: depth + 1, maximumDepth: maximumDepth, &out))
                whitespace(&out)
            }
            out.append(UInt8(ascii: "]"))
            return .array(items)
        default:
            out.append(UInt8(ascii: "{"))
            whitespace(&out)
            var members: [String: JSONValue] = [:]
            for i in 0..<Int.random(in: 0...4, using: &rng) {
                if i > 0 { out.append(UInt8(ascii: ",")); whitespace(&out) }
                // Keys from a small set, so that some repeat: the last one counts, in both.
                let key = chance(0.3) ? pick(["id", "op", "x", "", "é"]) : string(&out, writing: false)
                writeString(key, &out)
                whitespace(&out)
                out.append(UInt8(ascii: ":"))
                whitespace(&out)
                members[key] = value(depth: depth + 1, maximumDepth: maximumDepth, &out)
                whitespace(&out)
            }
            out.append(UInt8(ascii: "}"))
            return .object(members)
        }
    }

    /// A number in one of the grammar's forms, and the value it denotes (read with strtod, which
    /// rounds correctly, as the reference does).
    mutating func number(_ out: inout [UInt8]) -> Double {
        var text = chance(0.3) ? "-" : ""
        switch Int.random(in: 0..<6, using: &rng) {
        case 0: text += "0"
        case 1: text += String(Int.random(in: 1...999_999, using: &rng))
        case 2: text += String(UInt64.random(in: 1...UInt64.max, using: &rng)) + (chance(0.5) ? String(Int.random(in: 0...99_999, using: &rng)) : "")
        default:
            text += chance(0.3) ? "0" : String(Int.random(in: 1...99_999, using: &rng))
            if chance(0.7) { text += "." + String(Int.random(in: 0...999_999_999, using: &rng)) }
            if chance(0.6) {
                text += pick(["e", "E"]) + pick(["", "+", "-"]) + String(pick([Int.random(in: 0...20, using: &rng), Int.random(in: 0...330, using: &rng)]))
            }
        }
        out += Array(text.utf8)
        let value = strtod(text, nil)
        // Beyond Double's range the reference refuses the whole document: keep to what both read.
        guard value.isFinite else {
            out.removeLast(text.utf8.count)
            out += Array("1.5e300".utf8)
            return 1.5e300
        }
        return value
    }

    /// A string of characters of every kind; written raw or escaped at random.
    mutating func string(_ out: inout [UInt8], writing: Bool = true) -> String {
        var scalars: [Unicode.Scalar] = []
        for _ in 0..<Int.random(in: 0...8, using: &rng) {
            let s: Unicode.Scalar
            switch Int.random(in: 0..<6, using: &rng) {
            case 0, 1: s = Unicode.Scalar(UInt8.random(in: 0x20...0x7E, using: &rng))
            case 2: s = Unicode.Scalar(UInt8.random(in: 0x00...0x1F, using: &rng))
            case 3: s = pick(["\"", "\\", "/", "\u{7F}", "\u{2028}", "\u{FEFF}", "\u{FFFD}"])
            case 4: s = Unicode.Scalar(UInt32.random(in: 0xA0...0xD7FF, using: &rng)) ?? "é"
            default: s = Unicode.Scalar(UInt32.random(in: 0x10000...0x10FFFF, using: &rng)) ?? "😀"
            }
            scalars.append(s)
        }
        var text = ""
        text.unicodeScalars.append(contentsOf: scalars)
        if writing { writeString(text, &out) }
        return text
    }

    mutating func writeString(_ text: String, _ out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for s in text.unicodeScalars {
            let mustEscape = s.value < 0x20 || s == "\"" || s == "\\"
            guard mustEscape || chance(0.15) else { out += Array(String(s).utf8); continue }
            switch s {
            case "\"": out += Array(#"\""#.utf8)
            case "\\": out += Array(#"\\"#.utf8)
            case "/" where chance(0.5): out += Array(#"\/"#.utf8)
            case "\n" where chance(0.5): out += Array(#"\n"#.utf8)
            case "\t" where chance(0.5): out += Array(#"\t"#.utf8)
            case "\u{08}" where chance(0.5): out += Array(#"\b"#.utf8)
            case "\u{0C}" where chance(0.5): out += Array(#"\f"#.utf8)
            case "\r" where chance(0.5): out += Array(#"\r"#.utf8)
            default:
                for unit in String(s).utf16 {
                    let hex = String(unit, radix: 16, uppercase: chance(0.5))
                    out += Array(("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8)
                }
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// A valid document with one mistake, or a token no JSON has.
    mutating func invalid() -> [UInt8] {
        if chance(0.15) {
            return Array(pick([
                "01", "-01", "1.", ".5", "+1", "-", "1e", "1e+", "0x10", "NaN", "Infinity", "-Infinity", "tru", "nul", "True",
                "'a'", "{a:1}", "{\"a\" 1}", "{\"a\":}", "[1 2]", "[,1]", "[1,,2]", "{,}", "\"\\x\"", "\"\\u12\"", "\"\\ud800\"",
                "\"\\udc00\"", "\"\\ud800\\u0041\"", "\"a", "\u{00A0}1", "1 2", "[]]", "{}}", "", " ", "\"\t\"", "[-]", "1.e5", "-.5",
            ]).utf8)
        }
        var bytes = valid()
        let mutations: [UInt8] = Array(",:[]{}\"\\0-.eE+ tnfu/".utf8) + [0x01, 0x7F, 0xC3, 0xFF, 0x80, 0xE2]
        for _ in 0..<Int.random(in: 1...2, using: &rng) {
            let at = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &rng)
            switch Int.random(in: 0..<5, using: &rng) {
            case 0 where !bytes.isEmpty: bytes.remove(at: at)
            case 1: bytes.insert(pick(mutations), at: at)
            case 2 where !bytes.isEmpty: bytes[at] = pick(mutations)
            case 3 where !bytes.isEmpty: bytes.removeSubrange(at...)
            default: bytes += bytes.isEmpty ? [UInt8(ascii: "}")] : Array(bytes[at...].prefix(3))
            }
        }
        return bytes
    }
}
