import ChakraConfig
import ChakraControl
import ChakraInput
import ChakraSchedule
import Testing
@testable import ChakraDaemon

/// A person at the screen is never cut off, and nothing happens in the
/// dark: a touch's wake counts from the last contact and lasts while a
/// finger is on the glass; an exercise in progress keeps the screen on past
/// closing time, the wake's end and the idle blank until it ends; fingers
/// on the glass when the screen goes dark are let go of and kept from the
/// scene until they lift. On virtual time, on the clock of
/// `DisplayPowerTests` (monotonic 100 s is 07:59:00 UTC).
@Suite("Daemon core: a person at the screen")
struct PersonAtTheScreenTests {
    static let offset = DisplayPowerTests.offset
    /// 08:00: where the windows below close.
    static let closing = DisplayPowerTests.at("08:00")

    static func touch(_ driver: CoreDriver, _ phase: TouchPhase, id: Int = 1, _ p: (Double, Double) = (20, 20), at t: Double) {
        driver.send(.touch(TouchContactEvent(phase: phase, id: id, x: p.0, y: p.1, time: t, deviceX: 0, deviceY: 0, device: 1)), at: t)
    }

    static func screen(_ driver: CoreDriver) -> ScreenState { driver.core.status().display.screen }
    static func state(_ driver: CoreDriver) -> String? { driver.core.status().spiral?.state }
    static func stateEvents(_ driver: CoreDriver, after t: Double) -> [String] {
        driver.events.filter { $0.at > t }.compactMap { if case .spiralState(let from, let to) = $0.event { "\(from)→\(to)" } else { nil } }
    }

    /// The spiral on a 320x240 screen with a 4 s hold of 2 s in, 2 s out,
    /// given up 60 s after the finger left the light; `configure` adds the
    /// schedule or the power settings. The wall clock is given; its path.
    static func spiral(configure: (inout DaemonConfiguration) -> Void) throws -> (CoreDriver, [(Double, Double)]) {
        let driver = try CoreDriver(width: 320, height: 240) {
            $0.fps = 10
            $0.config.scene.defaultScene = "spiral"
            $0.config.spiral.customPatterns = [BreathingPattern(name: "quick", phases: [BreathPhase(.in, 2), BreathPhase(.out, 2)])]
            $0.config.spiral.pattern = "quick"
            $0.config.spiral.holdDuration = 4
            $0.config.spiral.completionDelay = 0.5
            $0.config.spiral.abandonAfter = 60
            configure(&$0)
        }
        driver.rendering = false
        driver.send(.wallClock(offset: offset))
        driver.run(until: 101)
        let path = try #require(try driver.command { .spiral(.path, reply: $0) }?.get().points)
        return (driver, path.map { ($0[0], $0[1]) })
    }

    /// Moves the finger along the path, 10 ms a point, until the spiral is
    /// in `wanted` (or the path ends).
    static func trace(_ driver: CoreDriver, _ points: [(Double, Double)], from index: inout Int, t: inout Double, until wanted: String) {
        SessionRecordingTests.trace(driver, points, from: &index, t: &t, until: wanted)
    }

    /// The heart, closed until 09:00 (the screen off by schedule), a touch
    /// waking it for 8 s.
    static func closedKiosk() throws -> CoreDriver {
        let driver = try CoreDriver {
            $0.config.schedule = Schedule(windows: [DisplayPowerTests.window("09:00", "10:00", "heart")])
            $0.config.display.wakeOnTouch = 8
        }
        driver.rendering = false
        driver.send(.wallClock(offset: Self.offset))
        driver.run(until: 101)
        return driver
    }

    /// Open 07:00–08:00 showing `scene`, off outside.
    static func closingAtEight(_ scene: String) -> (inout DaemonConfiguration) -> Void {
        { $0.config.schedule = Schedule(windows: [DisplayPowerTests.window("07:00", "08:00", scene)]) }
    }

    // MARK: a touch's wake

