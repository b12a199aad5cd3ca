/// Which connections the server closes so an operator can always get in:
/// a connection is idle when it is not subscribed to events, has no
/// request with the daemon, and has sent no complete request line for
/// `timeout` seconds (a partial line does not count: a client trickling
/// bytes without a newline is idle too). Idle connections are closed when
/// their time is up; at max_clients, the longest-idle one makes room for a
/// new connection at once. Pure: the server passes times in.
enum IdleConnections {
    struct Activity: Equatable {
        var id: UInt64
        /// When its last complete line arrived (or it connected).
        var lastRequest: Double
        var subscribed: Bool
        var requestInFlight: Bool

        /// Subject to the idle rules at all.
        var canIdle: Bool { !subscribed && !requestInFlight }
    }

    /// The connections whose idle time is up at `now`.
    static func expired(_ all: [Activity], now: Double, timeout: Double) -> [UInt64] {
        all.filter { $0.canIdle && now - $0.lastRequest >= timeout }.map(\.id)
    }

    /// When the next one will be, if any may.
    static func nextExpiry(_ all: [Activity], timeout: Double) -> Double? {
        all.filter(\.canIdle).map { $0.lastRequest + timeout }.min()
    }

    /// The connection to close for a new one when all slots are taken: the
    /// longest idle (ties: the one connected first, which comes first in
    /// `all`); nil when every connection is subscribed or busy.
    static func evictee(_ all: [Activity]) -> UInt64? {
        var best: Activity?
        for activity in all where activity.canIdle {
            if best == nil || activity.lastRequest < best!.lastRequest { best = activity }
        }
        return best?.id
    }
}
