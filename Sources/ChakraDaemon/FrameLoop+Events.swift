import ChakraConfig
import ChakraDisplay
import ChakraPNG
import ChakraRaster
import ChakraScenes
import ChakraSpiral
import Glibc

/// Signals, commands and output events, handled between frames.
extension FrameLoop {
    /// Which signals the daemon reads: stop, reload, and the VT's
    /// release/acquire pair.
    static let signalsHandled: [Int32] = [SIGTERM, SIGINT, SIGHUP, releaseSignal, acquireSignal]
    static let releaseSignal = SIGUSR1
    static let acquireSignal = SIGUSR2

    func handleReadable() {
        if poller.isReadable(0) { signals.drain(handleSignal) }
        if poller.isReadable(1) { for command in control.takeCommands() { handle(command) } }
        for (index, descriptor) in outputDescriptors.enumerated() where poller.isReadable(2 + index) {
            if let presentation = output.handleReadable(descriptor: descriptor, now: MonotonicClock.now()) {
                presented(presentation)
            }
        }
        if let touch, poller.isReadable(touchIndex) { touch.handleReadable(handleTouch) }
    }

    func handleSignal(_ signal: Int32) {
        switch signal {
        case SIGTERM, SIGINT:
            logger.info("\(signal == SIGTERM ? "SIGTERM" : "SIGINT"): stopping")
            running = false
        case SIGHUP:
            reloadFromSignal()
        case Self.releaseSignal where terminal != nil:
            // Let go of the screen and the touchscreens first (the program
            // in front gets the touches; a finger on the spiral counts as
            // lifted), then let the switch happen.
            output.suspend()
            touch?.setAway(true, handleTouch)
            vtActive = false
            terminal!.allowRelease()
            logger.info("vt: switched away; drawing stopped")
            publishStatus(now: MonotonicClock.now())
            displayChanged("vt_away")
        case Self.acquireSignal where terminal != nil:
            terminal!.acknowledgeAcquire()
            output.resume()
            touch?.setAway(false, handleTouch)
            vtActive = true
            redraw = true
            pacer.reset()
            logger.info("vt: back in front; redrawing")
            publishStatus(now: MonotonicClock.now())
            displayChanged("vt_back")
        default:
            logger.debug("signal \(signal) ignored")
        }
    }

    /// Applies `command`, publishes the new status, then answers: a reply
    /// never shows a status older than the change it reports.
    func handle(_ command: DaemonCommand) {
        let now = MonotonicClock.now()
        var answer: (() -> Void)?
        switch command {
        case .switchScene(let name, let transition, let reply):
            noteActivity(now: now)
            let result = switchScene(to: name, transition: transition, now: now)
            answer = { reply(result) }
        case .pause:
            setPaused(true, now: now)
        case .resume:
            setPaused(false, now: now)
        case .playback(let paused, let reply):
            noteActivity(now: now)
            setPaused(paused, now: now)
            answer = { reply(.success(())) }
        case .setSettings(let settings):
            apply(settings)
        case .change(let change, let reply):
            noteActivity(now: now)
            let result = apply(change)
            answer = { reply(result) }
        case .snapshot(let reply):
            reply(frameOnScreen().map(Self.rgb(of:)))
        case .snapshotFrame(let reply):
            reply(frameOnScreen().map { FrameSnapshot(frame: Self.copy(of: $0), rotation: configuration.rotation) })
        case .applyConfiguration(let loaded, let reply):
            noteActivity(now: now)
            let result = reload(loaded)
            answer = { reply(result) }
        case .activity(let reply):
            noteActivity(now: now)
            let state = power
            answer = { reply?(.success(state)) }
        case .touch(let event):
            handleTouch(event)
        case .spiral(let command, let reply):
            noteActivity(now: now)
            let result = spiral(command, now: now)
            answer = { reply(result) }
        case .stop:
            running = false
        }
        publishStatus(now: now)
        answer?()
    }

    func switchScene(to name: String, transition: SceneTransition, now: Double) -> Result<Void, DaemonCommandError> {
        guard DaemonScenes.names.contains(name) else { return .failure(.unknownScene(name)) }
        let previous = sceneName
        defer {
            // Chosen by hand, or gone back: the spiral no longer goes back by itself.
            if name != SpiralScene.name { (spiralReturnScene, parkedScene) = (nil, nil) }
        }
        let incoming: Scene
        if let parked = parkedScene, name == spiralReturnScene, scene is SpiralScene {
            incoming = parked
        } else {
            do {
                incoming = try Self.makeScene(name, for: output, configuration: configuration, logger: logger)
                incoming.renderThreads = renderThreads
            } catch {
                logger.error("scene: cannot show \(name): \(error)")
                return .failure(error as? DaemonCommandError ?? .notSupported("cannot show \(name): \(error)"))
            }
        }
        // A crossfade needs a picture on screen to fade from.
        if transition.kind == .crossfade, firstFrameShown, vtActive, power != .blanked {
            crossfade(to: incoming, named: name, transition: transition, now: now)
            logger.info("scene: crossfade from \(previous) to \(name)")
        } else {
            cancelCrossfade()
            scene = incoming
            sceneName = name
            clock = newSceneClock(now: now)
            logger.info("scene: cut to \(name) at \(scene.width)x\(scene.height)")
        }
        redraw = true
        pacer.reset()
        emit(.sceneChanged(scene: name, previous: previous, transition: transition))
        return .success(())
    }

