import Glibc

/// A reader that goes away must not take chakrad with it.
///
/// By default a write(2) to a pipe or socket whose reader is gone raises
/// SIGPIPE, and SIGPIPE ends the process. chakrad's log goes to standard
/// error, which may be such a pipe (`chakrad run 2>&1 | logger`, a
/// supervisor other than systemd, whose IgnoreSIGPIPE= hides this): the
/// next log line after the reader exited killed the daemon, left its
/// socket file behind and the screen dark. Ignored, the write fails with
/// EPIPE instead, and every writer already treats a failed write as
/// harmless (the logger drops the line; the control socket sends with
/// MSG_NOSIGNAL anyway). The disposition is the process's, so this holds
/// for every thread, those started before as well as after.
public enum BrokenPipes {
    /// Ignores SIGPIPE for the whole process. Call it first thing in a
    /// command that runs long and must outlive its readers.
    public static func ignore() throws(SystemError) {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = SIG_IGN
        sigemptyset(&action.sa_mask)
        try Syscall.check("sigaction(SIGPIPE)") { sigaction(SIGPIPE, &action, nil) }
    }
}
