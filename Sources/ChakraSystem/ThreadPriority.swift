import CLinuxKernel
import Glibc

/// The calling thread's scheduling priority, for work that must never take
/// a core from the frames (a snapshot's PNG on a 2-core board).
public enum ThreadPriority {
    /// Lowers the calling thread alone (Linux's nice is per thread) by
    /// `steps` (1–19). Raising the nice value needs no privilege, and it
    /// cannot be undone without one: call it only on a thread that keeps
    /// to such work.
    public static func lowerCallingThread(by steps: Int32) throws(SystemError) {
        let thread = id_t(CLinux_gettid())
        try Syscall.check("setpriority(thread \(thread), +\(steps))") {
            setpriority(__priority_which_t(PRIO_PROCESS.rawValue), thread, min(19, getpriority(__priority_which_t(PRIO_PROCESS.rawValue), thread) + steps))
        }
    }
}
