import LocusTesting

extension JSONReference {
    /// Fails the run when Locus's JSON parser and Foundation's disagree on `bytes` (beyond the
    /// deliberate differences `JSONReference` lists).
    public static func compare(_ bytes: [UInt8], input: UnsafeRawBufferPointer? = nil) {
        if let d = difference(bytes) {
            Fuzzer.fail("JSON parser and JSONSerialization disagree on \(String(decoding: bytes, as: UTF8.self).debugDescription): \(d)", input: input)
        }
    }
}
