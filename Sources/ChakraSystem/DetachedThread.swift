import CLinuxKernel
import Glibc

/// A named POSIX thread that runs one closure to its end and is never
/// joined. Foundation's Thread does the same but brings all of Foundation
/// (and its locale data, tens of megabytes) into a static binary. Where
/// a thread's end matters, it is a `MailboxThread`, whose `stop` waits
/// for its closure to return.
public enum DetachedThread {
    /// Starts `body` on a new thread called `name` (at most 15 bytes are
    /// kept). A thread that cannot be started is a fatal error: the daemon
    /// cannot run without its control thread.
    public static func start(name: String, stackSize: Int = 1 << 20, _ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Body(name: name, run: body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, stackSize)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        let status = pthread_create(&thread, &attributes, { raw in
            let body = Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue()
            _ = CLinux_set_thread_name(String(body.name.utf8.prefix(15)) ?? "chakra")
            body.run()
            return nil
        }, box)
        if status != 0 {
            Unmanaged<Body>.fromOpaque(box).release()
            fatalError("cannot start the thread '\(name)': \(String(cString: strerror(status)))")
        }
    }

    private final class Body: @unchecked Sendable {
        let name: String
        let run: @Sendable () -> Void
        init(name: String, run: @escaping @Sendable () -> Void) { (self.name, self.run) = (name, run) }
    }
}
