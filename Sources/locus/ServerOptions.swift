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

    @Option(help: ArgumentHelp("Token for a server that requires one (visible in the process list: prefer --token-file or $LOCUS_TOKEN).", valueName: "token"))
    var token: String?

    @Option(help: ArgumentHelp("File whose first line is the token. Default: $LOCUS_TOKEN.", valueName: "path"))
    var tokenFile: String?

    var address: ListenAddress? { server.flatMap(ListenAddress.init) }

    func validate() throws {
        if let server, ListenAddress(server) == nil {
            throw ValidationError("--server must be tcp://HOST:PORT or unix:/path, got '\(server)'")
        }
        if token != nil, tokenFile != nil { throw ValidationError("give --token or --token-file, not both") }
    }

    /// The token to authenticate with: --token, the first line of --token-file, or $LOCUS_TOKEN.
    func resolvedToken() throws -> String? {
        if let token { return token }
        if let tokenFile {
            try CommandError.requireInput(tokenFile, "the token file")
            // The first 4 KiB and no more: a token is a line, and the path may name a huge file
            // or a device that never ends.
            let head = FileHandle(forReadingAtPath: tokenFile).flatMap { handle in
                defer { try? handle.close() }
                return try? handle.read(upToCount: 4_096)
            } ?? Data()
            let text = String(decoding: head, as: UTF8.self)
            guard let line = text.split(whereSeparator: \.isNewline).first?.trimmingWhitespace(), !line.isEmpty,
                  !line.contains("\u{0}") else {
                throw CommandError(status: .usage, code: "invalid_argument", message: "\(tokenFile) holds no token on its first line")
            }
            return line
        }
        return ProcessInfo.processInfo.environment["LOCUS_TOKEN"]
    }

    /// Sends the request the command would run in process, written by its operation's
    /// descriptor, and returns the result decoded, or throws the server's error. A server that
    /// is restarting, or a replica lost behind a load balancer, is tried again (`RetryPolicy`).
    func ask<T: Decodable>(_ request: LocusRequest, as type: T.Type, retry: RetryPolicy = RetryPolicy()) async throws -> T {
        guard let address else { throw LocusError(.internalError, "no server given") }
        let client = try await LocusClient.connect(to: address, token: try resolvedToken(), retry: retry)
        defer { Task { await client.close() } }
        return try await client.send(op: request.op, request.wireArguments, idempotent: request.isIdempotent).decode(T.self)
    }
}
