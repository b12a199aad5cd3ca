import ChakraConfig
import ChakraControl
import ChakraDisplay
import ChakraInput
import ChakraRaster
import ChakraSchedule
import ChakraScenes
import ChakraSpiral
import ChakraSystem

/// The daemon's logic as a deterministic state machine: what happens to it
/// (`DaemonInput`, each at a given monotonic time) goes in; what the shell
/// must do (`DaemonEffect`: draw, present, set the backlight, reply, emit
/// an event, notify systemd) comes out, in order; `nextDeadline` says when
/// it next needs a `.tick` if nothing happens. It never reads a clock and
/// never touches a device, so tests drive it on virtual time.
///
/// It owns the scene director (the scene, its clock, a crossfade, the
/// ambient scene parked while the spiral runs), the settings, the idle
/// timers and power state, the spiral session's touches and events, frame
/// pacing, the status and the events. `FrameLoop` is its shell: it polls,
/// turns what it reads into inputs, and carries out the effects.
///
/// Effects wait in a queue the shell drains with `nextEffect()` (no array
/// per call: a frame's `.tick` → `.draw` allocates nothing). Carrying out
/// an effect may feed new inputs (a VT release cancels touches, a drawn
/// frame is presented); their effects queue behind.
public final class DaemonCore {
    public internal(set) var configuration: DaemonConfiguration
    let startTime: Double
    let logger: Logger
    private(set) var display: DisplayFacts
    let backlight: BacklightPort?
    /// systemd's watchdog period, when it asks for pings.
    let watchdogInterval: Double?

    // The scene director (DaemonCore+Scenes).
    public internal(set) var scene: Scene {
        didSet {
            interactiveScene = scene as? InteractiveScene
            // The finger the old scene followed is not this one's: its lift
            // may come while no interactive scene listens, and a contact
            // followed for good would shut out every later touch.
            followedContact = nil
            if oldValue !== scene, let left = oldValue as? SpiralScene { spiralSceneLeft(left) }
        }
    }
    /// `scene` when it is interactive (looked up once per scene, not per turn).
    private(set) var interactiveScene: InteractiveScene?
    public internal(set) var sceneName: String
    var clock: SceneClock
    /// The crossfade in progress, with its frames.
    var sceneChange: SceneChange?
    /// The ambient scene `spiral start` came from, to go back to when the
    /// exercise ends or is cancelled.
    var spiralReturnScene: String?
    /// That scene, kept while the exercise runs so going back is instant
    /// (building a scene takes a moment on a slow board).
    var parkedScene: Scene?
    /// Threads the scene uses now (DaemonCore+Status).
    var renderThreads: Int

    // Frames.
    var pacer: FramePacer
    var meter = FrameRateMeter()
    /// Drawing times of the last frames, for `status`.
    var frameTimes = FrameTimes()
    /// A frame must be drawn even if the scene is still (start, VT return,
    /// scene or settings change, recovery).
    var redraw = true
    var outputReady = true
    /// The last plan drew a scene (its drawing time counts).
    var lastPlanDrew = false
    var firstFrameShown = false
    /// Frames on screen, the last one's time and the last stall (for
    /// `health` and `status`; DaemonCore+Health). The shell hands it to the
    /// control thread after every presented frame.
    public internal(set) var frameProgress = FrameProgress()
    /// Since when frames have been due without a break (DaemonCore+Health).
    var framesDueSince: Double?
    var vtActive: Bool
    public internal(set) var running = true
    var nextWatchdog = 0.0
    var nextStatus = 0.0
    /// When the metrics file is next written (at the first turn, then
    /// every interval).
    var nextMetrics: Double

    // Idle timers and power (DaemonCore+Power).
    /// The brightness asked for, in percent (dimming is relative to it).
    var brightness: Int?
    var power = PowerState.normal
    var lastActivity: Double

    // The screen: on, dimmed or really off, and why (DaemonCore+Power).
    var screen = ScreenState.on
    var displayMode = DisplayPowerMode.auto
    /// A touch woke a screen the schedule keeps off: the time of the last
    /// contact since (any finger's down, move or lift), from which
    /// [display] wake_on_touch counts; nil when no wake runs.
    var touchWakeLastContact: Double?
    /// The fingers on the glass now, whether the scene sees them or not.
    var contactsDown: [Int] = []
    /// Contacts kept from the scene down to their lift: those that touched
    /// a dark screen (to wake it or not), and those on the glass when it
    /// went dark.
    var consumedContacts: [Int] = []
    /// Since when an exercise in progress has kept the screen on past the
    /// moment it would have gone dark (`personHoldLimit` bounds it).
    var exerciseHoldSince: Double?
    /// The read-backs since the screen last went on or off.
    var displayChecks: [DisplayPowerReport] = []

