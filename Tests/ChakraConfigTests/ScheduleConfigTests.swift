import ChakraSchedule
import Testing
@testable import ChakraConfig

/// [schedule] in chakra.toml: windows as arrays of tables, errors with the
/// line of the window they are in.
@Suite("Configuration file: [schedule]")
struct ScheduleConfigTests {
    private func issues(_ text: String) -> [ConfigIssue] {
        do {
            let loaded = try ConfigParser.parse(text, file: "test.toml")
            Issue.record("accepted: \(text) -> \(String(describing: loaded.config.schedule))")
            return []
        } catch {
            return error.issues
        }
    }

    static let opening = """
        [schedule]
        outside = "off"

        [[schedule.window]]
        days = "mon-fri"
        start = "07:30"
        end = "18:00"
        show = "heart"

        [[schedule.window]]
        days = ["sat", "sun"]
        start = 10:00:00
        end = "02:00"
        show = "low-power"

        [[schedule.date]]
        date = 2026-12-25
        show = "off"

        [[schedule.date]]
        date = "2026-12-24"
        start = "08:00"
        end = "12:00"
        show = "calm"
        """

    @Test("weekly windows, dates, strings and TOML times and dates alike")
    func reads() throws {
        let loaded = try ConfigParser.parse(Self.opening, file: "test.toml")
        #expect(loaded.warnings.isEmpty)
        let schedule = try #require(loaded.config.schedule)
        #expect(schedule.outside == .off)
        #expect(schedule.windows == [
            Schedule.Window(days: Weekday.parse("mon-fri")!, start: TimeOfDay("07:30")!, end: TimeOfDay("18:00")!, action: .scene("heart")),
            Schedule.Window(days: [.saturday, .sunday], start: TimeOfDay("10:00")!, end: TimeOfDay("02:00")!, action: .lowPower),
        ])
        #expect(schedule.dates == [
            Schedule.DateWindow(date: CalendarDate("2026-12-25")!, action: .off),
            Schedule.DateWindow(date: CalendarDate("2026-12-24")!, start: TimeOfDay("08:00")!, end: TimeOfDay("12:00")!, action: .scene("calm")),
        ])
        // `get schedule`: a line a window.
        #expect(loaded.config.values(for: "schedule")?.first?.value == .array([
            "mon,tue,wed,thu,fri 07:30-18:00 heart", "sat,sun 10:00-02:00 low-power",
            "2026-12-25 off", "2026-12-24 08:00-12:00 calm", "outside off",
        ].map(ConfigValue.string)))
        #expect(try ConfigParser.parse("", file: "test.toml").config.schedule == nil)
    }

    @Test("errors name the key and the line of the window they are in")
    func errors() {
        let text = """
            [schedule]
            outside = 3

            [[schedule.window]]
            days = "mon-fri"
            start = "07:30"
            end = "25:00"
            show = "heart"

            [[schedule.window]]
            days = "monday"
            start = "07:30"
            end = "09:00"
            show = "heart"

            [[schedule.window]]
            start = "07:30"
            end = "09:00"
            show = "heart"

            [[schedule.date]]
            date = "2026-02-29"
            show = "off"

            [[schedule.date]]
            date = "2026-12-24"
            start = "08:00"
            show = "off"
            """
        let found = issues(text).map { "\($0.line ?? 0) \($0.key ?? "") \($0.message)" }
        #expect(found == [
            "2 schedule.outside must be a scene's name, \"off\", \"dim\" or \"low-power\" (got the integer 3)",
            "7 schedule.window.0.end must be a time \"HH:MM\", 00:00 to 24:00 (got the string \"25:00\")",
            "11 schedule.window.1.days must be days as \"mon\", \"mon-fri\", \"daily\", \"weekdays\", \"weekends\" or a list of them (got the string \"monday\")",
            "16 schedule.window.2 missing days",
            "22 schedule.date.0.date must be a date \"YYYY-MM-DD\" that exists (got the string \"2026-02-29\")",
            "25 schedule.date.1 give both start and end, or neither (the whole day)",
        ], "\(found)")
    }

    @Test("unknown keys in a window are warnings with their line; a window written as a plain table is an error")
    func unknownAndMisshapen() throws {
        let loaded = try ConfigParser.parse("""
            [schedule]
            mode = "strict"

            [[schedule.window]]
            days = "daily"
            start = "00:00"
            end = "24:00"
            show = "calm"
            colour = "red"
            """, file: "test.toml")
        #expect(loaded.warnings.map { "\($0.line ?? 0) \($0.key ?? "")" } == ["2 schedule.mode", "9 schedule.window.0.colour"])
        #expect(loaded.config.schedule?.windows.count == 1)
        let plain = issues("[schedule.window]\ndays = \"daily\"\n")
        #expect(plain.first?.message == "must be written as [[schedule.window]] tables")
    }

    @Test("a reload reports the schedule changed and carries the new one in whole")
    func reload() throws {
        let before = try ConfigParser.parse("", file: "test.toml").config
        let after = try ConfigParser.parse(Self.opening, file: "test.toml").config
        #expect(after.changedKeys(from: before) == ["schedule"])
        var running = before
        ConfigKeys.key("schedule")!.copy(from: after, into: &running)
        #expect(running.schedule == after.schedule)
        #expect(ConfigKeys.key("schedule")!.liveReload)
    }
}
