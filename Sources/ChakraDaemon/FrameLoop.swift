import ChakraConfig
import ChakraDisplay
import ChakraInput
import ChakraPNG
import ChakraRaster
import ChakraSchedule
import ChakraSystem
import Glibc

/// The daemon's shell around `DaemonCore`: one thread that owns the output,
/// the VT, the signals, the touchscreens and the control queue, and sleeps
/// in poll(2) on their descriptors (signalfd, the command eventfd, DRM flip
/// events and uevents, evdev). Each turn it reads the clock once, hands the
/// core what happened (`DaemonInput`) and carries out what the core asks
/// (`DaemonEffect`): drawing and presenting a frame, the backlight, haptics,
/// replies, events, systemd notifications. No timer ticks: the poll timeout
/// is the earliest of the core's deadline and the output's maintenance, and
/// infinite when nothing is due, so a still scene costs no CPU.
///
/// Rendering happens on this thread (the scene spreads a frame over its
/// own worker pool). That is enough to keep flips on time: the flip is
/// queued in the kernel, and the next frame starts when it completes, with
/// a whole refresh to be drawn.
///
/// Nothing is allocated per frame: the poll array, the effect queue and
/// the scene's buffers are made up front.
final class FrameLoop {
    /// The devices a machine may lack, each nil where it is absent.
    struct Devices {
        var backlight: Backlight?
        var touch: TouchInput?
        var haptics: Haptics?
        /// Readable when the wall clock is set; nil where timerfd cannot do
        /// it (the per-turn comparison still sees a jump, at the next turn).
        var clockSteps: WallClockSteps?
        /// The TV over HDMI-CEC, when there is an adapter ([display] cec).
        var cec: CECController?
        /// The session records ([sessions] file), when kept.
        var sessions: SessionRecorder?
    }

    /// What a descriptor in the poll set is: the table replaces counting
    /// indices by hand as optional devices come and go.
    enum PollSource {
        case signals, commands, output(Int32), touch, clockSteps, cec, sessions
    }

    let runner: EffectRunner
    let output: DisplayOutput
    let terminal: VirtualTerminal?
    let signals: SignalSource
    let control: DaemonControl
    let logger: Logger
    let devices: Devices
    let poller: Poller
    /// `poller`'s descriptors, in the same order.
    let sources: [PollSource]
    /// Reads the files on SIGHUP, off this thread.
    let configReader: ConfigReader
    /// The wall clock against the monotonic one, as the core last heard.
    var wallClock = WallClockWatch()
    /// The output's facts as the core last heard them.
    var displayFacts: DisplayFacts
    /// `touch.generation` when the core last heard of the devices.
    var touchGeneration = -1
    var core: DaemonCore { runner.core }
    var configuration: DaemonConfiguration { core.configuration }

