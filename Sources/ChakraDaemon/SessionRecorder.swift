import ChakraConfig
import ChakraSchedule
import ChakraSessions
import ChakraSystem
import Synchronization

/// The session records, for the frame loop: `record(_:)` returns at once;
/// a thread of its own ("chakra-sessions") opens the log, appends each
/// record and syncs it (an fdatasync on an SD card can take longer than a
/// frame, and a record is written just as the celebration plays), then
/// posts the outcome, which `descriptor` (an eventfd) announces to the
/// loop. The per-day history `stats` answers from is kept here, behind a
/// lock, so the control socket's thread reads it without the loop.
///
/// Compaction (retention, the size bound) runs on the same thread: after
/// the log is opened, after each append, and once an hour when idle.
public final class SessionRecorder: Sendable {
    public let path: String
    private let mailbox: Mailbox

    /// Readable while outcomes wait for `takeOutcomes()`.
    public var descriptor: Int32 { mailbox.done.descriptor }

    /// One record's fate: on the disk, or why not.
    public struct Outcome: Sendable {
        public var record: SessionRecord
        /// nil: written and synced.
        public var error: String?
    }

    /// What `stats` is answered from.
    public enum Contents: Sendable {
        /// The file is being read (just after start).
        case loading
        case ready(SessionHistory, damagedLines: Int)
        /// The file cannot be used; records are not kept.
        case failed(String)
    }

    /// Starts the thread for `settings.file`; nil when sessions are not
    /// recorded (`file = ""`). Call it after the signals are blocked, like
    /// anything that starts a thread.
    public static func start(_ settings: ChakraConfig.Sessions, logger: Logger) throws(SystemError) -> SessionRecorder? {
        guard let path = settings.file else {
            logger.info("sessions: not recorded ([sessions] file is empty)")
            return nil
        }
        return try SessionRecorder(path: path, retention: Self.retention(settings), logger: logger)
    }

    static func retention(_ settings: ChakraConfig.Sessions) -> SessionRetention {
        SessionRetention(retentionDays: settings.retentionDays, maxBytes: settings.maxSize)
    }

    init(path: String, retention: SessionRetention, logger: Logger) throws(SystemError) {
        self.path = path
        mailbox = try Mailbox(retention: retention)
        DetachedThread.start(name: "chakra-sessions") { [mailbox] in
            Self.serve(path: path, mailbox: mailbox, logger: logger)
        }
    }

    deinit { close() }

    /// Queues `record` for the disk. Returns at once.
    public func record(_ record: SessionRecord) {
        let refused = mailbox.state.withLock { state -> Bool in
            // The thread has ended: the outcome is known now.
            if let problem = state.unusable {
                state.outcomes.append(Outcome(record: record, error: problem))
                return true
            }
            state.queue.append(record)
            return false
        }
        if refused { mailbox.done.signal() } else { mailbox.requests.signal() }
    }

    /// The outcomes since the last call, oldest first.
    public func takeOutcomes() -> [Outcome] {
        mailbox.done.drain()
        return mailbox.state.withLock { state in
            defer { state.outcomes.removeAll() }
            return state.outcomes
        }
    }

    /// New bounds (a reload): applied at the next compaction check.
    public func update(_ settings: ChakraConfig.Sessions) {
        mailbox.state.withLock { $0.retention = Self.retention(settings) }
        mailbox.requests.signal()
    }

    /// The history, as the thread last left it.
    public var contents: Contents { mailbox.state.withLock { $0.contents } }

    /// Stops the thread once the records queued are written, waiting up to
    /// `timeout` seconds for that (chakrad's exit: the session a SIGTERM
    /// interrupted is recorded). Later records are dropped.
    public func close(timeout: Double = 0) {
        mailbox.state.withLock { $0.stopping = true }
        mailbox.requests.signal()
        guard timeout > 0 else { return }
        let poller = Poller(descriptors: [mailbox.stopped.descriptor])
        _ = try? poller.wait(timeout: timeout)
    }

    // MARK: the thread

