import ChakraDisplay
import Foundation

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
        if idleByDesign { feedWatchdog(now: now) }
        guard firstFrameShown, now >= nextStatus else { return }
        nextStatus = now + meter.period
        if meter.update(now: now) { publishStatus(now: now) }
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
        status.uptime = now - startTime
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
}
