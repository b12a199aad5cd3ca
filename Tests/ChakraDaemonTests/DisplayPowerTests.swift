import ChakraConfig
import ChakraControl
import ChakraDisplay
import ChakraInput
import ChakraSchedule
import ChakraSystem
import Testing
@testable import ChakraDaemon

@Suite("Screen policy: who decides the screen")
struct ScreenPolicyTests {
    @Test("the hand, then the schedule's off, the idle blank, the schedule's dim, the idle dim")
    func order() {
        func decide(_ mode: DisplayPowerMode, _ scheduled: ScheduleAction?, _ idle: PowerState, touch: Bool = false) -> ScreenState {
            ScreenPolicy.decide(mode: mode, scheduled: scheduled, idle: idle, touchWoken: touch)
        }
        #expect(decide(.auto, nil, .normal) == .on)
        #expect(decide(.auto, .scene("heart"), .normal) == .on)
        #expect(decide(.off, .scene("heart"), .normal) == ScreenState(.off, .manual))
        #expect(decide(.auto, .off, .normal) == ScreenState(.off, .schedule))
        #expect(decide(.auto, .off, .dimmed, touch: true) == ScreenState(.dimmed, .idle), "a touch wakes; the idle timers still dim")
        #expect(decide(.auto, .off, .normal, touch: true) == ScreenState(.on, .touch))
        #expect(decide(.auto, .dim, .normal) == ScreenState(.dimmed, .schedule))
        #expect(decide(.auto, .dim, .blanked) == ScreenState(.off, .idle))
        #expect(decide(.auto, .lowPower, .dimmed) == ScreenState(.dimmed, .idle))
        #expect(decide(.on, .off, .normal) == ScreenState(.on, .manual), "on by hand against the schedule")
        #expect(decide(.on, .dim, .normal) == ScreenState(.on, .manual))
        #expect(decide(.on, .off, .blanked) == ScreenState(.off, .idle), "on by hand: the idle timers still blank")
        #expect(decide(.on, .scene("calm"), .normal) == .on)
    }

    @Test("an exercise in progress keeps the screen from going dark by itself, never against the hand")
    func exercise() {
        func decide(_ mode: DisplayPowerMode, _ scheduled: ScheduleAction?, _ idle: PowerState, touch: Bool = false) -> ScreenState {
            ScreenPolicy.decide(mode: mode, scheduled: scheduled, idle: idle, touchWoken: touch, exercise: true)
        }
        #expect(decide(.auto, .off, .normal) == ScreenState(.on, .exercise), "closing time")
        #expect(decide(.auto, .off, .normal, touch: true) == ScreenState(.on, .touch), "the wake still runs")
        #expect(decide(.auto, .scene("heart"), .blanked) == ScreenState(.on, .exercise), "the idle blank")
        #expect(decide(.on, .off, .blanked) == ScreenState(.on, .exercise))
        #expect(decide(.off, .scene("heart"), .normal) == ScreenState(.off, .manual), "display off by hand is obeyed")
        #expect(decide(.auto, .dim, .normal) == ScreenState(.dimmed, .schedule), "dim is not dark")
        #expect(decide(.auto, .scene("heart"), .normal) == .on)
    }
}

/// Opening hours on virtual time in UTC: the monotonic clock starts at 100
/// s, when the wall clock shows 2026-11-26 07:59:00 (a Thursday).
@Suite("Daemon core: opening hours and a display that is really off")
struct DisplayPowerTests {
    static let wallAtStart = Double(FixedOffsetZone().instants(of: CalendarDate("2026-11-26")!, TimeOfDay("07:59")!)[0])
    static let offset = wallAtStart - 100
    /// Monotonic time at which the wall clock shows `clock` on 2026-11-26.
    static func at(_ clock: String, day: String = "2026-11-26") -> Double {
        Double(FixedOffsetZone().instants(of: CalendarDate(day)!, TimeOfDay(clock)!)[0]) - offset
    }

    static func window(_ start: String, _ end: String, _ action: String) -> Schedule.Window {
        Schedule.Window(days: Weekday.parse("daily")!, start: TimeOfDay(start)!, end: TimeOfDay(end)!, action: ScheduleAction(action))
    }

    /// heart 08:00–08:01, calm 08:01–08:02, off outside.
    static func openingHours(_ configuration: inout DaemonConfiguration) {
        configuration.config.scene.defaultScene = "drift"
        configuration.config.schedule = Schedule(windows: [window("08:00", "08:01", "heart"), window("08:01", "08:02", "calm")])
    }

