import ArgumentParser
import Foundation
import LocusCore
import LocusClient
import LocusProtocol
import LocusWire

/// `--server`: ask a running server instead of opening the index in this process.
struct ServerOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Ask a running Locus server instead of opening the index: tcp://HOST:PORT or unix:/path.", valueName: "url"))
    var server: String?

    @Option(help: ArgumentHelp("Token for a server that requires one. Default: $LOCUS_TOKEN.", valueName: "token"))
    var token: String?

    var address: ListenAddress? { server.flatMap(ListenAddress.init) }

    func validate() throws {
        if let server, ListenAddress(server) == nil {
            throw ValidationError("--server must be tcp://HOST:PORT or unix:/path, got '\(server)'")
        }
    }

    /// Sends the request the command would run in process, written by its operation's
    /// descriptor, and returns the result decoded, or throws the server's error.
    func ask<T: Decodable>(_ request: LocusRequest, as type: T.Type) async throws -> T {
        guard let address else { throw LocusError(.internalError, "no server given") }
        let client = try await LocusClient.connect(to: address, token: token ?? ProcessInfo.processInfo.environment["LOCUS_TOKEN"])
        defer { Task { await client.close() } }
        return try await client.send(op: request.op, request.wireArguments).decode(T.self)
    }
}

/// Protocol arguments for `locus bench server`'s hand-made request lines.
extension JSONValue {
    static func location(_ p: GeoPoint, wkid: Int) -> JSONValue {
        .object(["x": .number(p.x), "y": .number(p.y), "wkid": .number(Double(wkid))])
    }
}

/// Prints any error the way every command does and picks the exit status: the same text and
/// status whether the answer came from the index in process or from a server.
func fail(_ error: any Error, json: Bool) -> ExitCode {
    let code: String, message: String, status: Int32
    switch error {
    case let e as LocusError:
        return fail(e, json: json)
    case let e as WireError:
        code = e.code.rawValue
        message = e.message
        switch e.code {
        case .notFound: status = 3
        case .invalidArgument, .invalidJSON, .invalidRequest, .unknownOp, .tooLarge: status = 64
        case .unauthorized: status = 77
        case .timeout, .overloaded, .cancelled: status = 75
        default: status = 70
        }
    case let e as LocusClientError:
        (code, message, status) = ("unavailable", e.description, 69)
    default:
        (code, message, status) = ("internal", "unexpected reply from the server", 70)
    }
    if json {
        Output.json(["error": ["code": code, "message": message]])
    } else {
        FileHandle.standardError.write(Data("locus: \(message)\n".utf8))
    }
    return ExitCode(status)
}
