/// Opening hours: what the screen does at each moment of the week, in the
/// local time of the place it stands in.
///
/// A schedule is a list of weekly windows (days, a start and an end on the
/// wall clock, what to show) and of dates that replace the week's windows
/// on that day (holidays). Outside every window the screen does `outside`
/// (off by default). A window whose end is at or before its start runs past
/// midnight into the next day, and belongs to the day it starts on.
///
/// When windows overlap, the one written later wins; a date's windows
/// always win over the week's (a holiday replaces the day).
///
/// On the wall clock: a window runs once on each day it applies to, from
/// the first moment the local clock shows its start (or, if clocks skip
/// that time, the moment they land past it) until the first moment after
/// that it shows its end. On the day clocks go forward (a 23-hour day) a
/// window from 01:00 to 04:00 lasts two hours; on the day they go back (25
/// hours), four, with no break while the hour repeats. A window inside the
/// repeated hour runs once, the first time; one inside the skipped hour
/// does not run.
public struct Schedule: Sendable, Equatable {
    public var windows: [Window]
    public var dates: [DateWindow]
    /// What the screen does outside every window.
    public var outside: ScheduleAction

    public init(windows: [Window] = [], dates: [DateWindow] = [], outside: ScheduleAction = .off) {
        (self.windows, self.dates, self.outside) = (windows, dates, outside)
    }

    /// A weekly window.
    public struct Window: Sendable, Equatable {
        public var days: Set<Weekday>
        public var start: TimeOfDay
        public var end: TimeOfDay
        public var action: ScheduleAction

        public init(days: Set<Weekday>, start: TimeOfDay, end: TimeOfDay, action: ScheduleAction) {
            (self.days, self.start, self.end, self.action) = (days, start, end, action)
        }
    }

    /// A window on one date; a date with any of these ignores the week's
    /// windows that start on it. `start` == `end` (both 00:00 by default):
    /// the whole day.
    public struct DateWindow: Sendable, Equatable {
        public var date: CalendarDate
        public var start: TimeOfDay
        public var end: TimeOfDay
        public var action: ScheduleAction

        public init(date: CalendarDate, start: TimeOfDay = TimeOfDay(minutes: 0), end: TimeOfDay = TimeOfDay(minutes: 0),
                    action: ScheduleAction) {
            (self.date, self.start, self.end, self.action) = (date, start, end, action)
        }
    }
}

/// What the screen does in a window.
public enum ScheduleAction: Sendable, Equatable, CustomStringConvertible {
    /// This scene, at full power.
    case scene(String)
    /// The display powered down (no signal, backlight off, TV in standby).
    case off
    /// The scene as it is, the backlight dimmed.
    case dim
    /// The scene in low-power mode.
    case lowPower

    /// "off", "dim", "low-power", or a scene's name.
    public init(_ text: String) {
        switch text {
        case "off": self = .off
        case "dim": self = .dim
        case "low-power": self = .lowPower
        default: self = .scene(text)
        }
    }

    public var description: String {
        switch self {
        case .scene(let name): name
        case .off: "off"
        case .dim: "dim"
        case .lowPower: "low-power"
        }
    }
}

public enum Weekday: Int, Sendable, CaseIterable, Comparable {
    // struct tm's tm_wday numbering.
    case sunday = 0, monday, tuesday, wednesday, thursday, friday, saturday

    public static func < (a: Weekday, b: Weekday) -> Bool { a.rawValue < b.rawValue }

    /// "mon", "tue", ... "sun".
    public static let names: [(String, Weekday)] = [
        ("mon", .monday), ("tue", .tuesday), ("wed", .wednesday), ("thu", .thursday), ("fri", .friday), ("sat", .saturday), ("sun", .sunday),
    ]

    public var name: String { Self.names.first { $0.1 == self }!.0 }

    /// The day before.
    public var previous: Weekday { Weekday(rawValue: (rawValue + 6) % 7)! }

    /// Days as written in chakra.toml: "mon", a range "mon-fri" (which may
    /// wrap: "fri-mon"), "daily", "weekdays", "weekends"; nil when not one.
    public static func parse(_ text: String) -> Set<Weekday>? {
        switch text {
        case "daily": return Set(allCases)
        case "weekdays": return [.monday, .tuesday, .wednesday, .thursday, .friday]
        case "weekends": return [.saturday, .sunday]
        default: break
        }
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        func day(_ name: String) -> Int? { names.firstIndex { $0.0 == name } }
        switch parts.count {
        case 1:
            return day(parts[0]).map { [names[$0].1] }
        case 2:
            guard let from = day(parts[0]), let to = day(parts[1]) else { return nil }
            var days = Set<Weekday>()
            var index = from
            while true {
                days.insert(names[index].1)
                if index == to { return days }
                index = (index + 1) % 7
            }
        default:
            return nil
        }
    }
}

/// A time on the wall clock, in minutes after midnight (0...1439).
public struct TimeOfDay: Sendable, Equatable, Comparable, CustomStringConvertible {
    public var minutes: Int

    public init(minutes: Int) {
        precondition((0..<1440).contains(minutes))
        self.minutes = minutes
    }

    /// "HH:MM", 00:00 to 23:59 ("24:00" as the end of a day: 00:00).
    public init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 2,
              let hours = Int(parts[0]), let minutes = Int(parts[1]), (0...59).contains(minutes) else { return nil }
        if hours == 24, minutes == 0 {
            self.minutes = 0
            return
        }
        guard (0...23).contains(hours) else { return nil }
        self.minutes = hours * 60 + minutes
    }

    public static func < (a: TimeOfDay, b: TimeOfDay) -> Bool { a.minutes < b.minutes }

    public var description: String {
        let h = minutes / 60, m = minutes % 60
        return (h < 10 ? "0" : "") + "\(h):" + (m < 10 ? "0" : "") + "\(m)"
    }
}

/// A date on the local calendar.
public struct CalendarDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var year: Int, month: Int, day: Int

    public init(year: Int, month: Int, day: Int) {
        (self.year, self.month, self.day) = (year, month, day)
    }

    /// "YYYY-MM-DD", a date that exists.
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
              (1...12).contains(month), (1...CalendarDate.days(inMonth: month, of: year)).contains(day) else { return nil }
        self.init(year: year, month: month, day: day)
    }

    static func days(inMonth month: Int, of year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    public static func < (a: CalendarDate, b: CalendarDate) -> Bool { (a.year, a.month, a.day) < (b.year, b.month, b.day) }

    /// Days since 1970-01-01 (proleptic Gregorian; Howard Hinnant's
    /// days_from_civil).
    public var dayNumber: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date `dayNumber` days after 1970-01-01.
    public init(dayNumber: Int) {
        let z = dayNumber + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        self.init(year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month: month, day: day)
    }

    public func adding(days: Int) -> CalendarDate { CalendarDate(dayNumber: dayNumber + days) }

    public var weekday: Weekday { Weekday(rawValue: ((dayNumber % 7) + 11) % 7)! }

    public var description: String {
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(year)-\(two(month))-\(two(day))"
    }
}