    static func touch(_ phase: TouchPhase, id: Int = 1, at time: Double) -> DaemonInput {
        .touch(TouchContactEvent(phase: phase, id: id, x: 20, y: 20, time: time, deviceX: 0, deviceY: 0, device: 1))
    }

    func scheduleEvents(_ driver: CoreDriver) -> [ScheduleStatus] {
        driver.events.compactMap { if case .scheduleChanged(let s) = $0.event { s } else { nil } }
    }

    @Test("closed at start: one black frame (the first, so systemd hears READY), powered down, nothing until 08:00")
    func closedAtStart() throws {
        let driver = try CoreDriver(configure: Self.openingHours)
        driver.rendering = false
        driver.send(.wallClock(offset: Self.offset))
        driver.run(until: 100)
        #expect(driver.plans.count == 1 && driver.plans[0].plan.content.isBlack)
        #expect(driver.kinds.contains("notify"), "READY after the black frame")
        #expect(driver.displayPowers == [false])
        let display = driver.core.status().display
        #expect(display.screen == ScreenState(.off, .schedule) && display.until == "2026-11-26T08:00:00+00:00")
        #expect(display.summary == "off by schedule until 08:00" && display.check == "confirmed")
        #expect(driver.core.nextDeadline() == Self.at("08:00"), "asleep until opening")
        driver.run(until: Self.at("08:00") - 0.001)
        #expect(driver.plans.count == 1, "no frame while off")
    }

    @Test("the day: heart at 08:00 faded in from black, calm at 08:01 by crossfade, off at 08:02 until the next morning")
    func openingDay() throws {
        let driver = try CoreDriver(configure: Self.openingHours)
        driver.rendering = false
        driver.send(.wallClock(offset: Self.offset))
        driver.run(until: Self.at("08:00") + 0.2)
        #expect(driver.displayPowers == [false, true])
        #expect(driver.core.sceneName == "heart" && driver.core.status().display.screen == .on)
        #expect(driver.plans(after: Self.at("08:00") - 0.001).first?.content.isFadeFromBlack == true)
        driver.run(until: Self.at("08:01") + 0.2)
        #expect(driver.core.sceneName == "calm")
        #expect(driver.plans(after: Self.at("08:01")).first?.content.crossfadeAmount != nil, "a crossfade, as configured")
        driver.run(until: Self.at("08:02") + 5)
        #expect(driver.displayPowers == [false, true, false])
        let offAt = Self.at("08:02")
        #expect(driver.plans(after: offAt - 0.001).map(\.content.isBlack) == [true], "one black frame, then none")
        #expect(driver.core.nextDeadline() == Self.at("08:00", day: "2026-11-27"))
        #expect(scheduleEvents(driver).map(\.action) == ["off", "heart", "calm", "off"])
        #expect(scheduleEvents(driver).map(\.window) == ["outside", "window 1", "window 2", "outside"])
        let powers = driver.events.compactMap { if case .displayPower(let d) = $0.event { d.screen.power } else { nil } }
        #expect(powers == [.off, .on, .off])
    }

    @Test("while off, systemd's watchdog is still fed (by the timer: no frames come)")
    func watchdogWhileOff() throws {
        let driver = try CoreDriver(watchdogInterval: 10) { _ in }
        driver.rendering = false
        driver.send(.wallClock(offset: Self.offset))
        driver.run(until: 101)
        #expect(succeeded(driver.command { .display(.off, reply: $0) }))
        let mark = driver.mark
        driver.run(until: 161)
        #expect(driver.plans(since: mark).isEmpty)
        let pings = driver.notifications.filter { $0.message == .watchdog && $0.at > 101 }.map(\.at)
        #expect(pings.count >= 5, "\(pings)")
        #expect(zip(pings, pings.dropFirst()).allSatisfy { $1 - $0 <= 10.001 })
    }