    init(output: DisplayOutput, terminal: VirtualTerminal?, signals: SignalSource, control: DaemonControl,
         notifier: SystemdNotifier?, sessions: SessionRecorder? = nil, configuration: DaemonConfiguration,
         configReader: ConfigReader, startTime: Double, continuity: ContinuityStart = .none, logger: Logger) throws {
        (self.output, self.terminal, self.signals, self.control) = (output, terminal, signals, control)
        (self.logger, self.configReader) = (logger, configReader)
        var devices = Devices(sessions: sessions)
        switch Backlight.open(configuration.backlight, root: configuration.backlightRoot) {
        case .success(let found):
            devices.backlight = found
            if let found { logger.info("backlight: \(found.name) at \(found.percent.map { "\($0)%" } ?? "an unknown level")") }
        case .failure(let error):
            logger.warning("\(error); dimming and `set brightness` are off")
        }
        displayFacts = DisplayFacts(output)
        let vtActive = terminal?.isActive ?? true
        let core = try DaemonCore(configuration: configuration, display: displayFacts, scenes: DaemonSceneFactory(logger: logger),
                                  backlight: devices.backlight, watchdogInterval: notifier?.watchdogInterval, vtActive: vtActive,
                                  startTime: startTime, continuing: continuity.record, logger: logger)
        core.start = continuity.report
        core.keepsContinuation = continuity.saver != nil
        (devices.touch, devices.haptics) = Self.openTouch(configuration: configuration, output: output, logger: logger)
        do { devices.clockSteps = try WallClockSteps() } catch {
            logger.warning("schedule: clock steps are noticed late (\(error))")
        }
        do { devices.cec = try CECController.open(choice: configuration.config.display.cec, logger: logger) } catch {
            logger.error("cec: \(error); the TV is not told of display power")
        }
        self.devices = devices
        var table: [(PollSource, Int32)] = [(.signals, signals.descriptor), (.commands, control.commands.descriptor)]
        table += output.pollDescriptors.map { (.output($0), $0) }
        if let touch = devices.touch { table.append((.touch, touch.descriptor)) }
        if let clockSteps = devices.clockSteps { table.append((.clockSteps, clockSteps.descriptor)) }
        if let cec = devices.cec { table.append((.cec, cec.descriptor)) }
        if let sessions = devices.sessions { table.append((.sessions, sessions.descriptor)) }
        sources = table.map(\.0)
        poller = Poller(descriptors: table.map(\.1))
        let display = OutputFrames(output)
        var powerParts: [DisplayPowerPart] = [display]
        if let backlight = devices.backlight { powerParts.append(backlight) }
        let outputs = ShellOutputs(display: display, powerParts: powerParts,
                                   powerRequest: devices.cec, backlight: devices.backlight, haptics: devices.haptics,
                                   status: control, replies: RunReplies(), notifier: notifier,
                                   files: StatusFileWriter(statsFile: configuration.statsFile, logger: logger),
                                   sessions: devices.sessions, continuation: continuity.saver)
        runner = EffectRunner(core: core, outputs: outputs, clock: { MonotonicClock.now() }, logger: logger)
        runner.touchesAway = { [unowned self] away in
            self.devices.touch?.setAway(away) { self.core.send(.touch($0), at: Self.touchTime($0)) }
            touchDevicesChanged()
        }
        if let touch = devices.touch {
            touchGeneration = touch.generation
            core.send(.inputDevices(touch.devices.map(\.description)), at: startTime)
        }
        if !vtActive {
            logger.info("vt: /dev/tty\(terminal!.number) is not in front; waiting to be switched to")
            output.suspend()
        }
        StartPicture.fadeIn(from: output, into: core, vtActive: vtActive, logger: logger)
    }

    func run() throws {
        while core.running {
            let now = MonotonicClock.now()
            if let due = output.nextMaintenance, now >= due { output.maintain(now: now) }
            if displayFacts.mayDiffer(from: output) { displayChanged(at: now) }
            if output.takeRedrawRequest() { send(.redrawRequested, at: now) }
            watchWallClock(at: now)
            send(.tick(outputReady: output.isReady), at: now)
            let after = MonotonicClock.now()
            try poller.wait(timeout: nextWake(now: after).map { max(0, $0 - after) })
            handleReadable()
        }
    }

    /// The earliest of the core's deadline and the output's maintenance.
    private func nextWake(now: Double) -> Double? {
        switch (core.nextDeadline(), output.nextMaintenance) {
        case (let a?, let b?): min(a, b)
        case (let a?, nil): a
        case (nil, let b?): b
        case (nil, nil): nil
        }
    }

    /// Hands `input` to the core and carries out what it asks.
    func send(_ input: DaemonInput, at time: Double) {
        runner.send(input, at: time)
    }

    private func displayChanged(at now: Double) {
        let facts = DisplayFacts(output)
        guard facts != displayFacts else { return }
        let resized = (facts.width, facts.height) != (displayFacts.width, displayFacts.height)
        displayFacts = facts
        if resized { devices.touch?.setDisplay(panelWidth: output.width, panelHeight: output.height, rotation: touchRotation) }
        send(.display(facts), at: now)
    }

    // MARK: readable descriptors

    /// Which signals the daemon reads: stop, reload, and the VT's
    /// release/acquire pair.
    static let signalsHandled: [Int32] = [SIGTERM, SIGINT, SIGHUP, releaseSignal, acquireSignal]
    static let releaseSignal = SIGUSR1
    static let acquireSignal = SIGUSR2

    private func handleReadable() {
        for (index, source) in sources.enumerated() where poller.isReadable(index) {
            switch source {
            case .signals:
                signals.drain(handleSignal)
            case .commands:
                for command in control.takeCommands() { handle(command) }
            case .output(let descriptor):
                if let presentation = output.handleReadable(descriptor: descriptor, now: MonotonicClock.now()) {
                    runner.presented(presentation)
                    runner.drain()
                }
            case .touch:
                devices.touch?.handleReadable { send(.touch($0), at: Self.touchTime($0)) }
                touchDevicesChanged()
            case .clockSteps:
                guard devices.clockSteps?.acknowledge() == true else { continue }
                // The zone may have changed with the clock (timedatectl).
                SystemTimeZone.reload()
                watchWallClock(at: MonotonicClock.now())
            case .cec:
                for report in devices.cec?.takeReports() ?? [] { send(.displayPowerChecked(report), at: MonotonicClock.now()) }
            case .sessions:
                if let sessions = devices.sessions { takeSessionOutcomes(sessions) }
            }
        }
    }

