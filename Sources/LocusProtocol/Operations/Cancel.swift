import LocusCore
import LocusWire

extension Operation {
    public static let cancel = Operation(
        name: "cancel", syntax: #"{"id":2,"op":"cancel","request":1}"#,
        summary: "Cancels a pending request of this connection by its id.",
        arguments: ["request"],
        idempotent: false,
        decode: { (a) throws(WireError) in
            guard let target = a.object["request"], target != .null else {
                throw WireError(.invalidArgument, "cancel needs \"request\": the id of the request to cancel")
            }
            // An id is a string or a finite number; anything else names no request ("[1]" was
            // not_found "no pending request with id null").
            if case .string = target {} else if target.numericValue?.isFinite != true {
                throw WireError(.invalidArgument, "request must be the id of a request, a string or a number, got \(target.typeName)")
            }
            return target
        },
        encode: { target in ["request": target] },
        answer: { (target, call) throws(WireError) in
            guard try call.connection.cancel(target, by: call.id) else {
                throw WireError(.notFound, "no pending request with id \(target.idDescription) on this connection; it may have been answered already")
            }
            return .result(CancelReply(cancelled: target))
        }
    )
}

/// The result of `cancel`: the id of the request cancelled (which is answered `cancelled`).
public struct CancelReply: Codable, Sendable {
    public var cancelled: RequestID
}
