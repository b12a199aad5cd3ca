import Glibc

/// sd_notify without libsystemd: one datagram per call to the AF_UNIX socket
/// named by $NOTIFY_SOCKET (systemd's man/sd_notify.xml). Nothing happens
/// when the daemon was not started by systemd. Owns its socket until deinit.
public final class SystemdNotifier {
    private let socketFD: Int32
    private var address = sockaddr_un()
    private let addressLength: socklen_t
    /// "sendmsg(<$NOTIFY_SOCKET>)": the funnel's name for a send, which a
    /// test's injected fault matches by its own socket's address.
    private let sendCall: String
    private let logger: Logger
    /// Send WATCHDOG=1 this often (half of $WATCHDOG_USEC), or nil.
    public let watchdogInterval: Double?

    /// The most descriptors one datagram carries (the kernel's SCM_MAX_FD).
    public static let maxDescriptorsPerMessage = 253

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
        sendCall = "sendmsg(\(environment["NOTIFY_SOCKET"] ?? ""))"
        watchdogInterval = WatchdogPolicy.pingInterval(usec: environment["WATCHDOG_USEC"], pid: environment["WATCHDOG_PID"], ownPID: getpid())
    }

    deinit { close(socketFD) }

    /// Fire and forget: a lost status or watchdog ping is retried by the
    /// next one, so a failure is only logged (at debug: the journal would
    /// fill with them while systemd is being restarted).
    public func send(_ messages: NotifyMessage...) {
        let text = NotifyMessage.datagram(messages)
        do throws(SystemError) {
            try sendDatagram(text, descriptors: [])
        } catch {
            logger.debug("sd_notify '\(text)': \(error)")
        }
    }

    /// Hands `descriptors` to systemd's file descriptor store under `name`
    /// (FDSTORE=1): systemd keeps a duplicate of each until the unit stops
    /// for good, and passes them to the next process ($LISTEN_FDS,
    /// `PassedDescriptors`). Ours stay open. Storing a descriptor systemd
    /// already holds (the same open file) is harmless: it keeps one.
    /// Needs FileDescriptorStoreMax= in the unit, else systemd drops them
    /// (and says so in its log; the datagram itself is still delivered).
    public func store(_ descriptors: [Int32], as name: DescriptorName, poll: Bool = true) throws(DescriptorStoreError) {
        guard !descriptors.isEmpty else { throw DescriptorStoreError(name: name, problem: .noDescriptors) }
        guard descriptors.count <= Self.maxDescriptorsPerMessage else {
            throw DescriptorStoreError(name: name, problem: .tooManyDescriptors(descriptors.count))
        }
        do throws(SystemError) {
            try sendDatagram(NotifyMessage.storeDescriptors(name, poll: poll).assignment, descriptors: descriptors)
        } catch {
            throw DescriptorStoreError(name: name, problem: .send(error))
        }
    }

    /// Drops the descriptors stored under `name` (FDSTOREREMOVE=1), which
    /// systemd closes: what a stop for good does with the screen.
    public func removeStored(_ name: DescriptorName) throws(DescriptorStoreError) {
        do throws(SystemError) {
            try sendDatagram(NotifyMessage.removeStoredDescriptors(name).assignment, descriptors: [])
        } catch {
            throw DescriptorStoreError(name: name, problem: .send(error))
        }
    }

    /// One datagram through the funnel, by sendmsg (the descriptors ride
    /// as SCM_RIGHTS ancillary data, which sendto cannot carry).
    private func sendDatagram(_ text: String, descriptors: [Int32]) throws(SystemError) {
        let (socket, length, call) = (socketFD, addressLength, sendCall)
        // The error comes back as a value: Swift 6.0's withUnsafeMutablePointer
        // (Debian 13's compiler) does not carry a typed throw through.
        let failure = withUnsafeMutablePointer(to: &address) { target -> SystemError? in
            do throws(SystemError) {
                try RightsMessage.send(socket, bytes: Array(text.utf8), descriptors: descriptors, to: UnsafeMutableRawPointer(target),
                                       length: length, flags: Int32(MSG_NOSIGNAL), call: call)
            } catch {
                return error
            }
            return nil
        }
        if let failure { throw failure }
    }
}

/// Why descriptors did not reach systemd's store (or leave it).
public struct DescriptorStoreError: Error, Equatable, CustomStringConvertible {
    public enum Problem: Equatable, Sendable {
        case noDescriptors
        /// More than one datagram carries (`SystemdNotifier.maxDescriptorsPerMessage`).
        case tooManyDescriptors(Int)
        /// sendmsg failed: EBADF for a descriptor that is not open,
        /// ECONNREFUSED when systemd is not listening, ETOOMANYREFS...
        case send(SystemError)
    }

    public let name: DescriptorName
    public let problem: Problem

    public init(name: DescriptorName, problem: Problem) { (self.name, self.problem) = (name, problem) }

    public var description: String {
        switch problem {
        case .noDescriptors: "cannot store '\(name)': no descriptors given"
        case .tooManyDescriptors(let count):
            "cannot store '\(name)': \(count) descriptors, more than one message carries (\(SystemdNotifier.maxDescriptorsPerMessage))"
        case .send(let error): "cannot reach systemd's descriptor store for '\(name)': \(error)"
        }
    }
}
