/// Local names a dataset's streets go by that no general rule derives ("the Bybee", "99E" for
/// McLoughlin Boulevard): `from,to` pairs, read from a synonyms file and stored in the index.
///
/// Both sides are canonical tokens, so "MLK" and "mlk" are one entry, and an entry may span words
/// ("tv hwy,tualatin valley hwy").
public struct StreetSynonyms: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var from: [String]
        public var to: [String]

        /// Both sides in canonical tokens (`AddressText.tokens`, then `streetTokens`).
        public init(from: [String], to: [String]) {
            self.from = from
            self.to = to
        }
    }

    public private(set) var entries: [Entry] = []
    /// Entries by their first token, longest first.
    private var byFirst: [String: [Int]] = [:]

    public init() {}

    /// Reads the file format: one `from,to` pair per line; `#` starts a comment; blank lines are
    /// skipped. Throws on a line that is not a pair, with its line number.
    public init(parsing text: String) throws(LocusError) {
        for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let content = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            guard !content.trimmingWhitespace().isEmpty else { continue }
            let fields = content.split(separator: ",", omittingEmptySubsequences: false)
            let from = fields.first.map { AddressText.streetTokens(AddressText.tokens($0)) } ?? []
            let to = fields.count == 2 ? AddressText.streetTokens(AddressText.tokens(fields[1])) : []
            guard fields.count == 2, !from.isEmpty, !to.isEmpty, from.count <= 8, to.count <= 12 else {
                throw LocusError(.invalidArgument, "synonyms line \(n + 1): expected \"from,to\", got \"\(line)\"")
            }
            add(Entry(from: from, to: to))
        }
    }

    public mutating func add(_ entry: Entry) {
        guard entry.from != entry.to, !entries.contains(entry), let first = entry.from.first else { return }
        entries.append(entry)
        byFirst[first, default: []].append(entries.count - 1)
        byFirst[first]?.sort { entries[$0].from.count > entries[$1].from.count }
    }

    /// These entries and then `other`'s: a user's file extends the dataset's.
    public func merging(_ other: StreetSynonyms) -> StreetSynonyms {
        var out = self
        for e in other.entries { out.add(e) }
        return out
    }

    public var isEmpty: Bool { entries.isEmpty }

    /// The file format again, for storing in an index.
    public var text: String {
        entries.map { "\($0.from.joined(separator: " ")),\($0.to.joined(separator: " "))" }.joined(separator: "\n")
    }

    /// Tokens with every entry's `from` replaced by its `to`, longest first, left to right; nil when
    /// nothing was replaced.
    public func apply(_ tokens: [String]) -> [String]? {
        guard !byFirst.isEmpty else { return nil }
        var out: [String] = []
        var changed = false
        var i = 0
        while i < tokens.count {
            if let candidates = byFirst[tokens[i]],
               let e = candidates.lazy.map({ entries[$0] }).first(where: { i + $0.from.count <= tokens.count && Array(tokens[i..<(i + $0.from.count)]) == $0.from }) {
                out.append(contentsOf: e.to)
                i += e.from.count
                changed = true
            } else {
                out.append(tokens[i])
                i += 1
            }
        }
        return changed ? out : nil
    }
}