    @Test("the wake counts from the last touch: a finger tracing for twice the wake keeps the screen on; off 8 s after it lifts")
    func wakeFromTheLastTouch() throws {
        let driver = try Self.closedKiosk()
        #expect(Self.screen(driver) == ScreenState(.off, .schedule))
        Self.touch(driver, .down, at: 102)
        Self.touch(driver, .up, at: 102.1)
        #expect(Self.screen(driver) == ScreenState(.on, .touch))
        #expect(driver.core.status().display.summary == "on after a touch until 07:59:11", "to the second: 102.1 + 8 s, rounded up")
        Self.touch(driver, .down, id: 2, at: 103)
        var t = 103.0
        var dark: [Double] = []
        while t < 125 {
            t += 0.5
            driver.run(until: t)
            Self.touch(driver, .move, id: 2, (20 + t - 103, 20), at: t)
            if Self.screen(driver).power == .off { dark.append(t) }
        }
        #expect(dark.isEmpty, "dark under the moving finger at \(dark)")
        #expect(driver.core.status().display.until == nil, "no end while a finger is on the glass")
        #expect(driver.core.status().display.summary == "on after a touch")
        Self.touch(driver, .up, id: 2, at: 125.2)
        #expect(driver.core.status().display.summary == "on after a touch until 07:59:34")
        driver.run(until: 133.19)
        #expect(Self.screen(driver) == ScreenState(.on, .touch), "8 s after the lift at 125.2")
        driver.run(until: 133.21)
        #expect(Self.screen(driver) == ScreenState(.off, .schedule))
        #expect(driver.displayPowers == [false, true, false])
    }

    @Test("a finger held still keeps the wake; a stuck contact only for the bound, then it is kept from the scene until it lifts")
    func heldFingerAndTheBound() throws {
        let driver = try Self.closedKiosk()
        Self.touch(driver, .down, at: 102)
        let limit = DaemonCore.personHoldLimit
        driver.run(until: 102 + 8 + limit - 0.01)
        #expect(Self.screen(driver) == ScreenState(.on, .touch), "a finger on the glass, however still")
        driver.run(until: 102 + 8 + limit + 0.01)
        #expect(Self.screen(driver) == ScreenState(.off, .schedule), "but not for ever")
        let t = 102 + 8 + limit + 1
        Self.touch(driver, .move, at: t)
        #expect(Self.screen(driver).power == .off, "the stuck finger's moves do not wake it again")
        Self.touch(driver, .up, at: t + 1)
        Self.touch(driver, .down, id: 2, at: t + 2)
        #expect(Self.screen(driver) == ScreenState(.on, .touch), "a new touch does")
    }

    // MARK: closing time

    @Test("closing time with an exercise in each state: the screen stays on until it ends, then off at once",
          arguments: ["inhale", "hold", "exhale", "completed"])
    func closingTimeMidExercise(wanted: String) throws {
        let (driver, points) = try Self.spiral {
            Self.closingAtEight("spiral")(&$0)
            if wanted == "completed" { $0.config.spiral.completionDelay = 30 }
        }
        var t = 130.0, index = 0
        Self.touch(driver, .down, points[0], at: t)
        switch wanted {
        case "inhale":
            // A few points in; the finger rests on the light, lifted just
            // before closing.
            for _ in 0..<5 {
                index += 1
                t += 0.01
                Self.touch(driver, .move, points[index], at: t)
            }
            driver.run(until: Self.closing - 1)
            Self.touch(driver, .up, points[index], at: Self.closing - 1)
        case "hold":
            Self.trace(driver, points, from: &index, t: &t, until: "hold")
            Self.touch(driver, .up, points[index], at: t + 0.01)
        default:
            Self.trace(driver, points, from: &index, t: &t, until: "hold")
            // The finger stays on the light through the hold.
            while Self.state(driver) == "hold", t < 150 {
                t += 0.1
                driver.run(until: t)
            }
            Self.trace(driver, points, from: &index, t: &t, until: wanted)
            if wanted == "exhale" { Self.touch(driver, .up, points[index], at: t + 0.01) }
        }
        driver.run(until: Self.closing - 0.5)
        #expect(Self.state(driver) == wanted, "the exercise is in \(wanted) before closing")
        #expect(Self.screen(driver) == .on)
        // A completed exercise is recorded as it completes; the others as they end.
        let recordsAfter = driver.records.count + (wanted == "completed" ? 0 : 1)

        driver.run(until: Self.closing + 0.5)
        #expect(driver.core.status().schedule?.action == "off", "the window has closed")
        #expect(Self.screen(driver) == ScreenState(.on, .exercise), "a person breathing is not cut off")
        let display = driver.core.status().display
        #expect(display.summary == "on until the exercise ends")
        #expect(display.until == "2026-11-26T08:10:00+00:00", "at most \(DaemonCore.personHoldLimit) s")
        #expect(driver.displayPowers.isEmpty, "never powered down")

        // The exercise ends its own way: given up 60 s after the finger
        // left the light (inhale, hold), completed (exhale), the
        // celebration over (completed).
        if wanted == "exhale" {
            t = Self.closing + 1
            Self.touch(driver, .down, points[index], at: t)
            Self.trace(driver, points, from: &index, t: &t, until: "completed")
            Self.touch(driver, .up, points[index], at: t + 0.01)
        }
        t = Self.closing + 1
        while Self.state(driver) != "idle", t < Self.closing + 120 {
            #expect(Self.screen(driver) == ScreenState(.on, .exercise), "on until the exercise ends")
            t += 0.05
            driver.run(until: t)
        }
        let endedAt = driver.events.last { if case .spiralState(_, "idle") = $0.event { true } else { false } }?.at ?? -1
        #expect(Self.state(driver) == "idle")
        #expect(Self.screen(driver) == ScreenState(.off, .schedule), "dark as soon as the exercise ends")
        let offAt = driver.events.first { if case .displayPower(let d) = $0.event { d.screen.power == .off } else { false } }?.at
        #expect(offAt.map { $0 - endedAt < 0.02 } == true, "off at \(offAt ?? -1), the exercise ended at \(endedAt)")
        #expect(driver.displayPowers == [false])
        #expect(driver.records.count == recordsAfter, "the exercise recorded once")
        #expect(driver.records.last?.ending == (wanted == "exhale" || wanted == "completed" ? "completed" : "timed_out"))

        // In the dark nothing begins.
        Self.touch(driver, .down, id: 5, points[0], at: endedAt + 1)
        Self.touch(driver, .move, id: 5, points[1], at: endedAt + 1.1)
        driver.run(until: endedAt + 3)
        #expect(Self.state(driver) == "idle" && Self.stateEvents(driver, after: endedAt + 0.5).isEmpty)
        #expect(driver.records.count == recordsAfter)
    }

