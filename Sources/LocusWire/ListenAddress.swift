/// Where the server listens: `tcp://HOST:PORT` or `unix:/path/to/socket`.
public enum ListenAddress: Sendable, Hashable, CustomStringConvertible {
    case tcp(host: String, port: Int)
    case unix(path: String)

    /// Parses `tcp://127.0.0.1:7878`, `tcp://[::1]:7878`, `unix:/run/locus.sock` (also `unix:///run/locus.sock`).
    public init?(_ text: String) {
        if text.hasPrefix("unix:") {
            var path = String(text.dropFirst("unix:".count))
            if path.hasPrefix("//") { path = String(path.dropFirst(2)) }
            guard !path.isEmpty, path.utf8.count < 104 else { return nil }  // sun_path holds 104–108 bytes
            self = .unix(path: path)
            return
        }
        guard text.hasPrefix("tcp://") else { return nil }
        let rest = text.dropFirst("tcp://".count)
        let host: Substring, portText: Substring
        if rest.hasPrefix("["), let close = rest.firstIndex(of: "]") {
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            guard after.hasPrefix(":") else { return nil }
            portText = after.dropFirst()
        } else {
            guard let colon = rest.lastIndex(of: ":") else { return nil }
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        }
        guard !host.isEmpty, let port = Int(portText), (0...65_535).contains(port) else { return nil }
        self = .tcp(host: String(host), port: port)
    }

    public var description: String {
        switch self {
        case .tcp(let host, let port): host.contains(":") ? "tcp://[\(host)]:\(port)" : "tcp://\(host):\(port)"
        case .unix(let path): "unix:\(path)"
        }
    }

    /// True for a Unix socket or a TCP address only this machine can reach.
    public var isLocalOnly: Bool {
        switch self {
        case .unix: true
        case .tcp(let host, _): host == "localhost" || host == "::1" || host.hasPrefix("127.")
        }
    }
}
