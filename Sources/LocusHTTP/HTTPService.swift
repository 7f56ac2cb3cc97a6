import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import LocusCore
import LocusEngine
import LocusProtocol
import LocusServer
import LocusWire
import Logging
import NIOConcurrencyHelpers
import NIOCore
import ServiceLifecycle

/// Locus over HTTP, as a `Service` beside the socket server in the same `ServiceGroup`: the same
/// process, index, reloads and tokens. Esri's GeocodeServer and FeatureServer, Pelias and
/// Nominatim are thin adapters over the protocol's operations (`HTTPEngine`); `/health`,
/// `/ready` and `/metrics` are for load balancers, containers and Prometheus; `/` is the map
/// page, drawn from `/locus/…` (Locus's own JSON) and the FeatureServer.
///
/// Graceful shutdown (the group's): `/ready` answers 503 at once, so that a load balancer stops
/// sending; requests in flight finish; the listener closes.
public final class HTTPService: Service, Sendable {
    public let configuration: HTTPConfiguration
    private let server: SocketServerConfiguration
    private let engine: HTTPEngine
    private let tokens: AccessTokens
    private let observer: HTTPObserver
    private let logger: Logger
    private let group: any EventLoopGroup
    private let onRunning: @Sendable (ListenAddress) async -> Void
    private let shuttingDown = NIOLockedValueBox(false)
    /// The map page's files and Leaflet's, read once (empty for the operations-only listener).
    let mapAssets: MapAssets?

    /// - Parameters:
    ///   - server: the socket server's configuration, for its tokens, its beyond-loopback rule
    ///     and its connection limit.
    ///   - observer: where answered requests are counted and `/metrics` gets its text.
    ///   - onRunning: called once listening, with the address as bound (a port 0 replaced).
    public init(configuration: HTTPConfiguration, server: SocketServerConfiguration, index: ServingIndex,
                observer: HTTPObserver = HTTPObserver(), logger: Logger, group: any EventLoopGroup,
                onRunning: @escaping @Sendable (ListenAddress) async -> Void = { _ in }) {
        self.configuration = configuration
        self.server = server
        engine = HTTPEngine(index: index, neighbourhoodLayer: configuration.neighbourhoodLayer)
        tokens = AccessTokens(server.tokens)
        self.observer = observer
        self.logger = logger
        self.group = group
        self.onRunning = onRunning
        mapAssets = configuration.endpoints == .all ? MapAssets(configuration: configuration) : nil
    }

    /// The configuration's problems together with the socket server's rule: an address beyond
    /// loopback needs tokens (or the explicit `allowUnauthenticatedRemote`).
    public func problems() -> [String] {
        var out = configuration.problems()
        if server.tokens.isEmpty, !server.allowUnauthenticatedRemote, !configuration.listen.isLocalOnly {
            out.append("http \(configuration.listen) is reachable beyond this machine: give a token (--token-file or LOCUS_TOKEN), or say --allow-unauthenticated")
        }
        return out
    }

    public func run() async throws {
        let problems = problems()
        guard problems.isEmpty else { throw LocusError(.invalidArgument, problems.joined(separator: "; ")) }
        let address: BindAddress
        switch configuration.listen {
        case .tcp(let host, let port): address = .hostname(host, port: port)
        case .unix(let path): address = .unixDomainSocket(path: path)
        }
        let listen = configuration.listen
        let onRunning = onRunning
        let logger = logger
        // The socket server's idle timeout: without one, a client that connects and never sends
        // (or never reads) holds its connection for ever, and `maximumConnections` of them shut
        // everyone else out.
        let idle = TimeAmount.milliseconds(Int64(server.idleTimeout * 1_000))
        let head = TimeAmount.milliseconds(Int64(configuration.headTimeout * 1_000))
        let observer = observer
        let app = Application(
            router: makeRouter(),
            server: .http1(configuration: HTTP1Channel.Configuration(
                additionalChannelHandlers: [HTTP1VersionRules.Installer(), HTTPConnectionWatch(headTimeout: head, observer: observer)],
                idleTimeout: idle)),
            configuration: ApplicationConfiguration(
                address: address, serverName: "Locus/\(LocusVersion.current)",
                availableConnectionsDelegate: MaximumAvailableConnections(server.maximumConnections)),
            onServerRunning: { channel in
                var bound = listen
                if case .tcp(let host, _) = listen, let port = channel.localAddress?.port { bound = .tcp(host: host, port: port) }
                logger.info("listening for HTTP", metadata: ["address": "\(bound)"])
                if case let problems = self.mapPageProblems, !problems.isEmpty {
                    logger.warning("the map page at / is not available", metadata: ["why": "\(problems.joined(separator: "; "))"])
                }
                await onRunning(bound)
            },
            eventLoopGroupProvider: .shared(group),
            logger: logger
        )
        try await withGracefulShutdownHandler {
            do {
                try await app.run()
            } catch {
                throw LocusError(.invalidArgument, "cannot serve HTTP on \(listen): \(error)")
            }
        } onGracefulShutdown: {
            self.shuttingDown.withLockedValue { $0 = true }
        }
    }