    private func setPaused(_ paused: Bool, now: Double) {
        guard paused != clock.isFrozen else { return }
        if paused {
            clock.pause(at: now)
            redraw = true   // show exactly the frozen time
        } else {
            clock.resume(at: now)
            pacer.reset()
        }
        emit(.playbackChanged(paused: paused))
    }

    /// Reduce motion / low power: the scene is rebuilt for them, the pacer
    /// takes the low-power cap, and the idle timers start or stop.
    func apply(_ settings: RenderSettings) {
        guard settings != configuration.settings else { return }
        configuration.settings = settings
        rebuildScene(reason: "settings changed")
        updatePower(now: MonotonicClock.now())
        settingsChanged()
    }

    private func apply(_ change: SettingChange) -> Result<Void, DaemonCommandError> {
        var settings = configuration.settings
        switch change {
        case .reduceMotion(let on): settings.reduceMotion = on
        case .lowPower(let on): settings.lowPower = on
        case .language(let code):
            guard code != configuration.config.text.language else { return .success(()) }
            configuration.config.text.language = code
            logger.info("language: \(code)")
            settingsChanged()
            return .success(())
        case .brightness(let percent):
            guard let backlight else {
                return .failure(.notSupported("no backlight to set (none under /sys/class/backlight, or [display] backlight = \"none\")"))
            }
            do {
                try backlight.set(percent: percent)
            } catch {
                return .failure(.notSupported("\(error)"))
            }
            brightness = percent
            logger.info("backlight: \(backlight.name) at \(percent)%")
            settingsChanged()
            return .success(())
        }
        apply(settings)
        return .success(())
    }

    func settingsChanged() {
        emit(.settingsChanged(configuration.settings, language: configuration.config.text.language, brightness: brightness))
    }

    func displayChanged(_ reason: String) {
        emit(.displayChanged(reason: reason, output: output.summary, width: output.width, height: output.height))
    }

    // MARK: reload

    /// SIGHUP: the file read again here (a few hundred bytes; the socket's
    /// `reload` reads it on the server's thread instead).
    private func reloadFromSignal() {
        let file = configuration.source.path ?? "(no file)"
        do {
            let loaded = try configuration.source.load()
            for warning in loaded.warnings { logger.warning("config: \(warning)") }
            if case .failure(let error) = reload(loaded) { logger.error("SIGHUP: \(file): kept the old settings: \(error)") }
        } catch {
            logger.error("SIGHUP: kept the old settings; the configuration has errors:\n\(error)")
        }
    }

    /// A valid file: applies what can change at run time.
    func reload(_ loaded: LoadedConfig) -> Result<ReloadReport, DaemonCommandError> {
        do {
            try ConfigSource.check(loaded)
        } catch {
            return .failure(.configInvalid(error.description))
        }
        let before = configuration
        var report = configuration.reload(loaded.config)
        report.warnings = loaded.warnings.map(\.description)
        if configuration.settings != before.settings || configuration.rotation != before.rotation || configuration.threads != before.threads {
            rebuildScene(reason: "configuration reloaded")
        } else if configuration.effectiveFPSCap != before.effectiveFPSCap {
            pacer = Self.makePacer(output: output, configuration: configuration)
        }
        if configuration.settings != before.settings || configuration.config.text.language != before.config.text.language { settingsChanged() }
        updatePower(now: MonotonicClock.now())
        var summary = report.changed.isEmpty ? "nothing changed" : "changed " + report.changed.joined(separator: ", ")
        if !report.restartNeeded.isEmpty { summary += "; needs a restart: " + report.restartNeeded.joined(separator: ", ") }
        if !report.ignored.isEmpty { summary += "; set on the command line: " + report.ignored.joined(separator: ", ") }
        logger.notice("configuration reloaded from \(loaded.file ?? "defaults"): \(summary)")
        emit(.configReloaded(file: loaded.file, report: report, control: configuration.config.control))
        return .success(report)
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

    /// Black in any format (opaque where there is alpha).
    static func clear(_ buffer: PixelBuffer) {
        let rowBytes = buffer.width * buffer.format.bytesPerPixel
        for y in 0..<buffer.height {
            let row = buffer.base + y * buffer.stride
            memset(row, 0, rowBytes)
            if buffer.format == .argb8888 {
                for x in 0..<buffer.width { row.storeBytes(of: 0xFF, toByteOffset: x * 4 + 3, as: UInt8.self) }
            }
        }
    }
}
