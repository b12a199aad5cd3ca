import ChakraConfig
import ChakraContinuity
import ChakraSessions
import ChakraControl
import ChakraDisplay
import ChakraInput
import ChakraRaster
import ChakraSchedule
import ChakraScenes
import ChakraSystem
import Glibc
import Testing
@testable import ChakraDaemon

/// A backlight in memory: what the core set, and a switch to make it fail.
final class FakeBacklight: BacklightPort {
    let name = "test-backlight"
    var percent: Int?
    var refuses = false
    private(set) var written: [Int] = []

    init(percent: Int) { self.percent = percent }

    func set(percent: Int) throws {
        if refuses { throw BacklightError("refused") }
        written.append(percent)
        self.percent = percent
    }
}

/// The shell's outputs in memory, on virtual time: every frame drawn at
/// once (or only planned) and presented at once, the display's read-back
/// as told, session records answered at once; what came out is kept, and
/// each effect's kind in order (`kinds`).
final class FakeShell: FrameDisplay, DisplayPowerPart, BacklightLevel, HapticCues, StatusChannel, ReplyOutput, NotifyOutput,
    StatusFiles, SessionRecords, @unchecked Sendable {
    /// Virtual now.
    var time: Double
    let frame: FrameBuffer
    /// The core that hears of session records (set once it is made).
    weak var core: DaemonCore?
    /// Draw the frames (false: plan them only, for long runs).
    var rendering = true
    /// What the fake display reads back after powering.
    var displayCheck: DisplayPowerCheck = .confirmed("test display")
    /// What the fake recorder answers: nil, written; else this error.
    var recordFailure: String?
    private(set) var plans: [(at: Double, plan: FramePlan)] = []
    private(set) var events: [(at: Double, event: DaemonEvent)] = []
    private(set) var published: [DaemonStatus] = []
    private(set) var backlightLevels: [Int] = []
    private(set) var notifications: [(at: Double, message: NotifyMessage)] = []
    private(set) var displayPowers: [Bool] = []
    private(set) var metricsWrites: [(at: Double, directory: String)] = []
    private(set) var records: [SessionRecord] = []
    private(set) var kinds: [String] = []

    init(width: Int, height: Int, time: Double) {
        frame = FrameBuffer(width: width, height: height, format: .xrgb8888)
        self.time = time
    }

    func draw(_ plan: FramePlan) {
        kinds.append("draw")
        plans.append((time, plan))
        if rendering { plan.render(into: frame.pixels) }
    }

    func present() -> Presentation? { Presentation(timestamp: nil) }
    func suspend() { kinds.append("suspend") }
    func resume() { kinds.append("resume") }

    func setPower(on: Bool) -> DisplayPowerReport {
        kinds.append(on ? "power-up" : "power-down")
        displayPowers.append(on)
        return DisplayPowerReport(part: "test", on: on, method: "test", check: displayCheck)
    }

    func set(percent: Int) throws {
        kinds.append("backlight")
        backlightLevels.append(percent)
    }

    func tick() { kinds.append("haptic") }
    func beat() { kinds.append("haptic") }

    func publish(_ status: DaemonStatus) {
        kinds.append("publish")
        published.append(status)
    }

    func emit(_ event: DaemonEvent) {
        kinds.append("event")
        events.append((time, event))
    }

    func framesPresented(_ progress: FrameProgress) {}

    func answer(_ reply: @Sendable () -> Void) {
        kinds.append("reply")
        reply()
    }

    func notify(_ message: NotifyMessage) {
        // STATUS= lines go with publications; the rest are the core's own.
        if case .status = message { return }
        kinds.append("notify")
        notifications.append((time, message))
    }

    func writeStats(_ status: DaemonStatus) {}

    func writeMetrics(_ status: DaemonStatus, into directory: String) {
        kinds.append("metrics")
        metricsWrites.append((time, directory))
    }

    func record(_ record: SessionRecord) {
        kinds.append("record")
        records.append(record)
        core?.send(.sessionRecorded(record, error: recordFailure), at: time)
    }

    func update(_ settings: ChakraConfig.Sessions) {}
}