    /// Why the map page at `/` cannot be shown (Leaflet or the page's files missing); empty
    /// when it can, or when this listener serves no page.
    public var mapPageProblems: [String] { mapAssets?.problems ?? [] }

    /// Whether requests must carry a token.
    var requiresTokens: Bool { !tokens.isOpen }

    /// The routes, for `run` and for tests that call them without a socket.
    public func makeRouter() -> Router<BasicRequestContext> {
        // Case-sensitive: Hummingbird's case-insensitive matching lower-cases every path component
        // of every request (4 % of the CPU of Esri reverseGeocode under wrk, `perf record`); the
        // Esri paths are registered as Esri writes them and in lower case instead.
        let router = Router()
        if let origin = configuration.corsOrigin {
            router.add(middleware: CORSMiddleware(
                allowOrigin: origin == "*" ? .all : .custom(origin),
                allowHeaders: [.accept, .authorization, .contentType, .origin],
                allowMethods: [.get, .post, .head, .options]))
        }
        let plain = HTTPDialect.plain
        route(router, "/health", plain, op: "health", authenticated: false) { _, _, _ in
            .json(["status": "ok"])
        }
        route(router, "/ready", plain, op: "ready", authenticated: false) { [shuttingDown] _, s, _ throws(HTTPFailure) in
            if shuttingDown.withLockedValue({ $0 }) {
                throw HTTPFailure(.serviceUnavailable, "shutting down", code: .overloaded)
            }
            // Answering: the operation that reads the index's metadata runs on this index.
            let info = try s.run(.info, (), as: LocatorInfo.self)
            return .json(Readiness(status: "ready", index: info.index.path, addresses: Int(info.index.values["address_count"] ?? "") ?? 0,
                                   layers: info.index.layers.count))
        }
        route(router, "/metrics", plain, op: "metrics") { [observer] _, _, _ in
            .text(observer.exposition(), contentType: "text/plain; version=0.0.4; charset=utf-8")
        }
        guard configuration.endpoints == .all else { return router }

        EsriRoutes(configuration: configuration).add(to: router, self)
        PeliasRoutes(configuration: configuration).add(to: router, self)
        NominatimRoutes(configuration: configuration).add(to: router, self)
        LocusRoutes(configuration: configuration).add(to: router, self)
        if let mapAssets { MapRoutes(assets: mapAssets).add(to: router, self) }
        return router
    }

    struct Readiness: Encodable, Sendable {
        var status: String
        var index: String
        var addresses: Int
        var layers: Int
    }

