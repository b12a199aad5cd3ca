import Foundation

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
    private let done = DispatchSemaphore(value: 0)
    private nonisolated(unsafe) var job: PartitionedJob?

    private final class Worker: @unchecked Sendable {
        let start = DispatchSemaphore(value: 0)
        var thread: Thread?
    }

    public init(threads: Int) {
        threadCount = max(1, threads)
        for index in 1..<threadCount {
            let worker = Worker()
            let thread = Thread { [unowned self] in
                while true {
                    worker.start.wait()
                    guard let job = self.job else { return }
                    job.run(part: index, of: self.threadCount)
                    self.done.signal()
                }
            }
            thread.stackSize = 1 << 20
            thread.start()
            worker.thread = thread
            workers.append(worker)
        }
    }

    deinit {
        job = nil
        for worker in workers { worker.start.signal() }
    }

    /// Runs every part of `job`, part 0 on the calling thread, and returns
    /// when all are done.
    public func run(_ job: PartitionedJob) {
        self.job = job
        for worker in workers { worker.start.signal() }
        job.run(part: 0, of: threadCount)
        for _ in workers { done.wait() }
    }

    public static var coreCount: Int { ProcessInfo.processInfo.activeProcessorCount }
}
