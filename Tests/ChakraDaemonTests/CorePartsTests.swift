import ChakraConfig
import ChakraControl
import ChakraDisplay
import ChakraInput
import ChakraRaster
import ChakraSchedule
import ChakraScenes
import ChakraSystem
import Testing
@testable import ChakraDaemon

/// The daemon's scenes, with names that fail to be made on demand (a
/// missing font, say) and a count of scenes made.
final class TestSceneFactory: SceneFactory, @unchecked Sendable {
    let real = DaemonSceneFactory(logger: quietLogger)
    var failing: Set<String> = []
    private(set) var made: [String] = []

    var names: [String] { real.names }
    var exerciseSceneName: String { real.exerciseSceneName }
    var fallbackSceneName: String { real.fallbackSceneName }

    func make(_ name: String, width: Int, height: Int, configuration: DaemonConfiguration) throws -> Scene {
        if failing.contains(name) { throw DaemonCommandError.notSupported("\(name) fails here") }
        made.append(name)
        return try real.make(name, width: width, height: height, configuration: configuration)
    }
}

let quietLogger = Logger(label: "parts-test", sink: DiscardingLog())

/// The daemon's configuration for tests: small, one thread, no catalogs.
func testConfiguration(scene: String = "heart") -> DaemonConfiguration {
    var configuration = DaemonConfiguration()
    configuration.fps = 20
    configuration.threads = 1
    configuration.catalogDirectory = "/nonexistent"
    configuration.config.scene.defaultScene = scene
    return configuration
}

/// Drains an outbox: its effects, then (flushed) its events.
func drained(_ outbox: CoreOutbox) -> (effects: [DaemonEffect], events: [DaemonEvent]) {
    outbox.flushEvents()
    var effects: [DaemonEffect] = [], events: [DaemonEvent] = []
    while let effect = outbox.next() {
        if case .event(let event) = effect { events.append(event) } else { effects.append(effect) }
    }
    return (effects, events)
}

@Suite("Core parts: the scene director")
struct SceneDirectorTests {
    let display = DisplayFacts(summary: "test", width: 48, height: 32)
    let configuration = testConfiguration()

    func director(_ factory: TestSceneFactory = TestSceneFactory(), scene: String = "heart") throws -> (SceneDirector, Tallies, CoreOutbox) {
        let (tallies, outbox) = (Tallies(), CoreOutbox())
        let director = try SceneDirector(factory: factory, configuration: testConfiguration(scene: scene), display: display, start: 10,
                                         tallies: tallies, outbox: outbox, logger: quietLogger)
        return (director, tallies, outbox)
    }

    @Test("a cut: the new scene from time 0, its revision moves (a frame is owed), the event says so")
    func cut() throws {
        let (director, tallies, outbox) = try director()
        let before = director.revision
        let shown = director.show("calm", transition: SceneTransition(kind: .cut, duration: 0), canFade: true, now: 12,
                                  display: display, configuration: configuration)
        #expect(succeeded(shown))
        #expect(director.name == "calm" && director.time(at: 12) == 0 && director.change == nil)
        #expect(director.revision > before)
        #expect(tallies.errors.total == 0)
        guard case .sceneChanged("calm", "heart", _)? = drained(outbox).events.first else { Issue.record("no scene event"); return }
    }

    @Test("a crossfade only when a picture is up to fade from; a scene that cannot be made is counted, a name that is none is not")
    func crossfadeAndFailures() throws {
        let factory = TestSceneFactory()
        factory.failing = ["drift"]
        let (director, tallies, _) = try director(factory)
        let fade = SceneTransition(kind: .crossfade, duration: 0.5)
        _ = director.show("calm", transition: fade, canFade: false, now: 11, display: display, configuration: configuration)
        #expect(director.change == nil, "nothing on screen yet: a cut")
        _ = director.show("heart", transition: fade, canFade: true, now: 12, display: display, configuration: configuration)
        #expect(director.change?.outgoingName == "calm" && director.animating)
        #expect(!succeeded(director.show("nope", transition: fade, canFade: true, now: 12, display: display, configuration: configuration)))
        #expect(tallies.errors.total == 0)
        #expect(!succeeded(director.show("drift", transition: fade, canFade: true, now: 12, display: display, configuration: configuration)))
        #expect(tallies.errors[.scene] == 1 && director.name == "heart")
        // The fade's last frame ends it.
        _ = director.content(shownAt: 20)
        #expect(director.change == nil)
    }