    private func takeSessionOutcomes(_ sessions: SessionRecorder) {
        for outcome in sessions.takeOutcomes() {
            send(.sessionRecorded(outcome.record, error: outcome.error), at: MonotonicClock.now())
        }
    }

    // MARK: the wall clock and the display's power

    /// Every turn (two vDSO clock reads): the core hears of the wall clock
    /// at start and whenever it jumped; NTP's slewing is not a jump.
    private func watchWallClock(at now: Double) {
        let (monotonic, wall) = (MonotonicClock.now(), WallClock.now())
        if wallClock.observe(monotonic: monotonic, wall: wall), let offset = wallClock.offset {
            send(.wallClock(offset: offset), at: now)
        }
    }

    private func handleSignal(_ signal: Int32) {
        let now = MonotonicClock.now()
        switch signal {
        case SIGTERM, SIGINT:
            logger.info("\(signal == SIGTERM ? "SIGTERM" : "SIGINT"): stopping")
            send(.stop, at: now)
        case SIGHUP:
            // Read by the reader, never here: a file that is slow to read
            // (or to go through) must not hold a frame back. Its outcome
            // comes back through the command queue, between two frames; a
            // read given up is a refusal like any other.
            configReader.read { [control] outcome in
                switch outcome {
                case .read(let read): control.send(.signalReload(read))
                case .overdue(let overdue): control.send(.signalReload(.failure(overdue.error)))
                }
            }
        case Self.releaseSignal where terminal != nil:
            // Let go of the screen and the touchscreens first, then let the
            // switch happen.
            send(.terminal(inFront: false), at: now)
            terminal!.allowRelease()
        case Self.acquireSignal where terminal != nil:
            terminal!.acknowledgeAcquire()
            send(.terminal(inFront: true), at: now)
        default:
            logger.debug("signal \(signal) ignored")
        }
    }

    /// Snapshots are answered here, from the output's memory; everything
    /// else goes to the core.
    private func handle(_ command: DaemonCommand) {
        switch command {
        case .snapshotFrame(let reply):
            reply(frameOnScreen().map { FrameSnapshot(frame: Self.copy(of: $0), rotation: configuration.rotation) })
        default:
            send(.command(command), at: MonotonicClock.now())
        }
    }

    // MARK: touch

    /// The core hears of touchscreens plugged, unplugged, grabbed or let go
    /// (`TouchInput.generation` counts those changes).
    private func touchDevicesChanged() {
        guard let touch = devices.touch, touch.generation != touchGeneration else { return }
        touchGeneration = touch.generation
        core.send(.inputDevices(touch.devices.map(\.description)), at: MonotonicClock.now())
    }

    /// When a touch happened: its kernel time on the monotonic clock, so
    /// the exercise sees when the finger really moved, not when the loop
    /// woke; never ahead of now (a clock step must not move the scene ahead).
    static func touchTime(_ event: TouchContactEvent) -> Double {
        min(event.time, MonotonicClock.now())
    }

    static func openTouch(configuration: DaemonConfiguration, output: DisplayOutput, logger: Logger) -> (TouchInput?, Haptics?) {
        var settings = TouchInput.Settings(config: configuration.config.input, displayRotation: configuration.rotation,
                                           panelWidth: output.width, panelHeight: output.height)
        settings.directory = configuration.inputDirectory
        let touch: TouchInput?
        do { touch = try TouchInput(settings: settings, logger: logger) } catch {
            logger.warning("input: no touch input (\(error))")
            touch = nil
        }
        let haptics = DeviceChoice.haptics(configuration.config.input.haptics).map {
            Haptics(choice: $0, directory: configuration.inputDirectory, logger: logger)
        }
        // One watch on the input directory serves both: a rumble device
        // plugged in later is found too.
        if let haptics { touch?.onNodeChange = { [weak haptics] in haptics?.nodeChanged($0) } }
        return (touch, haptics)
    }

    /// The rotation touches turn with: the picture's, unless [input] says.
    var touchRotation: Rotation {
        configuration.config.input.rotation.flatMap(Rotation.init(rawValue:)) ?? configuration.rotation
    }