    @Test("an exercise that cannot end (abandon_after 0, the finger gone) keeps the screen on for the bound only")
    func exerciseBound() throws {
        let (driver, points) = try Self.spiral {
            Self.closingAtEight("spiral")(&$0)
            $0.config.spiral.abandonAfter = 0
        }
        var t = 150.0, index = 0
        Self.touch(driver, .down, points[0], at: t)
        Self.trace(driver, points, from: &index, t: &t, until: "hold")
        Self.touch(driver, .up, points[index], at: t + 0.01)
        let limit = DaemonCore.personHoldLimit
        driver.run(until: Self.closing + limit - 0.01)
        #expect(Self.screen(driver) == ScreenState(.on, .exercise) && Self.state(driver) == "hold")
        driver.run(until: Self.closing + limit + 0.01)
        #expect(Self.screen(driver) == ScreenState(.off, .schedule))
        #expect(Self.state(driver) == "idle")
        #expect(driver.records.map(\.ending) == ["interrupted"])
    }

    @Test("a cancelled exercise after closing: dark in the same turn; the reply's status already says so")
    func cancelAfterClosing() throws {
        let (driver, points) = try Self.spiral(configure: Self.closingAtEight("spiral"))
        var t = 150.0, index = 0
        Self.touch(driver, .down, points[0], at: t)
        Self.trace(driver, points, from: &index, t: &t, until: "hold")
        driver.run(until: Self.closing + 5)
        #expect(Self.screen(driver) == ScreenState(.on, .exercise))
        #expect(succeeded(driver.command { .spiral(.cancel, reply: $0) }))
        #expect(Self.screen(driver) == ScreenState(.off, .schedule))
        #expect(driver.published.last?.display.screen == ScreenState(.off, .schedule))
        // The finger still on the light is let go of: it moves in the dark.
        Self.touch(driver, .move, points[index + 1], at: Self.closing + 6)
        #expect(Self.state(driver) == "idle" && driver.core.status().spiral?.touching == false)
    }

    @Test("a touch wake that runs out mid-exercise: the exercise keeps the screen on")
    func wakeEndsMidExercise() throws {
        let (driver, points) = try Self.spiral {
            $0.config.schedule = Schedule(windows: [DisplayPowerTests.window("09:00", "10:00", "spiral")])
            $0.config.display.wakeOnTouch = 8
        }
        #expect(Self.screen(driver) == ScreenState(.off, .schedule))
        Self.touch(driver, .down, id: 9, at: 102)
        Self.touch(driver, .up, id: 9, at: 102.1)
        #expect(Self.screen(driver) == ScreenState(.on, .touch))
        var t = 103.0, index = 0
        Self.touch(driver, .down, points[0], at: t)
        Self.trace(driver, points, from: &index, t: &t, until: "hold")
        Self.touch(driver, .up, points[index], at: t + 0.01)
        driver.run(until: t + 8.5)
        #expect(Self.screen(driver) == ScreenState(.on, .exercise), "the wake is over, the exercise is not")
        #expect(succeeded(driver.command { .spiral(.cancel, reply: $0) }))
        #expect(Self.screen(driver) == ScreenState(.off, .schedule))
    }

