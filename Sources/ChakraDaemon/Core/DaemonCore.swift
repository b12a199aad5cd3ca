import ChakraConfig
import ChakraContinuity
import ChakraControl
import ChakraDisplay
import ChakraInput
import ChakraRaster
import ChakraSchedule
import ChakraScenes
import ChakraSystem

/// The daemon's logic as a deterministic state machine: what happens to it
/// (`DaemonInput`, each at a given monotonic time) goes in; what the shell
/// must do (`DaemonEffect`: draw, present, set the backlight, reply, emit
/// an event, notify systemd) comes out, in order; `nextDeadline` says when
/// it next needs a `.tick` if nothing happens. It never reads a clock,
/// never touches a device and never reads a file (scenes come from the
/// shell's `SceneFactory`), so tests drive it on virtual time.
///
/// It is a small router over parts that each own their state:
/// - `scenes` (`SceneDirector`): the scene, its clock, a crossfade, the
///   ambient scene parked while the exercise runs;
/// - `screen` (`ScreenPowerKeeper`): the idle timers, the hand's display
///   mode, a touch's wake, the fingers a dark screen keeps, read-backs;
/// - `hours` (`OpeningHours`): the schedule on the wall clock;
/// - `exercise` (`ExerciseTracker`): touches on an interactive scene, its
///   events, the sessions it records, touch latency;
/// - `pacing` (`Pacing`): when frames start, whether one is needed, the
///   frames on screen, the watchdog, status and metrics deadlines;
/// - `tallies`: errors and sessions since start; `outbox`: the effects.
/// What crosses parts (the screen going dark ends the exercise, a schedule
/// window shows its scene) is here, in the extensions by subject.
///
/// Effects wait in the outbox the shell drains with `nextEffect()` (no
/// array per call: a frame's `.tick` → `.draw` allocates nothing).
/// Carrying out an effect may feed new inputs (a VT release cancels
/// touches, a drawn frame is presented); their effects queue behind.
public final class DaemonCore {
    public internal(set) var configuration: DaemonConfiguration
    let startTime: Double
    let logger: Logger
    private(set) var display: DisplayFacts
    /// The VT is in front (the screen and touchscreens are ours).
    private(set) var vtActive: Bool
    public internal(set) var running = true
    /// The latest time the core has handled anything at: an input stamped
    /// earlier (a touch whose kernel time is older) is applied at this time,
    /// so nothing the core counts runs backwards.
    public internal(set) var now: Double

    let outbox = CoreOutbox()
    let tallies = Tallies()
    let scenes: SceneDirector
    let screen: ScreenPowerKeeper
    let hours: OpeningHours
    let exercise: ExerciseTracker
    let pacing: Pacing
    /// When the continuation record is saved (docs/seams.md).
    let continuity = ContinuityKeeper()
    /// How this process started, for `status` (the shell decides it from
    /// what systemd passed); kept with the rest of continuity.
    public internal(set) var start: StartReport {
        get { continuity.start }
        set { continuity.start = newValue }
    }

