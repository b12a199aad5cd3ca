import CDRM
import ChakraSystem
import Glibc

/// An open DRM device node (/dev/dri/cardN): capabilities and DRM master.
/// Owns the descriptor from init to deinit; everything made on it (dumb
/// buffers, framebuffers, blobs) must be released before it is.
public final class DRMDevice {
    public let path: String
    public let fd: Int32

    /// Non-blocking, for the events read from it: the loop reads them when
    /// poll(2) says so, but a flip completed in the same turn before that
    /// (waiting for it before a power-down) leaves the readiness stale, and
    /// a blocking read would then wait forever. Ioctls are not affected.
    public init(path: String) throws(SystemError) {
        self.path = path
        fd = try Syscall.check("open(\(path))", { open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK) })
    }

    /// A descriptor of the device passed by systemd (`drm`, a restarted
    /// daemon's: still DRM master, its picture on screen): owned from now
    /// on, made non-blocking as `init(path:)` opens it.
    public init(adopting fd: Int32) throws(SystemError) {
        let flags = try Syscall.check("fcntl(F_GETFL, drm fd \(fd))") { fcntl(fd, F_GETFL) }
        _ = try Syscall.check("fcntl(F_SETFL, drm fd \(fd))") { fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
        self.fd = fd
        path = Self.path(of: fd) ?? "fd \(fd)"
    }

    /// The device node a descriptor was opened on (/proc/self/fd).
    static func path(of fd: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        let length = readlink("/proc/self/fd/\(fd)", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    deinit { Descriptor.close(fd) }

    /// DRM_CAP_* value, or nil when the kernel does not know the capability.
    public func capability(_ capability: Int32) -> UInt64? {
        var value: UInt64 = 0
        return drmGetCap(fd, UInt64(capability), &value) == 0 ? value : nil
    }

    /// Opts in to a client capability (universal planes, atomic).
    public func enable(_ capability: Int32) -> Bool {
        drmSetClientCap(fd, UInt64(capability), 1) == 0
    }

    public var isMaster: Bool { drmIsMaster(fd) != 0 }

    /// Takes DRM master, unless this descriptor has it already. Root may take
    /// it any time; since Linux 5.10 an unprivileged process may take it back
    /// on the descriptor that had it (after a VT switch).
    public func becomeMaster() throws(SystemError) {
        if isMaster { return }
        try Syscall.drm("drmSetMaster", { drmSetMaster(fd) })
    }

    public func dropMaster() {
        if isMaster { _ = drmDropMaster(fd) }
    }

    /// /dev/dri/card0 ... card15 that exist, in order.
    public static func cardPaths() -> [String] {
        (0..<16).map { "/dev/dri/card\($0)" }.filter { access($0, F_OK) == 0 }
    }
}
