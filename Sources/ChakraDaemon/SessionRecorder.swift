import ChakraConfig
import ChakraSchedule
import ChakraSessions
import ChakraSystem

/// The session records, for the frame loop: `record(_:)` returns at once;
/// a thread of its own ("chakra-sessions") opens the log, appends each
/// record and syncs it (an fdatasync on an SD card can take longer than a
/// frame, and a record is written just as the celebration plays), then
/// posts the outcome, which `descriptor` (its mailbox's eventfd) announces
/// to the loop. The per-day history `stats` answers from is kept beside
/// the outcomes, behind their lock, so the control socket's thread reads
/// it without the loop.
///
/// Compaction (retention, the size bound) runs on the same thread: after
/// the log is opened, after each append, and once an hour when idle.
public final class SessionRecorder: Sendable {
    public let path: String
    /// The loop to the thread: the records to write, the bounds, the stop.
    private let writer: MailboxThread<Requests>
    /// The thread to the loop (outcomes) and to `stats` (the history).
    private let results: Mailbox<Results>

    /// Readable while outcomes wait for `takeOutcomes()`.
    public var descriptor: Int32 { results.descriptor }

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
        writer = try MailboxThread(name: "chakra-sessions", mail: Requests(retention: retention))
        results = try Mailbox(Results())
        writer.start { [results] writer in
            Self.serve(path: path, writer: writer, results: results, logger: logger)
        }
    }

    deinit { close() }

    /// Queues `record` for the disk. Returns at once.
    public func record(_ record: SessionRecord) {
        let refusal = writer.post { requests -> String? in
            // The thread has ended: the outcome is known now.
            if let problem = requests.unusable { return problem }
            requests.queue.append(record)
            return nil
        }
        if let refusal { results.post { $0.outcomes.append(Outcome(record: record, error: refusal)) } }
    }

    /// The outcomes since the last call, oldest first.
    public func takeOutcomes() -> [Outcome] {
        results.take { results in
            defer { results.outcomes.removeAll() }
            return results.outcomes
        }
    }

    /// New bounds (a reload): applied at the next compaction check.
    public func update(_ settings: ChakraConfig.Sessions) {
        writer.post { $0.retention = Self.retention(settings) }
    }

    /// The history, as the thread last left it.
    public var contents: Contents { results.read { $0.contents } }

    /// Stops the thread once the records queued are written, waiting up to
    /// `timeout` seconds for that (chakrad's exit: the session a SIGTERM
    /// interrupted is recorded). Later records are dropped.
    public func close(timeout: Double = 0) {
        writer.stop(timeout: timeout)
    }

    // MARK: the thread

    /// The loop to the thread.
    private struct Requests: Sendable {
        var queue: [SessionRecord] = []
        var retention: SessionRetention
        /// Set when the log cannot be used (records then fail at once).
        var unusable: String?
    }

    /// The thread to the others. A change of the history alone (the log
    /// opened, a compaction) wakes the loop too, rarely: it takes no
    /// outcome then.
    private struct Results: Sendable {
        var outcomes: [Outcome] = []
        var contents = Contents.loading
    }

    /// The thread's whole life: open the log, then write what is queued,
    /// compacting when due, until told to stop. Each turn takes before it
    /// waits: what came while the log was opened is written at once.
    private static func serve(path: String, writer: MailboxThread<Requests>, results: Mailbox<Results>, logger: Logger) {
        let zone = SystemTimeZone()
        let log: SessionLog
        var damagedLines = 0
        do {
            let retention = writer.take { $0.retention }.taken
            let opened = try SessionLog.open(path: path, retention: retention)
            log = opened.log
            damagedLines = opened.recovery.damagedLines
            logger.info("sessions: \(path): \(opened.recovery)")
            let history = SessionHistory(records: opened.records, in: zone)
            results.post { $0.contents = .ready(history, damagedLines: damagedLines) }
        } catch {
            logger.error("sessions: \(path): \(error); sessions are not recorded")
            fail(writer, results, because: "\(error)")
            return
        }
        while true {
            let ((queue, retention), stopping) = writer.take { requests in
                defer { requests.queue.removeAll() }
                return (requests.queue, requests.retention)
            }
            log.retention = retention
            for record in queue {
                do {
                    try log.append(record)
                    results.post { results in
                        if case .ready(var history, let damaged) = results.contents {
                            history.add(record, in: zone)
                            results.contents = .ready(history, damagedLines: damaged)
                        }
                        results.outcomes.append(Outcome(record: record))
                    }
                } catch {
                    logger.error("sessions: \(path): a record could not be written: \(error)")
                    results.post { $0.outcomes.append(Outcome(record: record, error: "\(error)")) }
                }
            }
            compact(log, zone: zone, results: results, logger: logger)
            if stopping { return }
            // Awake once an hour at least: retention drops old records on
            // a kiosk nobody uses any more.
            do { try writer.waitForMail(timeout: 3600) } catch {
                logger.error("sessions: the writer thread stops: \(error)")
                fail(writer, results, because: "the writer thread stopped: \(error)")
                return
            }
        }
    }

    /// A compaction when due; the history then is that of the records kept.
    private static func compact(_ log: SessionLog, zone: SystemTimeZone, results: Mailbox<Results>, logger: Logger) {
        do {
            guard let done = try log.compactIfDue(now: WallClock.now()) else { return }
            logger.info("sessions: \(log.path): \(done)")
            let history = SessionHistory(records: done.kept, in: zone)
            results.post { $0.contents = .ready(history, damagedLines: 0) }
        } catch {
            logger.error("sessions: \(log.path): compaction failed: \(error); tried again in an hour")
        }
    }

    /// The log cannot be used: every record queued now or later fails.
    private static func fail(_ writer: MailboxThread<Requests>, _ results: Mailbox<Results>, because problem: String) {
        let queued = writer.take { requests in
            requests.unusable = problem
            defer { requests.queue.removeAll() }
            return requests.queue
        }.taken
        results.post { results in
            results.contents = .failed(problem)
            results.outcomes += queued.map { Outcome(record: $0, error: problem) }
        }
    }
}
