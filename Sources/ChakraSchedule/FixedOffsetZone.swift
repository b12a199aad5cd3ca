/// A zone at a fixed offset from UTC, with no clock changes: UTC itself,
/// and the zone tests run schedules in (no $TZ, no system state).
public struct FixedOffsetZone: LocalTimeZone, Sendable {
    /// Seconds east of UTC.
    public var offset: Int

    public init(offset: Int = 0) { self.offset = offset }

    public func local(at utc: Int64) -> LocalTime {
        let seconds = Int(utc) + offset
        let day = seconds >= 0 ? seconds / 86400 : -((-seconds + 86399) / 86400)
        return LocalTime(date: CalendarDate(dayNumber: day), secondOfDay: seconds - day * 86400, utcOffset: offset)
    }

    public func instants(of date: CalendarDate, _ time: TimeOfDay) -> [Int64] {
        [Int64(date.dayNumber * 86400 + time.minutes * 60 - offset)]
    }
}
