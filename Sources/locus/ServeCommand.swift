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
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Serve protocol v1 (line-delimited JSON, see PROTOCOL.md) over TCP and Unix sockets.",
            discussion: """
            SIGTERM or SIGINT: stop accepting, answer what is in flight, exit 0.

            SIGHUP: reload the index file (rebuilt and renamed into place); a bad file is refused \
            and the current index keeps serving.

            With --http: the same index over HTTP, as an ArcGIS GeocodeServer and FeatureServer \
            (/arcgis/rest/services/Locus/…, also as World), Pelias (/v1/…) and Nominatim (/search, \
            /reverse), with /health, /ready and /metrics (Prometheus), and the map page at /. See \
            PROTOCOL.md.

            Example: locus serve --listen tcp://127.0.0.1:7878 --listen unix:/tmp/locus.sock --http 127.0.0.1:8080
            """
        )

        @Option(name: .long, help: ArgumentHelp("Listen here; repeatable: tcp://HOST:PORT or unix:/path. Default tcp://127.0.0.1:7878.", valueName: "url"))
        var listen: [String] = []
        @Option(help: ArgumentHelp("Event-loop threads (sockets, and the microsecond ops). Default: one per core.", valueName: "n")) var threads: Int?
        @Option(help: ArgumentHelp("Worker threads for geocode and suggest. Default: one per core.", valueName: "n")) var workerThreads: Int?
        @Option(help: ArgumentHelp("Nice value of the worker threads, below the event loops (0 … 19).", valueName: "nice")) var workerNice: Int = 10
        @Option(help: ArgumentHelp("Longest request line in bytes.", valueName: "bytes")) var maxLineBytes: Int = 65_536
        @Option(help: ArgumentHelp("Requests one connection may have outstanding before the server stops reading it.", valueName: "n")) var maxInFlight: Int = 128
        @Option(help: ArgumentHelp("Open connections before new ones are refused as overloaded.", valueName: "n")) var maxConnections: Int = 1_024
        @Option(help: ArgumentHelp("Seconds a request may wait to start (for its turn or a worker) before it is answered 'timeout'.", valueName: "seconds")) var requestTimeout: Double = 5
        @Option(help: ArgumentHelp("Seconds of silence (or of replies the client does not read) before a connection is closed.", valueName: "seconds")) var idleTimeout: Double = 300
        @Option(help: ArgumentHelp("Seconds connections have to be answered and closed once shutdown begins (SIGTERM); then they are closed.", valueName: "seconds")) var shutdownGrace: Double = 10
        @Option(help: ArgumentHelp("File of tokens, one per line; clients must 'auth' with one. Default: $LOCUS_TOKEN if set.", valueName: "path"))
        var tokenFile: String?
        @Flag(help: "Allow listening beyond loopback without a token.") var allowUnauthenticated = false
        @Option(help: ArgumentHelp("Serve HTTP here too: HOST:PORT (or unix:/path): Esri, Pelias and Nominatim endpoints, /health, /ready, /metrics, the map page at /.", valueName: "address"))
        var http: String?
        @Option(help: ArgumentHelp("Serve only /metrics, /health and /ready here: HOST:PORT (or unix:/path), for Prometheus when --http is off.", valueName: "address"))
        var metrics: String?
        @Option(help: ArgumentHelp("The locator's name in Esri paths: /arcgis/rest/services/NAME/GeocodeServer (also answered as World).", valueName: "name"))
        var serviceName: String = "Locus"
        @Option(help: ArgumentHelp("Let web pages from this origin call the HTTP endpoints (CORS), e.g. https://maps.example.org, or *. Default: none.", valueName: "origin"))
        var corsOrigin: String?
        @Option(help: ArgumentHelp("Log level: trace, debug, info, notice, warning, error.", valueName: "level")) var logLevel: String = "info"
        @Flag(help: "Use the index's address tables where they lie in the file rather than read them into memory: starts in the same time at any index size, and memory holds what queries touch. Replace the file only by renaming a new one over it (as `locus index build` does); overwritten in place, a mapped file can end the server.")
        var mapIndex = false
        @OptionGroup var page: HTTPPageOptions
        @OptionGroup var index: IndexOptions

        func validate() throws {
            for l in listen where ListenAddress(l) == nil {
                throw ValidationError("--listen must be tcp://HOST:PORT or unix:/path, got '\(l)'")
            }
            guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("--log-level must be trace, debug, info, notice, warning or error") }
            if let threads, threads < 1 { throw ValidationError("--threads must be at least 1") }
            if let workerThreads, workerThreads < 1 { throw ValidationError("--worker-threads must be at least 1") }
            for (name, value) in [("--http", http), ("--metrics", metrics)] {
                if let value, Self.httpAddress(value) == nil {
                    throw ValidationError("\(name) must be HOST:PORT (such as 127.0.0.1:8080) or unix:/path, got '\(value)'")
                }
            }
            if http != nil, metrics != nil, Self.httpAddress(http ?? "") == Self.httpAddress(metrics ?? "") {
                throw ValidationError("--http and --metrics name the same address; /metrics is on --http already")
            }
        }

        /// `127.0.0.1:8080`, `http://127.0.0.1:8080`, `[::1]:8080`, `tcp://…` or `unix:/path`.
        static func httpAddress(_ text: String) -> ListenAddress? {
            if text.hasPrefix("unix:") || text.hasPrefix("tcp://") { return ListenAddress(text) }
            var rest = Substring(text)
            if rest.hasPrefix("http://") { rest = rest.dropFirst("http://".count) }
            if rest.hasSuffix("/") { rest = rest.dropLast() }
            return ListenAddress("tcp://" + rest)
        }

        func httpConfigurations() throws -> [HTTPConfiguration] {
            var out: [HTTPConfiguration] = []
            for (value, endpoints) in [(http, HTTPConfiguration.Endpoints.all), (metrics, .operations)] {
                guard let value, let address = Self.httpAddress(value) else { continue }
                var c = HTTPConfiguration()
                c.listen = address
                c.endpoints = endpoints
                c.serviceName = serviceName
                c.corsOrigin = corsOrigin
                page.apply(to: &c)
                let problems = c.problems()
                guard problems.isEmpty else { throw ValidationError(problems.joined(separator: "; ")) }
                out.append(c)
            }
            return out
        }

        func configuration() throws -> ServerConfiguration {
            var c = ServerConfiguration()
            if !listen.isEmpty { c.listen = listen.compactMap(ListenAddress.init) }
            if let threads { c.threads = threads }
            if let workerThreads { c.workerThreads = workerThreads }
            c.workerNice = workerNice
            c.maximumLineBytes = maxLineBytes
            c.maximumInFlightPerConnection = maxInFlight
            c.maximumConnections = maxConnections
            c.requestTimeout = requestTimeout
            c.idleTimeout = idleTimeout
            c.shutdownGrace = shutdownGrace
            if let tokenFile {
                do { c.tokens = try AccessTokens.read(file: tokenFile) } catch {
                    throw ValidationError("cannot read the token file \(tokenFile)")
                }
                guard !c.tokens.isEmpty else { throw ValidationError("the token file \(tokenFile) holds no token") }
            } else if let token = ProcessInfo.processInfo.environment["LOCUS_TOKEN"], !token.isEmpty {
                c.tokens = [token]
            }
            c.allowUnauthenticatedRemote = allowUnauthenticated
            let problems = c.problems()
            guard problems.isEmpty else { throw ValidationError(problems.joined(separator: "; ")) }
            return c
        }

        func run() async throws {
            // SIGHUP's default action ends the process, and the server's handler is only
            // installed once it listens: a reload asked while the index loads (an operator's, a
            // log rotation's, during a restart) would kill it. Ignored until then: such a reload is
            // dropped, and the index being loaded is at most moments old.
            signal(SIGHUP, SIG_IGN)
            let config = try configuration()
            var logger = Logger(label: "locus")
            logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
            let clock = ContinuousClock()
            let start = clock.now
            let opened: LocusIndex
            do { opened = try index.open(.all, mapped: mapIndex) } catch let e as LocusError { throw fail(e, json: false) }
            let serving = ServingIndex(index: opened, loadSeconds: (clock.now - start).inSeconds, mapped: mapIndex)
            let loops = MultiThreadedEventLoopGroup(numberOfThreads: config.threads)
            let server = LocusServer(configuration: config, index: serving, logger: logger, group: loops)
            try page.check(opened)
            var services: [any Service] = [server]
            for c in try httpConfigurations() {
                // One set of metrics for the process: HTTP requests are counted beside the line
                // protocol's, and /metrics shows them all.
                let metrics = server.metrics
                let observer = HTTPObserver(
                    started: { metrics.requestStarted(protocol: $0) },
                    finished: { dialect, op, outcome, duration in
                        metrics.record(protocol: dialect, op: op, outcome: outcome, duration: duration)
                        metrics.requestFinished(protocol: dialect)
                    },
                    exposition: { metrics.exposition() },
                    connectionOpened: { metrics.connectionOpened(protocol: "http") },
                    connectionClosed: { metrics.connectionClosed(protocol: "http") })
                let http = HTTPService(configuration: c, server: config, index: serving, observer: observer, logger: logger, group: loops)
                let problems = http.problems()
                guard problems.isEmpty else { throw ValidationError(problems.joined(separator: "; ")) }
                services.append(http)
            }
            let group = ServiceGroup(configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
            do {
                try await group.run()
                try await loops.shutdownGracefully()
            } catch let e as LocusError {
                try? await loops.shutdownGracefully()
                throw fail(e, json: false)
            }
        }
    }
}
