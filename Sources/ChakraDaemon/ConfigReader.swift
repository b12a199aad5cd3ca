import ChakraConfig
import ChakraDisplay
import ChakraSystem
import Dispatch
import Synchronization

/// The one reader of the configuration files while the daemon runs, on a
/// lane of its own (`BackgroundLane`): SIGHUP (from the frame loop) and `reload` (from the
/// control server's thread) hand it their reads and go on at once, so that
/// neither the frames nor the other clients ever wait on a file. A file
/// that would never end (a FIFO, a device) is refused before it is opened
/// (`InputFile`), but a read can still be slow (a network file system that
/// does not answer, 100,000 unknown tables to go through): that costs this
/// lane, nothing else.
///
/// Reads run one at a time, in the order asked. Each is answered once:
/// with what was read, or, when it has not finished within `deadline`,
/// with `.overdue`; a result that comes after that goes nowhere (it is not
/// applied behind the back of a client that was told it was not read).
public final class ConfigReader: Sendable {
    /// What a read came to.
    public enum Outcome: Sendable {
        /// The files as read, or their errors.
        case read(Result<LoadedConfig, ConfigError>)
        /// Not finished within the deadline: given up.
        case overdue(Overdue)
    }

    /// A read given up: its main file, and how long it was waited for.
    public struct Overdue: Sendable, Equatable, CustomStringConvertible {
        public let file: String?
        public let seconds: Double

        public var description: String {
            "the configuration files were not read within \(String(seconds, decimals: seconds < 1 ? 1 : 0)) s; "
                + "the read was given up and nothing was changed"
        }

        /// As a refusal, for SIGHUP (nobody to answer): counted and logged
        /// as any reload the files refused.
        public var error: ConfigError { ConfigError([ConfigIssue(file: file, message: description)]) }
    }

    /// As long as `snapshot` waits for the loop.
    public static let defaultDeadline = 10.0

    /// At the daemon's own priority: a reload is rare and asked for, and
    /// 100,000 unknown tables are a second of parsing; below the frames
    /// (nice +5, +10) beside two busy loops on 2 cores it passed the 10 s
    /// deadline, and the reload was lost.
    private let lane = BackgroundLane(name: "chakra-config", niceness: 0)
    private let load: @Sendable () throws(ConfigError) -> LoadedConfig
    /// The main file (for messages).
    let file: String?
    let deadline: Double

    /// Reads `source` (its main file and drop-ins).
    public convenience init(source: ConfigSource, deadline: Double = ConfigReader.defaultDeadline) {
        self.init(file: source.path, deadline: deadline) { () throws(ConfigError) in try source.load() }
    }

    /// Reads with `load` (tests: a read that takes as long as they like).
    init(file: String? = nil, deadline: Double, load: @escaping @Sendable () throws(ConfigError) -> LoadedConfig) {
        (self.file, self.deadline, self.load) = (file, deadline, load)
    }

    /// Reads the files, then calls `done` once, on the reader's lane or
    /// (overdue) on a timer's: it must only hand the outcome on.
    public func read(_ done: @escaping @Sendable (Outcome) -> Void) {
        let answer = OneAnswer(done)
        lane.submit { [load] in
            answer.give(.read(Result { () throws(ConfigError) in try load() }))
        }
        let overdue = Overdue(file: file, seconds: deadline)
        DispatchQueue.global().asyncAfter(deadline: .now() + deadline) {
            answer.give(.overdue(overdue))
        }
    }
}

/// The first outcome given wins; later ones are dropped.
private final class OneAnswer: Sendable {
    private let pending: Mutex<(@Sendable (ConfigReader.Outcome) -> Void)?>

    init(_ done: @escaping @Sendable (ConfigReader.Outcome) -> Void) { pending = Mutex(done) }

    func give(_ outcome: ConfigReader.Outcome) {
        let done = pending.withLock { pending in
            defer { pending = nil }
            return pending
        }
        done?(outcome)
    }
}
