extension Array {
    /// The attackers' progress is read one connection after another, each on its own event loop.
    public func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var out: [T] = []
        out.reserveCapacity(count)
        for e in self { out.append(try await transform(e)) }
        return out
    }
}
