import Glibc

/// sd_notify without libsystemd: one datagram per call to the AF_UNIX socket
/// named by $NOTIFY_SOCKET (systemd's man/sd_notify.xml). Nothing happens
/// when the daemon was not started by systemd. Owns its socket until deinit.
public final class SystemdNotifier {
    private let socketFD: Int32
    private var address = sockaddr_un()
    private let addressLength: socklen_t
    private let logger: Logger
    /// Send WATCHDOG=1 this often (half of $WATCHDOG_USEC), or nil.
    public let watchdogInterval: Double?

    /// nil when $NOTIFY_SOCKET is unset or unusable.
    public init?(environment: [String: String], logger: Logger) {
        guard let target = NotifyAddress(environmentValue: environment["NOTIFY_SOCKET"]) else { return nil }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else {
            logger.warning("sd_notify: cannot create a socket: \(SystemError(call: "socket", errno: errno))")
            return nil
        }
        socketFD = fd
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { path in
            for (index, byte) in target.pathBytes.enumerated() { path[index] = byte }
        }
        // An abstract address is exactly its bytes; a path may include its NUL.
        addressLength = socklen_t(MemoryLayout<sa_family_t>.size + target.pathBytes.count + (target.isAbstract ? 0 : 1))
        self.logger = logger
        watchdogInterval = WatchdogPolicy.pingInterval(usec: environment["WATCHDOG_USEC"], pid: environment["WATCHDOG_PID"], ownPID: getpid())
    }

    deinit { close(socketFD) }

    public func send(_ messages: NotifyMessage...) {
        let text = NotifyMessage.datagram(messages)
        let sent = text.withCString { bytes in
            withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(socketFD, bytes, strlen(bytes), Int32(MSG_NOSIGNAL), $0, addressLength)
                }
            }
        }
        if sent < 0 { logger.debug("sd_notify '\(text)': \(SystemError(call: "sendto", errno: errno))") }
    }
}
