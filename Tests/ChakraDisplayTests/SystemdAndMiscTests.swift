import ChakraSystem
import Foundation
import Glibc
import Testing
@testable import ChakraDisplay

@Suite("sd_notify")
struct NotifyTests {
    @Test func messages() {
        #expect(NotifyMessage.datagram([.ready, .status("heart, 60.0 fps")]) == "READY=1\nSTATUS=heart, 60.0 fps")
        #expect(NotifyMessage.watchdog.assignment == "WATCHDOG=1")
        #expect(NotifyMessage.stopping.assignment == "STOPPING=1")
        #expect(NotifyMessage.status("two\nlines").assignment == "STATUS=two lines")
        #expect(NotifyMessage.extendTimeout(seconds: 90).assignment == "EXTEND_TIMEOUT_USEC=90000000")
        #expect(NotifyMessage.extendTimeout(seconds: -1).assignment == "EXTEND_TIMEOUT_USEC=0")
    }

    @Test func addresses() {
        #expect(NotifyAddress(environmentValue: "/run/systemd/notify")?.pathBytes == Array("/run/systemd/notify".utf8))
        let abstract = NotifyAddress(environmentValue: "@/org/freedesktop/systemd1/notify/123")
        #expect(abstract?.isAbstract == true)
        #expect(abstract?.pathBytes.first == 0)
        #expect(abstract?.pathBytes.count == "@/org/freedesktop/systemd1/notify/123".utf8.count)
        #expect(NotifyAddress(environmentValue: nil) == nil)
        #expect(NotifyAddress(environmentValue: "") == nil)
        #expect(NotifyAddress(environmentValue: "@") == nil)
        #expect(NotifyAddress(environmentValue: "relative/path") == nil)
        #expect(NotifyAddress(environmentValue: "/" + String(repeating: "a", count: 120)) == nil)
    }

    @Test func watchdog() {
        #expect(WatchdogPolicy.pingInterval(usec: "10000000", pid: nil, ownPID: 7) == 5)
        #expect(WatchdogPolicy.pingInterval(usec: "10000000", pid: "7", ownPID: 7) == 5)
        #expect(WatchdogPolicy.pingInterval(usec: "10000000", pid: "8", ownPID: 7) == nil)
        #expect(WatchdogPolicy.pingInterval(usec: "0", pid: nil, ownPID: 7) == nil)
        #expect(WatchdogPolicy.pingInterval(usec: "soon", pid: nil, ownPID: 7) == nil)
        #expect(WatchdogPolicy.pingInterval(usec: nil, pid: nil, ownPID: 7) == nil)
        // From the environment, so any number: no spinning, no trap.
        #expect(WatchdogPolicy.pingInterval(usec: "1", pid: nil, ownPID: 7) == WatchdogPolicy.shortestInterval)
        #expect(WatchdogPolicy.pingInterval(usec: "18446744073709551615", pid: nil, ownPID: 7) == Double(UInt64.max) / 2_000_000)
        #expect(WatchdogPolicy.pingInterval(usec: "18446744073709551616", pid: nil, ownPID: 7) == nil)
        #expect(WatchdogPolicy.pingInterval(usec: "-5", pid: nil, ownPID: 7) == nil)
    }

    /// The real datagram path: a socket bound where $NOTIFY_SOCKET points.
    @Test func datagramArrives() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("chakra-notify-\(getpid())").path
        unlink(path)
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        #expect(fd >= 0)
        defer { close(fd); unlink(path) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in path.utf8.enumerated() { raw[i] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0)
        let notifier = try #require(SystemdNotifier(environment: ["NOTIFY_SOCKET": path, "WATCHDOG_USEC": "4000000"], logger: Logger(label: "test")))
        #expect(notifier.watchdogInterval == 2)
        notifier.send(.ready, .status("heart"))
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        #expect(count > 0)
        #expect(String(decoding: buffer.prefix(max(count, 0)), as: UTF8.self) == "READY=1\nSTATUS=heart")
        #expect(SystemdNotifier(environment: [:], logger: Logger(label: "test")) == nil)
    }
}

@Suite("Output choice, uevents, terminals, recovery")
struct MiscLogicTests {
    struct Refused: Error, CustomStringConvertible { let description: String }

    @Test func autoTriesEachInOrder() throws {
        var tried: [OutputKind] = []
        let (chosen, skipped) = try OutputSelection.open(.auto) { kind -> OutputKind in
            tried.append(kind)
            if kind == .drm { throw Refused(description: "no DRM device") }
            if kind == .fbdev { throw Refused(description: "no /dev/fb0") }
            return kind
        }
        #expect(tried == [.drm, .fbdev, .headless])
        #expect(chosen == .headless)
        #expect(skipped.map(\.description) == ["drm skipped: no DRM device", "fbdev skipped: no /dev/fb0"])
    }

    @Test func autoStopsAtTheFirstThatOpens() throws {
        let (chosen, skipped) = try OutputSelection.open(.auto) { kind in kind }
        #expect(chosen == .drm)
        #expect(skipped.isEmpty)
    }

