import Crypto
import Foundation

/// The shared secrets a client may present with `auth`.
///
/// Tokens are compared by their SHA-256 digests in constant time, so neither the time a
/// comparison takes nor its early exit tells an attacker how much of a guess was right, and a
/// guess of another length costs the same as one of the right length.
public struct AccessTokens: Sendable {
    private let digests: [[UInt8]]

    public init(_ tokens: [String]) {
        digests = tokens.map { Array(SHA256.hash(data: Data($0.utf8))) }
    }

    /// True when no token is configured: every connection is trusted.
    public var isOpen: Bool { digests.isEmpty }

    public func accepts(_ candidate: String) -> Bool {
        let d = Array(SHA256.hash(data: Data(candidate.utf8)))
        var matched = false
        // Every token is compared in full, even after a match.
        for token in digests {
            var difference: UInt8 = 0
            for i in 0..<token.count { difference |= token[i] ^ d[i] }
            matched = matched || difference == 0
        }
        return matched
    }

    /// Reads tokens from a file: one per line; blank lines and lines starting with `#` are skipped.
    public static func read(file path: String) throws -> [String] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return text.split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }
}