    @Test("by hand: off and on hold until the schedule's next change; auto follows it at once")
    func byHand() throws {
        let driver = try CoreDriver(configure: Self.openingHours)
        driver.rendering = false
        driver.send(.wallClock(offset: Self.offset))
        #expect(succeeded(driver.command { .display(.on, reply: $0) }))
        var display = driver.core.status().display
        #expect(display.screen == ScreenState(.on, .manual) && display.mode == .on && display.summary == "on by hand until 08:00")
        #expect(driver.displayPowers == [false, true])
        driver.run(until: Self.at("08:00") + 0.1)
        #expect(driver.core.status().display.mode == .auto, "the window's start hands back to the schedule")
        #expect(succeeded(driver.command { .display(.off, reply: $0) }))
        display = driver.core.status().display
        #expect(display.screen == ScreenState(.off, .manual) && display.until == "2026-11-26T08:01:00+00:00")
        #expect(driver.displayPowers == [false, true, false])
        let mark = driver.mark
        driver.run(until: Self.at("08:00") + 30)
        #expect(driver.plans(since: mark).isEmpty)
        #expect(succeeded(driver.command { .display(.auto, reply: $0) }))
        #expect(driver.core.status().display.screen == .on && driver.displayPowers.last == true)
        #expect(succeeded(driver.command { .display(.off, reply: $0) }))
        driver.run(until: Self.at("08:01") + 0.1)
        #expect(driver.core.status().display.screen == .on && driver.core.sceneName == "calm", "off by hand ended at 08:01")
    }

    @Test("the reply to display off follows a status that shows the read-back")
    func replyShowsTheReadBack() throws {
        let driver = try CoreDriver()
        driver.rendering = false
        driver.send(.wallClock(offset: Self.offset))
        driver.run(until: 101)
        let seen = Answer<String>()
        driver.send(.command(.display(.off) { [driver] _ in seen.value = driver.published.last?.display.check }))
        #expect(seen.value == "confirmed")
        #expect(driver.displayPowers == [false])
    }

    @Test("no schedule: off by hand holds until on")
    func byHandWithoutSchedule() throws {
        let driver = try CoreDriver()
        driver.rendering = false
        driver.send(.wallClock(offset: Self.offset))
        driver.run(until: 101)
        #expect(succeeded(driver.command { .display(.off, reply: $0) }))
        driver.run(until: 100_000)
        #expect(driver.core.status().display.screen == ScreenState(.off, .manual) && driver.core.status().display.until == nil)
        #expect(driver.core.nextDeadline() == nil, "nothing to wake for")
        #expect(succeeded(driver.command { .display(.on, reply: $0) }))
        #expect(driver.core.status().display.screen == .on && driver.displayPowers == [false, true])
    }

    @Test("a reload that drops the schedule keeps a display off by hand (it holds until changed)")
    func reloadWithoutScheduleKeepsTheHand() throws {
        let driver = try CoreDriver {
            Self.openingHours(&$0)
            $0.file = $0.config  // as if read from a file with the schedule
        }
        driver.rendering = false
        driver.send(.wallClock(offset: Self.offset))
        driver.run(until: Self.at("08:00") + 1)
        #expect(succeeded(driver.command { .display(.off, reply: $0) }))
        var config = driver.core.configuration.config
        config.schedule = nil
        let reloaded = driver.command { .applyConfiguration(LoadedConfig(config: config), reply: $0) }
        #expect((try? reloaded?.get()) != nil)
        let display = driver.core.status().display
        #expect(display.screen == ScreenState(.off, .manual) && display.mode == .off && display.until == nil, "\(display)")
        #expect(driver.displayPowers == [false, true, false], "closed before 08:00, on at 08:00, off by hand; not powered up by the reload")
        #expect(driver.core.status().schedule == nil)
        #expect(succeeded(driver.command { .display(.auto, reply: $0) }))
        #expect(driver.core.status().display.screen == .on && driver.displayPowers.last == true)
    }

    @Test("the wall clock set forward and back: evaluated again at once, not at the old deadline")
    func clockSteps() throws {
        let driver = try CoreDriver(configure: Self.openingHours)
        driver.rendering = false
        driver.send(.wallClock(offset: Self.offset))
        driver.run(until: 110)
        driver.send(.wallClock(offset: Self.offset + 90), at: 110)   // 07:59:10 → 08:00:40
        #expect(driver.core.status().display.screen == .on && driver.core.sceneName == "heart")
        #expect(driver.core.nextDeadline()! <= Self.at("08:01") - 90)
        driver.send(.wallClock(offset: Self.offset - 3600), at: 111)  // back to 07:00:51
        #expect(driver.core.status().display.screen == ScreenState(.off, .schedule))
        #expect(driver.core.nextDeadline() == Self.at("08:00") + 3600)
    }