/// Plays the shell around a `DaemonCore` on virtual time: ticks at the
/// core's deadlines and carries out the effects with the daemon's own
/// `EffectRunner` on a `FakeShell`. No clock, no sleeps.
final class CoreDriver: @unchecked Sendable {
    let core: DaemonCore
    let shell: FakeShell
    let runner: EffectRunner
    let backlight: FakeBacklight?

    var time: Double { shell.time }
    var frame: FrameBuffer { shell.frame }
    /// Every frame planned, with the time it was planned at.
    var plans: [(at: Double, plan: FramePlan)] { shell.plans }
    var events: [(at: Double, event: DaemonEvent)] { shell.events }
    var published: [DaemonStatus] { shell.published }
    var backlightLevels: [Int] { shell.backlightLevels }
    /// systemd notifications, with the time they were sent.
    var notifications: [(at: Double, message: NotifyMessage)] { shell.notifications }
    /// `.displayPower` effects: false for down, true for up.
    var displayPowers: [Bool] { shell.displayPowers }
    var displayCheck: DisplayPowerCheck { get { shell.displayCheck } set { shell.displayCheck = newValue } }
    /// `.writeMetrics` effects, with the time they came at.
    var metricsWrites: [(at: Double, directory: String)] { shell.metricsWrites }
    /// Effects in order, by kind, for checking their sequence.
    var kinds: [String] { shell.kinds }
    var rendering: Bool { get { shell.rendering } set { shell.rendering = newValue } }
    /// `.recordSession` effects, in order.
    var records: [SessionRecord] { shell.records }
    var recordFailure: String? { get { shell.recordFailure } set { shell.recordFailure = newValue } }

    init(width: Int = 48, height: Int = 32, backlight: FakeBacklight? = nil, timeZone: LocalTimeZone = FixedOffsetZone(),
         watchdogInterval: Double? = nil, continuing record: ContinuationRecord? = nil, keeping continuation: ContinuationOutput? = nil,
         configure: (inout DaemonConfiguration) -> Void = { _ in }) throws {
        var configuration = DaemonConfiguration()
        configuration.fps = 20
        configuration.threads = 1
        configuration.catalogDirectory = "/nonexistent"
        configure(&configuration)
        let logger = Logger(label: "core-test", sink: DiscardingLog())
        self.backlight = backlight
        let shell = FakeShell(width: width, height: height, time: 100)
        core = try DaemonCore(configuration: configuration, display: DisplayFacts(summary: "test \(width)x\(height)", width: width, height: height),
                              scenes: DaemonSceneFactory(logger: logger), backlight: backlight, watchdogInterval: watchdogInterval,
                              timeZone: timeZone, startTime: shell.time, continuing: record, logger: logger)
        shell.core = core
        core.keepsContinuation = continuation != nil
        let outputs = ShellOutputs(display: shell, powerParts: [shell], powerRequest: nil, backlight: backlight == nil ? nil : shell,
                                   haptics: shell, status: shell, replies: shell, notifier: shell, files: shell, sessions: shell,
                                   continuation: continuation)
        runner = EffectRunner(core: core, outputs: outputs, clock: { [unowned shell] in shell.time }, logger: logger)
        self.shell = shell
    }

    func send(_ input: DaemonInput, at t: Double? = nil) {
        shell.time = max(shell.time, t ?? shell.time)
        runner.send(input, at: shell.time)
    }

    /// Runs the loop until `t`: a tick now, then at every deadline up to t.
    func run(until t: Double) {
        send(.tick(outputReady: true))
        var turns = 0
        while let deadline = core.nextDeadline(), deadline <= t {
            turns += 1
            precondition(turns < 100_000, "the core keeps asking for ticks at \(time)")
            send(.tick(outputReady: true), at: max(deadline, time))
        }
        send(.tick(outputReady: true), at: t)
    }

    /// A command, answered: its reply's value.
    func command<Value>(_ make: (@escaping DaemonCommand.Reply<Value>) -> DaemonCommand) -> Result<Value, DaemonCommandError>? {
        let answer = Answer<Result<Value, DaemonCommandError>>()
        send(.command(make { result in answer.value = result }))
        return answer.value
    }

