import Glibc

// How the tests wait. A test waits for the condition it needs — a
// descriptor becoming readable (a reply, an event, a connection closed), a
// state the product reports — and a deadline bounds the wait only so that a
// broken product fails the test instead of hanging it. No test sleeps for a
// time it expects something to take: a slow or busy machine then only makes
// a test wait longer, never fail. Tests wait through these, so that the
// waits in Tests/ are few and each is for a condition (issue 29).

/// When a wait gives up: a bound for a broken product, far beyond what the
/// awaited thing takes on any machine.
public struct Deadline: Sendable {
    private let end: Double

    public init(seconds: Double) { end = Self.now() + seconds }

    /// Seconds left (0 once passed).
    public var remaining: Double { max(0, end - Self.now()) }
    public var hasPassed: Bool { Self.now() >= end }

    /// CLOCK_MONOTONIC, in seconds: not stepped by a wall-clock change.
    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}

/// Blocks until `fd` is readable (data, the end of the stream, or an error
/// to read) or `deadline` passes; whether it is.
public func waitUntilReadable(_ fd: Int32, by deadline: Deadline) -> Bool {
    var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    while true {
        let milliseconds = Int32(min((deadline.remaining * 1000).rounded(.up), Double(Int32.max)))
        let ready = poll(&entry, 1, milliseconds)
        if ready > 0 { return true }
        if ready == 0 || errno != EINTR { return false }
    }
}

/// Whether `fd` is readable now, without waiting.
public func isReadable(_ fd: Int32) -> Bool {
    waitUntilReadable(fd, by: Deadline(seconds: 0))
}

/// Checks `condition` until it holds (a throw counts as not yet), for
/// state no descriptor announces: a count in the product, a file another
/// process writes, a socket that accepts. Between checks it waits 1 ms,
/// doubling to 50 ms, so a quick condition costs little and a slow one
/// does not spin. False only when `seconds` passed first: the bound for a
/// broken product, not the expected time.
public func eventually(within seconds: Double = 30, _ condition: () throws -> Bool) -> Bool {
    let deadline = Deadline(seconds: seconds)
    var pause: UInt32 = 1_000
    while true {
        if (try? condition()) == true { return true }
        if deadline.hasPassed { return false }
        usleep(pause)
        pause = min(pause * 2, 50_000)
    }
}

/// Lets `seconds` of real time pass, for the few tests whose subject is
/// real time itself (a daemon frozen longer than health allows): a busy
/// machine can only make the time longer. Never a wait for something to
/// happen.
public func letRealTimePass(seconds: Double) {
    var asked = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
    var left = timespec()
    while nanosleep(&asked, &left) != 0, errno == EINTR { asked = left }
}
