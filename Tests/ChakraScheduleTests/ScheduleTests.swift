import ChakraSchedule
import ChakraSystem
import Glibc
import Testing

typealias FixedZone = FixedOffsetZone

/// UTC seconds of a date and time in a fixed zone (UTC by default).
func utc(_ date: String, _ time: String, offset: Int = 0) -> Int64 {
    FixedZone(offset: offset).instants(of: CalendarDate(date)!, TimeOfDay(time)!)[0]
}

func window(_ days: String, _ start: String, _ end: String, _ action: String) -> Schedule.Window {
    Schedule.Window(days: Weekday.parse(days)!, start: TimeOfDay(start)!, end: TimeOfDay(end)!, action: ScheduleAction(action))
}

@Suite("Schedule: days, times and dates as written")
struct ScheduleParsingTests {
    @Test("day names, ranges (wrapping too) and the named sets")
    func days() {
        #expect(Weekday.parse("mon-fri") == [.monday, .tuesday, .wednesday, .thursday, .friday])
        #expect(Weekday.parse("fri-mon") == [.friday, .saturday, .sunday, .monday])
        #expect(Weekday.parse("sun") == [.sunday])
        #expect(Weekday.parse("daily")?.count == 7 && Weekday.parse("weekends") == [.saturday, .sunday])
        for bad in ["", "monday", "mon-", "-fri", "mon-fri-sat", "Mon"] { #expect(Weekday.parse(bad) == nil, "\(bad)") }
    }

    @Test("times HH:MM, 24:00 as the end of the day; dates that exist")
    func timesAndDates() {
        #expect(TimeOfDay("07:30")?.minutes == 450 && TimeOfDay("23:59")?.minutes == 1439 && TimeOfDay("24:00")?.minutes == 0)
        for bad in ["7:30", "25:00", "12:60", "24:01", "12-30", "12:3", ""] { #expect(TimeOfDay(bad) == nil, "\(bad)") }
        #expect(CalendarDate("2028-02-29") != nil && CalendarDate("2026-02-29") == nil && CalendarDate("2026-04-31") == nil)
        #expect(CalendarDate("2026-11-26")?.weekday == .thursday && CalendarDate("1970-01-01")?.weekday == .thursday)
        #expect(CalendarDate("1969-12-31")?.weekday == .wednesday)
        // Day numbers round-trip across years, leap days and the epoch.
        for n in stride(from: -800_000, through: 800_000, by: 997) { #expect(CalendarDate(dayNumber: n).dayNumber == n) }
        #expect(CalendarDate("2026-11-26")!.dayNumber == 20_783)   // Python: (date(2026, 11, 26) - date(1970, 1, 1)).days
    }
}

@Suite("Schedule: what the screen does when")
struct ScheduleStateTests {
    let zone = FixedZone()

    /// Thursday 2026-11-26 and the days around it.
    let opening = Schedule(windows: [
        window("mon-fri", "07:30", "18:00", "heart"),
        window("mon-fri", "12:00", "13:00", "calm"),     // written later: wins over the heart
        window("fri", "22:00", "02:00", "drift"),        // past midnight, into Saturday
    ])

    func action(_ schedule: Schedule, _ date: String, _ time: String) -> String {
        schedule.state(at: utc(date, time), in: zone).action.description
    }

    @Test("windows, the later of two overlapping ones, and off outside")
    func windowsAndOverlap() {
        #expect(action(opening, "2026-11-26", "07:29") == "off")
        #expect(action(opening, "2026-11-26", "07:30") == "heart")
        #expect(action(opening, "2026-11-26", "12:30") == "calm")
        #expect(action(opening, "2026-11-26", "13:00") == "heart")
        #expect(action(opening, "2026-11-26", "18:00") == "off")
        #expect(action(opening, "2026-11-29", "10:00") == "off")   // a Sunday
    }

    @Test("a window past midnight belongs to the day it starts on")
    func acrossMidnight() {
        #expect(action(opening, "2026-11-26", "23:00") == "off")      // Thursday: no drift
        #expect(action(opening, "2026-11-27", "23:00") == "drift")    // Friday night
        #expect(action(opening, "2026-11-28", "01:59") == "drift")    // into Saturday
        #expect(action(opening, "2026-11-28", "02:00") == "off")
        #expect(action(opening, "2026-11-28", "22:30") == "off")      // Saturday night: not a Friday
    }

    @Test("a date replaces the week's windows that start on it; the night before still runs into it")
    func holidays() {
        var schedule = opening
        schedule.dates = [
            Schedule.DateWindow(date: CalendarDate("2026-11-27")!, start: TimeOfDay("10:00")!, end: TimeOfDay("14:00")!, action: ScheduleAction("low-power")),
            Schedule.DateWindow(date: CalendarDate("2026-11-28")!, action: .off),   // all day
        ]
        schedule.outside = .dim
        #expect(action(schedule, "2026-11-27", "08:00") == "dim")        // the week's heart is replaced
        #expect(action(schedule, "2026-11-27", "12:30") == "low-power")  // and so is its calm
        #expect(action(schedule, "2026-11-27", "23:00") == "dim")        // no Friday drift on the holiday
        #expect(action(schedule, "2026-11-28", "12:00") == "off")        // the all-day date
        #expect(action(schedule, "2026-11-26", "10:00") == "heart")      // other days as the week says
        // The Thursday-night window of a week with one runs into a dated Friday.
        schedule.windows.append(window("thu", "23:00", "01:00", "calm"))
        #expect(action(schedule, "2026-11-27", "00:30") == "calm")
    }

    @Test("the next change: the instant, and what comes then")
    func nextChange() throws {
        let change = try #require(opening.nextChange(after: utc("2026-11-26", "11:00"), in: zone))
        #expect(change.at == utc("2026-11-26", "12:00") && change.state.action == .scene("calm"))
        let overnight = try #require(opening.nextChange(after: utc("2026-11-27", "18:30"), in: zone))
        #expect(overnight.at == utc("2026-11-27", "22:00") && overnight.state.action == .scene("drift"))
        let morning = try #require(opening.nextChange(after: utc("2026-11-27", "23:00"), in: zone))
        #expect(morning.at == utc("2026-11-28", "02:00") && morning.state.action == .off)
        // Saturday 02:00 to Monday 07:30: the change is two days on.
        let monday = try #require(opening.nextChange(after: utc("2026-11-28", "03:00"), in: zone))
        #expect(monday.at == utc("2026-11-30", "07:30"))
        #expect(Schedule(outside: .scene("heart")).nextChange(after: 0, in: zone) == nil)
    }

    @Test("a clock step forward or back: the state is that of the new time, the next change from there")
    func clockSteps() throws {
        // The daemon re-evaluates on the wall clock, never by counting seconds.
        let before = utc("2026-11-26", "11:55")
        #expect(opening.state(at: before, in: zone).action == .scene("heart"))
        let forward = before + 2 * 3600   // NTP steps two hours ahead: 13:55
        #expect(opening.state(at: forward, in: zone).action == .scene("heart"))
        #expect(opening.nextChange(after: forward, in: zone)?.at == utc("2026-11-26", "18:00"))
        let back = before - 5 * 3600      // and back to 06:55
        #expect(opening.state(at: back, in: zone).action == .off)
        #expect(opening.nextChange(after: back, in: zone)?.at == utc("2026-11-26", "07:30"))
    }
}

/// The C library's time zone rules, one zone at a time: $TZ is per process.
@Suite("Schedule across clock changes (the C library's zones)", .serialized)
struct ScheduleDaylightSavingTests {
    /// Runs `body` with $TZ set to `zone`, then puts $TZ back.
    func inZone(_ zone: String, _ body: (SystemTimeZone) throws -> Void) rethrows {
        let previous = getenv("TZ").map { String(cString: $0) }
        setenv("TZ", zone, 1)
        SystemTimeZone.reload()
        defer {
            if let previous { setenv("TZ", previous, 1) } else { unsetenv("TZ") }
            SystemTimeZone.reload()
        }
        try body(SystemTimeZone())
    }

    /// How long `window` runs on `date`: from its first start to its end.
    func runs(of schedule: Schedule, on date: String, in zone: SystemTimeZone) throws -> [(Int64, Int64)] {
        let day = CalendarDate(date)!
        let midnight = zone.instants(of: day, TimeOfDay(minutes: 0))[0]
        let nextMidnight = zone.instants(of: day.adding(days: 1), TimeOfDay(minutes: 0))[0]
        var runs: [(Int64, Int64)] = []
        var t = midnight - 1
        var start: Int64?
        if schedule.state(at: midnight, in: zone).window != nil { start = midnight }
        while let change = schedule.nextChange(after: t, in: zone), change.at < nextMidnight {
            if change.state.window != nil { start = change.at } else if let s = start { runs.append((s, change.at)); start = nil }
            t = change.at
        }
        if let s = start { runs.append((s, nextMidnight)) }
        return runs
    }

    @Test("Europe/Berlin: 01:00-04:00 lasts 2 h on the 23-hour day and 4 h on the 25-hour one")
    func berlin() throws {
        try inZone("Europe/Berlin") { zone in
            let night = Schedule(windows: [window("daily", "01:00", "04:00", "off")], outside: .scene("heart"))
            // 2026-03-29: 02:00 CET → 03:00 CEST. 2026-10-25: 03:00 CEST → 02:00 CET.
            let spring = try runs(of: night, on: "2026-03-29", in: zone)
            #expect(spring.count == 1 && spring[0].1 - spring[0].0 == 2 * 3600, "\(spring)")
            #expect(spring[0].0 == utc("2026-03-29", "00:00"))     // 01:00 CET
            let autumn = try runs(of: night, on: "2026-10-25", in: zone)
            #expect(autumn.count == 1 && autumn[0].1 - autumn[0].0 == 4 * 3600, "\(autumn)")
            #expect(autumn[0].0 == utc("2026-10-24", "23:00"))    // 01:00 CEST
            // Midnight to midnight: 23 and 25 hours.
            let day = { (d: String) in zone.instants(of: CalendarDate(d)!.adding(days: 1), TimeOfDay(minutes: 0))[0] - zone.instants(of: CalendarDate(d)!, TimeOfDay(minutes: 0))[0] }
            #expect(day("2026-03-29") == 23 * 3600 && day("2026-10-25") == 25 * 3600)
        }
    }

    @Test("Europe/Berlin: a window inside the skipped hour never runs; inside the repeated hour it runs once")
    func berlinSkippedAndRepeated() throws {
        try inZone("Europe/Berlin") { zone in
            let short = Schedule(windows: [window("daily", "02:15", "02:45", "calm")], outside: .off)
            #expect(try runs(of: short, on: "2026-03-29", in: zone).isEmpty)
            let once = try runs(of: short, on: "2026-10-25", in: zone)
            #expect(once.count == 1 && once.first.map { $0.1 - $0.0 } == 1800, "\(once)")
            #expect(once.first?.0 == utc("2026-10-25", "00:15"))   // 02:15 CEST, the first time
            // A window starting inside the skipped hour starts when the clock lands past it.
            let late = Schedule(windows: [window("daily", "02:30", "05:00", "calm")], outside: .off)
            let landing = try runs(of: late, on: "2026-03-29", in: zone)
            #expect(landing.count == 1 && landing[0].0 == utc("2026-03-29", "01:00"), "\(landing)")   // 03:00 CEST
        }
    }

    @Test("America/New_York: 01:30-03:30 lasts 1 h on 8 March and 3 h, unbroken, on 1 November 2026")
    func newYork() throws {
        try inZone("America/New_York") { zone in
            let night = Schedule(windows: [window("daily", "01:30", "03:30", "dim")], outside: .scene("calm"))
            let spring = try runs(of: night, on: "2026-03-08", in: zone)
            #expect(spring.count == 1 && spring[0].1 - spring[0].0 == 3600, "\(spring)")
            #expect(spring[0].0 == utc("2026-03-08", "06:30"))    // 01:30 EST
            let autumn = try runs(of: night, on: "2026-11-01", in: zone)
            #expect(autumn.count == 1 && autumn.first.map { $0.1 - $0.0 } == 3 * 3600, "\(autumn)")
            #expect(autumn[0].0 == utc("2026-11-01", "05:30"))    // 01:30 EDT
        }
    }
}

@Suite("Wall clock against the monotonic clock")
struct WallClockWatchTests {
    @Test("the first reading and a step either way are jumps; slewing is followed, not a jump")
    func jumps() {
        var watch = WallClockWatch()
        let first = watch.observe(monotonic: 100, wall: 1_800_000_000)
        let slewed = watch.observe(monotonic: 160, wall: 1_800_000_060.000_5)   // half a millisecond
        #expect(first && !slewed)
        #expect(abs(watch.monotonic(forWall: 1_800_003_600)! - (3_700 - 0.000_5)) < 1e-6)
        let ahead = watch.observe(monotonic: 170, wall: 1_800_007_270)          // NTP steps two hours ahead
        #expect(ahead && watch.wall(atMonotonic: 180) == 1_800_007_280)
        let back = watch.observe(monotonic: 180, wall: 1_800_000_080)           // and back
        let small = watch.observe(monotonic: 181, wall: 1_800_000_081.9)        // under the second of tolerance
        #expect(back && !small)
    }
}
