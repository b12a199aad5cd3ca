import Dispatch
import Glibc

/// Work split across threads without allocating per frame: persistent
/// threads wait on semaphores; `run` hands each a part index.
///
/// Ownership: the pool owns its threads for its whole life; they are parked
/// while idle. `run` is not reentrant; call it from one thread.
public protocol PartitionedJob: AnyObject {
    func run(part: Int, of parts: Int)
}

public final class WorkerPool: @unchecked Sendable {
    public let threadCount: Int
    private var workers: [Worker] = []
    private let shared: Shared

    /// What the threads see. They hold it strongly and never the pool, so a
    /// pool may be freed while its threads are still waking up to quit.
    private final class Shared: @unchecked Sendable {
        let done = DispatchSemaphore(value: 0)
        var job: PartitionedJob?
        var parts = 1
        var stopping = false
    }

    private final class Worker: @unchecked Sendable {
        let start = DispatchSemaphore(value: 0)
    }

    public init(threads: Int) {
        threadCount = max(1, threads)
        let shared = Shared()
        self.shared = shared
        activeThreads = threadCount
        for index in 1..<threadCount {
            let worker = Worker()
            Self.startThread(stackSize: 1 << 20) {
                while true {
                    worker.start.wait()
                    if shared.stopping { return }
                    shared.job?.run(part: index, of: shared.parts)
                    shared.done.signal()
                }
            }
            workers.append(worker)
        }
    }

    /// A detached POSIX thread running `body` (Foundation's Thread would
    /// bring all of Foundation, and its locale data, into the binary).
    private static func startThread(stackSize: Int, _ body: @escaping @Sendable () -> Void) {
        final class Box: @unchecked Sendable { let body: @Sendable () -> Void; init(_ body: @escaping @Sendable () -> Void) { self.body = body } }
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, stackSize)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, &attributes, { raw in
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            box.body()
            return nil
        }, box)
        precondition(status == 0, "cannot start a render thread: \(String(cString: strerror(status)))")
    }

    deinit {
        shared.job = nil
        shared.stopping = true
        for worker in workers { worker.start.signal() }
    }

    /// How many threads `run` uses (1...threadCount; the rest stay parked).
    /// Fewer threads cost less CPU per frame (no hand-over); more finish a
    /// frame sooner.
    public var activeThreads: Int {
        didSet { activeThreads = min(max(activeThreads, 1), threadCount) }
    }

    /// Runs every part of `job`, part 0 on the calling thread, and returns
    /// when all are done.
    public func run(_ job: PartitionedJob) {
        let helpers = activeThreads - 1
        shared.job = job
        shared.parts = activeThreads
        for worker in workers[0..<helpers] { worker.start.signal() }
        job.run(part: 0, of: activeThreads)
        for _ in 0..<helpers { shared.done.wait() }
        shared.job = nil
    }

    /// The cores online. (Not this process's CPU affinity: a kiosk's
    /// daemon has the machine to itself; `[render] threads` pins a count.)
    public static var coreCount: Int { max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))) }
}
