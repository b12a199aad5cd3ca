import ChakraSchedule
import ChakraSessions
import Testing

/// Europe/Berlin by its rules (CET, CEST from the last Sunday of March to
/// the last Sunday of October, switching at 01:00 UTC), in plain Swift:
/// the C library's zone is per process ($TZ), and suites run in parallel.
struct BerlinZone: LocalTimeZone {
    func offset(at utc: Int64) -> Int {
        let year = FixedOffsetZone().local(at: utc).date.year
        func lastSunday(_ month: Int) -> Int64 {
            var day = CalendarDate(year: year, month: month, day: 31)
            while day.weekday != .sunday { day = day.adding(days: -1) }
            return Int64(day.dayNumber) * 86400 + 3600
        }
        return (lastSunday(3)..<lastSunday(10)).contains(utc) ? 7200 : 3600
    }

    func local(at utc: Int64) -> LocalTime { FixedOffsetZone(offset: offset(at: utc)).local(at: utc) }

    func instants(of date: CalendarDate, _ time: TimeOfDay) -> [Int64] {
        [3600, 7200].map { FixedOffsetZone(offset: $0).instants(of: date, time)[0] }
            .filter { local(at: $0).date == date && local(at: $0).secondOfDay == time.minutes * 60 }.sorted()
    }
}

@Suite("Session history per local day")
struct SessionHistoryTests {
    let berlin = BerlinZone()

    func utc(_ date: String, _ time: String) -> Double {
        Double(FixedOffsetZone().instants(of: CalendarDate(date)!, TimeOfDay(time)!)[0])
    }

    func record(at start: Double, _ outcome: SessionRecord.Outcome = .completed, pattern: String = "box", breathed: Double = 60) -> SessionRecord {
        SessionRecord(startedAt: start, duration: 90, outcome: outcome, ending: outcome == .completed ? "completed" : "cancelled",
                      pattern: pattern, furthestState: outcome == .completed ? "completed" : "inhale",
                      breathedSeconds: breathed, holdSeconds: 30, lifts: 0)
    }

    @Test("the test's Berlin changes its clocks when the schedule's tests say it does")
    func berlinRules() {
        #expect(berlin.local(at: Int64(utc("2026-03-29", "00:59"))).utcOffset == 3600)
        #expect(berlin.local(at: Int64(utc("2026-03-29", "01:00"))).utcOffset == 7200)
        #expect(berlin.local(at: Int64(utc("2026-10-25", "00:59"))).utcOffset == 7200)
        #expect(berlin.local(at: Int64(utc("2026-10-25", "01:00"))).utcOffset == 3600)
        #expect(berlin.instants(of: CalendarDate("2026-03-29")!, TimeOfDay("02:30")!).isEmpty)
        #expect(berlin.instants(of: CalendarDate("2026-10-25")!, TimeOfDay("02:30")!).count == 2)
    }

    @Test("a session belongs to the local day it started on, across both clock changes")
    func daysAcrossDaylightSaving() {
        var history = SessionHistory()
        let starts = [
            ("2026-03-28", "22:30", "2026-03-28"),   // 23:30 CET
            ("2026-03-28", "23:30", "2026-03-29"),   // 00:30 CET
            ("2026-03-29", "21:30", "2026-03-29"),   // 23:30 CEST: the 23-hour day
            ("2026-03-29", "22:30", "2026-03-30"),   // 00:30 CEST (in CET it would still be the 29th)
            ("2026-10-24", "22:30", "2026-10-25"),   // 00:30 CEST
            ("2026-10-25", "00:30", "2026-10-25"),   // 02:30 CEST, the first time
            ("2026-10-25", "01:30", "2026-10-25"),   // 02:30 CET, the second: the 25-hour day
            ("2026-10-25", "22:30", "2026-10-25"),   // 23:30 CET
            ("2026-10-25", "23:30", "2026-10-26"),
        ]
        for (date, time, _) in starts { history.add(record(at: utc(date, time)), in: berlin) }
        let report = history.report()
        var expected: [String: Int] = [:]
        for (_, _, local) in starts { expected[local, default: 0] += 1 }
        #expect(report.days.map(\.date.description) == expected.keys.sorted())
        #expect(Dictionary(uniqueKeysWithValues: report.days.map { ($0.date.description, $0.stats.started) }) == expected)
        #expect(report.totals.started == starts.count && history.dayCount == 5)
        // The same sessions in plain CET put 22:30 UTC on the 29th.
        let cet = SessionHistory(records: starts.map { record(at: utc($0.0, $0.1)) }, in: FixedOffsetZone(offset: 3600))
        #expect(cet.report(since: CalendarDate("2026-03-29"), until: CalendarDate("2026-03-29")).totals.started == 3)
        #expect(history.report(since: CalendarDate("2026-03-29"), until: CalendarDate("2026-03-29")).totals.started == 2)
    }

    @Test("per day: started, completed, abandoned, the rate, seconds breathed, sessions per pattern")
    func counts() {
        let zone = FixedOffsetZone()
        let records = [
            record(at: utc("2026-05-01", "09:00"), .completed, pattern: "box", breathed: 60.125),
            record(at: utc("2026-05-01", "10:00"), .abandoned, pattern: "box", breathed: 12.5),
            record(at: utc("2026-05-01", "11:00"), .completed, pattern: "6-4-8", breathed: 0.1),
            record(at: utc("2026-05-02", "11:00"), .abandoned, pattern: "6-4-8", breathed: 0.2),
        ]
        let history = SessionHistory(records: records, in: zone)
        var oneByOne = SessionHistory()
        for record in records { oneByOne.add(record, in: zone) }
        #expect(history == oneByOne)
        let report = history.report()
        let first = report.days[0].stats
        #expect((first.started, first.completed, first.abandoned) == (3, 2, 1))
        #expect(first.completionRate == 2.0 / 3.0)
        #expect(first.breathedSeconds == 72.725)
        #expect(first.patterns == ["box": 2, "6-4-8": 1])
        #expect(report.days[1].stats.completionRate == 0)
        #expect((report.totals.started, report.totals.completed, report.totals.abandoned) == (4, 2, 2))
        #expect(report.totals.breathedSeconds == 72.925, "summed in milliseconds: exact")
        #expect(report.totals.patterns == ["box": 2, "6-4-8": 2] && report.totals.completionRate == 0.5)
    }

    @Test("since and until bound the days, both included; nothing in range is zero sessions and no rate")
    func filtering() {
        let zone = FixedOffsetZone()
        let history = SessionHistory(records: (1...9).map { record(at: utc("2026-06-0\($0)", "12:00")) }, in: zone)
        let middle = history.report(since: CalendarDate("2026-06-03"), until: CalendarDate("2026-06-05"))
        #expect(middle.days.map(\.date.description) == ["2026-06-03", "2026-06-04", "2026-06-05"])
        #expect(middle.totals.started == 3 && middle.since == CalendarDate("2026-06-03"))
        #expect(history.report(since: CalendarDate("2026-06-08")).days.count == 2)
        #expect(history.report(until: CalendarDate("2026-06-02")).days.count == 2)
        let none = history.report(since: CalendarDate("2026-07-01"))
        #expect(none.days.isEmpty && none.totals.started == 0 && none.totals.completionRate == nil && none.totals.breathedSeconds == 0)
        #expect(SessionHistory().report().totals.completionRate == nil)
        #expect(history.report(since: CalendarDate("2026-06-05"), until: CalendarDate("2026-06-04")).days.isEmpty)
    }
}
