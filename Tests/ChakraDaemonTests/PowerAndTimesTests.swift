import ChakraConfig
import ChakraDisplay
import ChakraSystem
import Foundation
import Testing
@testable import ChakraDaemon

/// The pure parts of run-time power: frame-time statistics, idle timers,
/// brightness scales, and the backlight files.
@Suite("Frame times, idle timers, backlight")
struct PowerAndTimesTests {
    @Test func frameTimesKeepTheLastFramesInAFixedRing() {
        var times = FrameTimes()
        #expect(times.summary == FrameTimes.Summary())
        for ms in [5.0, 1, 3, 2, 4] { times.record(ms) }
        #expect(times.summary == FrameTimes.Summary(median: 3, p99: 5, samples: 5))
        // 1000 frames: only the last 240 count (values 761...1000).
        for n in 1...1000 { times.record(Double(n)) }
        let summary = times.summary
        #expect(summary.samples == FrameTimes.capacity)
        #expect(summary.median == 880)     // rank ceil(240 * 0.5) = 120 → 760 + 120
        #expect(summary.p99 == 998)        // rank ceil(240 * 0.99) = 238 → 760 + 238
    }

    @Test func idleTimersDimThenBlankOnlyInLowPower() {
        let both = IdlePolicy(dimAfter: 60, blankAfter: 300)
        #expect(both.state(idle: 59, lowPower: true) == .normal)
        #expect(both.state(idle: 60, lowPower: true) == .dimmed)
        #expect(both.state(idle: 299, lowPower: true) == .dimmed)
        #expect(both.state(idle: 300, lowPower: true) == .blanked)
        #expect(both.state(idle: 10_000, lowPower: false) == .normal)
        #expect(both.nextChange(lastActivity: 100, now: 100, lowPower: true) == 160)
        #expect(both.nextChange(lastActivity: 100, now: 170, lowPower: true) == 400)
        #expect(both.nextChange(lastActivity: 100, now: 500, lowPower: true) == nil)
        #expect(both.nextChange(lastActivity: 100, now: 100, lowPower: false) == nil)

        let blankOnly = IdlePolicy(dimAfter: 0, blankAfter: 30)
        #expect(blankOnly.state(idle: 29, lowPower: true) == .normal)
        #expect(blankOnly.state(idle: 30, lowPower: true) == .blanked)
        #expect(blankOnly.nextChange(lastActivity: 0, now: 1, lowPower: true) == 30)

        // Dimming after blanking would never be seen: straight to blank.
        let late = IdlePolicy(dimAfter: 100, blankAfter: 50)
        #expect(late.state(idle: 75, lowPower: true) == .blanked)
        #expect(late.state(idle: 150, lowPower: true) == .blanked)
        #expect(IdlePolicy(dimAfter: 0, blankAfter: 0).nextChange(lastActivity: 0, now: 0, lowPower: true) == nil)
    }

    @Test func brightnessScales() {
        #expect(BrightnessScale.raw(percent: 100, max: 255) == 255)
        #expect(BrightnessScale.raw(percent: 50, max: 255) == 128)
        #expect(BrightnessScale.raw(percent: 1, max: 10) == 1)      // never off above 0%
        #expect(BrightnessScale.raw(percent: 0, max: 255) == 0)
        #expect(BrightnessScale.percent(raw: 128, max: 255) == 50)
        #expect(BrightnessScale.percent(raw: 999, max: 255) == 100)
        #expect(BrightnessScale.dimmed(80, level: 30) == 24)
        #expect(BrightnessScale.dimmed(2, level: 10) == 1)
        #expect(BrightnessScale.dimmed(0, level: 30) == 0)
    }

