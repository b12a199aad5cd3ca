import ChakraDisplay
import ChakraInput
import ChakraRaster
import ChakraScenes
import ChakraSpiral
import ChakraText
import Glibc
import Logging

/// The frame loop: one thread that owns the output and the scene, draws a
/// frame when the pacer says so, and otherwise sleeps in poll(2) on the
/// signalfd, the command eventfd and the output's descriptors (DRM flip
/// events, uevents). No timer ticks: the poll timeout is the earliest of
/// the next frame's start, the output's maintenance and the watchdog, and
/// infinite when nothing is due, so a still scene costs no CPU.
///
/// Rendering happens on this thread (the scene spreads a frame over its
/// own worker pool). That is enough to keep flips on time: the flip is
/// queued in the kernel, and the next frame starts when it completes, with
/// a whole refresh to be drawn.
///
/// Nothing is allocated per frame: the poll array, the flip request and
/// the scene's buffers are made up front.
final class FrameLoop {
    let output: DisplayOutput
    let terminal: VirtualTerminal?
    let signals: SignalSource
    let control: DaemonControl
    let notifier: SystemdNotifier?
    let logger: Logger
    var configuration: DaemonConfiguration
    let startTime: Double

    var scene: Scene
    var sceneName: String
    var clock: SceneClock
    var pacer: FramePacer
    var meter = FrameRateMeter()
    /// Drawing times of the last frames, for `status`.
    var frameTimes = FrameTimes()
    /// The crossfade in progress, with its frames (FrameLoop+Transition).
    var sceneChange: SceneChange?
    /// The ambient scene `spiral start` came from, to go back to when the
    /// exercise ends or is cancelled (FrameLoop+Spiral).
    var spiralReturnScene: String?
    /// That scene, kept while the exercise runs so going back is instant
    /// (building a scene takes a moment on a slow board).
    var parkedScene: Scene?
    /// Threads the scene uses now (FrameLoop+Threads).
    var renderThreads: Int
    var lastSpiralProgressEvent = (time: -Double.infinity, progress: -1.0)
    let poller: Poller
    let outputDescriptors: [Int32]

    var running = true
    var vtActive: Bool
    /// A frame must be drawn even if the scene is still (start, VT return,
    /// scene or settings change, recovery).
    var redraw = true
    var firstFrameShown = false
    var nextWatchdog = 0.0
    var nextStatus = 0.0

    // Idle timers, dimming and blanking (FrameLoop+Power).
    let backlight: Backlight?
    /// The brightness asked for, in percent (dimming is relative to it).
    var brightness: Int?
    var power = PowerState.normal
    var lastActivity: Double
    var waitingForDisplay = false
    /// Events of this loop turn, sent once the status shows them.
    var pendingEvents: [DaemonEvent] = []

    // Touch (FrameLoop+Touch).
    let touch: TouchInput?
    let haptics: Haptics?
    let touchIndex: Int
    /// The contact the spiral follows (the first finger down).
    var followedContact: Int?
    /// The earliest touch applied since the last frame shown, and how long
    /// touches took to reach the screen (event time to presentation).
    var unshownTouchTime: Double?
    var drawnTouchTime: Double?
    var touchLatencies = FrameTimes()

    init(output: DisplayOutput, terminal: VirtualTerminal?, signals: SignalSource, control: DaemonControl,
         notifier: SystemdNotifier?, configuration: DaemonConfiguration, startTime: Double, logger: Logger) throws {
        (self.output, self.terminal, self.signals, self.control) = (output, terminal, signals, control)
        (self.notifier, self.configuration, self.startTime, self.logger) = (notifier, configuration, startTime, logger)
        renderThreads = configuration.adaptiveThreads ? 1 : configuration.threads
        (scene, sceneName) = try Self.makeSceneOrFallback(configuration.scene, for: output, configuration: configuration, logger: logger)
        scene.renderThreads = renderThreads
        clock = SceneClock(start: startTime, pinnedAt: configuration.pinnedTime)
        pacer = Self.makePacer(output: output, configuration: configuration)
        outputDescriptors = output.pollDescriptors
        (touch, haptics) = Self.openTouch(configuration: configuration, output: output, logger: logger)
        touchIndex = 2 + outputDescriptors.count
        poller = Poller(descriptors: [signals.descriptor, control.wakeup.descriptor] + outputDescriptors + (touch.map { [$0.descriptor] } ?? []))
        vtActive = terminal?.isActive ?? true
        lastActivity = startTime
        switch Backlight.open(configuration.backlight, root: configuration.backlightRoot) {
        case .success(let found):
            backlight = found
            brightness = found?.percent
            if let found { logger.info("backlight: \(found.name) at \(brightness.map { "\($0)%" } ?? "an unknown level")") }
        case .failure(let error):
            backlight = nil
            logger.warning("\(error); dimming and `set brightness` are off")
        }
        if !vtActive {
            logger.info("vt: /dev/tty\(terminal!.number) is not in front; waiting to be switched to")
            output.suspend()
        }
    }

    static func makeScene(_ name: String, for output: DisplayOutput, configuration: DaemonConfiguration, logger: Logger) throws -> Scene {
        // The scene draws the frame as seen: a panel turned 90° shows a
        // frame of swapped width and height.
        let (w, h) = Self.sceneSize(output: output, configuration: configuration)
        guard let scene = try DaemonScenes.make(name, width: w, height: h, configuration: configuration) else {
            throw DaemonCommandError.unknownScene(name)
        }
        if let problem = (scene as? SpiralScene)?.fontProblem {
            logger.warning("text: \(problem); the texts are in \(Font.defaultPath)")
        }
        return scene
    }