    /// The core at `startTime`, showing `configuration.scene` (or the
    /// fallback scene, when it cannot be made) on `display`, with scenes
    /// made by `scenes`. `continuing`: the record a previous process left
    /// (docs/seams.md): its scene at its time, its run-time settings and
    /// display mode instead (`DaemonCore+Continuity`).
    public init(configuration: DaemonConfiguration, display: DisplayFacts, scenes factory: SceneFactory, backlight: BacklightPort?,
                watchdogInterval: Double?, vtActive: Bool = true, timeZone: LocalTimeZone = SystemTimeZone(), startTime: Double,
                continuing record: ContinuationRecord? = nil, logger: Logger) throws(DaemonCommandError) {
        (self.configuration, self.display, self.vtActive, self.startTime, self.logger) = (configuration, display, vtActive, startTime, logger)
        now = startTime
        var first = configuration
        continuity.configured = Self.configured(configuration.config)
        if let record { first = Self.continuing(record, from: configuration, names: factory.names, runtime: continuity, logger: logger) }
        self.configuration.settings = first.settings
        self.configuration.config.text.language = first.config.text.language
        scenes = try SceneDirector(factory: factory, configuration: first, display: display, start: startTime,
                                   tallies: tallies, outbox: outbox, logger: logger)
        screen = ScreenPowerKeeper(backlight: backlight, start: startTime, tallies: tallies, outbox: outbox, logger: logger)
        hours = OpeningHours(timeZone: timeZone)
        exercise = ExerciseTracker(tallies: tallies, outbox: outbox, logger: logger)
        // `first`: a low power set at run time caps the pace from the start.
        pacing = Pacing(display: display, configuration: first, watchdogInterval: watchdogInterval, start: startTime, logger: logger)
        scenes.replaced = { [unowned self] old in sceneReplaced(old) }
        if let record { continueClockAndScreen(record) }
    }

    /// The scene shown now, and its name.
    public var scene: Scene { scenes.scene }
    public var sceneName: String { scenes.name }
    /// Frames on screen, the last one's time and the last stall (for
    /// `health` and `status`). The shell hands it to the control thread
    /// after every presented frame.
    public var frameProgress: FrameProgress { pacing.progress }

    // MARK: inputs and effects

    /// Handles `input` at `time`; its effects queue for `nextEffect()`.
    public func send(_ input: DaemonInput, at time: Double) {
        now = max(now, time)
        switch input {
        case .tick(let ready):
            pacing.outputReady = ready
            turn()
        case .command(let command):
            handle(command)
        case .touch(let event):
            handleTouch(event)
        case .stop:
            stop()
        case .terminal(let inFront):
            terminal(inFront: inFront)
        case .display(let facts):
            displayFactsChanged(facts)
        case .redrawRequested:
            pacing.outputLost()
        case .drawn(let seconds):
            pacing.drawn(seconds: seconds)
        case .presented(let presentation):
            presented(presentation)
        case .inputDevices(let devices):
            exercise.inputDevices = devices
        case .wallClock(let offset):
            wallClockChanged(offset: offset)
        case .displayPowerChecked(let report):
            screen.checked(report)
        case .sessionRecorded(let record, let error):
            exercise.recorded(record, error: error, startedAt: hours.localTime(record.startedAt))
        }
        pacing.followFramesDue(framesDue, now: now)
        outbox.flushEvents()
        keepContinuation(after: input)
    }

    /// The next effect to carry out, oldest first; nil when none is left.
    public func nextEffect() -> DaemonEffect? {
        outbox.next()
    }

    func perform(_ effect: DaemonEffect) {
        outbox.perform(effect)
    }

    /// Something happened; it goes out after the status that shows it, at
    /// the end of this input.
    func emit(_ event: DaemonEvent) {
        outbox.emit(event)
    }

    // MARK: a loop turn

    /// Frames change over time (the scene moves or fades, the screen is
    /// not off).
    var animating: Bool { scenes.animating && screen.screen.power != .off }

    /// What the parts show now, for the frame that would show it.
    var demand: FrameDemand { FrameDemand(scene: scenes.revision, exercise: exercise.revision) }

    /// Whether a frame is wanted at all now, regardless of timing: never
    /// while the screen is off (no frames, no CPU). Derived from the parts:
    /// something changed since the last frame, or time moves the picture.
    var wantsFrame: Bool {
        vtActive && pacing.outputReady && screen.screen.power != .off && (animating || pacing.needsFrame(demand))
    }

    /// Time has passed: the scene catches up, the idle timers move, a frame
    /// is drawn if one is due, the status and the watchdog are kept.
    private func turn() {
        if let deadline = hours.deadline, now >= deadline { evaluateSchedule() }
        pumpInteractiveScene()
        updatePower()
        if wantsFrame, now >= pacing.renderStart(now: now) { planFrame() }
        periodic()
    }