    @Test func backlightFiles() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("chakra-backlight-\(getpid())-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        for (name, maximum, level) in [("b_panel", 1000, 500), ("a_broken", 0, 0)] {
            try FileManager.default.createDirectory(atPath: root + "/" + name, withIntermediateDirectories: true)
            try "\(maximum)\n".write(toFile: root + "/\(name)/max_brightness", atomically: false, encoding: .utf8)
            try "\(level)\n".write(toFile: root + "/\(name)/brightness", atomically: false, encoding: .utf8)
        }
        // auto: the first usable one (a_broken has max 0).
        let found = try #require(try Backlight.open(.auto, root: root).get())
        #expect(found.name == "b_panel" && found.maxBrightness == 1000)
        #expect(found.percent == 50)
        try found.set(percent: 25)
        #expect(try String(contentsOfFile: root + "/b_panel/brightness", encoding: .utf8) == "250\n")
        #expect(found.percent == 25)
        #expect(try Backlight.open(.disabled, root: root).get() == nil)
        #expect(try Backlight.open(.auto, root: root + "/nothing").get() == nil)
        if case .failure(let error) = Backlight.open(.named("missing"), root: root) {
            #expect(error.description.contains("backlight 'missing'"))
        } else {
            Issue.record("a missing named backlight was accepted")
        }
        // The device gone (ENODEV, through the funnel): a clear error, the level unchanged.
        let brightness = root + "/b_panel/brightness"
        SyscallFaults.inject(ENODEV, into: "open(\(brightness))")
        defer { SyscallFaults.remove(matching: "open(\(brightness))") }
        do {
            try found.set(percent: 80)
            Issue.record("set through an injected ENODEV")
        } catch {
            #expect(error.description == "cannot open \(brightness): No such device")
        }
        #expect(found.percent == 25)
    }

    /// `bl_power` written and read back; a backlight without it is
    /// unchecked, one that cannot be written fails with the reason.
    @Test func backlightPower() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("chakra-bl-power-\(getpid())-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        for name in ["panel", "bare"] {
            try FileManager.default.createDirectory(atPath: root + "/" + name, withIntermediateDirectories: true)
            try "255\n".write(toFile: root + "/\(name)/max_brightness", atomically: false, encoding: .utf8)
            try "128\n".write(toFile: root + "/\(name)/brightness", atomically: false, encoding: .utf8)
        }
        let power = root + "/panel/bl_power"
        try "0\n".write(toFile: power, atomically: false, encoding: .utf8)
        let panel = try #require(try Backlight.open(.named("panel"), root: root).get())

        let off = panel.setPower(on: false)
        #expect(off == DisplayPowerReport(part: "backlight", on: false, method: "bl_power", check: .confirmed("bl_power=4")))
        #expect(try String(contentsOfFile: power, encoding: .utf8) == "4\n")
        #expect(panel.percent == 50)   // the level is kept for when it comes back
        #expect(panel.setPower(on: true).check == .confirmed("bl_power=0"))
        #expect(try String(contentsOfFile: power, encoding: .utf8) == "0\n")

        let bare = try #require(try Backlight.open(.named("bare"), root: root).get())
        #expect(bare.setPower(on: false).check == .unchecked("\(root)/bare/bl_power does not exist"))

        SyscallFaults.inject(EACCES, into: "open(\(power))")
        defer { SyscallFaults.remove(matching: "open(\(power))") }
        #expect(panel.setPower(on: false).check == .failed("cannot open \(power): Permission denied"))
        #expect(try String(contentsOfFile: power, encoding: .utf8) == "0\n")
    }

    /// A reload applies what the file changed; run-time `set`s survive it;
    /// the command line still wins; restart-only keys are reported, not applied.
    @Test func reloadSemantics() {
        var file = ChakraConfig()
        file.lowPower.fps = 20
        var overrides = ConfigOverrides()
        overrides.fps = 30
        var c = DaemonConfiguration(file: file, overrides: overrides)
        #expect(c.fps == 30 && c.lowPowerFPS == 20 && !c.settings.reduceMotion)
        c.settings.reduceMotion = true   // chakractl set reduce-motion on

        var next = file
        next.lowPower.fps = 12
        next.display.fps = 50           // decided by --fps
        next.display.output = .fbdev    // restart only
        next.text.language = "de"
        let report = c.reload(next)
        #expect(report.changed == ["display.output", "display.fps", "low_power.fps", "text.language"])
        #expect(report.restartNeeded == ["display.output"])
        #expect(report.ignored == ["display.fps"])
        #expect(c.lowPowerFPS == 12 && c.fps == 30)
        #expect(c.config.text.language == "de")
        #expect(c.settings.reduceMotion, "a run-time set is kept when the file did not change the key")
        #expect(c.output == .auto && c.config.display.output == .auto, "restart-only keys keep their running values")

        var turnedOff = next
        turnedOff.reduceMotion = true
        _ = c.reload(turnedOff)
        turnedOff.reduceMotion = false
        #expect(c.reload(turnedOff).changed == ["reduce_motion"])
        #expect(!c.settings.reduceMotion, "a key the file changed takes the file's value")
        #expect(c.config.reduceMotion == false && c.config.lowPower.fps == 12)
    }

    @Test func configurationFromTheFile() {
        var file = ChakraConfig()
        file.display.output = .headless
        file.display.mode = DisplayModeSetting(width: 800, height: 480, refresh: 60)
        file.display.vt = .disabled
        file.display.rotation = 90
        file.render.threads = 3
        file.lowPower.enabled = true
        file.control.socket = nil
        let c = DaemonConfiguration(file: file)
        #expect(c.output == .headless && c.terminal == .none && c.rotation == .clockwise90 && c.threads == 3)
        #expect(c.outputOptions.mode?.width == 800 && c.outputOptions.mode?.refresh == 60)
        #expect(c.settings.lowPower && c.effectiveFPSCap == 20)
        #expect(c.control == nil)
        #expect(c.backlight == .auto)
        // In code (tests): no socket, no backlight.
        #expect(DaemonConfiguration().control == nil && DaemonConfiguration().backlight == .disabled)
    }
}

@Suite("Configuration checks against this build")
struct ConfigurationCheckTests {
    @Test("a schedule window that shows no scene of this build is refused with its key and line")
    func scheduleScenes() throws {
        let text = """
            [[schedule.window]]
            days = "daily"
            start = "08:00"
            end = "20:00"
            show = "calm"

            [[schedule.window]]
            days = "daily"
            start = "20:00"
            end = "22:00"
            show = "hart"
            """
        let loaded = try ConfigParser.parse(text, file: "test.toml")
        do {
            try ConfigSource.check(loaded)
            Issue.record("a schedule showing 'hart' was accepted")
        } catch {
            #expect(error.issues.map { "\($0.line ?? 0) \($0.key ?? "")" } == ["11 schedule.window.1.show"])
            #expect(error.issues.first?.message.hasPrefix("no scene named 'hart'; scenes: heart, drift, calm, spiral") == true)
        }
        var fixed = loaded
        fixed.config.schedule?.windows[1].action = .off
        try ConfigSource.check(fixed)
    }
}
