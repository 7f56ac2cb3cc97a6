import ArgumentParser
import Foundation
import LocusCore
import LocusEngine
import LocusProtocol

extension LocusBench {
    struct WorstCaseBench: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "worst-case",
            abstract: "Time the most expensive request lines that can be constructed, per op, on one core.",
            discussion: """
            Each case is a whole protocol request line answered as the server answers it (decode,
            engine, encode) with no sockets: long texts and many words at and just past the
            limits, misspellings that need every typo candidate, poles, the antimeridian, huge
            and infinite numbers, deep JSON. Every case is run --repeats times after a warm-up;
            the median and slowest runs are reported with the reply's outcome. With --check, exits 1
            when any case's median is over --budget-ms.
            """
        )
        @Option(help: "Timed runs of each case.") var repeats: Int = 20
        @Option(help: "The per-request bound, in milliseconds.") var budgetMs: Double = 10
        @Flag(help: "Exit 1 when any case's median is over --budget-ms.") var check = false
        @Flag(help: "Only the summary per op and the cases over budget.") var quiet = false
        @OptionGroup var index: IndexOptions

        func validate() throws {
            guard repeats > 0 else { throw ValidationError("--repeats must be positive") }
        }

        func run() throws {
            let idx = try index.open(.all)
            idx.search?.prepare()
            let handler = RequestHandler(index: idx)
            let clock = ContinuousClock()
            var worstByOp: [String: (ms: Double, label: String)] = [:]
            var over: [String] = []
            for c in Self.cases() {
                let line = c.line
                var reply = handler.reply(to: line)
                var times: [Double] = []
                for _ in 0..<repeats {
                    let start = clock.now
                    reply = handler.reply(to: line)
                    times.append((clock.now - start).inSeconds * 1000)
                }
                times.sort()
                let median = times[times.count / 2], ms = times[times.count - 1]
                let outcome = Self.outcome(reply)
                if median > worstByOp[c.op]?.ms ?? -1 { worstByOp[c.op] = (median, c.label) }
                let row = String(format: "%-8@ median %7.3f ms  max %7.3f ms  %-17@ %@ (%d bytes)", c.op, median, ms, outcome, c.label, line.count)
                // The median decides: on a shared machine any one run can be held up by another process.
                if median > budgetMs { over.append(row) }
                if !quiet || median > budgetMs { Output.line(row) }
            }
            Output.line("")
            for (op, w) in worstByOp.sorted(by: { $0.key < $1.key }) {
                Output.line(String(format: "slowest %-8@ median %7.3f ms  %@", op, w.ms, w.label))
            }
            if check, !over.isEmpty {
                Output.note("locus-bench: \(over.count) case(s) over \(budgetMs) ms")
                throw ExitCode(1)
            }
        }

        static func outcome(_ reply: [UInt8]) -> String {
            let text = String(decoding: reply, as: UTF8.self)
            if text.contains(#""ok":true"#) { return "ok" }
            if let r = text.range(of: #""code":""#) {
                let rest = text[r.upperBound...]
                return "error " + String(rest.prefix { $0 != "\"" })
            }
            return "?"
        }

        struct Case {
            var op: String
            var label: String
            var line: [UInt8]
            init(op: String, label: String, line: String) { self.init(op: op, label: label, bytes: Array(line.utf8)) }
            init(op: String, label: String, bytes: [UInt8]) { (self.op, self.label, self.line) = (op, label, bytes) }
        }

        /// A JSON string literal.
        static func q(_ s: String) -> String {
            // A string always encodes; the fallback is never taken.
            guard let data = try? JSONSerialization.data(withJSONObject: [s], options: [.fragmentsAllowed]) else { return "\"\"" }
            return String(String(decoding: data, as: UTF8.self).dropFirst().dropLast())
        }

        static func repeated(_ s: String, toBytes n: Int) -> String {
            var out = ""
            while out.utf8.count + s.utf8.count <= n { out += s }
            return out
        }

        /// The longest prefix of `text` within both limits, cut at a word where there is one.
        static func fit(_ text: String, bytes: Int, words: Int) -> String {
            var out = ""
            for c in text {
                guard out.utf8.count + String(c).utf8.count <= bytes else { break }
                out.append(c)
            }
            while AddressText.rawTokens(out).count > words, let space = out.lastIndex(of: " ") {
                out = String(out[..<space])
            }
            if out.count < text.count, let space = out.lastIndex(of: " "), text.contains(" ") {
                out = String(out[..<space])
            }
            return out
        }

        static func scrambled(words: Int) -> String {
            let letters = Array("abcdefghijklmnopqrstuvwxyz")
            var out: [String] = []
            for i in 0..<words {
                var w = ""
                for j in 0..<10 { w.append(letters[(i * 7 + j * 3) % 26]) }
                out.append(w)
            }
            return out.joined(separator: " ")
        }

        static func cases() -> [Case] {
            let limit = QueryLimits.maximumTextBytes, words = QueryLimits.maximumTextWords
            // Texts at the limits: what the limits are there to make cheap.
            var texts: [(String, String)] = [
                ("\"6132 ne 34th ave \" to the byte limit", repeated("6132 ne 34th ave ", toBytes: limit)),
                ("one word of \(limit) letters", String(repeating: "a", count: limit)),
                ("\(words) misspelt 9-letter words", Array(repeating: "killngswrth", count: words).joined(separator: " ")),
                ("\(words) words of 10 letters, none a street's", scrambled(words: words)),
                ("number and \(words - 1) misspelt street words", "6132 " + Array(repeating: "nrtheast", count: words - 1).joined(separator: " ")),
                ("intersection of two long misspelt names", repeated("killngsworht ", toBytes: limit / 2 - 2) + "& " + repeated("mlwaukie ", toBytes: limit / 2 - 2)),
                // Each street of a crossing typed without a direction is tried again with every
                // direction of the other's matches ("7th": N, NE, SE, SW…): a long unknown name's
                // typo search once per direction took 8.5 ms until it was kept for the query.
                ("intersection of a long unknown name and a street of many directions", "qillingsworthermontgomer & 7th"),
                ("\(words) ampersands", Array(repeating: "&", count: words).joined(separator: " ")),
                ("\(words) numbers", (1...words).map(String.init).joined(separator: " ")),
                ("\(limit / 2) two-byte letters (é)", String(repeating: "é", count: limit / 2)),
                ("combining accents on one letter", "a" + String(repeating: "\u{301}", count: limit / 2 - 1)),
                ("emoji", String(repeating: "🏠", count: limit / 4)),
                ("city, state and ZIP repeated", repeated("portland or 97211 ", toBytes: limit)),
                ("unit designators", repeated("apt 3 # 4 ", toBytes: limit)),
                ("\(words) directionals", Array(repeating: "northeast", count: words).joined(separator: " ")),
                // Nothing found, each of geocode's second readings is tried: the unit after the
                // street, the street to its type (a building's name after it), the address after
                // a building's own number.
                ("a building's number, a name after a misspelt street, a unit; no house",
                 "1 lincoln center plaza 99999 nrtheast killngswrth blvd steeple grove townhomes east 608 portland or 97211"),
                ("a mailing label's lines, no house", repeated("acme co\n1 lincoln ctr 99999 ne killngswrth blvd a\n", toBytes: limit)),
                ("one byte past the limit", String(repeating: "a", count: limit + 1)),
                ("60,000 bytes", String(repeating: "6132 ne 34th ave ", count: 3_500)),
            ]
            texts.append(("\(words + 1) words", Array(repeating: "a", count: words + 1).joined(separator: " ")))
            var out: [Case] = []
            for (label, raw) in texts {
                // Cut to the limits (unless the case is about passing them): the point is the
                // most work a request that is accepted can ask for.
                let beyond = label.contains("past") || label.contains("60,000") || label.contains("\(words + 1)")
                func fit(_ bytes: Int) -> String { beyond ? raw : Self.fit(raw, bytes: bytes, words: words) }
                out.append(Case(op: "geocode", label: "text: " + label, line: #"{"id":1,"op":"geocode","text":\#(q(fit(limit)))}"#))
                out.append(Case(op: "suggest", label: "text: " + label, line: #"{"id":1,"op":"suggest","text":\#(q(fit(limit))),"max_results":50}"#))
                out.append(Case(op: "suggest", label: "text + space: " + label, line: #"{"id":1,"op":"suggest","text":\#(q(fit(limit - 1) + " ")),"location":{"x":-122.63,"y":45.57}}"#))
                let street = beyond ? raw : Self.fit(raw, bytes: limit - "6132 portland ".utf8.count, words: words - 2)
                out.append(Case(op: "geocode", label: "street field: " + label, line: #"{"id":1,"op":"geocode","address":{"number":6132,"street":\#(q(street)),"city":"portland"}}"#))
            }
            out += [
                Case(op: "geocode", label: "number 1e19", line: #"{"id":1,"op":"geocode","address":{"number":1e19,"street":"x"}}"#),
                Case(op: "geocode", label: "number 1e400", line: #"{"id":1,"op":"geocode","address":{"number":1e400,"street":"x"}}"#),
                Case(op: "geocode", label: "postcode -1e300", line: #"{"id":1,"op":"geocode","address":{"street":"x","postcode":-1e300}}"#),
                Case(op: "geocode", label: "number of 20 digits as text", line: #"{"id":1,"op":"geocode","address":{"number":"99999999999999999999","street":"ne 34th ave"}}"#),
                Case(op: "geocode", label: "the most common number on a long street", line: #"{"id":1,"op":"geocode","text":"1 se 82nd ave","max_results":100,"min_score":0}"#),
                // A type misspelt on a name typed as initials, no direction: read both as a typo of
                // the street and with its last word as a town, each placing the number on a street
                // of a few points by every way the city's grid runs (the fuzzer's find, 11 ms in its
                // instrumented build).
                Case(op: "geocode", label: "misspelt type on initials, no direction, explained",
                     line: #"{"id":1,"op":"geocode","text":"3000 mlk jr blvt","explain":true}"#),
                // Two numbered streets' crossing, both misspelt, behind a word set aside and before
                // replacement characters: every namesake of each street in every town is paired (the
                // bounded fuzz's find, 10.7 ms in its instrumented build).
                Case(op: "geocode", label: "misspelt numbered streets' crossing behind a word, every candidate",
                     line: #"{"id":1,"op":"geocode","text":"$mlkse 32n ./>30t\#(String(repeating: #"\ufffd"#, count: 70))h","explain":true,"location":{"x":-122.6296,"y":45.5676},"min_score":0,"max_results":100}"#),
                Case(op: "geocode", label: "key of 20 digits", line: #"{"id":1,"op":"geocode","key":"a99999999999999999999"}"#),
                Case(op: "geocode", label: "interpolation key, huge numbers", line: #"{"id":1,"op":"geocode","key":"i1:99999999999999999:2"}"#),
                Case(op: "geocode", label: "intersection key of one street", line: #"{"id":1,"op":"geocode","key":"x0:0"}"#),
                Case(op: "geocode", label: "bias at the north pole", line: #"{"id":1,"op":"geocode","text":"6132 ne 34th ave","location":{"x":-122.6,"y":90}}"#),
                Case(op: "suggest", label: "number, bias at the north pole", line: #"{"id":1,"op":"suggest","text":"6132","location":{"x":-122.6,"y":90}}"#),
                Case(op: "suggest", label: "number, bias at the south pole", line: #"{"id":1,"op":"suggest","text":"6","location":{"x":0,"y":-90}}"#),
                Case(op: "suggest", label: "number, bias on the antimeridian", line: #"{"id":1,"op":"suggest","text":"6","location":{"x":180,"y":45.5}}"#),
                Case(op: "suggest", label: "number, bias in Portland, 50 results", line: #"{"id":1,"op":"suggest","text":"1","max_results":50,"location":{"x":-122.63,"y":45.57}}"#),
                Case(op: "suggest", label: "one letter, 50 results", line: #"{"id":1,"op":"suggest","text":"n","max_results":50}"#),
                // A number that is no point, placed on the numbered streets the prefix begins (the
                // bounded fuzz's find against the first, unbounded version).
                Case(op: "suggest", label: "number no point, numbered streets begun, 50 results", line: #"{"id":1,"op":"suggest","text":"97 1","max_results":50}"#),
                Case(op: "suggest", label: "number no point, far beyond every street's", line: #"{"id":1,"op":"suggest","text":"99998 n","max_results":50}"#),
                // A town's name misspelt and whole among initials, then a crossing begun: the
                // same first words were read for each way the rest splits (the bounded fuzz's find,
                // 11.9 ms in its instrumented build).
                Case(op: "suggest", label: "misspelt town among initials before a crossing begun",
                     line: #"{"id":1,"op":"suggest","text":"po|rtland\u0000 \u0000portland\u0000^\u0000\u0000\u0000ve\ufffd\ufffd$\ufffd+\ufffdrtland portland ve hr\ufffd\ufffd |rtland\u0000r\u0000north tp and \u0000\u001c3,6172","location":{"x":-122.6296,"y":45.5676},"max_results":10}"#),
                // A town's name on both sides of a crossing, the second misspelt and begun: every
                // street of the town is a first and a second street, so the pair test reaches its
                // bound (the bounded fuzz's find, "?/…portland,␀␀␀t&…?ortland/!…", 10.7–11.3 ms in
                // its instrumented build).
                Case(op: "suggest", label: "town's name on both sides of a crossing",
                     line: #"{"id":1,"op":"suggest","text":"?/\ufffdportland,\u0000\u0000\u0000t&\ufffd?ortland/!\ufffd","location":{"x":-122.6296,"y":45.5676},"max_results":10}"#),
                Case(op: "suggest", label: "one letter, extent of the world", line: #"{"id":1,"op":"suggest","text":"s","max_results":50,"extent":{"xmin":-180,"ymin":-90,"xmax":180,"ymax":90}}"#),
            ]
            let points: [(String, String)] = [
                ("north pole", #"{"x":-122.6,"y":90}"#),
                ("south pole", #"{"x":-122.6,"y":-90}"#),
                ("latitude -89.999", #"{"x":-122.6,"y":-89.999}"#),
                ("latitude 89.99", #"{"x":-122.6,"y":89.99}"#),
                ("antimeridian east", #"{"x":180,"y":45.5}"#),
                ("antimeridian west", #"{"x":-180,"y":45.5}"#),
                ("Web Mercator y 1e308", #"{"x":0,"y":1e308,"wkid":3857}"#),
                ("Web Mercator x 2e7", #"{"x":2e7,"y":5711325,"wkid":3857}"#),
                ("State Plane far away", #"{"x":-1e15,"y":1e15,"wkid":2913}"#),
                ("40 km outside the addresses", #"{"x":-123.3,"y":45.5}"#),
                ("Forest Park, no address near", #"{"x":-122.78,"y":45.57}"#),
                ("Portland", #"{"x":-122.6296,"y":45.5676}"#),
            ]
            for (label, p) in points {
                out.append(Case(op: "reverse", label: label, line: #"{"id":1,"op":"reverse","location":\#(p)}"#))
                out.append(Case(op: "reverse", label: label + ", 50 km, nearest", line: #"{"id":1,"op":"reverse","location":\#(p),"max_distance":50000,"method":"nearest"}"#))
                out.append(Case(op: "reverse", label: label + ", 50 km, frontage, layers", line: #"{"id":1,"op":"reverse","location":\#(p),"max_distance":50000,"layers":["neighborhoods"]}"#))
                out.append(Case(op: "within", label: label + ", nearest within 50 km", line: #"{"id":1,"op":"within","location":\#(p),"nearest_within":50000}"#))
                out.append(Case(op: "suggest", label: "\"6132 ne\" biased to " + label, line: #"{"id":1,"op":"suggest","text":"6132 ne","location":\#(p)}"#))
            }
            let layers = "[" + Array(repeating: #""neighborhoods""#, count: 16).joined(separator: ",") + "]"
            out += [
                Case(op: "reverse", label: "16 layers", line: #"{"id":1,"op":"reverse","location":{"x":-122.6296,"y":45.5676},"layers":\#(layers)}"#),
                Case(op: "decode", label: "JSON nested 33 deep", line: String(repeating: "[", count: 33) + String(repeating: "]", count: 33)),
                Case(op: "decode", label: "JSON nested 20,000 deep", line: String(repeating: "[", count: 20_000)),
                Case(op: "decode", label: "60,000 escapes in a string", line: #"{"id":"\#(String(repeating: #"\u00e9"#, count: 10_000))","op":"ping"}"#),
                Case(op: "decode", label: "8,000 keys", line: "{" + (0..<8_000).map { #""k\#($0)":1"# }.joined(separator: ",") + #","op":"ping"}"#),
                Case(op: "decode", label: "number of 60,000 digits", line: #"{"id":\#(String(repeating: "9", count: 60_000)),"op":"ping"}"#),
                Case(op: "decode", label: "invalid UTF-8", bytes: Array(#"{"op":"ping","x":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)),
            ]
            return out
        }
    }
}