    @Test("the exercise from an ambient scene parks it: going back shows the same scene, not a new one")
    func parkedScene() throws {
        let factory = TestSceneFactory()
        let (director, _, _) = try director(factory, scene: "calm")
        let ambient = director.scene
        #expect(succeeded(director.showExercise(transition: SceneTransition(kind: .cut, duration: 0), canFade: false, now: 11,
                                                display: display, configuration: configuration)))
        #expect(director.exercise != nil && director.interactive != nil && director.returnScene == "calm")
        let madeBefore = factory.made.count
        _ = director.show("calm", transition: SceneTransition(kind: .cut, duration: 0), canFade: false, now: 12,
                          display: display, configuration: configuration)
        #expect(director.scene === ambient && factory.made.count == madeBefore)
        #expect(director.returnScene == nil && director.exercise == nil)
    }

    @Test("the scene left is reported once, with the scene it was")
    func replacedIsReported() throws {
        let (director, _, _) = try director()
        var left: [String] = []
        director.replaced = { left.append(type(of: $0).name) }
        _ = director.show("calm", transition: SceneTransition(kind: .cut, duration: 0), canFade: false, now: 11,
                          display: display, configuration: configuration)
        #expect(left == ["heart"])
    }

    @Test("a pause owes one frame (the frozen time), a resume none: time moves the picture again")
    func pause() throws {
        let (director, _, outbox) = try director()
        let before = director.revision
        #expect(director.setPaused(true, now: 11))
        #expect(!director.setPaused(true, now: 12), "already paused")
        #expect(director.revision == before + 1 && !director.animating)
        #expect(director.setPaused(false, now: 13))
        #expect(director.revision == before + 1 && director.animating)
        #expect(director.time(at: 14) == 2, "no jump over the pause")
        #expect(drained(outbox).events.count == 2)
    }

    @Test("a scene that cannot be made at start: the fallback, counted as an error")
    func fallbackAtStart() throws {
        let factory = TestSceneFactory()
        factory.failing = ["calm"]
        let (director, tallies, _) = try director(factory, scene: "calm")
        #expect(director.name == factory.fallbackSceneName && tallies.errors[.scene] == 1)
    }
}

@Suite("Core parts: screen power")
struct ScreenPowerKeeperTests {
    let policy = IdlePolicy(dimAfter: 60, blankAfter: 120)

    func keeper(backlight: FakeBacklight? = nil) -> (ScreenPowerKeeper, Tallies, CoreOutbox) {
        let (tallies, outbox) = (Tallies(), CoreOutbox())
        return (ScreenPowerKeeper(backlight: backlight, start: 0, tallies: tallies, outbox: outbox, logger: quietLogger), tallies, outbox)
    }

    func decide(_ keeper: ScreenPowerKeeper, at now: Double, scheduled: ScheduleAction? = nil, exercise: Bool = false,
                wakeOnTouch: Double = 30) -> ScreenState? {
        keeper.decide(now: now, idlePolicy: policy, lowPower: true, wakeOnTouch: wakeOnTouch, scheduled: scheduled, exerciseUnderWay: exercise)
    }

    static func touch(_ phase: TouchPhase, id: Int = 1) -> TouchContactEvent {
        TouchContactEvent(phase: phase, id: id, x: 1, y: 1, time: 0, deviceX: 0, deviceY: 0, device: 1)
    }

