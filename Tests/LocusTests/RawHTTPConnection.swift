import Foundation
import LocusCore
#if canImport(Glibc)
import Glibc
#endif

/// One TCP connection to a live server, written and read as bytes: what a test needs to see that
/// an HTTP client library would hide (an interim 100, the status of a refused head).
final class RawHTTPConnection {
    let fd: Int32

    /// - Parameter base: `http://127.0.0.1:PORT`.
    init(_ base: String) throws {
        guard let port = UInt16(base.split(separator: ":").last ?? "") else { throw LocusError(.invalidArgument, "no port in \(base)") }
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard fd >= 0, connected == 0 else { throw LocusError(.internalError, "cannot connect to \(base)") }
    }

    deinit { close(fd) }

    func send(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { return }
            bytes = bytes.dropFirst(n)
        }
    }

    /// What arrives within `seconds` of each read, until `until` is in it (or the server closes).
    func receive(until: String, seconds: Int32) -> String {
        var got: [UInt8] = []
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while !String(decoding: got, as: UTF8.self).contains(until), poll(&poller, 1, seconds * 1_000) == 1 {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            let n = recv(fd, &buffer, buffer.count, 0)
            guard n > 0 else { break }
            got += buffer.prefix(n)
        }
        return String(decoding: got, as: UTF8.self)
    }

    /// What arrives until the server closes the connection; nil when it is still open after
    /// `seconds` of silence.
    func receiveToTheEnd(seconds: Int32) -> String? {
        var got: [UInt8] = []
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while poll(&poller, 1, seconds * 1_000) == 1 {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            let n = recv(fd, &buffer, buffer.count, 0)
            guard n > 0 else { return String(decoding: got, as: UTF8.self) }
            got += buffer.prefix(n)
        }
        return nil
    }
}
