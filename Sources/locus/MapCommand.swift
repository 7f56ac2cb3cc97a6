import ArgumentParser
import Foundation
import LocusCore
import LocusEngine
import LocusHTTP
import LocusServer
import LocusWire
import Logging
import NIOPosix
import ServiceLifecycle

extension Locus {
    /// `locus map`: the map page on this machine, for a look at what the index answers.
    struct Map: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Open the map page: serve the index over HTTP on this machine and open it in a browser.",
            usage: "locus map [--index <path>] [--http <address>] [<options>]",
            discussion: """
            The page draws the index's polygon layers and address points, suggests and geocodes \
            as you type, reverse geocodes where you click, and shows a CSV of enrich or assign \
            output on the map. It is served until Ctrl-C. `locus serve --http` serves the same \
            page at / beside the other endpoints.

            Example: locus map --index city.locus --http 127.0.0.1:8080
            """
        )

        @Option(help: ArgumentHelp("Address to serve on: a loopback HOST:PORT; port 0 takes a free one.", valueName: "address"))
        var http: String = "127.0.0.1:0"
        @Flag(help: "Print the page's address without opening a browser.") var noOpen = false
        @Option(help: ArgumentHelp("Log level: trace, debug, info, notice, warning, error.", valueName: "level")) var logLevel: String = "warning"
        @OptionGroup var page: HTTPPageOptions
        @OptionGroup var index: IndexOptions

        func validate() throws {
            guard let address = Serve.httpAddress(http), case .tcp = address, address.isLocalOnly else {
                throw ValidationError("--http must be a loopback HOST:PORT such as 127.0.0.1:8080 (for others, use locus serve --http with a token), got '\(http)'")
            }
            guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("--log-level must be trace, debug, info, notice, warning or error") }
        }

        func run() async throws {
            var logger = Logger(label: "locus")
            logger.logLevel = Logger.Level(rawValue: logLevel) ?? .warning
            let opened: LocusIndex
            // Read into memory, as `serve` does by default: a server outlives a rebuild of its file.
            do { opened = try index.open(.all, mapped: false) } catch let e as LocusError { throw fail(e, json: false) }
            try page.check(opened)
            var c = HTTPConfiguration()
            c.listen = Serve.httpAddress(http) ?? c.listen
            page.apply(to: &c)
            let loops = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            let open = !noOpen
            let service = HTTPService(configuration: c, server: SocketServerConfiguration(), index: ServingIndex(index: opened, loadSeconds: 0),
                                      logger: logger, group: loops) { bound in
                guard case .tcp(let host, let port) = bound else { return }
                let url = "http://\(host.contains(":") ? "[\(host)]" : host):\(port)/"
                Output.line("Locus map of \(opened.path): \(url)  (Ctrl-C to stop)")
                if open { Self.openInBrowser(url) }
            }
            if let problem = service.mapPageProblems.first { Output.note("locus: \(problem)") }
            let group = ServiceGroup(configuration: .init(services: [service], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
            do {
                try await group.run()
                try await loops.shutdownGracefully()
            } catch let e as LocusError {
                try? await loops.shutdownGracefully()
                throw fail(e, json: false)
            }
        }

        /// xdg-open where there is a desktop to open it on; otherwise the printed address is all.
        static func openInBrowser(_ url: String) {
            let environment = ProcessInfo.processInfo.environment
            guard environment["DISPLAY"] != nil || environment["WAYLAND_DISPLAY"] != nil,
                  let opener = ["/usr/bin/xdg-open", "/usr/local/bin/xdg-open"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else { return }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: opener)
            process.arguments = [url]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try? process.run()
        }
    }
}
