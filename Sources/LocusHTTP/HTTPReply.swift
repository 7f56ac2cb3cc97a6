import Foundation
import HTTPTypes
import LocusWire

/// What an endpoint answers: status, media type and body bytes.
struct HTTPReply: Sendable {
    var status: HTTPResponse.Status = .ok
    var contentType = "application/json; charset=utf-8"
    var body: [UInt8]
    /// What the metrics count it as: `ok`, or the error code of a failure written in a dialect's
    /// shape (an Esri error travels with HTTP status 200).
    var outcome = "ok"

    init(status: HTTPResponse.Status = .ok, contentType: String = "application/json; charset=utf-8", body: [UInt8], outcome: String = "ok") {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.outcome = outcome
    }

    /// A JSON body written by the protocol's own encoder (the line protocol's, so the HTTP
    /// answers cost what reply lines cost). `pretty` (Esri's `f=pjson`) indents it.
    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok, pretty: Bool = false,
                     contentType: String = "application/json; charset=utf-8", outcome: String = "ok") -> HTTPReply {
        var bytes: [UInt8]
        do {
            bytes = try ReplyEncoder.json(value)
        } catch {
            return HTTPReply(status: .internalServerError, body: Array(#"{"error":"internal error"}"#.utf8), outcome: WireErrorCode.internalError.rawValue)
        }
        if pretty, let object = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]),
           let indented = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .fragmentsAllowed]) {
            bytes = Array(indented)
        }
        return HTTPReply(status: status, contentType: contentType, body: bytes, outcome: outcome)
    }

    static func text(_ text: String, status: HTTPResponse.Status = .ok, contentType: String = "text/plain; charset=utf-8") -> HTTPReply {
        HTTPReply(status: status, contentType: contentType, body: Array(text.utf8))
    }
}