    @Test("a touch on a dark screen never reaches the scene; with wake_on_touch it wakes the screen for that long")
    func touchOnADarkScreen() throws {
        let driver = try CoreDriver(width: 195, height: 422) {
            $0.fps = 10
            $0.config.scene.defaultScene = "spiral"
            $0.config.schedule = Schedule(windows: [Self.window("09:00", "10:00", "spiral")])
        }
        driver.rendering = false
        driver.send(.wallClock(offset: Self.offset))
        driver.run(until: 101)
        driver.send(Self.touch(.down, at: 101), at: 101)
        driver.send(Self.touch(.move, at: 101.1), at: 101.1)
        #expect(driver.core.status().spiral?.touching == false, "not passed to the exercise")
        #expect(driver.core.status().display.screen.power == .off, "wake_on_touch = 0: still off")
        driver.send(Self.touch(.up, at: 101.2), at: 101.2)

        driver.send(.command(.applyConfiguration(LoadedConfig(config: {
            var config = driver.core.configuration.config
            config.display.wakeOnTouch = 30
            return config
        }())) { _ in }), at: 102)
        driver.send(Self.touch(.down, id: 2, at: 103), at: 103)
        #expect(driver.core.status().display.screen == ScreenState(.on, .touch))
        #expect(driver.displayPowers == [false, true])
        driver.send(Self.touch(.move, id: 2, at: 103.1), at: 103.1)
        #expect(driver.core.status().spiral?.touching == false, "the waking touch is consumed to its lift")
        driver.send(Self.touch(.up, id: 2, at: 103.2), at: 103.2)
        driver.send(Self.touch(.down, id: 3, at: 110), at: 110)
        #expect(driver.core.status().spiral?.touching == true, "the next touch reaches the scene")
        driver.send(Self.touch(.up, id: 3, at: 111), at: 111)
        driver.run(until: 140.9)
        #expect(driver.core.status().display.screen.power == .on, "30 s from the last touch (the lift at 111)")
        driver.run(until: 141.1)
        #expect(driver.core.status().display.screen == ScreenState(.off, .schedule))
        #expect(driver.displayPowers == [false, true, false])
    }

    @Test("the tap on a dark screen is consumed to its lift; the same finger on the lit screen starts the exercise")
    func darkTapThenLitTap() throws {
        let driver = try CoreDriver(width: 195, height: 422) {
            $0.fps = 10
            $0.config.scene.defaultScene = "spiral"
        }
        driver.rendering = false
        driver.send(.wallClock(offset: Self.offset))
        driver.run(until: 101)
        let head = try #require(driver.core.status().spiral)
        func touch(_ phase: TouchPhase, at t: Double) {
            driver.send(.touch(TouchContactEvent(phase: phase, id: 0, x: head.headX, y: head.headY, time: t, deviceX: 0, deviceY: 0, device: 1)), at: t)
        }
        #expect(succeeded(driver.command { .display(.off, reply: $0) }))
        touch(.down, at: 102)
        touch(.up, at: 102.5)
        driver.run(until: 103)
        #expect(driver.core.status().spiral?.state == "idle")
        #expect(succeeded(driver.command { .display(.on, reply: $0) }))
        driver.run(until: 104)
        touch(.down, at: 104)
        driver.run(until: 105)
        #expect(driver.core.status().spiral?.state == "inhale")
    }

    @Test("the read-back: a failure shows in status and events; a late answer to an earlier request is ignored")
    func readBack() throws {
        let driver = try CoreDriver(configure: Self.openingHours)
        driver.rendering = false
        driver.displayCheck = .failed("crtc 38 still ACTIVE=1")
        driver.send(.wallClock(offset: Self.offset))
        var display = driver.core.status().display
        #expect(display.check == "failed" && display.checkDetail == "test: test failed (crtc 38 still ACTIVE=1)")
        driver.send(.displayPowerChecked(DisplayPowerReport(part: "cec", on: true, method: "CEC Image View On", check: .confirmed("TV on"))))
        #expect(driver.core.status().display.checks.count == 1, "an answer about powering up, while off: ignored")
        driver.send(.displayPowerChecked(DisplayPowerReport(part: "cec", on: false, method: "CEC Standby", check: .confirmed("TV reports standby"))))
        display = driver.core.status().display
        #expect(display.checks.map(\.part) == ["test", "cec"] && display.check == "failed")
        let checks = driver.events.compactMap { if case .displayChecked(let r) = $0.event { r.part } else { nil } }
        #expect(checks == ["test", "cec"])
    }

    @Test("a low-power window turns low power on and gives back what was before")
    func lowPowerWindow() throws {
        let driver = try CoreDriver {
            $0.config.schedule = Schedule(windows: [Self.window("08:00", "08:01", "low-power")], outside: .scene("heart"))
        }
        driver.rendering = false
        driver.send(.wallClock(offset: Self.offset))
        #expect(!driver.core.configuration.settings.lowPower && driver.core.status().display.screen == .on)
        driver.run(until: Self.at("08:00") + 0.1)
        #expect(driver.core.configuration.settings.lowPower)
        driver.run(until: Self.at("08:01") + 0.1)
        #expect(!driver.core.configuration.settings.lowPower)
    }

