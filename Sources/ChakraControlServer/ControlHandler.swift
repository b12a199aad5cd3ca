import ChakraControl
import Synchronization

/// Who is asking: for the status reply and the log.
public struct RequestContext: Sendable {
    /// The connection's number, from 1, in order of arrival.
    public let client: UInt64
    /// Connections open now, this one included.
    public let clients: Int
    let presence: ConnectionPresence

    /// Whether the connection is still open (any thread): slow work for a
    /// client that has gone (asked and closed) is work for nobody.
    public var isConnected: Bool { presence.isOpen }
}

/// A connection's life as other threads see it: open until the server
/// closes it (the peer went away, broke a rule, or was done).
final class ConnectionPresence: Sendable {
    private let open = Atomic<Bool>(true)
    var isOpen: Bool { open.load(ordering: .relaxed) }
    func close() { open.store(false, ordering: .relaxed) }
}

/// What carries out requests: the daemon's service, or a fake in tests.
/// The server parses lines, answers bad ones, and keeps subscriptions
/// itself; every other well-formed request comes here.
public protocol ControlHandler: AnyObject, Sendable {
    /// Called on the server's thread: must return at once (hand slow work
    /// to another thread). `reply` must be called exactly once, from any
    /// thread. The server asks for one request per connection at a time.
    func handle(_ request: ControlRequest, context: RequestContext,
                reply: @escaping @Sendable (Result<JSONValue, ControlError>) -> Void)
}

/// The server's bounds (docs/protocol.md, "Limits").
public struct ServerLimits: Sendable, Equatable {
    /// Connections at once ([control] max_clients); one more is told
    /// too_many_clients and closed.
    public var maxClients: Int
    /// Bytes in a request line ([control] max_line); a longer one is told
    /// line_too_long and the connection closed.
    public var maxLine: Int
    /// Bytes of events that may wait for a client that does not read them;
    /// an event past this drops the client. A reply is always queued: a
    /// connection has one request at a time, and its next request is read
    /// only once less than `resumeReadingBelow` waits to be sent.
    public var maxQueuedBytes: Int
    public var resumeReadingBelow: Int
    /// Seconds without a complete request after which a connection that is
    /// not subscribed and has no request in flight is closed
    /// ([control] idle_timeout); at max_clients the longest-idle one makes
    /// room for a new connection at once (IdleConnections).
    public var idleTimeout: Double

    public init(maxClients: Int = 256, maxLine: Int = ControlProtocol.defaultMaxLine,
                maxQueuedBytes: Int = 256 << 10, resumeReadingBelow: Int = 64 << 10, idleTimeout: Double = 60) {
        (self.maxClients, self.maxLine, self.maxQueuedBytes, self.resumeReadingBelow) = (maxClients, maxLine, maxQueuedBytes, resumeReadingBelow)
        self.idleTimeout = idleTimeout
    }
}
