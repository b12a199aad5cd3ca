import ChakraDisplay

/// The status, the watchdog and the number of render threads.
extension DaemonCore {
    /// Not presenting on purpose: a still frame is up, the VT is away, the
    /// display is unplugged or powered down. The watchdog is fed by the timer then;
    /// otherwise only by presented frames, so a wedged display stops the
    /// pings and systemd restarts the daemon.
    var idleByDesign: Bool {
        !vtActive || (firstFrameShown && !animating) || display.waitingForDisplay || screen.power == .off
    }

    func feedWatchdog() {
        guard let interval = watchdogInterval, now >= nextWatchdog else { return }
        perform(.notify(.watchdog))
        nextWatchdog = now + interval
    }

    /// Every turn: the idle watchdog, the metrics file, the fps period.
    func periodic() {
        if idleByDesign { feedWatchdog() }
        writeMetricsIfDue()
        guard firstFrameShown, now >= nextStatus else { return }
        nextStatus = now + meter.period
        if meter.update(now: now) {
            adaptThreads()
            publishStatus()
        }
    }

    /// The metrics file, every `[metrics] interval` seconds while a
    /// directory is set. A late turn does not bunch writes up: the next
    /// one is an interval after this one.
    private func writeMetricsIfDue() {
        let metrics = configuration.config.metrics
        guard let directory = metrics.textfileDirectory, now >= nextMetrics else { return }
        perform(.writeMetrics(directory: directory))
        nextMetrics = now + metrics.interval
    }

    /// The status at `time` (as the loop stops: no input moves the time).
    public func status(at time: Double) -> DaemonStatus {
        now = max(now, time)
        return status()
    }

    public func status() -> DaemonStatus {
        var status = DaemonStatus()
        status.scene = sceneName
        status.output = display.summary
        (status.width, status.height) = (display.width, display.height)
        status.settings = configuration.settings
        status.paused = clock.isFrozen
        status.still = scene.isStill
        status.vtActive = vtActive
        status.frames = frameProgress
        status.framesDueSince = framesDueSince
        status.waitingForDisplay = display.waitingForDisplay
        status.fps = meter.rate
        status.spiral = spiralReport(withPath: false)
        status.inputDevices = inputDevices
        status.touchLatency = touchLatencies.summary
        status.uptime = now - startTime
        status.publishedAt = now
        status.refreshRate = display.refreshInterval.map { 1 / $0 }
        status.rotation = configuration.rotation.rawValue
        status.fpsTarget = 1 / pacer.frameInterval
        status.frameTimes = frameTimes.summary
        status.language = configuration.config.text.language
        status.brightness = brightness
        status.backlight = backlight?.name
        status.power = power
        status.display = displayStatus
        status.schedule = scheduleStatus
        status.configFile = configuration.source.path
        status.configFiles = configuration.configFiles
        status.configuration = configuration.config
        status.sessions = sessions
        status.errors = errors
        return status
    }

    /// Every couple of seconds at most (never per frame), and on changes:
    /// the shared status; with `notify`, STATUS= and the statistics file.
    func publishStatus(notify: Bool = true) {
        perform(.publish(notify: notify))
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

    /// Every status period (a couple of seconds): follow the drawing times.
    private func adaptThreads() {
        guard configuration.adaptiveThreads, animating else { return }
        let summary = frameTimes.summary
        guard summary.samples >= 30 else { return }
        let chosen = Self.threadsFor(median: summary.median / 1000, threads: renderThreads,
                                     interval: pacer.frameInterval, maximum: configuration.threads)
        guard chosen != renderThreads else { return }
        logger.info("render: \(chosen) thread(s) (frames took \(summary.median) ms median with \(renderThreads))")
        renderThreads = chosen
        scene.renderThreads = chosen
        frameTimes = FrameTimes()
    }
}