    @Test func explicitOutputFailsWithItsOwnError() {
        #expect(throws: Refused.self) {
            try OutputSelection.open(.fbdev) { (_: OutputKind) -> Int in throw Refused(description: "no /dev/fb0") }
        }
    }

    @Test func deviceNodesNameTheirBackend() {
        #expect(OutputKind.owning(device: "/dev/dri/card1") == .drm)
        #expect(OutputKind.owning(device: "/dev/fb0") == .fbdev)
        #expect(OutputKind.owning(device: "fb2") == .fbdev)
        #expect(OutputKind.owning(device: "/dev/ttyS0") == nil)
    }

    @Test func uevents() {
        let bytes = Array("change@/devices/pci0000:00/0000:00:02.0/drm/card0\0ACTION=change\0DEVPATH=/devices/pci0000:00/0000:00:02.0/drm/card0\0SUBSYSTEM=drm\0HOTPLUG=1\0DEVNAME=dri/card0\0SEQNUM=1234\0".utf8)
        let event = Uevent(datagram: bytes)
        #expect(event?.action == "change")
        #expect(event?.devicePath == "/devices/pci0000:00/0000:00:02.0/drm/card0")
        #expect(event?.properties["SEQNUM"] == "1234")
        #expect(event?.isDRMHotplug == true)
        #expect(Uevent(datagram: Array("add@/devices/virtual/input/input9\0SUBSYSTEM=input\0".utf8))?.isDRMHotplug == false)
        #expect(Uevent(datagram: Array("libudev\0\u{1}\u{2}".utf8)) == nil)
        #expect(Uevent(datagram: [UInt8]()) == nil)
    }

    @Test func terminals() throws {
        #expect(try TerminalRequest(parsing: "auto") == .auto)
        #expect(try TerminalRequest(parsing: "NONE") == .none)
        #expect(try TerminalRequest(parsing: "7") == .number(7))
        #expect(throws: DisplayError.self) { try TerminalRequest(parsing: "0") }
        #expect(throws: DisplayError.self) { try TerminalRequest(parsing: "64") }
        #expect(throws: DisplayError.self) { try TerminalRequest(parsing: "tty1") }
        #expect(TerminalRequest.consoleNumber(major: 4, minor: 1) == 1)
        #expect(TerminalRequest.consoleNumber(major: 4, minor: 63) == 63)
        #expect(TerminalRequest.consoleNumber(major: 4, minor: 0) == nil)     // tty0
        #expect(TerminalRequest.consoleNumber(major: 4, minor: 64) == nil)    // ttyS0
        #expect(TerminalRequest.consoleNumber(major: 136, minor: 1) == nil)   // a pty
    }

    @Test func recoveryByErrno() {
        #expect(FlipRecovery(errno: EBUSY) == .retryLater)
        #expect(FlipRecovery(errno: EACCES) == .regainMaster)
        #expect(FlipRecovery(errno: EPERM) == .regainMaster)
        #expect(FlipRecovery(errno: EINVAL) == .reprobe)
        #expect(FlipRecovery(errno: ENOENT) == .reprobe)
        #expect(FlipRecovery.retryLater.delay(refreshInterval: 0.02) == 0.02)
        #expect(FlipRecovery.regainMaster.delay(refreshInterval: 0.02) == 1)
    }

    @Test func flipsUnsupportedOnlyWhenTheDriverSaysSo() {
        #expect(FlipRecovery.flipsUnsupported(errno: EOPNOTSUPP, rejectionsAfterGoodModeset: 0))
        // EINVAL once may be a display unplugged between modeset and flip.
        #expect(!FlipRecovery.flipsUnsupported(errno: EINVAL, rejectionsAfterGoodModeset: 1))
        #expect(FlipRecovery.flipsUnsupported(errno: EINVAL, rejectionsAfterGoodModeset: 2))
        #expect(!FlipRecovery.flipsUnsupported(errno: EBUSY, rejectionsAfterGoodModeset: 5))
        #expect(!FlipRecovery.flipsUnsupported(errno: EACCES, rejectionsAfterGoodModeset: 5))
    }

    @Test func failureLogIsRateLimited() {
        var counter = FailureCounter()
        var logged: [Int] = []
        for n in 1...1000 where counter.record() { logged.append(n) }
        #expect(logged == [1, 10, 100, 1000])
        let total = counter.reset()
        #expect(total == 1000)
        let first = counter.record()
        #expect(first)
    }

    @Test func syscallErrorsNameTheCall() {
        #expect(SystemError(call: "drmModeAddFB2", errno: EINVAL).description == "'drmModeAddFB2' failed: (22) Invalid argument")
        #expect(throws: SystemError(call: "open(/nonexistent/fb9)", errno: ENOENT)) {
            try Syscall.check("open(/nonexistent/fb9)", { open("/nonexistent/fb9", O_RDWR) })
        }
        // libdrm: -errno, or -1 with errno set (then -1 is not -EPERM).
        #expect(throws: SystemError(call: "flip", errno: EBUSY)) { try Syscall.drm("flip", { -EBUSY }) }
        #expect(throws: SystemError(call: "cap", errno: EINVAL)) { try Syscall.drm("cap", { Glibc.errno = EINVAL; return -1 }) }
    }
}
