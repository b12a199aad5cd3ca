/// A day of the schedule as an operator reads it (`chakractl schedule`):
/// the windows that run that day, in local time, in the order they start.
public struct ScheduledRun: Sendable, Equatable {
    /// UTC seconds.
    public var start: Int64, end: Int64
    public var action: ScheduleAction
    public var window: ScheduleState.WindowReference
}

extension Schedule {
    /// The runs of the windows that start on `date`, earliest first. (What
    /// `outside` shows between them is the schedule's `outside`.)
    public func plan(on date: CalendarDate, in zone: LocalTimeZone) -> [ScheduledRun] {
        runs(from: date, through: date, in: zone)
            .sorted { ($0.start, $0.rank.0, $0.rank.1) < ($1.start, $1.rank.0, $1.rank.1) }
            .map { ScheduledRun(start: $0.start, end: $0.end, action: $0.action, window: $0.reference) }
    }
}

extension ScheduleState.WindowReference: CustomStringConvertible {
    /// "window 2" or "date 1": as `ScheduleConfig` numbers them in errors
    /// (from 1, in file order).
    public var description: String {
        switch self {
        case .weekly(let index): "window \(index + 1)"
        case .date(let index): "date \(index + 1)"
        }
    }
}

extension LocalTime {
    /// "2026-11-27T07:30:00+01:00" (ISO 8601, with the zone's offset).
    public var iso8601: String {
        let sign = utcOffset < 0 ? "-" : "+"
        let offsetMinutes = abs(utcOffset) / 60
        return "\(date)T\(Self.two(secondOfDay / 3600)):\(Self.two(secondOfDay / 60 % 60)):\(Self.two(secondOfDay % 60))"
            + "\(sign)\(Self.two(offsetMinutes / 60)):\(Self.two(offsetMinutes % 60))"
    }

    /// "07:30" (seconds dropped: schedules are in minutes).
    public var clock: String { "\(Self.two(secondOfDay / 3600)):\(Self.two(secondOfDay / 60 % 60))" }

    /// "07:30" on the minute, else "20:00:19": for ends that fall between
    /// minutes (a touch's wake), which `clock` would show early.
    public var clockToTheSecond: String { secondOfDay % 60 == 0 ? clock : clock + ":" + Self.two(secondOfDay % 60) }

    private static func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
}
