import ChakraSystem

/// The system's local time as a schedule reads it.
extension SystemTimeZone: LocalTimeZone {
    public func local(at utc: Int64) -> LocalTime {
        let c = components(at: utc)
        return LocalTime(date: CalendarDate(year: c.year, month: c.month, day: c.day), secondOfDay: c.secondOfDay, utcOffset: c.utcOffset)
    }

    public func instants(of date: CalendarDate, _ time: TimeOfDay) -> [Int64] {
        instants(year: date.year, month: date.month, day: date.day, minuteOfDay: time.minutes)
    }
}