    // MARK: fingers on the glass when it goes dark

    @Test("display off with a finger tracing: off at once, the finger let go of and kept from the scene until it lifts")
    func displayOffUnderAFinger() throws {
        let (driver, points) = try Self.spiral { _ in }
        var t = 102.0, index = 0
        Self.touch(driver, .down, points[0], at: t)
        // A few points in: breathing in.
        for _ in 0..<5 {
            index += 1
            t += 0.01
            Self.touch(driver, .move, points[index], at: t)
        }
        #expect(Self.state(driver) == "inhale")
        #expect(succeeded(driver.command { .display(.off, reply: $0) }))
        #expect(Self.screen(driver) == ScreenState(.off, .manual), "the hand is obeyed at once")
        #expect(Self.state(driver) == "idle")
        #expect(driver.records.map(\.ending) == ["interrupted"], "the exercise on screen ends once")
        let offAt = t
        // The finger goes on along the path for 5 s in the dark.
        while t < offAt + 5 {
            index += 1
            t += 0.05
            driver.run(until: t)
            Self.touch(driver, .move, points[index], at: t)
        }
        #expect(Self.stateEvents(driver, after: offAt).isEmpty, "nothing reached the scene: \(Self.stateEvents(driver, after: offAt))")
        #expect(driver.core.status().spiral?.touching == false)
        #expect(driver.records.count == 1 && driver.core.status().sessions.started == 1)
        // The screen back on with the finger still down and moving: still its own.
        #expect(succeeded(driver.command { .display(.auto, reply: $0) }))
        #expect(Self.screen(driver) == .on)
        for _ in 0..<20 {
            index += 1
            t += 0.05
            driver.run(until: t)
            Self.touch(driver, .move, points[index], at: t)
        }
        #expect(Self.state(driver) == "idle" && driver.core.status().spiral?.touching == false)
        Self.touch(driver, .up, points[index], at: t + 0.1)
        // Lifted; a new touch on the light begins again.
        Self.touch(driver, .down, points[0], at: t + 1)
        driver.run(until: t + 1.1)
        #expect(Self.state(driver) == "inhale")
    }

    @Test("the idle blank: held off by an exercise in progress, then dark; a finger on the glass then is let go of")
    func idleBlank() throws {
        let (driver, points) = try Self.spiral {
            $0.settings.lowPower = true
            $0.config.lowPower.blankAfter = 30
        }
        var t = 102.0, index = 0
        Self.touch(driver, .down, points[0], at: t)
        Self.trace(driver, points, from: &index, t: &t, until: "hold")
        Self.touch(driver, .up, points[index], at: t + 0.01)
        let lifted = t + 0.01
        driver.run(until: lifted + 40)
        #expect(driver.core.status().power == .blanked, "idle for 40 s")
        #expect(Self.screen(driver) == ScreenState(.on, .exercise))
        // Another finger comes down off the light and stays.
        Self.touch(driver, .down, id: 2, (5, 5), at: lifted + 45)
        #expect(Self.screen(driver) == .on, "a touch is activity")
        driver.run(until: lifted + 60 + 0.01)
        #expect(Self.state(driver) == "idle", "given up 60 s after the lift")
        driver.run(until: lifted + 45 + 30 + 0.01)
        #expect(Self.screen(driver) == ScreenState(.off, .idle), "then the idle blank")
        // The finger that was down is kept from the scene, and its moves do
        // not wake the screen (only a new touch does).
        Self.touch(driver, .move, id: 2, points[0], at: lifted + 80)
        #expect(Self.screen(driver).power == .off && driver.core.status().spiral?.touching == false)
        Self.touch(driver, .up, id: 2, points[0], at: lifted + 81)
        Self.touch(driver, .down, id: 3, points[0], at: lifted + 82)
        #expect(Self.screen(driver) == .on, "a new touch wakes the idle blank")
        #expect(Self.state(driver) == "idle", "and is consumed")
    }
}