    static func sceneSize(output: DisplayOutput, configuration: DaemonConfiguration) -> (Int, Int) {
        configuration.rotation.swapsAxes ? (output.height, output.width) : (output.width, output.height)
    }

    /// The scene shown when the one asked for cannot be made (the spiral
    /// with no readable font at all): the picture goes on.
    static let fallbackScene = "heart"

    /// `name`, or the fallback scene with the error logged. A name that is
    /// no scene is still an error (a typo should not look like a choice).
    static func makeSceneOrFallback(_ name: String, for output: DisplayOutput, configuration: DaemonConfiguration,
                                    logger: Logger) throws(DaemonCommandError) -> (scene: Scene, name: String) {
        do {
            return (try makeScene(name, for: output, configuration: configuration, logger: logger), name)
        } catch DaemonCommandError.unknownScene(let name) {
            throw .unknownScene(name)
        } catch {
            logger.error("scene: cannot show \(name): \(error); showing \(fallbackScene) instead")
            let (w, h) = sceneSize(output: output, configuration: configuration)
            let scene = SceneCatalog.make(fallbackScene, width: w, height: h, settings: configuration.settings, threads: configuration.threads)!
            return (scene, fallbackScene)
        }
    }

    static func makePacer(output: DisplayOutput, configuration: DaemonConfiguration) -> FramePacer {
        FramePacer(fpsCap: configuration.effectiveFPSCap, refreshInterval: output.refreshInterval, vblankTimed: output.isVBlankTimed)
    }

    /// Frames change over time (not a still scene, not paused or pinned,
    /// not blanked).
    var animating: Bool { (sceneChange != nil || !scene.isStill && !clock.isFrozen) && power != .blanked }

    /// Whether a frame is wanted at all now, regardless of timing.
    var wantsFrame: Bool { vtActive && output.isReady && (redraw || animating) }

    func run() throws {
        while running {
            var now = MonotonicClock.now()
            if let due = output.nextMaintenance, now >= due { output.maintain(now: now) }
            if output.takeRedrawRequest() { redraw = true; pacer.reset() }
            pumpSpiral(now: now)
            if wantsFrame, now >= pacer.renderStart(now: now) {
                try drawFrame(now: now)
                now = MonotonicClock.now()
            }
            periodic(now: now)
            flushEvents()
            try poller.wait(timeout: nextWake(now: now).map { max(0, $0 - now) })
            handleReadable()
            flushEvents()
        }
    }

    /// Draws and presents one frame for the time it will be on screen.
    func drawFrame(now: Double) throws {
        if !sceneFits() {
            rebuildScene(reason: "the output is now \(output.width)x\(output.height)")
            touch?.setDisplay(panelWidth: output.width, panelHeight: output.height, rotation: touchRotation)
            displayChanged("resized")
        }
        let shownAt = pacer.beginFrame(now: now)
        touchesDrawn()
        let memory = output.drawBuffer()
        if power == .blanked {
            Self.clear(memory)
        } else if !configuration.presentOnly {
            let start = MonotonicClock.now()
            if let change = sceneChange {
                drawCrossfade(change, at: shownAt, into: memory.rotated(configuration.rotation))
            } else {
                scene.render(time: clock.time(at: shownAt), into: memory.rotated(configuration.rotation))
            }
            frameTimes.record((MonotonicClock.now() - start) * 1000)
        }
        redraw = false
        if let presentation = output.present() { presented(presentation) }
    }

    private func sceneFits() -> Bool {
        let (w, h) = configuration.rotation.swapsAxes ? (output.height, output.width) : (output.width, output.height)
        return scene.width == w && scene.height == h
    }

    func rebuildScene(reason: String) {
        // New settings or a new size: the crossfade, if any, ends at once,
        // and a kept scene no longer fits.
        cancelCrossfade()
        parkedScene = nil
        // The name was shown before, so it is a scene: only making it can fail.
        guard let made = try? Self.makeSceneOrFallback(sceneName, for: output, configuration: configuration, logger: logger) else { return }
        (scene, sceneName) = made
        scene.renderThreads = renderThreads
        pacer = Self.makePacer(output: output, configuration: configuration)
        redraw = true
        logger.info("scene: \(sceneName) rebuilt at \(scene.width)x\(scene.height) (\(reason))")
    }

    /// A frame is on screen.
    func presented(_ presentation: Presentation) {
        pacer.presented(at: presentation.timestamp)
        meter.frame()
        let now = MonotonicClock.now()
        touchesShown(at: presentation.timestamp ?? now)
        if !firstFrameShown {
            firstFrameShown = true
            logger.info("first frame on screen \(Int(((now - startTime) * 1000).rounded())) ms after start")
            notifier?.send(.ready)
            publishStatus(now: now)
            nextStatus = now + meter.period
        }
        feedWatchdog(now: now)
        // A still frame is the last for a while: show it in the status now.
        if !animating { publishStatus(now: now, notify: false) }
    }

    /// When the loop must wake up next, or nil for "only when something
    /// readable happens".
    func nextWake(now: Double) -> Double? {
        // No array: this runs every frame and must not allocate.
        var wake: Double?
        func consider(_ deadline: Double?) {
            if let deadline, deadline < wake ?? .infinity { wake = deadline }
        }
        if wantsFrame { consider(pacer.renderStart(now: now)) }
        consider(output.nextMaintenance)
        if animating, vtActive, firstFrameShown { consider(nextStatus) }
        if notifier?.watchdogInterval != nil, idleByDesign { consider(nextWatchdog) }
        consider(idlePolicy.nextChange(lastActivity: lastActivity, now: now, lowPower: configuration.settings.lowPower))
        consider(spiralDeadline(now: now))
        return wake
    }
}
