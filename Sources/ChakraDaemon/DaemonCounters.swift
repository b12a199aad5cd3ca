/// Breathing sessions since chakrad started, for `status` and the metrics
/// file. Counters in Prometheus's sense: they start at 0 with each
/// process (a fleet takes `increase()` of them); the records on disk
/// (`chakractl stats`) keep the history.
public struct SessionCounts: Sendable, Equatable {
    /// Exercises someone began by touching the light (Idle → Inhale).
    public var started = 0
    public var completed = 0
    /// Ended any other way: cancelled, restarted, timed out, interrupted.
    public var abandoned = 0
    /// Seconds with a finger on the light, over the sessions finished.
    public var breathedSeconds = 0.0
    /// Records on disk (a failure counts as an error of kind `session_record`).
    public var recorded = 0

    public init() {}
}

/// What went wrong since chakrad started, by kind: each is logged where it
/// happens; these counts let a fleet's monitoring see it without reading
/// every kiosk's journal.
public enum ErrorKind: String, Sendable, CaseIterable {
    /// A reload (SIGHUP or `reload`) refused: the old settings stay.
    case configReload = "config_reload"
    /// A scene could not be made (another is shown, or the old one stays).
    case scene
    /// A part of the display chain read back not in the power state asked.
    case displayPower = "display_power"
    /// A session record could not be written.
    case sessionRecord = "session_record"
}

public struct ErrorCounts: Sendable, Equatable {
    private var counts = [Int](repeating: 0, count: ErrorKind.allCases.count)

    public init() {}

    public subscript(kind: ErrorKind) -> Int {
        get { counts[ErrorKind.allCases.firstIndex(of: kind)!] }
        set { counts[ErrorKind.allCases.firstIndex(of: kind)!] = newValue }
    }

    public var total: Int { counts.reduce(0, +) }
}
