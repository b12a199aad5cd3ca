import Glibc
import Synchronization

/// A failed system or libdrm call, named: "'drmModeAddFB2' failed: (22)
/// Invalid argument".
public struct SystemError: Error, CustomStringConvertible, Equatable {
    public let call: String
    public let errno: Int32

    public init(call: String, errno: Int32) {
        (self.call, self.errno) = (call, errno)
    }

    public var description: String {
        "'\(call)' failed: (\(errno)) \(reason)"
    }

    /// The system's words for the errno alone: "Connection refused".
    public var reason: String { String(cString: strerror(errno)) }

    /// `error`'s reason if it is a SystemError (through a rethrowing
    /// closure it arrives untyped), else its description.
    public static func reason(of error: any Error) -> String {
        (error as? SystemError)?.reason ?? "\(error)"
    }
}

/// The one funnel for system calls (after swift-nio's System.swift): retries
/// EINTR, reads errno at once, and turns the three C conventions into one
/// thrown `SystemError` that names the call.
public enum Syscall {
    /// -1 with errno (open, ioctl, poll, read, write, sendto...), as int or
    /// ssize_t. Returns the result.
    @discardableResult
    @inline(__always)
    public static func check<Result: FixedWidthInteger & SignedInteger>(_ call: @autoclosure () -> String,
                                                                       _ body: () -> Result) throws(SystemError) -> Result {
        while true {
            if let code = SyscallFaults.fault(call) {
                if code == EINTR { continue }
                throw SystemError(call: call(), errno: code)
            }
            let result = body()
            if result >= 0 { return result }
            let code = Glibc.errno
            if code == EINTR { continue }
            throw SystemError(call: call(), errno: code)
        }
    }

    /// libdrm's convention: 0 or a negative errno (drmMode* through
    /// DRM_IOCTL), or -1 with errno set (drmIoctl, drmSetClientCap). -1 is
    /// also -EPERM, and errno is EPERM then, so errno settles it.
    @inline(__always)
    public static func drm(_ call: @autoclosure () -> String, _ body: () -> Int32) throws(SystemError) {
        if let code = SyscallFaults.fault(call) { throw SystemError(call: call(), errno: code) }
        let result = body()
        if result >= 0 { return }
        throw SystemError(call: call(), errno: result == -1 ? Glibc.errno : -result)
    }

    /// Calls that return NULL on failure with errno set (drmModeGetResources...).
    public static func pointer<T>(_ call: @autoclosure () -> String, _ body: () -> T?) throws(SystemError) -> T {
        if let code = SyscallFaults.fault(call) { throw SystemError(call: call(), errno: code) }
        Glibc.errno = 0
        guard let value = body() else {
            let code = Glibc.errno
            throw SystemError(call: call(), errno: code == 0 ? ENODEV : code)
        }
        return value
    }
}

/// Failures injected into the funnel by tests (after swift-system's
/// Mocking.swift): error paths are exercised through the real code, with
/// no mock of the kernel. A rule fails the next calls whose name contains
/// a string (say the test's own socket path) with an errno; EINTR makes
/// the funnel retry, as a real interrupted call does. A write rule
/// (`shorten`) lets the next writes take only part of their bytes, as a
/// disk filling up does. With no rule, a call costs one relaxed atomic
/// load more.
public enum SyscallFaults {
    private struct Rule {
        let match: String
        /// The errno to fail with, or nil for a write shortened to `limit` bytes.
        let errno: Int32?
        var limit = 0
        var remaining: Int
    }

    private static let active = Atomic<Bool>(false)
    private static let rules = Mutex<[Rule]>([])

    /// Fails the next `times` calls whose name contains `match` with `errno`.
    public static func inject(_ errno: Int32, into match: String, times: Int = 1) {
        rules.withLock { $0.append(Rule(match: match, errno: errno, remaining: times)) }
        active.store(true, ordering: .relaxed)
    }

    /// The next `times` writes through `Descriptor.write(_:_:count:file:)`
    /// whose name contains `match` write at most `bytes` bytes (really,
    /// to the file), and report that count.
    public static func shorten(_ match: String, to bytes: Int, times: Int = 1) {
        rules.withLock { $0.append(Rule(match: match, errno: nil, limit: bytes, remaining: times)) }
        active.store(true, ordering: .relaxed)
    }

    /// Rules not used up yet (a test checks its faults were hit).
    public static func pending(matching match: String) -> Int {
        rules.withLock { $0.filter { $0.match == match }.reduce(0) { $0 + $1.remaining } }
    }

    /// Forgets the rules matching `match`.
    public static func remove(matching match: String) {
        rules.withLock { list in
            list.removeAll { $0.match == match }
            if list.isEmpty { active.store(false, ordering: .relaxed) }
        }
    }

    /// The errno to fail `call` with, if a rule says so (and counts it).
    @inline(__always)
    static func fault(_ call: () -> String) -> Int32? {
        guard active.load(ordering: .relaxed) else { return nil }
        let name = call()
        return rules.withLock { list -> Int32? in
            guard let index = list.firstIndex(where: { $0.errno != nil && $0.remaining > 0 && name.contains($0.match) }) else { return nil }
            list[index].remaining -= 1
            return list[index].errno
        }
    }

    /// The most bytes the write named `call` may take, if a rule shortens it (and counts it).
    static func writeLimit(_ call: String) -> Int? {
        guard active.load(ordering: .relaxed) else { return nil }
        return rules.withLock { list -> Int? in
            guard let index = list.firstIndex(where: { $0.errno == nil && $0.remaining > 0 && call.contains($0.match) }) else { return nil }
            list[index].remaining -= 1
            return list[index].limit
        }
    }
}
