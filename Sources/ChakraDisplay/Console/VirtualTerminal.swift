import CLinuxKernel
import ChakraSystem
import Glibc

/// The virtual terminal the daemon shows its frames on.
///
/// While running: KD_GRAPHICS (the console stops drawing text over the
/// frames and hides its cursor) and VT_PROCESS mode, so a VT switch asks us
/// first: the kernel sends `releaseSignal` and waits for VT_RELDISP before
/// switching away, and sends `acquireSignal` when the VT is back. The
/// signals arrive through the loop's signalfd; nothing runs in a handler.
///
/// On every exit path the console gets KD_TEXT and VT_AUTO back: `restore()`
/// from the daemon's shutdown, deinit as a fallback, and a crash handler
/// (SIGSEGV, SIGILL from a Swift trap, SIGABRT...) that makes the one ioctl.
/// Owns the tty descriptor until deinit.
public final class VirtualTerminal {
    public let number: Int
    private let fd: Int32
    private let logger: Logger
    private var savedMode = vt_mode()
    private var inGraphics = false
    /// The picture stays for the next process (docs/seams.md): no KD_TEXT
    /// at exit or in a crash, which would let the console take the screen.
    private var keepsGraphics = false

    /// The VT to take, or nil (not on one, or `--vt none`). A numbered VT is
    /// brought to the front first.
    public static func open(_ request: TerminalRequest, logger: Logger) throws -> VirtualTerminal? {
        switch request {
        case .none:
            return nil
        case .auto:
            var status = stat()
            guard fstat(STDIN_FILENO, &status) == 0,
                  let number = TerminalRequest.consoleNumber(major: CLinux_major(status.st_rdev), minor: CLinux_minor(status.st_rdev)),
                  (status.st_mode & S_IFMT) == S_IFCHR else {
                logger.debug("vt: standard input is not a virtual terminal; leaving the console alone")
                return nil
            }
            return try VirtualTerminal(number: number, activate: false, logger: logger)
        case .number(let number):
            return try VirtualTerminal(number: number, activate: true, logger: logger)
        }
    }

    init(number: Int, activate: Bool, logger: Logger) throws {
        self.number = number
        self.logger = logger
        let path = "/dev/tty\(number)"
        fd = try Syscall.check("open(\(path))", { Glibc.open(path, O_RDWR | O_NOCTTY | O_CLOEXEC) })
        if activate, !isActive {
            do {
                try Syscall.check("VT_ACTIVATE", { CLinux_ioctl_value(fd, UInt(VT_ACTIVATE), UInt(number)) })
                try Syscall.check("VT_WAITACTIVE", { CLinux_ioctl_value(fd, UInt(VT_WAITACTIVE), UInt(number)) })
            } catch {
                Descriptor.close(fd)
                throw error
            }
        }
    }

    deinit {
        restore()
        Descriptor.close(fd)
    }

    /// True when this VT is the one on screen.
    public var isActive: Bool {
        var state = vt_stat()
        return CLinux_ioctl_pointer(fd, UInt(VT_GETSTATE), &state) == 0 && Int(state.v_active) == number
    }

    /// KD_GRAPHICS and VT_PROCESS switching with the given signals.
    public func enterGraphics(releaseSignal: Int32, acquireSignal: Int32) throws {
        try Syscall.check("VT_GETMODE", { CLinux_ioctl_pointer(fd, UInt(VT_GETMODE), &savedMode) })
        CLinux_restore_console_on_crash(fd)
        inGraphics = true
        do {
            try Syscall.check("KDSETMODE(KD_GRAPHICS)", { CLinux_ioctl_value(fd, UInt(KDSETMODE), UInt(KD_GRAPHICS)) })
            var mode = vt_mode()
            mode.mode = CChar(VT_PROCESS)
            mode.relsig = Int16(releaseSignal)
            mode.acqsig = Int16(acquireSignal)
            try Syscall.check("VT_SETMODE(VT_PROCESS)", { CLinux_ioctl_pointer(fd, UInt(VT_SETMODE), &mode) })
        } catch {
            restore()
            throw error
        }
        logger.info("vt: took /dev/tty\(number) (graphics mode, VT switches by signal)")
    }

    /// Lets the switch away proceed (after the output let go of the screen).
    public func allowRelease() {
        if CLinux_ioctl_value(fd, UInt(VT_RELDISP), 1) != 0 {
            logger.warning("vt: \(SystemError(call: "VT_RELDISP(1)", errno: errno))")
        }
    }

    /// Acknowledges that the VT is ours again.
    public func acknowledgeAcquire() {
        if CLinux_ioctl_value(fd, UInt(VT_RELDISP), UInt(VT_ACKACQ)) != 0 {
            logger.debug("vt: \(SystemError(call: "VT_RELDISP(VT_ACKACQ)", errno: errno))")
        }
    }

    /// Under systemd with the screen's device stored (DRM or framebuffer):
    /// the last frame stays on screen after this process, so the VT stays in
    /// KD_GRAPHICS at exit and in a crash (KD_TEXT would let the console
    /// take the screen back). A stop for good gives it back without us:
    /// getty@tty1's TTYReset= puts the VT back in text mode (and on DRM the
    /// kernel restores the console's mode when systemd closes its copy of
    /// the device).
    public func keepGraphicsForNextProcess() {
        keepsGraphics = true
        CLinux_restore_console_on_crash(-1)
    }

    /// KD_TEXT (unless `keepGraphicsForNextProcess`) and the previous
    /// switching mode (VT_AUTO); idempotent.
    public func restore() {
        guard inGraphics else { return }
        inGraphics = false
        if savedMode.mode == CChar(VT_PROCESS) { savedMode.mode = CChar(VT_AUTO) }   // its owner is gone
        if CLinux_ioctl_pointer(fd, UInt(VT_SETMODE), &savedMode) != 0 {
            logger.warning("vt: \(SystemError(call: "VT_SETMODE(restore)", errno: errno))")
        }
        if keepsGraphics {
            logger.info("vt: /dev/tty\(number) left in graphics mode for the next process")
            return
        }
        if CLinux_ioctl_value(fd, UInt(KDSETMODE), UInt(KD_TEXT)) != 0 {
            logger.warning("vt: \(SystemError(call: "KDSETMODE(KD_TEXT)", errno: errno))")
        }
        CLinux_restore_console_on_crash(-1)
        logger.info("vt: /dev/tty\(number) back in text mode")
    }
}