    @Test("the idle timers dim, then blank; activity brings the screen back")
    func idle() {
        let (keeper, _, outbox) = keeper()
        #expect(decide(keeper, at: 10) == nil)
        let dimmed = decide(keeper, at: 61)
        #expect(dimmed == ScreenState(.dimmed, .idle))
        _ = keeper.enter(dimmed!)
        #expect(decide(keeper, at: 121) == ScreenState(.off, .idle))
        keeper.noteActivity(now: 122)
        #expect(decide(keeper, at: 122) == .on)
        let powerEvents = drained(outbox).events.filter { if case .powerChanged = $0 { true } else { false } }
        #expect(powerEvents.count == 3)
    }

    @Test("an exercise under way holds the screen on past the blank, for personHoldLimit at most")
    func exerciseHold() {
        let (keeper, _, _) = keeper()
        #expect(decide(keeper, at: 121, exercise: true) == ScreenState(.on, .exercise))
        _ = keeper.enter(ScreenState(.on, .exercise))
        #expect(keeper.exerciseHoldEnd == 121 + ScreenPowerKeeper.personHoldLimit)
        #expect(decide(keeper, at: 121 + ScreenPowerKeeper.personHoldLimit, exercise: true) == ScreenState(.off, .idle))
    }

    @Test("a tap on a dark screen is kept from the scene to its lift; in the schedule's dark it wakes for wake_on_touch")
    func touchOnADarkScreen() {
        let (keeper, _, _) = keeper()
        _ = keeper.enter(ScreenState(.off, .schedule))
        let down = Self.touch(.down)
        keeper.trackContact(down, now: 5)
        #expect(keeper.verdict(on: down, now: 5, wakeOnTouch: 30) == .kept(activity: true))
        #expect(keeper.touchWakeEnd(wakeOnTouch: 30) == 5 + 30 + ScreenPowerKeeper.personHoldLimit, "a finger still down")
        #expect(decide(keeper, at: 6, scheduled: .off) == ScreenState(.on, .touch))
        _ = keeper.enter(ScreenState(.on, .touch))
        #expect(keeper.verdict(on: Self.touch(.move), now: 7, wakeOnTouch: 30) == .kept(activity: false))
        let up = Self.touch(.up)
        keeper.trackContact(up, now: 8)
        #expect(keeper.verdict(on: up, now: 8, wakeOnTouch: 30) == .kept(activity: false))
        #expect(keeper.verdict(on: Self.touch(.down), now: 9, wakeOnTouch: 30) == .toScene, "the lift ended it")
        #expect(keeper.touchWakeEnd(wakeOnTouch: 30) == 38)
        #expect(decide(keeper, at: 38, scheduled: .off) == ScreenState(.off, .schedule))
    }

    @Test("read-backs: a late answer is ignored, a failure counted; each part's latest kept")
    func readBack() {
        let (keeper, tallies, outbox) = keeper()
        keeper.checked(DisplayPowerReport(part: "drm", on: false, method: "test", check: .confirmed("late")))
        #expect(keeper.checks.isEmpty)
        keeper.checked(DisplayPowerReport(part: "drm", on: true, method: "test", check: .failed("no")))
        keeper.checked(DisplayPowerReport(part: "drm", on: true, method: "test", check: .confirmed("yes")))
        #expect(keeper.checks.count == 1 && tallies.errors[.displayPower] == 1)
        #expect(drained(outbox).events.count == 2)
    }

    @Test("the backlight follows the screen: dimmed relative to the brightness asked for, 0 when off")
    func backlight() {
        let (keeper, _, outbox) = keeper(backlight: FakeBacklight(percent: 80))
        _ = keeper.enter(ScreenState(.dimmed, .idle))
        keeper.backlightFollows(dimLevel: 25)
        keeper.powerDown()
        let effects = drained(outbox).effects
        guard case .setBacklight(let dimmed) = effects[0], case .setBacklight(0) = effects[1], case .displayPower(on: false) = effects[2] else {
            Issue.record("\(effects)"); return
        }
        #expect(dimmed == BrightnessScale.dimmed(80, level: 25))
    }
}

@Suite("Core parts: opening hours")
struct OpeningHoursTests {
    let schedule = Schedule(windows: [DisplayPowerTests.window("08:00", "09:00", "low-power")])