    /// Adds one endpoint (GET and POST) of a dialect: reads its parameters, checks the token,
    /// runs `answer` on one index generation, writes a failure in the dialect's shape, and counts
    /// the outcome. Nothing a caller sends reaches a 500: a failure the answer did not foresee is
    /// still written in the dialect's shape, as `internal`.
    func route(_ router: Router<BasicRequestContext>, _ path: RouterPath, _ dialect: HTTPDialect, op: String,
               authenticated: Bool = true,
               _ answer: @escaping @Sendable (HTTPParameters, HTTPEngine.Session, Parameters) throws(HTTPFailure) -> HTTPReply) {
        let handler: @Sendable (Request, BasicRequestContext) async -> Response = { [self] request, context in
            let clock = ContinuousClock()
            let start = clock.now
            observer.started(dialect.name)
            var parameters = HTTPParameters()
            let reply: HTTPReply
            do {
                parameters = try await self.parameters(request)
                if authenticated { try authenticate(request, parameters) }
                let routeParameters = context.parameters
                reply = try engine.session { s throws(HTTPFailure) in try answer(parameters, s, routeParameters) }
            } catch let failure as HTTPFailure {
                reply = dialect.failure(failure, parameters)
            } catch {
                reply = dialect.failure(HTTPFailure(.internalServerError, "internal error", code: .internalError), parameters)
            }
            observer.finished(dialect.name, op, reply.outcome, clock.now - start)
            var headers = HTTPFields()
            headers[.contentType] = reply.contentType
            return Response(status: reply.status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: reply.body)))
        }
        router.get(path) { request, context in await handler(request, context) }
        router.post(path) { request, context in await handler(request, context) }
        // HEAD as GET without the body (load balancers' `HEAD /health`; the CORS preflight has
        // always offered it, and every path answered 404).
        router.head(path) { request, context in
            let full = await handler(request, context)
            var headers = full.headers
            if let length = full.body.contentLength { headers[.contentLength] = String(length) }
            return Response(status: full.status, headers: headers, body: ResponseBody())
        }
    }

    /// The query's parameters and, for a form-encoded POST, the body's.
    private func parameters(_ request: Request) async throws(HTTPFailure) -> HTTPParameters {
        let target = request.uri.string
        guard target.utf8.count <= configuration.maximumURLBytes else {
            throw HTTPFailure(.uriTooLong, "the request target is longer than \(configuration.maximumURLBytes) bytes", code: .tooLarge)
        }
        var parameters = try HTTPParameters(formEncoded: request.uri.query ?? "")
        guard request.method == .post else { return parameters }
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: configuration.maximumBodyBytes)
        } catch {
            throw HTTPFailure(.contentTooLarge, "the request body is larger than \(configuration.maximumBodyBytes) bytes", code: .tooLarge)
        }
        guard body.readableBytes > 0 else { return parameters }
        let type = request.headers[.contentType]?.lowercased() ?? "application/x-www-form-urlencoded"
        guard type.hasPrefix("application/x-www-form-urlencoded") else {
            throw HTTPFailure(.unsupportedMediaType, "send parameters in the query or as application/x-www-form-urlencoded", code: .invalidRequest)
        }
        try parameters.add(formEncoded: String(decoding: body.readableBytesView, as: UTF8.self))
        return parameters
    }

    /// With tokens configured, every request but `/health` and `/ready` carries one: as
    /// `Authorization: Bearer …`, or as the `token` (Esri) or `api_key` (Pelias) parameter.
    private func authenticate(_ request: Request, _ parameters: HTTPParameters) throws(HTTPFailure) {
        guard !tokens.isOpen else { return }
        var presented: String?
        if let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") {
            presented = String(header.dropFirst("bearer ".count)).trimmingWhitespace()
        }
        presented = presented ?? parameters.string("token") ?? parameters.string("api_key")
        guard let presented else {
            throw HTTPFailure(.unauthorized, "this server needs a token: Authorization: Bearer …, or the token parameter", code: .unauthorized)
        }
        guard tokens.accepts(presented) else {
            throw HTTPFailure(.forbidden, "the token is not valid", code: .unauthorized)
        }
    }
}

/// What the HTTP service tells the rest of the server: each request as it starts and ends (for
/// the metrics), and the text `/metrics` serves. The default counts nothing.
public struct HTTPObserver: Sendable {
    public var started: @Sendable (_ dialect: String) -> Void
    public var finished: @Sendable (_ dialect: String, _ op: String, _ outcome: String, _ duration: Duration) -> Void
    public var exposition: @Sendable () -> String
    /// An HTTP connection opened, and closed (for `/metrics`: they were never counted).
    public var connectionOpened: @Sendable () -> Void
    public var connectionClosed: @Sendable () -> Void

    public init(started: @escaping @Sendable (String) -> Void = { _ in },
                finished: @escaping @Sendable (String, String, String, Duration) -> Void = { _, _, _, _ in },
                exposition: @escaping @Sendable () -> String = { "" },
                connectionOpened: @escaping @Sendable () -> Void = {},
                connectionClosed: @escaping @Sendable () -> Void = {}) {
        self.started = started
        self.finished = finished
        self.exposition = exposition
        self.connectionOpened = connectionOpened
        self.connectionClosed = connectionClosed
    }
}

/// One of the HTTP dialects: its name in the metrics, and how it writes a failure.
struct HTTPDialect: Sendable {
    let name: String
    let failure: @Sendable (HTTPFailure, HTTPParameters) -> HTTPReply

    /// Locus's own endpoints: `{"error": {"code": "invalid_argument", "message": …}}`.
    static let plain = HTTPDialect(name: "http") { failure, _ in
        .json(PlainError(error: .init(code: failure.code.rawValue, message: failure.message, parameter: failure.parameter)),
              status: failure.status, outcome: failure.code.rawValue)
    }

    struct PlainError: Encodable, Sendable {
        struct Inner: Encodable, Sendable {
            var code: String
            var message: String
            var parameter: String?
        }
        var error: Inner
    }
}
