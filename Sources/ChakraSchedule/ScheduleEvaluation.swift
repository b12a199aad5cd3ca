/// The rules of a place's local time, as a schedule needs them. The
/// system's (the daemon's /etc/localtime, through the C library) is
/// `SystemTimeZone` in ChakraSystem; tests may use any zone.
public protocol LocalTimeZone {
    /// The local date and time at `utc` (seconds since 1970, UTC).
    func local(at utc: Int64) -> LocalTime
    /// The instants at which the local clock shows `time` on `date`: one
    /// normally, two in an hour that repeats (clocks went back), none in an
    /// hour that is skipped (clocks went forward).
    func instants(of date: CalendarDate, _ time: TimeOfDay) -> [Int64]
}

/// What a local clock shows.
public struct LocalTime: Sendable, Equatable {
    public var date: CalendarDate
    /// Seconds after local midnight, 0...86399.
    public var secondOfDay: Int
    /// Seconds east of UTC (CET: 3600, CEST: 7200).
    public var utcOffset: Int

    public init(date: CalendarDate, secondOfDay: Int, utcOffset: Int) {
        (self.date, self.secondOfDay, self.utcOffset) = (date, secondOfDay, utcOffset)
    }
}

/// What the schedule says at one moment: the action, and which window
/// decides it (nil: outside every window).
public struct ScheduleState: Sendable, Equatable {
    public var action: ScheduleAction
    public var window: WindowReference?

    public enum WindowReference: Sendable, Equatable {
        case weekly(Int)
        case date(Int)
    }
}

extension Schedule {
    /// One window's run on one day: [start, end) in UTC, and its rank
    /// (dates over the week, then later over earlier in the file).
    struct Run {
        var start: Int64, end: Int64
        var rank: (Int, Int)
        var action: ScheduleAction
        var reference: ScheduleState.WindowReference
    }

    /// What the screen does at `utc`.
    public func state(at utc: Int64, in zone: LocalTimeZone) -> ScheduleState {
        let today = zone.local(at: utc).date
        var best: Run?
        for run in runs(from: today.adding(days: -1), through: today, in: zone) where run.start <= utc && utc < run.end {
            if best == nil || run.rank > best!.rank { best = run }
        }
        return best.map { ScheduleState(action: $0.action, window: $0.reference) } ?? ScheduleState(action: outside, window: nil)
    }

    /// The first instant after `utc` at which `state` changes, and the state
    /// from then; nil when it does not change within the next eight days.
    public func nextChange(after utc: Int64, in zone: LocalTimeZone) -> (at: Int64, state: ScheduleState)? {
        let today = zone.local(at: utc).date
        let now = state(at: utc, in: zone)
        let edges = runs(from: today.adding(days: -1), through: today.adding(days: 8), in: zone).flatMap { [$0.start, $0.end] }
        for at in Set(edges).filter({ $0 > utc }).sorted() {
            let then = state(at: at, in: zone)
            if then != now { return (at, then) }
        }
        return nil
    }

    /// The runs of the windows that start on the days `first` to `last`.
    ///
    /// A window runs once a day: from the first moment the local clock
    /// shows its start (or, when that time is skipped because clocks go
    /// forward, the moment they land past it) until the first moment after
    /// that it shows its end. So a window across the hour the clocks skip
    /// is an hour shorter, one across the hour they repeat an hour longer,
    /// and one inside the repeated hour runs once, the first time.
    func runs(from first: CalendarDate, through last: CalendarDate, in zone: LocalTimeZone) -> [Run] {
        var runs: [Run] = []
        var day = first
        while day <= last {
            let dated = dates.indices.filter { dates[$0].date == day }
            if dated.isEmpty {
                for (index, window) in windows.enumerated() where window.days.contains(day.weekday) {
                    runs.append(run(day, window.start, window.end, rank: (0, index), window.action, .weekly(index), zone))
                }
            } else {
                for index in dated {
                    let window = dates[index]
                    runs.append(run(day, window.start, window.end, rank: (1, index), window.action, .date(index), zone))
                }
            }
            day = day.adding(days: 1)
        }
        return runs
    }

    private func run(_ day: CalendarDate, _ start: TimeOfDay, _ end: TimeOfDay, rank: (Int, Int), _ action: ScheduleAction,
                     _ reference: ScheduleState.WindowReference, _ zone: LocalTimeZone) -> Run {
        let begins = Self.firstInstant(zone, day, start)
        // At or before its start, the end is the next day's (a whole day when equal).
        let endDay = end <= start ? day.adding(days: 1) : day
        let ends = zone.instants(of: endDay, end).first { $0 > begins } ?? Self.firstInstant(zone, endDay, end)
        return Run(start: begins, end: max(ends, begins), rank: rank, action: action, reference: reference)
    }

    /// The first instant the local clock shows `time` on `day`, or, when
    /// it never does (clocks skip it), the first instant it shows a later
    /// time that day.
    static func firstInstant(_ zone: LocalTimeZone, _ day: CalendarDate, _ time: TimeOfDay) -> Int64 {
        if let first = zone.instants(of: day, time).first { return first }
        // Skipped: search between a time shown before it and four hours on.
        let target = (day.dayNumber, time.minutes * 60)
        var earlier = time.minutes
        var low: Int64?
        while low == nil, earlier > 0 {
            earlier = max(earlier - 60, 0)
            low = zone.instants(of: day, TimeOfDay(minutes: earlier)).first
        }
        guard var low else { return Int64(day.dayNumber) * 86400 }
        var high = low + 4 * 3600
        func reached(_ at: Int64) -> Bool {
            let local = zone.local(at: at)
            return (local.date.dayNumber, local.secondOfDay) >= target
        }
        while high - low > 1 {
            let middle = low + (high - low) / 2
            if reached(middle) { high = middle } else { low = middle }
        }
        return high
    }
}
