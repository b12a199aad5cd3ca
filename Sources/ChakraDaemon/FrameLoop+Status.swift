import ChakraDisplay
import FoundationEssentials
import Glibc

/// Frame rate, STATUS=, the watchdog and the statistics file.
extension FrameLoop {
    /// Not presenting on purpose: a still frame is up, the VT is away, or
    /// the display is unplugged. The watchdog is fed by the loop's timer
    /// then; otherwise only by presented frames, so a wedged display stops
    /// the pings and systemd restarts the daemon.
    var idleByDesign: Bool {
        !vtActive || (firstFrameShown && !animating) || output.isWaitingForDisplay
    }

    func feedWatchdog(now: Double) {
        guard let interval = notifier?.watchdogInterval, now >= nextWatchdog else { return }
        notifier?.send(.watchdog)
        nextWatchdog = now + interval
    }

    /// Runs every loop turn: the fps period, the idle watchdog.
    func periodic(now: Double) {
        updatePower(now: now)
        if idleByDesign { feedWatchdog(now: now) }
        guard firstFrameShown, now >= nextStatus else { return }
        nextStatus = now + meter.period
        if meter.update(now: now) {
            adaptThreads()
            publishStatus(now: now)
        }
    }

    func status(now: Double) -> DaemonStatus {
        var status = DaemonStatus()
        status.scene = sceneName
        status.output = output.summary
        (status.width, status.height) = (output.width, output.height)
        status.settings = configuration.settings
        status.paused = clock.isFrozen
        status.still = scene.isStill
        status.vtActive = vtActive
        status.framesPresented = meter.totalFrames
        status.fps = meter.rate
        status.spiral = spiralReport(now: now, withPath: false)
        status.inputDevices = touch?.devices.map(\.description) ?? []
        status.touchLatency = touchLatencies.summary
        status.uptime = now - startTime
        status.publishedAt = now
        status.refreshRate = output.refreshInterval.map { 1 / $0 }
        status.rotation = configuration.rotation.rawValue
        status.fpsTarget = 1 / pacer.frameInterval
        status.frameTimes = frameTimes.summary
        status.language = configuration.config.text.language
        status.brightness = brightness
        status.backlight = backlight?.name
        status.power = power
        status.configFile = configuration.source.path
        status.configuration = configuration.current
        return status
    }

    /// Every couple of seconds at most (never per frame): STATUS=, the
    /// shared status, the statistics file.
    func publishStatus(now: Double, notify: Bool = true) {
        let current = status(now: now)
        control.publish(current)
        if notify { notifier?.send(.status(current.line)) }
        writeStatsFile(current)
    }

    func writeStatsFile(_ status: DaemonStatus) {
        guard let path = configuration.statsFile else { return }
        do {
            try status.keyValues.write(toFile: path + ".tmp", atomically: false, encoding: .utf8)
            _ = rename(path + ".tmp", path)   // readers never see half a file
        } catch {
            logger.warning("stats file \(path): \(error)")
        }
    }

    /// Something happened; subscribers hear of it at the end of this turn.
    func emit(_ event: DaemonEvent) {
        pendingEvents.append(event)
    }

    /// Publishes the status, then the events of this turn.
    func flushEvents() {
        guard !pendingEvents.isEmpty else { return }
        publishStatus(now: MonotonicClock.now(), notify: false)
        for event in pendingEvents { control.emit(event) }
        pendingEvents.removeAll(keepingCapacity: true)
    }
}
