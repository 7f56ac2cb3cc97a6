import Foundation
import LocusCore
import Testing
@testable import LocusEngine

/// The words that begin with what is typed, found on the vocabulary's bytes (`StoredStrings.order`)
/// where String order and `hasPrefix` (by canonical equivalence) would be asked otherwise.
struct VocabularyPrefixTests {
    /// A combining mark joins the letter before it: "ac" + U+0327 is "aç", which sorts after "ad"
    /// and does not begin with "ac", though its bytes say both. Bytes that cannot tell answer nil.
    @Test func bytesThatCannotTellAreLeftToStrings() {
        let words = ["ab", "ac\u{327}", "ac\u{327}x", "acz", "ad", "cafe", "cafe\u{301}", "caff", "café", "e\u{301}", "zz"].sorted()
        let table = StoredStrings(words)
        var undecided = 0
        for prefix in ["", "a", "ab", "ac", "acz", "ad", "b", "caf", "cafe", "cafes", "e", "zzz"] {
            var typed = prefix
            let told = typed.withUTF8 { raw in words.indices.map { table.order($0, againstASCII: UnsafeRawBufferPointer(raw)) } }
            for (word, order) in zip(words, told) {
                let expected: StoredStrings.PrefixOrder = word.hasPrefix(prefix) ? .begins : word < prefix ? .below : .above
                #expect(order == nil || order == expected, "\(word.unicodeScalars.map(\.value)) against \(prefix): \(String(describing: order))")
                if order == nil { undecided += 1 }
            }
        }
        // The bytes of "aç" against "ac" and "ad", of "é" against "e", … are not trusted.
        #expect(undecided >= 6)
    }

    /// Every word's beginnings on Portland's vocabulary: the words found are those a walk over all
    /// of them finds.
    @Test func theWordsFoundAreThoseThatBeginSo() throws {
        let search = try #require(try TestSupport.portland().search)
        let vocabulary = search.vocabulary
        var random = SeededGenerator(seed: 5)
        var prefixes: Set<String> = ["", "a", "z", "9", "zzzz", "0"]
        for _ in 0..<150 {
            let word = vocabulary[Int.random(in: 0..<vocabulary.count, using: &random)]
            for n in [1, 2, 3, word.count - 1, word.count] where n > 0 && n <= word.count { prefixes.insert(String(word.prefix(n))) }
            prefixes.insert(word + "z")
        }
        let all = (0..<vocabulary.count).map { vocabulary[$0] }
        for prefix in prefixes {
            let walked = all.indices.filter { all[$0].hasPrefix(prefix) }
            let found = search.wordsWithPrefix(prefix)
            #expect(Array(found) == walked, "\(prefix)")
        }
        #expect(prefixes.count > 400)
    }
}
