import NIOCore
import NIOPosix

/// Connection set-up shared by the load generator's clients.
enum LoadClient {
    static func connect(_ address: SocketAddress, group: any EventLoopGroup,
                        _ initialize: @escaping @Sendable (any Channel) throws -> Void) async throws -> any Channel {
        var bootstrap = ClientBootstrap(group: group).channelInitializer { channel in
            channel.eventLoop.makeCompletedFuture { try initialize(channel) }
        }
        // Requests are small and each is sent as soon as it is due: Nagle's delay would be measured.
        if address.protocol != .unix {
            bootstrap = bootstrap.channelOption(.tcpOption(.tcp_nodelay), value: 1)
        }
        return try await bootstrap.connect(to: address).get()
    }
}
