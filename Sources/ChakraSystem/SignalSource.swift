import CLinuxKernel
import Glibc

/// Signals read from a signalfd in the poll loop, so that no work happens in
/// a signal handler (VT switches, SIGTERM, SIGHUP).
///
/// The signals are blocked in the calling thread, and every thread started
/// later inherits the mask: create this before any thread exists (before a
/// scene's worker pool), or a process-directed signal may be delivered to a
/// thread that does not block it and take its default action.
/// Owns the descriptor until deinit; the signals stay blocked.
public final class SignalSource {
    public let descriptor: Int32

    public init(signals: [Int32]) throws(SystemError) {
        var mask = sigset_t()
        sigemptyset(&mask)
        for signal in signals { sigaddset(&mask, signal) }
        let result = pthread_sigmask(SIG_BLOCK, &mask, nil)
        guard result == 0 else { throw SystemError(call: "pthread_sigmask", errno: result) }
        descriptor = try Syscall.check("signalfd", { signalfd(-1, &mask, Int32(SFD_NONBLOCK | SFD_CLOEXEC)) })
    }

    deinit { close(descriptor) }

    /// Calls `handle` with each pending signal number; returns when drained.
    public func drain(_ handle: (Int32) -> Void) {
        var info = signalfd_siginfo()
        let size = MemoryLayout<signalfd_siginfo>.size
        while read(descriptor, &info, size) == size {
            handle(Int32(info.ssi_signo))
        }
    }
}
