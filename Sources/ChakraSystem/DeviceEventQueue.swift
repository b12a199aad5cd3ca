import Glibc

/// udev's queue of device events, read as `udevadm settle` reads it:
/// systemd-udevd keeps the file /run/udev/queue while it has events it has
/// not finished. At boot those are the coldplug of every device, the
/// loading of driver modules among them: a kiosk's screen driver (vc4 on a
/// Raspberry Pi, virtio-gpu, most DRM drivers) is a module, and a daemon
/// started before udev got to it finds no /dev/dri/card* yet. Waiting for
/// the queue only when no display was found costs a boot nothing where the
/// driver is ready (systemd-udev-settle.service, which does the same for
/// every boot, is deprecated).
public struct DeviceEventQueue: Sendable {
    /// systemd-udevd's.
    public static let udev = DeviceEventQueue(marker: "/run/udev/queue")

    /// The file whose existence means "events pending".
    public let marker: String

    public init(marker: String) {
        self.marker = marker
    }

    /// Whether events are pending now (no udev, no file: none).
    public var isBusy: Bool { access(marker, F_OK) == 0 }

    /// Waits until no event is pending or `limit` seconds have passed, on
    /// inotify over the marker's directory (the marker deleted or renamed,
    /// the directory gone), not by polling. True when the queue is empty.
    /// Runs once at start, before the frame loop: it may allocate.
    public func waitUntilIdle(limit: Double) -> Bool {
        guard isBusy else { return true }
        let deadline = MonotonicClock.now() + max(limit, 0)
        let directory = marker.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        guard let watcher = try? Syscall.check("inotify_init1", { inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC)) }) else {
            return !isBusy
        }
        defer { _ = Descriptor.close(watcher) }
        let mask = UInt32(IN_DELETE | IN_MOVED_FROM | IN_DELETE_SELF | IN_MOVE_SELF)
        guard (try? Syscall.check("inotify_add_watch(\(directory))", { inotify_add_watch(watcher, directory.isEmpty ? "/" : directory, mask) })) != nil else {
            return !isBusy
        }
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 4096, alignment: 8)
        defer { buffer.deallocate() }
        // Checked again after the watch is in place: the marker may have
        // gone between the first look and the watch.
        while isBusy {
            let left = deadline - MonotonicClock.now()
            if left <= 0 { return false }
            var fds = [pollfd(fd: watcher, events: Int16(POLLIN), revents: 0)]
            let milliseconds = Int32(min((left * 1000).rounded(.up), 3_600_000))
            guard (try? Poller.wait(&fds, milliseconds: milliseconds)) != nil else { return !isBusy }
            // What happened matters less than whether the marker is still
            // there: read the events away and look.
            while let count = try? Descriptor.read(watcher, into: buffer, count: 4096), count > 0 {}
        }
        return true
    }
}
