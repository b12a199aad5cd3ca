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
    let core: DaemonCore
    let output: DisplayOutput
    let terminal: VirtualTerminal?
    let signals: SignalSource
    let control: DaemonControl
    let notifier: SystemdNotifier?
    let logger: Logger
    let backlight: Backlight?
    let touch: TouchInput?
    let haptics: Haptics?
    let poller: Poller
    let outputDescriptors: [Int32]
    let touchIndex: Int
    /// Readable when the wall clock is set; nil where timerfd cannot do it
    /// (the per-turn comparison below still sees a jump, at the next turn).
    let clockSteps: WallClockSteps?
    let clockStepsIndex: Int
    /// The TV over HDMI-CEC, when there is an adapter ([display] cec).
    let cec: CECController?
    let cecIndex: Int
    /// The session records ([sessions] file), when kept.
    let sessions: SessionRecorder?
    let sessionsIndex: Int
    /// The metrics file, written when the core says ([metrics]).
    let metrics: MetricsExport
    /// Reads the files on SIGHUP, off this thread.
    let configReader: ConfigReader
    /// The wall clock against the monotonic one, as the core last heard.
    var wallClock = WallClockWatch()
    /// The output's facts as the core last heard them.
    var displayFacts: DisplayFacts
    /// `touch.generation` when the core last heard of the devices.
    var touchGeneration = -1
    var configuration: DaemonConfiguration { core.configuration }

    init(output: DisplayOutput, terminal: VirtualTerminal?, signals: SignalSource, control: DaemonControl,
         notifier: SystemdNotifier?, sessions: SessionRecorder? = nil, configuration: DaemonConfiguration,
         configReader: ConfigReader, startTime: Double, logger: Logger) throws {
        (self.output, self.terminal, self.signals, self.control, self.sessions) = (output, terminal, signals, control, sessions)
        (self.notifier, self.logger, self.configReader) = (notifier, logger, configReader)
        metrics = MetricsExport(logger: logger)
        switch Backlight.open(configuration.backlight, root: configuration.backlightRoot) {
        case .success(let found):
            backlight = found
            if let found { logger.info("backlight: \(found.name) at \(found.percent.map { "\($0)%" } ?? "an unknown level")") }
        case .failure(let error):
            backlight = nil
            logger.warning("\(error); dimming and `set brightness` are off")
        }
        displayFacts = DisplayFacts(output)
        let vtActive = terminal?.isActive ?? true
        core = try DaemonCore(configuration: configuration, display: displayFacts, backlight: backlight,
                              watchdogInterval: notifier?.watchdogInterval, vtActive: vtActive, startTime: startTime, logger: logger)
        outputDescriptors = output.pollDescriptors
        (touch, haptics) = Self.openTouch(configuration: configuration, output: output, logger: logger)
        touchIndex = 2 + outputDescriptors.count
        do { clockSteps = try WallClockSteps() } catch {
            logger.warning("schedule: clock steps are noticed late (\(error))")
            clockSteps = nil
        }
        clockStepsIndex = touchIndex + (touch == nil ? 0 : 1)
        do { cec = try CECController.open(choice: configuration.config.display.cec, logger: logger) } catch {
            logger.error("cec: \(error); the TV is not told of display power")
            cec = nil
        }
        cecIndex = clockStepsIndex + (clockSteps == nil ? 0 : 1)
        sessionsIndex = cecIndex + (cec == nil ? 0 : 1)
        // Not a chain of +: Swift 6.0 (the arm64 build's) gives up on that.
        let optionalDescriptors = [touch?.descriptor, clockSteps?.descriptor, cec?.descriptor, sessions?.descriptor]
        poller = Poller(descriptors: [signals.descriptor, control.commands.descriptor] + outputDescriptors + optionalDescriptors.compactMap { $0 })
        if let touch {
            touchGeneration = touch.generation
            core.send(.inputDevices(touch.devices.map(\.description)), at: startTime)
        }
        if !vtActive {
            logger.info("vt: /dev/tty\(terminal!.number) is not in front; waiting to be switched to")
            output.suspend()
        }
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
        core.send(input, at: time)
        while let effect = core.nextEffect() { perform(effect) }
    }

    private func perform(_ effect: DaemonEffect) {
        switch effect {
        case .draw(let plan):
            let start = MonotonicClock.now()
            plan.render(into: output.drawBuffer())
            let drawn = MonotonicClock.now()
            core.send(.drawn(seconds: drawn - start), at: drawn)
            if let presentation = output.present() { presented(presentation) }
        case .setBacklight(let percent):
            do {
                try backlight?.set(percent: percent)
            } catch {
                logger.warning("\(error)")
            }
        case .haptic(.tick):
            haptics?.tick()
        case .haptic(.beat):
            haptics?.beat()
        case .suspendOutput:
            output.suspend()
            touch?.setAway(true) { core.send(.touch($0), at: Self.touchTime($0)) }
            touchDevicesChanged()
        case .displayPower(let on):
            setDisplayPower(on: on)
        case .resumeOutput:
            output.resume()
            touch?.setAway(false) { core.send(.touch($0), at: Self.touchTime($0)) }
            touchDevicesChanged()
        case .publish(let notify):
            let status = core.status()
            control.publish(status)
            if notify { notifier?.send(.status(status.line)) }
            writeStatsFile(status)
        case .event(let event):
            if case .configReloaded = event { sessions?.update(configuration.config.sessions) }
            control.emit(event)
        case .reply(let answer):
            answer()
        case .notify(let message):
            notifier?.send(message)
        case .writeMetrics(let directory):
            metrics.write(core.status(), into: directory)
        case .recordSession(let record):
            if let sessions {
                sessions.record(record)
            } else {
                core.send(.sessionRecorded(record, error: "sessions are not recorded ([sessions] file is empty)"), at: MonotonicClock.now())
            }
        }
    }

    /// A frame is on screen: the core hears it, and the control thread's
    /// copy of the frames follows at once (a few atomic stores), so
    /// `status` and `health` never wait for the next publication.
    private func presented(_ presentation: Presentation) {
        core.send(.presented(presentation), at: MonotonicClock.now())
        control.frames.store(core.frameProgress)
    }

    private func displayChanged(at now: Double) {
        let facts = DisplayFacts(output)
        guard facts != displayFacts else { return }
        let resized = (facts.width, facts.height) != (displayFacts.width, displayFacts.height)
        displayFacts = facts
        if resized { touch?.setDisplay(panelWidth: output.width, panelHeight: output.height, rotation: touchRotation) }
        send(.display(facts), at: now)
    }

    // MARK: readable descriptors

    /// Which signals the daemon reads: stop, reload, and the VT's
    /// release/acquire pair.
    static let signalsHandled: [Int32] = [SIGTERM, SIGINT, SIGHUP, releaseSignal, acquireSignal]
    static let releaseSignal = SIGUSR1
    static let acquireSignal = SIGUSR2

    private func handleReadable() {
        if poller.isReadable(0) { signals.drain(handleSignal) }
        if poller.isReadable(1) { for command in control.takeCommands() { handle(command) } }
        for (index, descriptor) in outputDescriptors.enumerated() where poller.isReadable(2 + index) {
            if let presentation = output.handleReadable(descriptor: descriptor, now: MonotonicClock.now()) {
                presented(presentation)
                while let effect = core.nextEffect() { perform(effect) }
            }
        }
        if let touch, poller.isReadable(touchIndex) {
            touch.handleReadable { send(.touch($0), at: Self.touchTime($0)) }
            touchDevicesChanged()
        }
        if let clockSteps, poller.isReadable(clockStepsIndex), clockSteps.acknowledge() {
            // The zone may have changed with the clock (timedatectl).
            SystemTimeZone.reload()
            watchWallClock(at: MonotonicClock.now())
        }
        if let cec, poller.isReadable(cecIndex) {
            for report in cec.takeReports() { send(.displayPowerChecked(report), at: MonotonicClock.now()) }
        }
        if let sessions, poller.isReadable(sessionsIndex) { takeSessionOutcomes(sessions) }
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

    /// Each part of the display chain powered down or up, and read back
    /// (the TV's answer comes later, through `cec`'s descriptor).
    private func setDisplayPower(on: Bool) {
        cec?.request(on: on)
        let now = MonotonicClock.now()
        core.send(.displayPowerChecked(output.setPower(on: on)), at: now)
        if let backlight { core.send(.displayPowerChecked(backlight.setPower(on: on)), at: now) }
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
        guard let touch, touch.generation != touchGeneration else { return }
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

    func writeStatsFile(_ status: DaemonStatus) {
        guard let path = configuration.statsFile else { return }
        do throws(SystemError) {
            try FileSystem.replace(path, with: status.keyValues, temporary: path + ".tmp")   // readers never see half a file
        } catch {
            logger.warning("stats file \(path): \(error)")
        }
    }

    /// The status as the loop stops (the statistics file's last word).
    /// At exit: the records queued (an exercise the stop interrupted) are
    /// written, waiting up to 2 s for the disk.
    func finishSessionRecords() {
        guard let sessions else { return }
        sessions.close(timeout: 2)
        takeSessionOutcomes(sessions)
    }

    func publishFinalStatus(at now: Double) {
        let status = core.status(at: now)
        control.publish(status)
        writeStatsFile(status)
    }

    /// The display powered up and the brightness the user asked for put
    /// back (at exit: the console must not stay dark).
    func restoreDisplay() {
        if core.displayPoweredDown {
            _ = output.setPower(on: true)
            _ = backlight?.setPower(on: true)
        }
        guard let backlight, let percent = core.brightnessToRestore else { return }
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

extension Backlight: BacklightPort {}
