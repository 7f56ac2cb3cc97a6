import ArgumentParser
import Foundation
import LocusClient
import LocusCore
import LocusProtocol
import LocusWire

extension Locus {
    struct Ping: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check that a Locus server answers: exit 0 when it does, 69 when it does not.",
            usage: "locus ping --server <url> [<options>]",
            discussion: "For scripts, load balancers and container health checks. Example: locus ping --server tcp://127.0.0.1:7878"
        )

        @OptionGroup var server: ServerOptions
        @Option(help: ArgumentHelp("Seconds to wait for the answer.", valueName: "seconds"))
        var timeout: Double = 5
        @Flag(help: "Print one JSON object.")
        var json = false

        func validate() throws {
            guard server.server != nil else { throw ValidationError("give the server to check: --server tcp://HOST:PORT or unix:/path") }
            guard timeout > 0, timeout <= 600 else { throw ValidationError("--timeout must be more than 0 and at most 600 seconds") }
        }

        func run() async throws {
            let clock = ContinuousClock()
            let start = clock.now
            do {
                let seconds = timeout
                try await withThrowingTaskGroup(of: Void.self) { group in
                    // One attempt: a health check reports this moment, and a load balancer or an
                    // orchestrator does the retrying.
                    group.addTask { _ = try await server.ask(LocusRequest(.ping, ()), as: Pong.self, retry: .none) }
                    group.addTask {
                        try await Task.sleep(for: .seconds(seconds))
                        throw LocusClientError(description: "no answer from \(server.server ?? "the server") within \(seconds.formatted()) s")
                    }
                    defer { group.cancelAll() }
                    try await group.next()
                }
            } catch {
                throw fail(error, json: json)
            }
            let elapsed = (clock.now - start) / .milliseconds(1)
            if json { return Output.json(["server": .string(server.server ?? ""), "ok": .bool(true), "ms": .number(elapsed.rounded(toPlaces: 3))] as [String: JSONValue]) }
            Output.line(String(format: "%@ answers (%.1f ms)", server.server ?? "", elapsed))
        }
    }
}

private extension Double {
    func rounded(toPlaces places: Int) -> Double {
        let scale = pow(10, Double(places))
        return (self * scale).rounded() / scale
    }
}