    @Test("nothing before the wall clock is known; then the window in force and the next change as a monotonic deadline")
    func evaluate() {
        let hours = OpeningHours(timeZone: FixedOffsetZone())
        #expect(hours.evaluate(schedule, now: 100) == .none)
        #expect(hours.setWallClock(offset: DisplayPowerTests.offset))
        #expect(!hours.setWallClock(offset: DisplayPowerTests.offset), "only the first time is the first")
        guard case .entered(let outside, first: true) = hours.evaluate(schedule, now: 100) else { Issue.record("no state"); return }
        #expect(outside.window == nil)
        #expect(hours.deadline == DisplayPowerTests.at("08:00"))
        guard case .entered(let window, first: false) = hours.evaluate(schedule, now: DisplayPowerTests.at("08:00")) else {
            Issue.record("no window"); return
        }
        #expect(window.action == .lowPower && hours.status?.action == "low-power")
        #expect(hours.evaluate(schedule, now: DisplayPowerTests.at("08:30")) == .none)
        #expect(hours.evaluate(nil, now: DisplayPowerTests.at("08:30")) == .dropped)
        #expect(hours.state == nil && hours.deadline == nil)
    }

    @Test("today's plan needs the wall clock; then it lists the day's windows in local time")
    func plan() throws {
        let hours = OpeningHours(timeZone: FixedOffsetZone())
        #expect(!succeeded(hours.plan(schedule, now: 100, display: DisplayPowerStatus())))
        #expect(!succeeded(hours.plan(nil, now: 100, display: DisplayPowerStatus())))
        _ = hours.setWallClock(offset: DisplayPowerTests.offset)
        let plan = try hours.plan(schedule, now: 100, display: DisplayPowerStatus()).get()
        #expect(plan.date == "2026-11-26" && plan.runs.map(\.startClock) == ["08:00"] && plan.runs.map(\.action) == ["low-power"])
        #expect(hours.localTime(DisplayPowerTests.wallAtStart) == "2026-11-26T07:59:00+00:00")
    }

    @Test("a low-power window keeps the setting it found, once, and gives it back")
    func lowPowerWindow() {
        let hours = OpeningHours(timeZone: FixedOffsetZone())
        #expect(hours.leaveLowPowerWindow() == nil)
        #expect(hours.enterLowPowerWindow(lowPowerNow: false))
        #expect(!hours.enterLowPowerWindow(lowPowerNow: true), "already in one")
        #expect(hours.leaveLowPowerWindow() == false)
        #expect(hours.leaveLowPowerWindow() == nil)
    }
}

/// An interactive scene that keeps what it was told, and tells what it is given.
final class TouchLogScene: InteractiveScene {
    static let name = "touch-log"
    let width = 8, height = 8
    let settings = RenderSettings()
    let isStill = true
    let pool = WorkerPool(threads: 1)
    var log: [String] = []
    var pending: [SceneEvent] = []

    func render(time: Double, into output: PixelBuffer) {}
    func touchDown(at point: Point, time: Double) { log.append("down \(time)") }
    func touchMoved(to point: Point, time: Double) { log.append("move \(time)") }
    func touchUp(time: Double) { log.append("up \(time)") }
    func advance(to time: Double) {}
    var nextDeadline: Double? { nil }
    func takeEvents() -> [SceneEvent] { defer { pending = [] }; return pending }
}

@Suite("Core parts: the exercise's touches and events")
struct ExerciseTrackerTests {
    func tracker() -> (ExerciseTracker, Tallies, CoreOutbox) {
        let (tallies, outbox) = (Tallies(), CoreOutbox())
        return (ExerciseTracker(tallies: tallies, outbox: outbox, logger: quietLogger), tallies, outbox)
    }

    static func touch(_ phase: TouchPhase, id: Int) -> TouchContactEvent {
        TouchContactEvent(phase: phase, id: id, x: 1, y: 1, time: 0, deviceX: 0, deviceY: 0, device: 1)
    }

