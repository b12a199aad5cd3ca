import Glibc

/// A failed system or libdrm call, named: "'drmModeAddFB2' failed: (22)
/// Invalid argument".
public struct SystemError: Error, CustomStringConvertible, Equatable {
    public let call: String
    public let errno: Int32

    public init(call: String, errno: Int32) {
        (self.call, self.errno) = (call, errno)
    }

    public var description: String {
        "'\(call)' failed: (\(errno)) \(String(cString: strerror(errno)))"
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
        let result = body()
        if result >= 0 { return }
        throw SystemError(call: call(), errno: result == -1 ? Glibc.errno : -result)
    }

    /// Calls that return NULL on failure with errno set (drmModeGetResources...).
    public static func pointer<T>(_ call: @autoclosure () -> String, _ body: () -> T?) throws(SystemError) -> T {
        Glibc.errno = 0
        guard let value = body() else {
            let code = Glibc.errno
            throw SystemError(call: call(), errno: code == 0 ? ENODEV : code)
        }
        return value
    }
}
