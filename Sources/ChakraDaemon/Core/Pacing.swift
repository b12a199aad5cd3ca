import ChakraDisplay
import ChakraSystem

/// Frames in time: the pacer that says when the next one starts, the rate
/// meter and drawing times, the frames on screen and their stalls (for
/// `health`), whether the output holds the picture the parts last asked
/// for, and the periodic deadlines (the idle watchdog, the status, the
/// metrics file).
final class Pacing {
    /// The times of the periodic work.
    struct Deadlines {
        var watchdog = 0.0
        var status = 0.0
        /// At the first turn, then every `[metrics] interval`.
        var metrics: Double
    }

    private let logger: Logger
    private(set) var pacer: FramePacer
    private(set) var meter = FrameRateMeter()
    /// Drawing times of the last frames, for `status` and the threads.
    private(set) var frameTimes = FrameTimes()
    /// A frame can be drawn and presented now (no flip outstanding).
    var outputReady = true
    /// The last plan drew a scene (its drawing time counts).
    private var lastPlanDrewScene = false
    private(set) var firstFrameShown = false
    /// Frames on screen, the last one's time and the last stall.
    private(set) var progress = FrameProgress()
    /// Since when frames have been due without a break.
    private(set) var framesDueSince: Double?
    /// systemd's watchdog period, when it asks for pings.
    let watchdogInterval: Double?
    private(set) var next: Deadlines
    /// What the last frame drawn showed (`FrameDemand`).
    private var shown = FrameDemand()
    /// The output holds a picture of ours: false at start, and after it
    /// lost it (a VT switch, the screen powered down, a reconnect).
    private var holdsPicture = false

    init(display: DisplayFacts, configuration: DaemonConfiguration, watchdogInterval: Double?, start: Double, logger: Logger) {
        self.logger = logger
        self.watchdogInterval = watchdogInterval
        pacer = Self.makePacer(display: display, configuration: configuration)
        framesDueSince = start
        next = Deadlines(metrics: start)
    }

    static func makePacer(display: DisplayFacts, configuration: DaemonConfiguration) -> FramePacer {
        FramePacer(fpsCap: configuration.effectiveFPSCap, refreshInterval: display.refreshInterval, vblankTimed: display.vblankTimed)
    }

    /// A new display rate or cap.
    func repace(display: DisplayFacts, configuration: DaemonConfiguration) {
        pacer = Self.makePacer(display: display, configuration: configuration)
    }

    /// Frames start again from now, not on the old cadence (a scene
    /// switched to, a scene resumed).
    func restartCadence() {
        pacer.reset()
    }

    /// The output no longer holds our picture: the next frame is drawn
    /// whatever the parts say, and starts at once.
    func outputLost() {
        holdsPicture = false
        pacer.reset()
    }

    // MARK: frames

    /// A frame is needed, time aside: the output lost the picture, or what
    /// the parts show changed since the last frame.
    func needsFrame(_ demand: FrameDemand) -> Bool { !holdsPicture || demand != shown }

    /// When the next frame must start being drawn.
    func renderStart(now: Double) -> Double { pacer.renderStart(now: now) }

    /// A frame showing `demand` begins: the time it will be on screen.
    func beginFrame(now: Double, showing demand: FrameDemand, drawsScene: Bool) -> Double {
        (shown, holdsPicture, lastPlanDrewScene) = (demand, true, drawsScene)
        return pacer.beginFrame(now: now)
    }

    /// The black frame before the display powers down (no scene drawn).
    func blackFrame() {
        lastPlanDrewScene = false
    }

    func drawn(seconds: Double) {
        if lastPlanDrewScene { frameTimes.record(seconds * 1000) }
    }

    /// A frame is on screen at `now`; true when it is the first.
    func presented(_ presentation: Presentation, now: Double) -> Bool {
        pacer.presented(at: presentation.timestamp)
        meter.frame()
        countFrameOnScreen(now: now)
        guard !firstFrameShown else { return false }
        firstFrameShown = true
        next.status = now + meter.period
        return true
    }

    // MARK: health

    /// After every input: the moment frames became due again (start, the
    /// screen powered up, the VT back, the display plugged in, the scene
    /// resumed) is kept until they stop being due. Health measures the
    /// wait for a frame from the later of this and the last frame, so a
    /// frame from before the screen went off is not late.
    func followFramesDue(_ due: Bool, now: Double) {
        if !due {
            framesDueSince = nil
        } else if framesDueSince == nil {
            framesDueSince = now
        }
    }

    /// A frame reached the screen now: counted, and the wait for it
    /// remembered as a stall when frames were due all along and it was
    /// longer than health allows. Once per frame: no allocation (the log
    /// line comes with a stall only).
    private func countFrameOnScreen(now: Double) {
        if let dueSince = framesDueSince {
            let waited = now - max(progress.lastAt ?? dueSince, dueSince)
            if waited > DaemonHealth.allowedGap(fpsTarget: 1 / pacer.frameInterval) {
                progress.lastStall = FrameStall(seconds: waited, endedAt: now)
                logger.warning("frames: none reached the screen for \(String(waited, decimals: 1)) s while they were due")
            }
        }
        progress.presented = meter.totalFrames
        progress.lastAt = now
    }

    // MARK: periodic work

    /// The watchdog is due a ping (then not before a period has passed).
    func watchdogDue(now: Double) -> Bool {
        guard let interval = watchdogInterval, now >= next.watchdog else { return false }
        next.watchdog = now + interval
        return true
    }

    /// The metrics file is due. A late turn does not bunch writes up: the
    /// next one is an interval after this one.
    func metricsDue(now: Double, interval: Double) -> Bool {
        guard now >= next.metrics else { return false }
        next.metrics = now + interval
        return true
    }

    /// A new metrics directory or interval: written at the next turn.
    func writeMetricsSoon(now: Double) {
        next.metrics = now
    }

    /// The rate meter's period ended with a new rate: time for a status.
    func statusDue(now: Double) -> Bool {
        guard firstFrameShown, now >= next.status else { return false }
        next.status = now + meter.period
        return meter.update(now: now)
    }

    static let busyShare = 0.5, idleShare = 1.0 / 3

    /// How many threads draw a frame, when the configuration leaves it
    /// open: as few as keep drawing well inside the frame interval. One
    /// thread costs the least CPU per frame (no hand-over, no second core
    /// woken); more are used only when one would take over half the
    /// interval, and given back when one would take under a third of it.
    /// For drawing times of `median` seconds with `threads` threads at a
    /// frame interval of `interval` seconds.
    static func threadsFor(median: Double, threads: Int, interval: Double, maximum: Int) -> Int {
        guard median > 0, interval > 0 else { return threads }
        if median > busyShare * interval, threads < maximum { return threads + 1 }
        // What one thread fewer would take, at best (perfect scaling).
        if threads > 1, median * Double(threads) / Double(threads - 1) < idleShare * interval { return threads - 1 }
        return threads
    }

    /// The threads the drawing times ask for, when they ask for a change
    /// (the times then start anew, measured with the new count).
    func threadsWanted(now threads: Int, maximum: Int) -> Int? {
        let summary = frameTimes.summary
        guard summary.samples >= 30 else { return nil }
        let chosen = Self.threadsFor(median: summary.median / 1000, threads: threads, interval: pacer.frameInterval, maximum: maximum)
        guard chosen != threads else { return nil }
        logger.info("render: \(chosen) thread(s) (frames took \(summary.median) ms median with \(threads))")
        frameTimes = FrameTimes()
        return chosen
    }
}