    @Test("the scene follows the first finger down only; each touch it gets owes a frame")
    func followsOneFinger() {
        let (tracker, _, _) = tracker()
        let scene = TouchLogScene()
        #expect(tracker.apply(Self.touch(.down, id: 1), to: scene, sceneTime: 1, now: 11))
        #expect(!tracker.apply(Self.touch(.down, id: 2), to: scene, sceneTime: 2, now: 12))
        #expect(tracker.apply(Self.touch(.up, id: 1), to: scene, sceneTime: 3, now: 13))
        #expect(tracker.apply(Self.touch(.down, id: 2), to: scene, sceneTime: 4, now: 14), "free again after the lift")
        #expect(scene.log == ["down 1.0", "up 3.0", "down 4.0"])
        #expect(tracker.revision == 3)
        #expect(tracker.letGo(of: scene, sceneTime: 5) && tracker.followed == nil)
        #expect(!tracker.letGo(of: scene, sceneTime: 6), "nobody left to let go of")
    }

    @Test("touch latency: from the first touch applied to the frame that shows it on screen")
    func latency() {
        let (tracker, _, _) = tracker()
        let scene = TouchLogScene()
        _ = tracker.apply(Self.touch(.down, id: 1), to: scene, sceneTime: 0, now: 10)
        _ = tracker.apply(Self.touch(.move, id: 1), to: scene, sceneTime: 0, now: 10.01)
        tracker.touchesShown(at: 10.05)
        #expect(tracker.touchLatencies.summary.samples == 0, "no frame drawn with it yet")
        tracker.touchesDrawn()
        tracker.touchesShown(at: 10.03)
        #expect(tracker.touchLatencies.summary.samples == 1 && abs(tracker.touchLatencies.summary.median - 30) < 1e-6)
    }

    @Test("the scene's events: a state change is an event and owes a frame, Idle → Inhale counts a session, a haptic cue is an effect")
    func pump() {
        let (tracker, tallies, outbox) = tracker()
        let scene = TouchLogScene()
        scene.pending = [.stateChanged(from: "idle", to: "inhale"), .haptic(.tick)]
        #expect(!tracker.pump(scene, sceneTime: 1))
        #expect(tallies.sessions.started == 1 && tracker.revision == 1)
        scene.pending = [.finished]
        #expect(tracker.pump(scene, sceneTime: 2), "the end is the core's to act on")
        let (effects, events) = drained(outbox)
        #expect(events.count == 1 && effects.count == 2, "the haptic cue, and the status before the event")
    }

    @Test("progress goes out when it moved, at most every 0.2 s")
    func progressThrottled() {
        let (tracker, _, _) = tracker()
        func report(_ progress: Double) -> SpiralReport {
            SpiralReport(state: "inhale", progress: progress, holdRemaining: 0, headX: 0, headY: 0, touching: true, needsResume: false,
                         pattern: "p", phase: nil, points: nil)
        }
        #expect(tracker.progressDue(report(0.1), now: 10))
        #expect(!tracker.progressDue(report(0.2), now: 10.1), "too soon")
        #expect(!tracker.progressDue(report(0.1), now: 10.5), "not moved")
        #expect(tracker.progressDue(report(0.2), now: 10.5))
    }
}

@Suite("Core parts: pacing")
struct PacingTests {
    func pacing(watchdog: Double? = nil) -> Pacing {
        Pacing(display: DisplayFacts(summary: "test", width: 8, height: 8), configuration: testConfiguration(), watchdogInterval: watchdog,
               start: 100, logger: quietLogger)
    }

    @Test("a frame is needed at start, after the output lost the picture, and when a part's revision moved; not otherwise")
    func needsFrame() {
        let pacing = pacing()
        var demand = FrameDemand()
        #expect(pacing.needsFrame(demand), "nothing on screen yet")
        _ = pacing.beginFrame(now: 100, showing: demand, drawsScene: true)
        #expect(!pacing.needsFrame(demand))
        demand.exercise += 1
        #expect(pacing.needsFrame(demand))
        _ = pacing.beginFrame(now: 100.05, showing: demand, drawsScene: true)
        #expect(!pacing.needsFrame(demand))
        pacing.outputLost()
        #expect(pacing.needsFrame(demand))
    }