    // MARK: status file and exit

    /// The status as the loop stops (the statistics file's last word).
    /// At exit: the records queued (an exercise the stop interrupted) are
    /// written, waiting up to 2 s for the disk.
    func finishSessionRecords() {
        guard let sessions = devices.sessions else { return }
        sessions.close(timeout: 2)
        takeSessionOutcomes(sessions)
    }

    func publishFinalStatus(at now: Double) {
        let status = core.status(at: now)
        control.publish(status)
        runner.outputs.files.writeStats(status)
    }

    /// The display powered up and the brightness the user asked for put
    /// back (at exit: the console must not stay dark).
    func restoreDisplay() {
        if core.displayPoweredDown {
            _ = output.setPower(on: true)
            _ = devices.backlight?.setPower(on: true)
        }
        guard let backlight = devices.backlight, let percent = core.brightnessToRestore else { return }
        try? backlight.set(percent: percent)
    }

    // MARK: frames for snapshots

    /// What is on screen now, or why there is nothing to show.
    func frameOnScreen() -> Result<PixelBuffer, DaemonCommandError> {
        if output.isWaitingForDisplay { return .failure(.displayGone) }
        guard let front = output.frontBuffer() else { return .failure(.noFrameYet) }
        return .success(front)
    }

    /// The memory as 8-bit RGB (a snapshot: allocates, on request only).
    static func rgb(of buffer: PixelBuffer) -> PNGImage.RGB {
        var bytes = [UInt8](repeating: 0, count: buffer.width * buffer.height * 3)
        for y in 0..<buffer.height {
            for x in 0..<buffer.width {
                let c = buffer.rgb(x: x, y: y)
                let i = (y * buffer.width + x) * 3
                (bytes[i], bytes[i + 1], bytes[i + 2]) = (c.x, c.y, c.z)
            }
        }
        return PNGImage.RGB(width: buffer.width, height: buffer.height, bytes: bytes)
    }

    /// A copy of the memory, row by row (a memcpy each): the least the loop
    /// can do before the buffer is drawn into again.
    static func copy(of buffer: PixelBuffer) -> FrameBuffer {
        let copy = FrameBuffer(width: buffer.width, height: buffer.height, format: buffer.format)
        let rowBytes = buffer.width * buffer.format.bytesPerPixel
        for y in 0..<buffer.height {
            memcpy(copy.pixels.base + y * copy.pixels.stride, buffer.base + y * buffer.stride, rowBytes)
        }
        return copy
    }
}

extension Backlight: BacklightPort, BacklightLevel, DisplayPowerPart {}
extension Haptics: HapticCues {}
extension CECController: DisplayPowerRequest {}
extension SessionRecorder: SessionRecords {}

extension DaemonControl: StatusChannel {
    func framesPresented(_ progress: FrameProgress) { frames.store(progress) }
}

extension SystemdNotifier: NotifyOutput {
    func notify(_ message: NotifyMessage) { send(message) }
}

/// The output as the effects use it.
final class OutputFrames: FrameDisplay, DisplayPowerPart {
    let output: DisplayOutput

    init(_ output: DisplayOutput) { self.output = output }

    func draw(_ plan: FramePlan) { plan.render(into: output.drawBuffer()) }
    func present() -> Presentation? { output.present() }
    func suspend() { output.suspend() }
    func resume() { output.resume() }
    func setPower(on: Bool) -> DisplayPowerReport { output.setPower(on: on) }
}

/// Replies run on the loop's thread, in the order of their effects.
final class RunReplies: ReplyOutput {
    func answer(_ reply: @Sendable () -> Void) { reply() }
}

/// The statistics file (--stats-file) and the metrics textfile.
final class StatusFileWriter: StatusFiles {
    let statsFile: String?
    let metrics: MetricsExport
    let logger: Logger

    init(statsFile: String?, logger: Logger) {
        (self.statsFile, self.logger) = (statsFile, logger)
        metrics = MetricsExport(logger: logger)
    }

    func writeStats(_ status: DaemonStatus) {
        guard let path = statsFile else { return }
        do throws(SystemError) {
            try FileSystem.replace(path, with: status.keyValues, temporary: path + ".tmp")   // readers never see half a file
        } catch {
            logger.warning("stats file \(path): \(error)")
        }
    }

    func writeMetrics(_ status: DaemonStatus, into directory: String) {
        metrics.write(status, into: directory)
    }
}
