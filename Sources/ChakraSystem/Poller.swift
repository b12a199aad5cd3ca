import Glibc

/// poll(2) over a fixed set of descriptors, with its pollfd array allocated
/// once: the frame loop waits here every frame and must not allocate.
/// Owns the array, not the descriptors.
public final class Poller {
    private let fds: UnsafeMutablePointer<pollfd>
    public let count: Int

    public init(descriptors: [Int32]) {
        count = descriptors.count
        fds = .allocate(capacity: max(count, 1))
        for (index, fd) in descriptors.enumerated() {
            fds[index] = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        }
    }

    deinit { fds.deallocate() }

    /// Waits until a descriptor is readable or `timeout` seconds pass (nil:
    /// forever). Returns false on timeout.
    @discardableResult
    public func wait(timeout: Double?) throws(SystemError) -> Bool {
        // Round up: waking a hair early would spin through a few empty polls.
        let milliseconds = timeout.map { Int32(min(max(($0 * 1000).rounded(.up), 0), 3_600_000)) } ?? -1
        for index in 0..<count { fds[index].revents = 0 }
        let ready = poll(fds, nfds_t(count), milliseconds)
        if ready < 0 {
            if errno == EINTR { return false }
            throw SystemError(call: "poll", errno: errno)
        }
        return ready > 0
    }

    /// Readable, or hung up/errored (the owner's read will tell which).
    public func isReadable(_ index: Int) -> Bool {
        fds[index].revents & Int16(POLLIN | POLLERR | POLLHUP) != 0
    }
}

extension Poller {
    /// poll(2) over `fds` as they are (a set that changes from call to
    /// call, as the control server's clients): readiness in their
    /// `revents`. `milliseconds` -1 waits forever; EINTR is retried.
    @discardableResult
    public static func wait(_ fds: inout [pollfd], milliseconds: Int32) throws(SystemError) -> Int {
        let count = nfds_t(fds.count)
        // `&fds`, not withUnsafeMutableBufferPointer: that is rethrows
        // (untyped) in Swift 6.0's standard library.
        return Int(try Syscall.check("poll") { poll(&fds, count, milliseconds) })
    }
}
