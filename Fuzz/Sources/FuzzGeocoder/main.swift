// Target (b): arbitrary text through the address parser, geocode (as text, as fields, as a
// key) and suggest, on the index scripts/fuzz names in LOCUS_FUZZ_INDEX (the Portland index, so
// that the time bound is measured on real data), else the fixture index. Checked: no trap; within
// the text limits every call within the per-request bound and beyond them refused as too_large
// before any work; answers that are well formed (counts, scores, finite locations); every
// suggestion's key geocodes.

import Foundation
import FuzzSupport
import LocusCore
import LocusEngine

Fuzzer.begin()

let index = FuzzIndexes.chosen()
let locator = Locator(index: index)
let bound = RequestBound()
guard let search = index.search else { Fuzzer.fail("the index has no address search") }
let portland = GeoPoint(x: -122.6296, y: 45.5676)

/// Text within QueryLimits must be answered; text beyond them must be refused as too large.
@MainActor func within(_ text: String) -> Bool { (try? QueryLimits.check(text: text, "text")) != nil }

@MainActor func checked(_ result: GeocodeResult, max: Int, _ what: String, input: UnsafeRawBufferPointer) {
    guard result.candidates.count <= max else { Fuzzer.fail("\(what): \(result.candidates.count) candidates, asked for \(max)", input: input) }
    for c in result.candidates {
        guard c.score.isFinite, (0...100).contains(c.score), c.location.x.isFinite, c.location.y.isFinite,
              abs(c.location.x) <= 180, abs(c.location.y) <= 90 else {
            Fuzzer.fail("\(what): a malformed candidate \(c)", input: input)
        }
    }
}

@MainActor func geocode(_ request: GeocodeRequest, inBounds: Bool, _ what: String, input: UnsafeRawBufferPointer) -> GeocodeResult? {
    var result: Result<GeocodeResult, LocusError>?
    let time = RequestBound.measure { result = Result { () throws(LocusError) in try locator.geocode(request) } }
    switch result! {
    case .success(let r):
        guard inBounds else { Fuzzer.fail("\(what): text beyond the limits was answered", input: input) }
        bound.check(what, first: time, input: input) { _ = try? locator.geocode(request) }
        checked(r, max: request.maxResults, what, input: input)
        return r
    case .failure(let e):
        if e.code == .tooLarge, !inBounds { return nil }
        // A key names a place or nothing; text and fields are answered, with candidates or none.
        if e.code == .notFound, case .key = request.input { return nil }
        Fuzzer.fail("\(what): \(e.code) \(e.message)", input: input)
    }
}

Fuzzer.run { input in
    let text = String(decoding: input, as: UTF8.self)
    let inBounds = within(text)

    // The parser alone, on any text (it must not trap whatever it is given).
    let parseTime = RequestBound.measure { _ = search.parser.parse(text) }
    if inBounds { bound.check("parse", first: parseTime, input: input) { _ = search.parser.parse(text) } }

    var g = GeocodeRequest(.text(text))
    g.explain = true
    _ = geocode(g, inBounds: inBounds, "geocode text", input: input)
    g.near = portland
    g.minScore = 0
    g.maxResults = 100
    _ = geocode(g, inBounds: inBounds, "geocode text near, every candidate", input: input)

    // The same bytes as fields: split at "|" into number, street, city, postcode.
    let parts = text.split(separator: "|", maxSplits: 3, omittingEmptySubsequences: false).map(String.init)
    let field = { (i: Int) in i < parts.count && !parts[i].isEmpty ? parts[i] : nil }
    let given = [field(0), field(1), field(2), field(3)]
    let fields = GeocodeRequest(.fields(number: given[0], street: given[1], city: given[2], postcode: given[3]))
    // The limits apply to the fields given, together.
    _ = geocode(fields, inBounds: within(given.compactMap { $0 }.joined(separator: " ")), "geocode fields", input: input)

    _ = geocode(GeocodeRequest(.key(text)), inBounds: text.utf8.count <= QueryLimits.maximumKeyBytes, "geocode key", input: input)

    var s = SuggestRequest(text: text)
    s.near = portland
    s.maxResults = 10
    var suggested: Result<SuggestResult, LocusError>?
    let time = RequestBound.measure { suggested = Result { () throws(LocusError) in try locator.suggest(s) } }
    switch suggested! {
    case .success(let r):
        guard inBounds else { Fuzzer.fail("suggest: text beyond the limits was answered", input: input) }
        bound.check("suggest", first: time, input: input) { _ = try? locator.suggest(s) }
        guard r.suggestions.count <= s.maxResults else { Fuzzer.fail("suggest: too many suggestions", input: input) }
        for suggestion in r.suggestions {
            // README: a suggestion's key geocodes to exactly what was suggested.
            guard let answer = geocode(GeocodeRequest(.key(suggestion.key)), inBounds: true, "geocode a suggested key", input: input),
                  !answer.candidates.isEmpty else {
                Fuzzer.fail("suggested key \(suggestion.key) (\(suggestion.text)) geocodes to nothing", input: input)
            }
        }
    case .failure(let e):
        guard e.code == .tooLarge, !inBounds else { Fuzzer.fail("suggest: \(e.code) \(e.message)", input: input) }
    }
}
