import Synchronization

/// Work that must never take a core from the frames (a snapshot's PNG, a
/// megabyte request line), run in order on one thread of its own at a
/// lower priority. The thread exists while there is work: it starts with
/// the first job and ends when none is left, so an idle daemon (and a test
/// that makes many) keeps no thread for it.
public final class BackgroundLane: Sendable {
    public typealias Job = @Sendable () -> Void

    private struct Jobs {
        var waiting: [Job] = []
        var running = false
    }

    private let jobs = Mutex(Jobs())
    private let name: String
    private let niceness: Int32

    /// `name`: the thread's (top -H, ps -L); `niceness`: how much lower
    /// than the daemon's it runs (10 by default).
    public init(name: String, niceness: Int32 = 10) {
        (self.name, self.niceness) = (name, niceness)
    }

    /// Runs `job` after the jobs before it, on the lane's thread.
    public func submit(_ job: @escaping Job) {
        let startThread = jobs.withLock { jobs in
            jobs.waiting.append(job)
            defer { jobs.running = true }
            return !jobs.running
        }
        guard startThread else { return }
        DetachedThread.start(name: name) { [self] in
            if niceness > 0 { try? ThreadPriority.lowerCallingThread(by: niceness) }   // best effort: the frames come first
            while let job = next() { job() }
        }
    }

    private func next() -> Job? {
        jobs.withLock { jobs in
            guard !jobs.waiting.isEmpty else {
                jobs.running = false
                return nil
            }
            return jobs.waiting.removeFirst()
        }
    }
}
