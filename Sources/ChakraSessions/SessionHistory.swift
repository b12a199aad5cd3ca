import ChakraSchedule

/// Counts over a set of sessions: a day's, or a report's totals.
public struct SessionStats: Sendable, Equatable {
    /// Sessions started: one per record.
    public var started = 0
    public var completed = 0
    public var abandoned = 0
    /// Sessions started per breathing pattern.
    public var patterns: [String: Int] = [:]
    /// Kept in whole milliseconds, as the log writes them, so sums are exact
    /// and do not depend on the order they were added in.
    private var breathedMilliseconds: Int64 = 0

    public init() {}

    /// Seconds a finger was on the light, summed.
    public var breathedSeconds: Double { Double(breathedMilliseconds) / 1000 }

    /// Completed out of started, 0...1; nil with no session (no rate, rather than a 0 % that never was).
    public var completionRate: Double? { started == 0 ? nil : Double(completed) / Double(started) }

    mutating func add(_ record: SessionRecord) {
        started += 1
        switch record.outcome {
        case .completed: completed += 1
        case .abandoned: abandoned += 1
        }
        patterns[record.pattern, default: 0] += 1
        breathedMilliseconds += Milliseconds.rounded(record.breathedSeconds).value
    }

    mutating func add(_ other: SessionStats) {
        started += other.started
        completed += other.completed
        abandoned += other.abandoned
        patterns.merge(other.patterns, uniquingKeysWith: +)
        breathedMilliseconds += other.breathedMilliseconds
    }
}

/// One local day's sessions.
public struct SessionDayStats: Sendable, Equatable {
    public var date: CalendarDate
    public var stats: SessionStats
}

/// What `chakractl stats` shows: totals over the days asked for, and each
/// of those days that had a session, oldest first (days without one are
/// left out).
public struct SessionStatsReport: Sendable, Equatable {
    public var since: CalendarDate?
    public var until: CalendarDate?
    public var totals: SessionStats
    public var days: [SessionDayStats]
}

/// The sessions per local day, kept in memory by the daemon: built from
/// the records `SessionLog.open` read (and again from a compaction's), a
/// record added as each is appended, so a report never reads the file.
///
/// A session belongs to the local day on which it started, in the zone
/// given when it is added (the system's in the daemon): a day of 23 or 25
/// hours is still one day.
public struct SessionHistory: Sendable, Equatable {
    private var days: [CalendarDate: SessionStats] = [:]

    public init() {}

    public init(records: some Sequence<SessionRecord>, in zone: some LocalTimeZone) {
        for record in records { add(record, in: zone) }
    }

    public mutating func add(_ record: SessionRecord, in zone: some LocalTimeZone) {
        let start = record.startedAt.isFinite ? Int64(record.startedAt.rounded(.down)) : 0
        days[zone.local(at: start).date, default: SessionStats()].add(record)
    }

    /// Days with at least one session.
    public var dayCount: Int { days.count }

    /// The earliest day with a session; nil with none.
    public var firstDay: CalendarDate? { days.keys.min() }

    /// The days from `since` through `until` (both included; nil: no limit
    /// on that side).
    public func report(since: CalendarDate? = nil, until: CalendarDate? = nil) -> SessionStatsReport {
        var totals = SessionStats()
        let selected = days
            .filter { entry in (since.map { entry.key >= $0 } ?? true) && (until.map { entry.key <= $0 } ?? true) }
            .map { SessionDayStats(date: $0.key, stats: $0.value) }
            .sorted { $0.date < $1.date }
        for day in selected { totals.add(day.stats) }
        return SessionStatsReport(since: since, until: until, totals: totals, days: selected)
    }
}
