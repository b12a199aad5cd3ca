import CLinuxKernel
import ChakraSystem
import Glibc

/// Kernel uevents from a NETLINK_KOBJECT_UEVENT socket (multicast group 1,
/// the kernel's own; group 2 is udevd's re-broadcast): tells the DRM output
/// at once that a connector changed.
///
/// Optional by design: the socket cannot be opened under systemd's
/// RestrictAddressFamilies=AF_UNIX, and a daemon in its own network
/// namespace (PrivateNetwork=) receives no kernel uevents. The DRM output
/// then checks its connector every few seconds instead.
/// Owns the socket and its receive buffer until deinit.
public final class UeventMonitor {
    public let descriptor: Int32
    private let buffer: UnsafeMutableRawBufferPointer

    public init() throws(SystemError) {
        let fd = try Syscall.check("socket(AF_NETLINK)", {
            socket(AF_NETLINK, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), NETLINK_KOBJECT_UEVENT)
        })
        var address = sockaddr_nl()
        address.nl_family = sa_family_t(AF_NETLINK)
        address.nl_groups = 1
        do {
            try Syscall.check("bind(NETLINK_KOBJECT_UEVENT)") {
                withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_nl>.size)) }
                }
            }
        } catch {
            Descriptor.close(fd)
            throw error
        }
        descriptor = fd
        buffer = .allocate(byteCount: 8192, alignment: 8)
    }

    deinit {
        Descriptor.close(descriptor)
        buffer.deallocate()
    }

    /// Reads every queued uevent; true when one was a DRM hotplug.
    public func drainHotplug() -> Bool {
        var hotplug = false
        while true {
            guard let count = try? UnixSocket.receive(descriptor, into: buffer.baseAddress!, count: buffer.count) ?? 0, count > 0 else {
                return hotplug
            }
            if let event = Uevent(datagram: UnsafeRawBufferPointer(rebasing: buffer[0..<count])), event.isDRMHotplug {
                hotplug = true
            }
        }
    }
}
