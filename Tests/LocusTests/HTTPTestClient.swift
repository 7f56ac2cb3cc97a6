import Foundation
import Hummingbird
import LocusCore
import LocusEngine
import LocusHTTP
import LocusServer
import LocusWire
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import NIOPosix

/// Calls an `HTTPService`'s routes directly, without a socket: the request goes through the
/// router, its middleware and the endpoint as one from the network would, and the response body
/// is collected. (What HummingbirdTesting's router mode does, without its HTTP client's TLS.)
struct HTTPTestClient: Sendable {
    let responder: RouterResponder<BasicRequestContext>
    let service: HTTPService

    struct Reply: Sendable {
        var status: HTTPResponse.Status
        var headers: HTTPFields
        var body: [UInt8]

        var text: String { String(decoding: body, as: UTF8.self) }
        /// The body as a JSON value (`.null` when it is not JSON, so that an assertion fails on it).
        var json: JSONValue { (try? JSONValue(parsing: body)) ?? .null }
    }

    static let loops = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    /// A service over `index` (default: Portland's), configured by `configure`.
    init(index: LocusIndex? = nil, server: SocketServerConfiguration = SocketServerConfiguration(),
         observer: HTTPObserver = HTTPObserver(), _ configure: (inout HTTPConfiguration) -> Void = { _ in }) throws {
        var c = HTTPConfiguration()
        configure(&c)
        service = HTTPService(configuration: c, server: server, index: ServingIndex(index: try index ?? TestSupport.portland()),
                              observer: observer, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
                              group: Self.loops)
        responder = service.makeRouter().buildResponder()
    }

    func get(_ target: String, headers: HTTPFields = [:]) async throws -> Reply {
        try await send(.get, target, headers: headers, body: nil)
    }

    /// A form-encoded POST.
    func post(_ target: String, form: String, headers: HTTPFields = [:]) async throws -> Reply {
        var h = headers
        h[.contentType] = "application/x-www-form-urlencoded"
        return try await send(.post, target, headers: h, body: Array(form.utf8))
    }

    func send(_ method: HTTPRequest.Method, _ target: String, headers: HTTPFields, body: [UInt8]?) async throws -> Reply {
        var h = headers
        if let body { h[.contentLength] = String(body.count) }
        let request = Request(
            head: HTTPRequest(method: method, scheme: "http", authority: "localhost", path: target, headerFields: h),
            body: RequestBody(buffer: ByteBuffer(bytes: body ?? []))
        )
        let context = BasicRequestContext(source: ApplicationRequestContextSource(
            channel: EmbeddedChannel(), logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })))
        let response = try await responder.respond(to: request, context: context)
        let writer = Collector()
        try await response.body.write(writer)
        return Reply(status: response.status, headers: response.headers, body: writer.bytes.withLockedValue { $0 })
    }

    private struct Collector: ResponseBodyWriter {
        let bytes = NIOLockedValueBox<[UInt8]>([])
        mutating func write(_ buffer: ByteBuffer) async throws {
            bytes.withLockedValue { $0 += Array(buffer.readableBytesView) }
        }
        consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }
}

extension JSONValue {
    /// `value["a"]["b"][0]`: nil anywhere the path does not lead.
    subscript(key: String) -> JSONValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    subscript(index: Int) -> JSONValue? {
        if case .array(let a) = self, a.indices.contains(index) { return a[index] }
        return nil
    }

    var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    var array: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }
}

extension Optional where Wrapped == JSONValue {
    subscript(key: String) -> JSONValue? { self?[key] }
    subscript(index: Int) -> JSONValue? { self?[index] }
    var string: String? { self?.string }
    var number: Double? { self?.numericValue }
    var array: [JSONValue]? { self?.array }
}