    // Opening hours (DaemonCore+Schedule).
    let timeZone: LocalTimeZone
    /// Wall minus monotonic seconds, from the shell; nil until it tells.
    var wallOffset: Double?
    /// What the schedule says now; nil without a schedule or a wall clock.
    var scheduleState: ScheduleState?
    var scheduleNext: (at: Int64, state: ScheduleState)?
    /// Monotonic time of `scheduleNext`.
    var scheduleDeadline: Double?
    /// Low power as it was before a `low-power` window turned it on.
    var lowPowerBeforeSchedule: Bool?

    /// Since start, for status and metrics (DaemonCounters).
    var errors = ErrorCounts()
    var sessions = SessionCounts()

    // Touch and the spiral (DaemonCore+Spiral).
    /// The contact the scene follows (the first finger down).
    var followedContact: Int?
    /// The earliest touch applied since the last frame drawn, and that of
    /// the frame drawn since: touch-to-screen latency.
    var unshownTouchTime: Double?
    var drawnTouchTime: Double?
    var touchLatencies = FrameTimes()
    var lastSpiralProgressEvent = (time: -Double.infinity, progress: -1.0)
    var inputDevices: [String] = []

    /// The latest time the core has handled anything at: an input stamped
    /// earlier (a touch whose kernel time is older) is applied at this time,
    /// so nothing the core counts runs backwards.
    public internal(set) var now: Double

    private var effects: [DaemonEffect] = []
    private var effectHead = 0
    /// Events of this input, sent after the status that shows them.
    private var pendingEvents: [DaemonEvent] = []

    /// The core at `startTime`, showing `configuration.scene` (or the
    /// fallback scene, when it cannot be made) on `display`.
    public init(configuration: DaemonConfiguration, display: DisplayFacts, backlight: BacklightPort?, watchdogInterval: Double?,
                vtActive: Bool = true, timeZone: LocalTimeZone = SystemTimeZone(), startTime: Double,
                logger: Logger) throws(DaemonCommandError) {
        (self.configuration, self.display, self.backlight, self.timeZone) = (configuration, display, backlight, timeZone)
        (self.watchdogInterval, self.vtActive, self.startTime, self.logger) = (watchdogInterval, vtActive, startTime, logger)
        now = startTime
        framesDueSince = startTime
        lastActivity = startTime
        nextMetrics = startTime
        brightness = backlight?.percent
        renderThreads = configuration.adaptiveThreads ? 1 : configuration.threads
        (scene, sceneName) = try Self.makeSceneOrFallback(configuration.scene, display: display, configuration: configuration, logger: logger)
        scene.renderThreads = renderThreads
        if sceneName != configuration.scene { errors[.scene] += 1 }
        interactiveScene = scene as? InteractiveScene
        clock = SceneClock(start: startTime, pinnedAt: configuration.pinnedTime)
        pacer = Self.makePacer(display: display, configuration: configuration)
        effects.reserveCapacity(16)
        pendingEvents.reserveCapacity(8)
        contactsDown.reserveCapacity(10)
        consumedContacts.reserveCapacity(10)
    }

    // MARK: inputs and effects

    /// Handles `input` at `time`; its effects queue for `nextEffect()`.
    public func send(_ input: DaemonInput, at time: Double) {
        now = max(now, time)
        switch input {
        case .tick(let ready):
            outputReady = ready
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
            redraw = true
            pacer.reset()
        case .drawn(let seconds):
            if lastPlanDrew { frameTimes.record(seconds * 1000) }
        case .presented(let presentation):
            presented(presentation)
        case .inputDevices(let devices):
            inputDevices = devices
        case .wallClock(let offset):
            wallClockChanged(offset: offset)
        case .displayPowerChecked(let report):
            displayChecked(report)
        case .sessionRecorded(let record, let error):
            sessionRecorded(record, error: error)
        }
        followFramesDue()
        flushEvents()
    }