    /// The thread's whole life: open the log, then write what is queued,
    /// compacting when due, until told to stop.
    private static func serve(path: String, mailbox: Mailbox, logger: Logger) {
        defer { mailbox.stopped.signal() }
        let zone = SystemTimeZone()
        let log: SessionLog
        var damagedLines = 0
        do {
            let retention = mailbox.state.withLock { $0.retention }
            let opened = try SessionLog.open(path: path, retention: retention)
            log = opened.log
            damagedLines = opened.recovery.damagedLines
            logger.info("sessions: \(path): \(opened.recovery)")
            let history = SessionHistory(records: opened.records, in: zone)
            mailbox.state.withLock { $0.contents = .ready(history, damagedLines: damagedLines) }
        } catch {
            logger.error("sessions: \(path): \(error); sessions are not recorded")
            fail(mailbox, because: "\(error)")
            return
        }
        compact(log, zone: zone, mailbox: mailbox, logger: logger)
        let poller = Poller(descriptors: [mailbox.requests.descriptor])
        while true {
            // Awake once an hour at least: retention drops old records on
            // a kiosk nobody uses any more.
            do { try poller.wait(timeout: 3600) } catch {
                logger.error("sessions: the writer thread stops: \(error)")
                fail(mailbox, because: "the writer thread stopped: \(error)")
                return
            }
            mailbox.requests.drain()
            let (queue, stopping, retention) = mailbox.state.withLock { state in
                defer { state.queue.removeAll() }
                return (state.queue, state.stopping, state.retention)
            }
            log.retention = retention
            for record in queue {
                var outcome = Outcome(record: record)
                do {
                    try log.append(record)
                    mailbox.state.withLock { state in
                        if case .ready(var history, let damaged) = state.contents {
                            history.add(record, in: zone)
                            state.contents = .ready(history, damagedLines: damaged)
                        }
                    }
                } catch {
                    logger.error("sessions: \(path): a record could not be written: \(error)")
                    outcome.error = "\(error)"
                }
                mailbox.state.withLock { $0.outcomes.append(outcome) }
                mailbox.done.signal()
            }
            compact(log, zone: zone, mailbox: mailbox, logger: logger)
            if stopping { return }
        }
    }

    /// A compaction when due; the history then is that of the records kept.
    private static func compact(_ log: SessionLog, zone: SystemTimeZone, mailbox: Mailbox, logger: Logger) {
        do {
            guard let done = try log.compactIfDue(now: WallClock.now()) else { return }
            logger.info("sessions: \(log.path): \(done)")
            let history = SessionHistory(records: done.kept, in: zone)
            mailbox.state.withLock { $0.contents = .ready(history, damagedLines: 0) }
        } catch {
            logger.error("sessions: \(log.path): compaction failed: \(error); tried again in an hour")
        }
    }

    /// The log cannot be used: every record queued now or later fails.
    private static func fail(_ mailbox: Mailbox, because problem: String) {
        mailbox.state.withLock { state in
            state.contents = .failed(problem)
            state.unusable = problem
            state.outcomes += state.queue.map { Outcome(record: $0, error: problem) }
            state.queue.removeAll()
        }
        mailbox.done.signal()
    }

    /// What the two threads share.
    private final class Mailbox: Sendable {
        struct State: Sendable {
            var queue: [SessionRecord] = []
            var outcomes: [Outcome] = []
            var retention: SessionRetention
            var contents = Contents.loading
            var stopping = false
            /// Set when the log cannot be used (records then fail at once).
            var unusable: String?
        }

        let state: Mutex<State>
        /// The loop to the thread: a record (or a stop) is waiting.
        let requests: Wakeup
        /// The thread to the loop: an outcome is waiting.
        let done: Wakeup
        /// The thread has ended.
        let stopped: Wakeup

        init(retention: SessionRetention) throws(SystemError) {
            state = Mutex(State(retention: retention))
            requests = try Wakeup()
            done = try Wakeup()
            stopped = try Wakeup()
        }
    }
}