    /// The next frame: for the time it will be on screen.
    private func planFrame() {
        let shownAt = pacing.beginFrame(now: now, showing: demand, drawsScene: !configuration.presentOnly)
        exercise.touchesDrawn()
        let content = configuration.presentOnly ? .unchanged : scenes.content(shownAt: shownAt)
        perform(.draw(FramePlan(content: content, shownAt: shownAt, rotation: configuration.rotation)))
    }

    /// A frame is on screen.
    private func presented(_ presentation: Presentation) {
        let first = pacing.presented(presentation, now: now)
        exercise.touchesShown(at: presentation.timestamp ?? now)
        if first {
            logger.info("first frame on screen \(Int(((now - startTime) * 1000).rounded())) ms after start")
            perform(.notify(.ready))
            publishStatus()
        }
        feedWatchdog()
        // A still frame is the last for a while: show it in the status now.
        if !animating { publishStatus(notify: false) }
    }

    /// When the core next needs a `.tick` if nothing else happens, or nil
    /// for "only when an input comes". Called every loop turn: no arrays.
    public func nextDeadline() -> Double? {
        var wake: Double?
        func consider(_ deadline: Double?) {
            if let deadline, deadline < wake ?? .infinity { wake = deadline }
        }
        if wantsFrame { consider(pacing.renderStart(now: now)) }
        if animating, vtActive, pacing.firstFrameShown { consider(pacing.next.status) }
        if pacing.watchdogInterval != nil, idleByDesign { consider(pacing.next.watchdog) }
        // Also while off or still: a fleet must see a dark kiosk as alive.
        if configuration.config.metrics.textfileDirectory != nil { consider(pacing.next.metrics) }
        consider(idlePolicy.nextChange(lastActivity: screen.lastActivity, now: now, lowPower: configuration.settings.lowPower))
        consider(interactiveDeadline())
        consider(hours.deadline)
        consider(screen.touchWakeEnd(wakeOnTouch: configuration.config.display.wakeOnTouch))
        consider(screen.exerciseHoldEnd)
        return wake
    }

    // MARK: the VT and the display

    private func terminal(inFront: Bool) {
        guard inFront != vtActive else { return }
        vtActive = inFront
        if inFront {
            perform(.resumeOutput)
            pacing.outputLost()
            logger.info("vt: back in front; redrawing")
        } else {
            // Let go of the screen and the touchscreens (the program in
            // front gets the touches; a finger on the spiral counts as lifted).
            perform(.suspendOutput)
            logger.info("vt: switched away; drawing stopped")
        }
        publishStatus()
        displayChanged(inFront ? "vt_back" : "vt_away")
    }

    private func displayFactsChanged(_ facts: DisplayFacts) {
        let before = display
        display = facts
        if facts.refreshInterval != before.refreshInterval || facts.vblankTimed != before.vblankTimed {
            pacing.repace(display: facts, configuration: configuration)
        }
        if !scenes.fits(display: display, configuration: configuration) {
            rebuildScene(reason: "the output is now \(facts.width)x\(facts.height)")
            displayChanged("resized")
        }
        if facts.waitingForDisplay != before.waitingForDisplay {
            displayChanged(facts.waitingForDisplay ? "disconnected" : "connected")
        }
    }

    func displayChanged(_ reason: String) {
        emit(.displayChanged(reason: reason, output: display.summary, width: display.width, height: display.height))
    }

    // MARK: health

    /// Frames are expected now: the first one from the start, then while
    /// the picture moves on a screen that is on, in front and plugged in.
    /// Not while a still or paused picture is up, the screen is off, the VT
    /// is away or the display unplugged: those gaps are by design. A flip
    /// that never completes (`outputReady` false) is no design: frames
    /// stay due.
    var framesDue: Bool {
        vtActive && !display.waitingForDisplay && screen.screen.power != .off && (!pacing.firstFrameShown || animating)
    }
}