    @Test("frames at the cap's pace; the first one on screen is told once")
    func pace() {
        let pacing = pacing()
        let shownAt = pacing.beginFrame(now: 100, showing: FrameDemand(), drawsScene: true)
        #expect(pacing.presented(Presentation(timestamp: nil), now: shownAt))
        #expect(abs(pacing.renderStart(now: shownAt) - (shownAt + 0.05)) < 0.05 + 1e-9)
        #expect(!pacing.presented(Presentation(timestamp: nil), now: shownAt + 0.05))
        #expect(pacing.progress.presented == 2 && pacing.firstFrameShown)
    }

    @Test("a wait longer than health allows while frames were due is a stall; frames not due make none")
    func stalls() {
        let pacing = pacing()
        _ = pacing.presented(Presentation(timestamp: nil), now: 100)
        _ = pacing.presented(Presentation(timestamp: nil), now: 110)
        #expect(pacing.progress.lastStall == FrameStall(seconds: 10, endedAt: 110))
        pacing.followFramesDue(false, now: 111)
        _ = pacing.presented(Presentation(timestamp: nil), now: 200)
        #expect(pacing.progress.lastStall?.endedAt == 110)
    }

    @Test("the watchdog and the metrics file: due at once, then once a period")
    func periodic() {
        let pacing = pacing(watchdog: 10)
        #expect(pacing.watchdogDue(now: 100))
        #expect(!pacing.watchdogDue(now: 105))
        #expect(pacing.watchdogDue(now: 110))
        #expect(pacing.metricsDue(now: 100, interval: 15))
        #expect(!pacing.metricsDue(now: 114, interval: 15))
        #expect(pacing.metricsDue(now: 130, interval: 15))
        #expect(pacing.next.metrics == 145, "a late turn does not bunch writes up")
        #expect(!self.pacing().watchdogDue(now: 100), "no watchdog asked for")
    }
}

/// systemd and the status files, as kept in memory.
final class NotesAndFiles: NotifyOutput, StatusFiles {
    var messages: [NotifyMessage] = []
    var stats: [DaemonStatus] = []
    var metrics: [String] = []

    func notify(_ message: NotifyMessage) { messages.append(message) }
    func writeStats(_ status: DaemonStatus) { stats.append(status) }
    func writeMetrics(_ status: DaemonStatus, into directory: String) { metrics.append(directory) }
}

@Suite("The shell's effects on fake outputs")
struct EffectRunnerTests {
    @Test("a publication with notify: STATUS= with the status line, and the statistics file with the same status")
    func publication() throws {
        let driver = try CoreDriver()
        let notes = NotesAndFiles()
        let outputs = ShellOutputs(display: driver.shell, powerParts: [], powerRequest: nil, backlight: nil, haptics: nil,
                                   status: driver.shell, replies: driver.shell, notifier: notes, files: notes, sessions: nil)
        let runner = EffectRunner(core: driver.core, outputs: outputs, clock: { 100 }, logger: quietLogger)
        runner.send(.tick(outputReady: true), at: 100)
        #expect(notes.messages.first == .ready)
        #expect(notes.messages.contains(.status(driver.core.status().line)))
        #expect(notes.stats.last == driver.published.last && !notes.stats.isEmpty)
    }

    @Test("a frame is drawn, presented and heard back; the display's parts powered in order and read back; STATUS= with a publication")
    func effects() throws {
        let driver = try CoreDriver(backlight: FakeBacklight(percent: 50))
        driver.run(until: 100.2)
        #expect(driver.kinds.prefix(3) == ["draw", "notify", "publish"], "the first frame, READY=, its status")
        #expect(driver.core.frameProgress.presented == driver.plans.count)
        let before = driver.kinds.count
        _ = driver.command { .display(.off, reply: $0) }
        let after = Array(driver.kinds[before...])
        #expect(after.starts(with: ["draw", "backlight", "power-down"]), "\(after)")
        #expect(driver.core.status().display.checks.map(\.part) == ["test"])
        #expect(after.last == "event" && after.contains("reply"))
    }
}
