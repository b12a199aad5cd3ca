import Foundation
import Testing
@testable import ChakraRaster

/// Records which parts ran and with what part count.
final class RecordingJob: PartitionedJob, @unchecked Sendable {
    let lock = NSLock()
    var calls: [(part: Int, parts: Int)] = []
    func run(part: Int, of parts: Int) {
        lock.lock(); defer { lock.unlock() }
        calls.append((part, parts))
    }
}

enum SharedPools {
    /// One pool shared by the tests that only use it.
    static let three = WorkerPool(threads: 3)
}

@Suite("Worker pool")
struct WorkerPoolTests {
    @Test("every part runs exactly once per run, and runs can repeat")
    func partsRunOnce() {
        let pool = SharedPools.three
        #expect(pool.threadCount == 3)
        for _ in 0..<20 {
            let job = RecordingJob()
            pool.run(job)
            #expect(job.calls.map(\.part).sorted() == [0, 1, 2])
            #expect(job.calls.allSatisfy { $0.parts == 3 })
        }
    }

    @Test("a single-thread pool runs part 0 on the caller")
    func singleThread() {
        let pool = WorkerPool(threads: 0)
        #expect(pool.threadCount == 1)
        let job = RecordingJob()
        pool.run(job)
        #expect(job.calls.count == 1 && job.calls[0] == (0, 1))
    }

    @Test("fewer active threads: only those parts run, and they are told how many")
    func activeThreads() {
        let pool = WorkerPool(threads: 3)
        pool.activeThreads = 2
        let job = RecordingJob()
        pool.run(job)
        #expect(job.calls.map(\.0).sorted() == [0, 1] && job.calls.allSatisfy { $0.1 == 2 })
        pool.activeThreads = 9   // clamped to the pool
        #expect(pool.activeThreads == 3)
        let all = RecordingJob()
        pool.run(all)
        #expect(all.calls.map(\.0).sorted() == [0, 1, 2] && all.calls.allSatisfy { $0.1 == 3 })
        pool.activeThreads = 0
        #expect(pool.activeThreads == 1)
    }

    // Regression: the pool's threads used to read `self.job` through an
    // `unowned` reference after deinit had woken them, trapping with
    // "Attempted to read an unowned reference but object … was already destroyed".
    @Test("releasing a pool with threads is safe")
    func releasingAPool() {
        for _ in 0..<3 {
            let pool = WorkerPool(threads: 2)
            pool.run(RecordingJob())
        }
        Thread.sleep(forTimeInterval: 0.2)  // let the woken threads run
    }
}