    func plans(after t: Double) -> [FramePlan] { plans.filter { $0.at > t }.map(\.plan) }

    /// How many frames have been planned: `plans(since:)` takes the later ones.
    var mark: Int { plans.count }
    func plans(since mark: Int) -> [FramePlan] { plans[mark...].map(\.plan) }
}

/// A reply, kept: replies run on the driver's thread, as effects.
final class Answer<Value>: @unchecked Sendable {
    var value: Value?
}

/// A command's reply was a success.
func succeeded<Value>(_ result: Result<Value, DaemonCommandError>?) -> Bool {
    if case .success? = result { true } else { false }
}

extension FramePlan.Content {
    /// The scene drawn alone, with its time; nil for anything else.
    var scene: (name: String, time: Double)? {
        if case .scene(let scene, let time) = self { return (type(of: scene).name, time) }
        return nil
    }

    var crossfadeAmount: Float? {
        if case .crossfade(_, _, _, _, _, let amount) = self { return amount }
        return nil
    }

    var isBlack: Bool { if case .black = self { true } else { false } }

    /// A crossfade from a still picture (black, when the screen comes back).
    var isFadeFromBlack: Bool {
        if case .crossfade(nil, _, _, _, let frames, _) = self { return frames.from.pixels.rgb(x: 0, y: 0) == .zero }
        return false
    }
}

