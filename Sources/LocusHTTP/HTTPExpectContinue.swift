import Foundation
import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Answers a request head that says `Expect: 100-continue` with `100 Continue` at once, so that
/// its client sends the body.
///
/// Such a client (curl for a large body or when told, .NET Framework's `HttpWebRequest` for every
/// POST) holds its body back until the server says go on or its timer runs out: nothing here
/// said it, and every such POST of a batch (`geocodeAddresses`) waited out curl's 1 s before it
/// was read. Sent for any request that asks, before its answer is known: a request
/// that will be refused (a bad token) then sends its body for nothing, which costs less than a
/// second on every one that will not. A 100 is informational: the request's own answer follows
/// on the same connection (`HTTPServerPipelineHandler` lets it by out of turn).
final class HTTPExpectContinue: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundOut = HTTPResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let request) = unwrapInboundIn(data), Self.expectsContinue(request) {
            context.writeAndFlush(wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: nil)
        }
        context.fireChannelRead(data)
    }

    /// Whether the request waits for a 100 before its body: `Expect` lists `100-continue`, in
    /// any case (RFC 9110 §10.1.1), and the head does not say the body is empty.
    static func expectsContinue(_ request: HTTPRequest) -> Bool {
        let expects = request.headerFields[values: .expect].contains { value in
            value.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).lowercased() == "100-continue" }
        }
        guard expects else { return false }
        if let length = request.headerFields[.contentLength] { return length.trimmingCharacters(in: .whitespaces) != "0" }
        return true
    }
}