    @Test("the spiral in progress when the scheduled scene changes: it goes on and ends in the new scene")
    func scheduledSceneDuringTheSpiral() throws {
        let driver = try CoreDriver(width: 195, height: 422) {
            $0.fps = 10
            $0.config.schedule = Schedule(windows: [Self.window("07:00", "08:00", "heart"), Self.window("08:00", "09:00", "calm")])
        }
        driver.rendering = false
        driver.send(.wallClock(offset: Self.offset))
        #expect(driver.core.sceneName == "heart")
        #expect(succeeded(driver.command { .spiral(.start, reply: $0) }))
        driver.run(until: Self.at("08:00") + 1)
        #expect(driver.core.sceneName == "spiral")
        #expect(succeeded(driver.command { .spiral(.cancel, reply: $0) }))
        #expect(driver.core.sceneName == "calm")
    }
}

/// A zone whose clocks change once, at `change` (UTC): `before` seconds
/// east of UTC until then, `after` from then (CET → CEST: 3600 → 7200).
struct OneChangeZone: LocalTimeZone {
    var change: Int64, before: Int, after: Int

    func local(at utc: Int64) -> LocalTime {
        let offset = utc < change ? before : after
        var shown = FixedOffsetZone(offset: offset).local(at: utc)
        shown.utcOffset = offset
        return shown
    }

    func instants(of date: CalendarDate, _ time: TimeOfDay) -> [Int64] {
        [before, after].map { FixedOffsetZone(offset: $0).instants(of: date, time)[0] }
            .filter { local(at: $0).date == date && local(at: $0).secondOfDay == time.minutes * 60 }
            .reduce(into: []) { if !$0.contains($1) { $0.append($1) } }.sorted()
    }
}

@Suite("Daemon core: opening hours across the clock changes")
struct DisplayPowerDSTTests {
    /// Opening at 08:00 and closing at 20:00, local time, for three days
    /// around a clock change, with no restart: the screen comes on at 08:00
    /// on the clock every day, so the mornings are 23 h apart on the day
    /// clocks go forward and 25 h on the day they go back.
    @Test("spring forward (23 h day) and fall back (25 h day): on at 08:00 and off at 20:00 local, every day",
          arguments: [("2026-03-28", "2026-03-29T01:00", 3600, 7200, 23.0), ("2026-10-24", "2026-10-25T01:00", 7200, 3600, 25.0)])
    func aroundTheChange(firstDay: String, changeAt: String, before: Int, after: Int, secondDayHours: Double) throws {
        let parts = changeAt.split(separator: "T").map(String.init)
        let change = FixedOffsetZone().instants(of: CalendarDate(parts[0])!, TimeOfDay(parts[1])!)[0]
        let zone = OneChangeZone(change: change, before: before, after: after)
        let day = CalendarDate(firstDay)!
        // Monotonic 100 s is the first day at 07:00 local.
        let offset = Double(zone.instants(of: day, TimeOfDay("07:00")!)[0]) - 100
        let driver = try CoreDriver(timeZone: zone) {
            $0.settings.reduceMotion = true   // still frames: only the schedule wakes the core
            $0.config.schedule = Schedule(windows: [DisplayPowerTests.window("08:00", "20:00", "heart")])
        }
        driver.rendering = false
        driver.send(.wallClock(offset: offset))
        driver.run(until: 100 + 3 * 86400 - 7200)   // before the fourth morning
        let changes = driver.events.compactMap { entry -> (at: Double, power: ScreenPower)? in
            if case .displayPower(let d) = entry.event { return (entry.at, d.screen.power) }
            return nil
        }
        #expect(changes.map(\.power) == [.off, .on, .off, .on, .off, .on, .off])
        let ons = changes.filter { $0.power == .on }.map(\.at)
        #expect(ons.count == 3)
        if ons.count == 3 {
            #expect((ons[1] - ons[0]) / 3600 == secondDayHours, "the mornings of the change")
            #expect((ons[2] - ons[1]) / 3600 == 24)
        }
        for (at, power) in changes.dropFirst() {
            let local = zone.local(at: Int64(at + offset))
            #expect(local.clock == (power == .on ? "08:00" : "20:00"), "\(power) at \(local.iso8601)")
        }
        #expect(driver.displayPowers == [false, true, false, true, false, true, false])
    }
}
