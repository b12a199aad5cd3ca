import Glibc

/// Local time by the C library's rules: the zone in $TZ, else
/// /etc/localtime (read once; `reload()` reads it again after the system's
/// zone changed). The C library keeps one zone per process, so tests that
/// set $TZ must not run beside each other.
public struct SystemTimeZone: Sendable {
    public init() { tzset() }

    /// Reads $TZ and /etc/localtime again.
    public static func reload() { tzset() }

    /// Local date components at `utc`: (year, month, day, seconds after
    /// midnight, seconds east of UTC).
    public func components(at utc: Int64) -> (year: Int, month: Int, day: Int, secondOfDay: Int, utcOffset: Int) {
        var time = time_t(utc)
        var parts = tm()
        localtime_r(&time, &parts)
        return (Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
                Int(parts.tm_hour) * 3600 + Int(parts.tm_min) * 60 + Int(parts.tm_sec), Int(parts.tm_gmtoff))
    }

    /// The instants at which the local clock shows year-month-day hour:minute:
    /// each of standard and daylight time tried, kept when the clock really
    /// shows that time then (none in a skipped hour, two in a repeated one).
    public func instants(year: Int, month: Int, day: Int, minuteOfDay: Int) -> [Int64] {
        var found: [Int64] = []
        for isDST in [0, 1] {
            var parts = tm()
            parts.tm_year = Int32(year - 1900)
            parts.tm_mon = Int32(month - 1)
            parts.tm_mday = Int32(day)
            parts.tm_hour = Int32(minuteOfDay / 60)
            parts.tm_min = Int32(minuteOfDay % 60)
            parts.tm_isdst = Int32(isDST)
            let utc = Int64(mktime(&parts))
            let back = components(at: utc)
            if (back.year, back.month, back.day, back.secondOfDay) == (year, month, day, minuteOfDay * 60), !found.contains(utc) {
                found.append(utc)
            }
        }
        return found.sorted()
    }
}
