import LocusCore
import LocusWire

extension Operation {
    public static let cancel = Operation(
        name: "cancel", syntax: #"{"id":2,"op":"cancel","request":1}"#,
        summary: "Cancels a pending request of this connection by its id.",
        idempotent: false,
        decode: { (a) throws(WireError) in
            guard let target = a.object["request"], target != .null else {
                throw WireError(.invalidArgument, "cancel needs \"request\": the id of the request to cancel")
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