@Suite("Daemon core on virtual time")
struct DaemonCoreTests {
    @Test("frames come at the cap's pace, each drawn for the time it is shown")
    func framesAtThePace() throws {
        let driver = try CoreDriver()
        driver.run(until: 101)
        let times = driver.plans.compactMap { $0.plan.content.scene?.time }
        // 20 fps for a second: 21 frames (0 and 1 s included), 0.05 s apart.
        #expect(times.count == 21)
        for (a, b) in zip(times, times.dropFirst()) { #expect(abs(b - a - 0.05) < 1e-9) }
        #expect(driver.core.status().frames.presented == 21)
    }

    @Test("a cut: the next frame is the new scene from its time 0; the reply follows the status that shows it, the event after")
    func cut() throws {
        let driver = try CoreDriver()
        driver.run(until: 102)
        let before = driver.kinds.count, mark = driver.mark
        let result = driver.command { .switchScene(SceneSwitch(scene: "calm", transition: .cut), reply: $0) }
        #expect((try? result?.get()) == SceneChangeReport(scene: "calm", previous: "heart", transition: SceneTransition(kind: .cut, duration: 0.5)))
        #expect(Array(driver.kinds[before...]) == ["publish", "reply", "publish", "event"])
        #expect(driver.published.last?.scene == "calm")
        guard case .sceneChanged(let scene, let previous, _)? = driver.events.last?.event else { Issue.record("no scene event"); return }
        #expect((scene, previous) == ("calm", "heart"))
        driver.run(until: 102.2)
        let next = try #require(driver.plans(since: mark).first?.content.scene)
        #expect(next.name == "calm" && next.time == 0)
    }

    @Test("a crossfade mixes the two scenes, rising to the new one, then draws it alone")
    func crossfade() throws {
        let driver = try CoreDriver()
        driver.rendering = false
        driver.run(until: 101)
        _ = driver.command { .switchScene(SceneSwitch(scene: "drift", transition: .crossfade, duration: 0), reply: $0) }
        driver.run(until: 104)
        let after = driver.plans(after: 101)
        let amounts = after.compactMap(\.content.crossfadeAmount)
        // howruSmooth (0.5 s response, damping 0.8) settles within 1.5 s.
        #expect(amounts.count >= 10 && amounts.count <= 30, "\(amounts)")
        #expect(amounts.first! < 0.2 && amounts.last! > 0.99)
        // Clamped at 1: never past the new scene; rising until near the end.
        #expect(amounts.allSatisfy { $0 >= 0 && $0 <= 1 })
        #expect(zip(amounts, amounts.dropFirst()).allSatisfy { $1 >= $0 || $0 > 0.98 })
        let straight = after.drop { $0.content.crossfadeAmount != nil }
        #expect(!straight.isEmpty && straight.allSatisfy { $0.content.scene?.name == "drift" })
    }

    @Test("reduce motion: one still frame, then none and no deadline until something changes")
    func reduceMotionStill() throws {
        let driver = try CoreDriver()
        driver.run(until: 101)
        let mark = driver.mark
        _ = driver.command { .change(.reduceMotion(true), reply: $0) }
        driver.run(until: 110)
        #expect(driver.plans(since: mark).count == 1)
        #expect(driver.core.nextDeadline() == nil)
        #expect(driver.core.status().still)
        // The default crossfade is, under reduce motion, a linear 0.3 s fade:
        // its frames, then one still frame of the new scene, then none.
        _ = driver.command { .switchScene(SceneSwitch(scene: "calm"), reply: $0) }
        driver.run(until: 112)
        #expect(driver.plans(after: 110.35).isEmpty)
        #expect(driver.plans.last?.plan.content.crossfadeAmount == 1 || driver.plans.last?.plan.content.scene?.name == "calm")
    }

    @Test("pause freezes scene time and resume continues with no jump")
    func pauseAndResume() throws {
        let driver = try CoreDriver()
        driver.run(until: 102)
        _ = driver.command { .playback(paused: true, reply: $0) }
        driver.run(until: 105)
        let frozen = driver.plans(after: 102).compactMap(\.content.scene?.time)
        #expect(frozen.count == 1, "one frame of the frozen time, then none: \(frozen)")
        _ = driver.command { .playback(paused: false, reply: $0) }
        driver.run(until: 106)
        let resumed = driver.plans(after: 105).compactMap(\.content.scene?.time)
        #expect(abs(resumed.first! - frozen[0]) < 0.06, "continues from \(frozen[0]), not \(resumed.first!)")
        #expect(abs(resumed.last! - frozen[0] - 1) < 0.06)
    }

    @Test("idle timers: dimmed at dim_after, blank at blank_after with one black frame, a finger brings it back")
    func idleDimAndBlank() throws {
        let backlight = FakeBacklight(percent: 80)
        let driver = try CoreDriver(backlight: backlight) {
            $0.settings.lowPower = true
            $0.config.lowPower.dimAfter = 10
            $0.config.lowPower.blankAfter = 20
            $0.config.lowPower.dimLevel = 25
        }
        driver.rendering = false
        driver.run(until: 109.9)
        #expect(driver.backlightLevels.isEmpty && driver.core.status().power == .normal)
        driver.run(until: 110)
        #expect(driver.backlightLevels == [20] && driver.core.status().power == .dimmed)
        driver.run(until: 125)
        #expect(driver.backlightLevels == [20, 0] && driver.core.status().power == .blanked)
        #expect(driver.plans.last?.plan.content.isBlack == true && driver.plans.last!.at == 120, "a black frame at 120 s")
        #expect(driver.plans(after: 120).isEmpty, "then nothing drawn")
        #expect(driver.core.nextDeadline() == nil)
        driver.send(.touch(TouchContactEvent(phase: .down, id: 1, x: 5, y: 5, time: 125, deviceX: 0, deviceY: 0, device: 1)), at: 125)
        #expect(driver.backlightLevels == [20, 0, 80] && driver.core.status().power == .normal)
        #expect(driver.displayPowers == [false, true], "powered down at 120, up at the touch")
        driver.run(until: 126)
        #expect(driver.plans(after: 125).first?.content.isFadeFromBlack == true, "the scene fades in from black")
        let powers = driver.events.compactMap { if case .powerChanged(let p) = $0.event { p } else { nil } }
        #expect(powers == [.dimmed, .blanked, .normal])
    }

    @Test("a brightness the backlight refuses is an error and changes nothing")
    func brightnessRefused() throws {
        let backlight = FakeBacklight(percent: 80)
        let driver = try CoreDriver(backlight: backlight)
        #expect(succeeded(driver.command { .change(.brightness(40), reply: $0) }))
        #expect(driver.core.status().brightness == 40)
        backlight.refuses = true
        let refused = driver.command { .change(.brightness(10), reply: $0) }
        guard case .failure(.notSupported)? = refused else { Issue.record("refusal not reported: \(String(describing: refused))"); return }
        #expect(driver.core.status().brightness == 40)
    }

    @Test("a reload naming an unknown scene is refused and keeps the old settings")
    func reloadKeepsOldSettings() throws {
        let driver = try CoreDriver()
        var bad = ChakraConfig()
        bad.scene.defaultScene = "nope"
        bad.reduceMotion = true
        let loaded = LoadedConfig(config: bad, warnings: [], lines: try TOML.read("[scene]\ndefault = \"nope\"\n").lines, file: "/test.toml")
        let result = driver.command { .applyConfiguration(loaded, reply: $0) }
        guard case .failure(.configInvalid(let why))? = result else { Issue.record("accepted: \(String(describing: result))"); return }
        #expect(why.contains("nope"))
        #expect(!driver.core.configuration.settings.reduceMotion)
        var good = ChakraConfig()
        good.reduceMotion = true
        let report = driver.command { .applyConfiguration(LoadedConfig(config: good, warnings: [], file: "/test.toml"), reply: $0) }
        #expect((try? report?.get())?.changed == ["reduce_motion"])
        #expect(driver.core.configuration.settings.reduceMotion)
    }

    @Test("a reload reads the drop-ins again: a new one changes its keys and is listed in the status")
    func reloadReadsDropIns() throws {
        let root = "/tmp/chakra-reload-dropins-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let main = root + "/chakra.toml"
        #expect(mkdir(root, 0o700) == 0 && mkdir(main + ".d", 0o700) == 0)
        defer { for path in [main + ".d/50-site.toml", main, main + ".d", root] { _ = remove(path) } }
        func write(_ path: String, _ text: String) {
            let file = fopen(path, "w")
            fputs(text, file)
            fclose(file)
        }
        write(main, "[low_power]\nfps = 12\n")
        let source = ConfigSource(path: main, required: true)
        let driver = try CoreDriver()
        let first = try source.load()
        _ = driver.command { .applyConfiguration(first, reply: $0) }
        #expect(driver.core.status().configFiles == [main])
        #expect(driver.core.configuration.config.lowPower.fps == 12)

        write(main + ".d/50-site.toml", "[low_power]\nfps = 15\n")
        let second = try source.load()
        let report = driver.command { .applyConfiguration(second, reply: $0) }
        #expect((try? report?.get())?.changed == ["low_power.fps"])
        #expect(driver.core.configuration.config.lowPower.fps == 15)
        #expect(driver.core.status().configFiles == [main, main + ".d/50-site.toml"])
    }

    @Test("a reload, by chakractl or by SIGHUP, reads the old hold cycle's keys as their pattern, with one warning")
    func reloadTranslatesTheHoldCycle() throws {
        let root = "/tmp/chakra-reload-holdcycle-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let main = root + "/chakra.toml"
        #expect(mkdir(root, 0o700) == 0)
        defer { for path in [main, root] { _ = remove(path) } }
        func write(_ text: String) {
            let file = fopen(main, "w")
            fputs(text, file)
            fclose(file)
        }
        write("[spiral]\nhold_duration = 72.0\n")
        let source = ConfigSource(path: main, required: true)
        let driver = try CoreDriver()
        let first = try source.load()
        _ = driver.command { .applyConfiguration(first, reply: $0) }
        #expect(driver.core.configuration.config.spiral.selectedPattern.name == "6-4-8")

        // As `chakractl reload` applies it (its ConfigReader reads the file with source.load()).
        write("[spiral]\nhold_duration = 72.0\nhold_cycle_up_duration = 3.0\nhold_cycle_pause_duration = 2.0\nhold_cycle_down_duration = 5.0\n")
        let second = try source.load()
        let report = try #require(try driver.command { .applyConfiguration(second, reply: $0) }?.get())
        #expect(report.changed == ["spiral.pattern", "spiral.patterns"])
        #expect(report.warnings.count == 1)
        #expect(report.warnings.first?.hasPrefix("\(main):3: spiral.hold_cycle_up_duration: deprecated") == true)
        let pattern = driver.core.configuration.config.spiral.selectedPattern
        #expect(pattern.name == "hold-cycle" && pattern.phases == [BreathPhase(.in, 3), BreathPhase(.holdIn, 2), BreathPhase(.out, 5)])

        // As SIGHUP applies it (its ConfigReader reads it with the same source.load()): back to the defaults, then the cycle again.
        write("[spiral]\nhold_duration = 72.0\n")
        driver.send(.command(.signalReload(Result { () throws(ConfigError) in try source.load() })))
        #expect(driver.core.configuration.config.spiral.selectedPattern.name == "6-4-8")
        write("[spiral]\nhold_cycle_pause_duration = 0\n")
        driver.send(.command(.signalReload(Result { () throws(ConfigError) in try source.load() })))
        #expect(driver.core.configuration.config.spiral.selectedPattern.phases == [BreathPhase(.in, 6), BreathPhase(.out, 8)])
    }

    @Test("status: the scene, the settings, frames, fps and uptime at the time asked")
    func statusContents() throws {
        let driver = try CoreDriver()
        driver.rendering = false
        driver.run(until: 104)
        let status = driver.core.status()
        #expect(status.scene == "heart" && status.output == "test 48x32" && status.width == 48 && status.height == 32)
        #expect(status.frames.presented == 81)
        #expect(abs(status.fps - 20) < 0.6, "fps \(status.fps)")
        #expect(status.fpsTarget == 20 && status.uptime == 4 && !status.paused && status.power == .normal)
    }

    @Test("the output resized: the scene is made again at the new size and subscribers hear why; unplugged and back, too")
    func displayChanges() throws {
        let driver = try CoreDriver()
        driver.rendering = false
        driver.run(until: 101)
        driver.send(.display(DisplayFacts(summary: "test 32x48", width: 32, height: 48)), at: 101)
        #expect(driver.core.scene.width == 32 && driver.core.scene.height == 48)
        driver.run(until: 102)
        #expect(driver.plans(after: 101).allSatisfy { if case .scene(let scene, _) = $0.content { scene.width == 32 } else { false } })
        driver.send(.display(DisplayFacts(summary: "test 32x48", width: 32, height: 48, waitingForDisplay: true)), at: 102)
        driver.send(.display(DisplayFacts(summary: "test 32x48", width: 32, height: 48)), at: 103)
        let reasons = driver.events.compactMap { if case .displayChanged(let r, _, let w, _) = $0.event { "\(r) \(w)" } else { nil } }
        #expect(reasons == ["resized 32", "disconnected 32", "connected 32"])
        #expect(driver.core.status().output == "test 32x48")
    }

    @Test("a VT switch away stops frames and lets go of the output; back, it redraws")
    func terminalSwitch() throws {
        let driver = try CoreDriver()
        driver.rendering = false
        driver.run(until: 101)
        driver.send(.terminal(inFront: false), at: 101)
        #expect(driver.kinds.contains("suspend"))
        driver.run(until: 105)
        #expect(driver.plans(after: 101).isEmpty)
        driver.send(.terminal(inFront: true), at: 105)
        driver.run(until: 105.01)
        #expect(driver.plans(after: 104.99).count == 1)
        let reasons = driver.events.compactMap { if case .displayChanged(let r, _, _, _) = $0.event { r } else { nil } }
        #expect(reasons == ["vt_away", "vt_back"])
    }
}

@Suite("Daemon core: the spiral exercise on virtual time")
struct DaemonCoreSpiralTests {
    /// A finger traces the spiral 10 ms a point: Idle → Inhale → Hold (held
    /// 4 s, one cycle of the shortest pattern allowed, with a lift read late
    /// that must not give back touched time, and a pause while lifted) →
    /// Exhale → Completed, then back to the heart.
    @Test("a traced exercise in order; hold_remaining never increases")
    func tracedExercise() throws {
        let driver = try CoreDriver(width: 195, height: 422) {
            $0.fps = 10
            $0.config.spiral.customPatterns = [BreathingPattern(name: "quick", phases: [BreathPhase(.in, 2), BreathPhase(.out, 2)])]
            $0.config.spiral.pattern = "quick"
            $0.config.spiral.holdDuration = 4
            $0.config.spiral.completionDelay = 0.5
        }
        driver.rendering = false
        driver.run(until: 101)
        #expect(succeeded(driver.command { .spiral(.start, reply: $0) }))
        let path = try #require(try driver.command { .spiral(.path, reply: $0) }?.get().points)
        let points = path.map { ($0[0], $0[1]) }
        #expect(points.count > 50)
        var t = 101.0
        /// hold_remaining as status shows it after every input and run.
        var remaining: [Double] = []
        func sample() {
            if let spiral = driver.core.status().spiral, spiral.state == "hold" { remaining.append(spiral.holdRemaining) }
        }
        func run(until time: Double) {
            driver.run(until: time)
            sample()
        }
        func touch(_ phase: TouchPhase, _ p: (Double, Double), stamped: Double? = nil) {
            let time = stamped ?? t
            driver.send(.touch(TouchContactEvent(phase: phase, id: 1, x: p.0, y: p.1, time: time, deviceX: 0, deviceY: 0, device: 1)), at: time)
            sample()
        }
        func state() -> String? { driver.core.status().spiral?.state }
        var index = 0
        func trace(until wanted: String) -> Bool {
            while index < points.count - 1, state() != wanted {
                index += 1
                t += 0.01
                run(until: t)
                touch(.move, points[index])
            }
            return state() == wanted
        }
        touch(.down, points[0])
        run(until: t)
        #expect(state() == "inhale")
        #expect(trace(until: "hold"))
        // Held for a second (the finger resting on the light), then lifted.
        for _ in 0..<10 {
            t += 0.1
            run(until: t)
            touch(.move, points[index])
        }
        // A request 30 ms after that turn shows the countdown at its time;
        // the lift, read after it, happened 20 ms before it.
        driver.send(.command(.activity(reply: nil)), at: t + 0.03)
        let shown = try #require(driver.core.status().spiral?.holdRemaining)
        remaining.append(shown)
        touch(.up, points[index], stamped: t + 0.01)
        let lifted = try #require(driver.core.status().spiral?.holdRemaining)
        #expect(lifted <= shown, "the late lift gave back touched time: \(shown) → \(lifted)")
        // Lifted: the countdown waits.
        t += 1
        run(until: t)
        #expect(driver.core.status().spiral?.holdRemaining == lifted)
        #expect(driver.core.status().spiral?.needsResume == true)
        // Back on the light: the rest of the hold, then Exhale.
        let head = try #require(driver.core.status().spiral.map { ($0.headX, $0.headY) })
        index = points.indices.min { a, b in
            hypot(points[a].0 - head.0, points[a].1 - head.1) < hypot(points[b].0 - head.0, points[b].1 - head.1)
        }!
        touch(.down, points[index])
        while state() == "hold", t < 120 {
            t += 0.1
            run(until: t)
        }
        #expect(state() == "exhale")
        #expect(trace(until: "completed"))
        touch(.up, points[index])
        t += 1
        run(until: t)
        let states = driver.events.compactMap { if case .spiralState(_, let to) = $0.event { to } else { nil } }
        #expect(states == ["inhale", "hold", "exhale", "completed"])
        #expect(driver.core.sceneName == "heart", "after the celebration, the scene it was started from")
        // Every hold_remaining shown during the hold, in order: never up.
        #expect(remaining.count > 10)
        for (a, b) in zip(remaining, remaining.dropFirst()) { #expect(b <= a + 1e-9, "hold_remaining rose from \(a) to \(b)") }
        #expect(driver.core.status().touchLatency.samples > 0)
    }
}

@Suite("Daemon core: breathing patterns")
struct DaemonCorePatternTests {
    @Test("spiral start with a pattern: used for that exercise, reported with the hold's phase; an unknown one is refused and changes nothing")
    func startWithPattern() throws {
        let driver = try CoreDriver(width: 195, height: 422) {
            $0.fps = 10
            $0.config.spiral.customPatterns = [BreathingPattern(name: "calm", phases: [BreathPhase(.in, 4), BreathPhase(.out, 4)])]
        }
        driver.rendering = false
        driver.run(until: 101)
        let refused = driver.command { .spiral(.start, pattern: "square", reply: $0) }
        guard case .failure(let error)? = refused, case .unknownPattern = error else {
            Issue.record("not refused: \(String(describing: refused))")
            return
        }
        #expect(error.description == "no breathing pattern named 'square'; patterns: 6-4-8, box, 4-7-8, coherent, calm")
        #expect(ControlService.error(error).code == .unknownPattern)
        #expect(driver.core.sceneName == "heart")

        let started = try #require(try driver.command { .spiral(.start, pattern: "calm", reply: $0) }?.get())
        #expect(started.pattern == "calm" && started.phase == nil && started.state == "idle")
        let points = try #require(try driver.command { .spiral(.path, reply: $0) }?.get().points).map { ($0[0], $0[1]) }
        var t = 101.0, index = 0
        func touch(_ phase: TouchPhase) {
            driver.send(.touch(TouchContactEvent(phase: phase, id: 1, x: points[index].0, y: points[index].1, time: t, deviceX: 0, deviceY: 0, device: 1)), at: t)
        }
        touch(.down)
        while index < points.count - 1, driver.core.status().spiral?.state != "hold" {
            index += 1
            t += 0.01
            driver.run(until: t)
            touch(.move)
        }
        let holding = try #require(driver.core.status().spiral)
        #expect(holding.state == "hold" && holding.pattern == "calm" && holding.phase == "in")
        #expect(ControlService.spiralProgress(holding).phase == "in" && ControlService.spiralProgress(holding).pattern == "calm")
        t += 5
        driver.run(until: t)
        touch(.move)
        #expect(driver.core.status().spiral?.phase == "out")
        // Cancelled: the configured pattern again, and no phase outside the hold.
        #expect(succeeded(driver.command { .spiral(.cancel, reply: $0) }))
        let again = try #require(try driver.command { .spiral(.start, reply: $0) }?.get())
        #expect(again.pattern == "6-4-8" && again.phase == nil)
        #expect(ControlService.spiralProgress(again).phase == nil && ControlService.spiralProgress(again).json["phase"] == .null)
    }
}

@Suite("Daemon core: touches across scene changes")
struct DaemonCoreTouchTests {
    /// Found by the QEMU spiral case: the exercise ended (back to the heart)
    /// with the finger still down; its lift came while no interactive scene
    /// listened, so the core followed that contact for good and the next
    /// exercise ignored every touch.
    @Test("a finger lifted after the exercise went back to its scene does not shut out the next exercise")
    func liftAfterTheExerciseLeft() throws {
        let driver = try CoreDriver(width: 195, height: 422) { $0.fps = 10 }
        driver.rendering = false
        driver.run(until: 101)
        #expect(succeeded(driver.command { .spiral(.start, reply: $0) }))
        driver.run(until: 102)
        let head = try #require(driver.core.status().spiral)
        func touch(_ phase: TouchPhase, id: Int, at t: Double) {
            driver.send(.touch(TouchContactEvent(phase: phase, id: id, x: head.headX, y: head.headY, time: t, deviceX: 0, deviceY: 0, device: 1)), at: t)
        }
        touch(.down, id: 1, at: 102)
        #expect(driver.core.status().spiral?.state == "inhale")
        #expect(succeeded(driver.command { .spiral(.cancel, reply: $0) }))
        driver.run(until: 104)
        #expect(driver.core.sceneName == "heart")
        touch(.up, id: 1, at: 104)
        #expect(succeeded(driver.command { .spiral(.start, reply: $0) }))
        driver.run(until: 106)
        touch(.down, id: 2, at: 106)
        #expect(driver.core.status().spiral?.state == "inhale")
    }
}
