import Synchronization

/// A log line's author and its severity filter: `logger.warning("...")`.
///
/// chakrad used swift-log's API this far and no further: a label, seven
/// levels, string messages and one output for the whole process, chosen
/// at start. The only swift-log these machines hold needs Swift tools 6.2,
/// and Debian 13's compiler (the arm64 build's) is 6.0.3, so the daemon
/// keeps that API and drops the package; what the package did not do, and
/// this does, is give journald each line's severity (`StreamLog`).
public struct Logger: Sendable {
    /// syslog's severities, in swift-log's names and order (the names are
    /// `chakrad run --log-level`'s values).
    public enum Level: String, Sendable, CaseIterable, Comparable {
        case trace, debug, info, notice, warning, error, critical

        /// The syslog priority journald reads from a `<N>` prefix: trace has
        /// none finer than debug.
        public var syslogPriority: Int {
            switch self {
            case .trace, .debug: 7
            case .info: 6
            case .notice: 5
            case .warning: 4
            case .error: 3
            case .critical: 2
            }
        }

        private var rank: Int { Self.allCases.firstIndex(of: self)! }
        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rank < rhs.rank }
    }

    /// What a line says; a plain string, interpolated by the caller only
    /// when the line will be written (the methods take it as an autoclosure).
    public typealias Message = String

    public let label: String
    /// nil: the process's output (`LogOutput`), looked up at each line, so a
    /// logger made before a command chose its output still follows it.
    private let sink: (any LogSink)?

    /// A logger writing where the process logs (`LogOutput`).
    public init(label: String) {
        (self.label, self.sink) = (label, nil)
    }

    /// A logger writing to `sink` only (tests record or discard lines).
    public init(label: String, sink: any LogSink) {
        (self.label, self.sink) = (label, sink)
    }

    public func log(level: Level, _ message: @autoclosure () -> Message) {
        let sink = sink ?? LogOutput.current
        guard level >= sink.level else { return }
        sink.write(level: level, label: label, message: message())
    }

    public func trace(_ message: @autoclosure () -> Message) { log(level: .trace, message()) }
    public func debug(_ message: @autoclosure () -> Message) { log(level: .debug, message()) }
    public func info(_ message: @autoclosure () -> Message) { log(level: .info, message()) }
    public func notice(_ message: @autoclosure () -> Message) { log(level: .notice, message()) }
    public func warning(_ message: @autoclosure () -> Message) { log(level: .warning, message()) }
    public func error(_ message: @autoclosure () -> Message) { log(level: .error, message()) }
    public func critical(_ message: @autoclosure () -> Message) { log(level: .critical, message()) }
}

/// Where log lines go. Called from any thread, so a sink writes each line
/// whole, at once.
public protocol LogSink: Sendable {
    /// The least severe level written; lines below it are not even formed.
    var level: Logger.Level { get }
    func write(level: Logger.Level, label: String, message: String)
}

/// Lines nobody reads (tests that drive code which logs).
public struct DiscardingLog: LogSink {
    public let level = Logger.Level.critical
    public init() {}
    public func write(level: Logger.Level, label: String, message: String) {}
}

/// The process's log output, which a command sets first thing (`chakrad
/// run` to standard error at `--log-level`); until then, standard error at
/// info, as swift-log's default was.
public enum LogOutput {
    private static let sink = Mutex<any LogSink>(StreamLog.standardError(level: .info))

    public static func set(_ newSink: any LogSink) {
        sink.withLock { $0 = newSink }
    }

    static var current: any LogSink { sink.withLock { $0 } }
}