    /// The next effect to carry out, oldest first; nil when none is left.
    public func nextEffect() -> DaemonEffect? {
        guard effectHead < effects.count else {
            if effectHead > 0 {
                effects.removeAll(keepingCapacity: true)
                effectHead = 0
            }
            return nil
        }
        defer { effectHead += 1 }
        return effects[effectHead]
    }

    func perform(_ effect: DaemonEffect) {
        effects.append(effect)
    }

    /// Something happened; it goes out after the status that shows it, at
    /// the end of this input.
    func emit(_ event: DaemonEvent) {
        pendingEvents.append(event)
    }

    private func flushEvents() {
        guard !pendingEvents.isEmpty else { return }
        publishStatus(notify: false)
        for event in pendingEvents { perform(.event(event)) }
        pendingEvents.removeAll(keepingCapacity: true)
    }

    // MARK: a loop turn

    /// Frames change over time (not a still scene, not paused or pinned,
    /// the screen not off).
    var animating: Bool { (sceneChange != nil || !scene.isStill && !clock.isFrozen) && screen.power != .off }

    /// Whether a frame is wanted at all now, regardless of timing: never
    /// while the screen is off (no frames, no CPU).
    var wantsFrame: Bool { vtActive && outputReady && screen.power != .off && (redraw || animating) }

    /// Time has passed: the scene catches up, the idle timers move, a frame
    /// is drawn if one is due, the status and the watchdog are kept.
    private func turn() {
        if let deadline = scheduleDeadline, now >= deadline { evaluateSchedule() }
        pumpInteractiveScene()
        updatePower()
        if wantsFrame, now >= pacer.renderStart(now: now) { planFrame() }
        periodic()
    }

    /// The next frame: for the time it will be on screen.
    private func planFrame() {
        let shownAt = pacer.beginFrame(now: now)
        touchesDrawn()
        let content: FramePlan.Content
        if configuration.presentOnly {
            content = .unchanged
        } else if let change = sceneChange {
            let amount = change.fade.amount(at: shownAt)
            content = .crossfade(from: change.outgoing, fromTime: change.outgoingClock.time(at: shownAt), to: scene,
                                 toTime: clock.time(at: shownAt), frames: change.frames, amount: Float(amount))
            if change.fade.isFinished(at: shownAt) {
                // This frame is the fade's end (the spring settled within a
                // thousandth): the next, drawn straight, looks the same.
                sceneChange = nil
                logger.info("scene: crossfade to \(sceneName) done")
            }
        } else {
            content = .scene(scene, time: clock.time(at: shownAt))
        }
        lastPlanDrew = !configuration.presentOnly
        redraw = false
        perform(.draw(FramePlan(content: content, shownAt: shownAt, rotation: configuration.rotation)))
    }

    /// A frame is on screen.
    private func presented(_ presentation: Presentation) {
        pacer.presented(at: presentation.timestamp)
        meter.frame()
        countFrameOnScreen()
        touchesShown(at: presentation.timestamp ?? now)
        if !firstFrameShown {
            firstFrameShown = true
            logger.info("first frame on screen \(Int(((now - startTime) * 1000).rounded())) ms after start")
            perform(.notify(.ready))
            publishStatus()
            nextStatus = now + meter.period
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
        if wantsFrame { consider(pacer.renderStart(now: now)) }
        if animating, vtActive, firstFrameShown { consider(nextStatus) }
        if watchdogInterval != nil, idleByDesign { consider(nextWatchdog) }
        // Also while off or still: a fleet must see a dark kiosk as alive.
        if configuration.config.metrics.textfileDirectory != nil { consider(nextMetrics) }
        consider(idlePolicy.nextChange(lastActivity: lastActivity, now: now, lowPower: configuration.settings.lowPower))
        consider(interactiveDeadline())
        consider(scheduleDeadline)
        consider(touchWakeEnd)
        consider(exerciseHoldSince.map { $0 + Self.personHoldLimit })
        return wake
    }

    // MARK: the VT and the display

    private func terminal(inFront: Bool) {
        guard inFront != vtActive else { return }
        vtActive = inFront
        if inFront {
            perform(.resumeOutput)
            redraw = true
            pacer.reset()
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
            pacer = Self.makePacer(display: facts, configuration: configuration)
        }
        if !sceneFits() {
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
}
