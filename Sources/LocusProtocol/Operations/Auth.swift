import LocusWire

extension Operation {
    public static let auth = Operation(
        name: "auth", syntax: #"{"id":1,"op":"auth","token":"…"}"#,
        summary: "Authenticates the connection when the server requires a token; until then only ping and auth are answered.",
        arguments: ["token"],
        beforeAuthentication: true,
        idempotent: false,
        decode: { (a) throws(WireError) in
            guard let token = try a.string("token") else { throw WireError(.invalidArgument, "auth needs \"token\", a string") }
            return token
        },
        encode: { token in ["token": .string(token)] },
        answer: { (token, call) throws(WireError) in
            guard try call.connection.authenticate(token: token) else { throw WireError(.unauthorized, "the token is not accepted") }
            return .result(AuthReply())
        }
    )
}

/// The result of `auth`.
public struct AuthReply: Codable, Sendable {
    public var authenticated = true
}
