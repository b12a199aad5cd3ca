/// sd_notify(3)'s protocol, without libsystemd: newline-separated
/// KEY=VALUE assignments in one datagram to the socket named by
/// $NOTIFY_SOCKET (systemd man/sd_notify.xml).
public enum NotifyMessage: Equatable, Sendable {
    /// The first frame is on screen (Type=notify units start dependents now).
    case ready
    /// The loop is alive and presenting (WatchdogSec=).
    case watchdog
    /// Shutting down.
    case stopping
    /// Free text for `systemctl status`.
    case status(String)
    /// More time to start than TimeoutStartSec=: at least this long from now
    /// (EXTEND_TIMEOUT_USEC, systemd 236 and later), for a start that waits
    /// on something outside it (udev's device events).
    case extendTimeout(seconds: Double)
    /// Keep the descriptors sent with this datagram (SCM_RIGHTS) under
    /// `name` across a restart (FDSTORE=1, FDNAME=; systemd 219 and later,
    /// up to the unit's FileDescriptorStoreMax=). `poll` false asks systemd
    /// not to watch them for POLLHUP/POLLERR (FDPOLL=0, systemd 246): by
    /// default a descriptor that reports a hang-up is dropped from the store.
    case storeDescriptors(DescriptorName, poll: Bool = true)
    /// Drop every stored descriptor named `name` (FDSTOREREMOVE=1): a stop
    /// for good gives the screen back instead of leaving it to systemd.
    case removeStoredDescriptors(DescriptorName)

    public var assignment: String {
        switch self {
        case .ready: "READY=1"
        case .watchdog: "WATCHDOG=1"
        case .stopping: "STOPPING=1"
        // One line per assignment: a newline would start a bogus one.
        case .status(let text): "STATUS=" + text.map { $0.isNewline ? " " : String($0) }.joined()
        case .extendTimeout(let seconds): "EXTEND_TIMEOUT_USEC=\(UInt64(max(seconds, 0) * 1_000_000))"
        // A DescriptorName has no newline, so each of these stays two (or three) lines.
        case .storeDescriptors(let name, let poll): "FDSTORE=1\nFDNAME=\(name.text)" + (poll ? "" : "\nFDPOLL=0")
        case .removeStoredDescriptors(let name): "FDSTOREREMOVE=1\nFDNAME=\(name.text)"
        }
    }

    public static func datagram(_ messages: [NotifyMessage]) -> String {
        messages.map(\.assignment).joined(separator: "\n")
    }
}

/// Where $NOTIFY_SOCKET points: a path, or an abstract socket when it starts
/// with '@' (the '@' becomes a NUL byte in sun_path).
public struct NotifyAddress: Equatable, Sendable {
    /// The sun_path bytes (no terminating NUL).
    public let pathBytes: [UInt8]
    public var isAbstract: Bool { pathBytes.first == 0 }

    /// nil when unset or unusable (relative, empty, longer than sun_path).
    public init?(environmentValue value: String?) {
        guard let value, value.count > 1 || value == "/" else { return nil }
        var bytes = Array(value.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 } else if bytes.first != UInt8(ascii: "/") { return nil }
        guard bytes.count < 108 else { return nil }   // sizeof(sun_path), room for a NUL
        pathBytes = bytes
    }
}

/// How often to send WATCHDOG=1: half of $WATCHDOG_USEC (as systemd
/// advises), and only when $WATCHDOG_PID is unset or names this process.
public enum WatchdogPolicy {
    /// The shortest interval honoured. The loop wakes for each ping, so
    /// WATCHDOG_USEC=1 would have it spin at 2 million wakes a second; no
    /// watchdog can be served more finely than a frame anyway.
    public static let shortestInterval = 0.01

    public static func pingInterval(usec: String?, pid: String?, ownPID: Int32) -> Double? {
        guard let usec, let microseconds = UInt64(usec), microseconds > 0 else { return nil }
        if let pid, let target = Int32(pid), target != ownPID { return nil }
        return max(shortestInterval, Double(microseconds) / 2_000_000)
    }
}
