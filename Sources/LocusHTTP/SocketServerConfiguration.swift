import LocusServer

/// The socket server's configuration, whose tokens and rules the HTTP endpoints share. (Hummingbird
/// has a `ServerConfiguration` of its own, and the module `LocusServer` a class of the same name,
/// so the name is resolved here, in a file that imports only Locus.)
public typealias SocketServerConfiguration = ServerConfiguration
