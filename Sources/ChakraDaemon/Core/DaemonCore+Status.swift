import ChakraDisplay

/// The status, the watchdog, the metrics file and the number of render
/// threads: the periodic work of every turn.
extension DaemonCore {
    /// Not presenting on purpose: a still frame is up, the VT is away, the
    /// display is unplugged or powered down. The watchdog is fed by the timer then;
    /// otherwise only by presented frames, so a wedged display stops the
    /// pings and systemd restarts the daemon.
    var idleByDesign: Bool {
        !vtActive || (pacing.firstFrameShown && !animating) || display.waitingForDisplay || screen.screen.power == .off
    }

    func feedWatchdog() {
        if pacing.watchdogDue(now: now) { perform(.notify(.watchdog)) }
    }

    /// Every turn: the idle watchdog, the metrics file, the fps period.
    func periodic() {
        if idleByDesign { feedWatchdog() }
        // The metrics file, every `[metrics] interval` seconds while a
        // directory is set.
        let metrics = configuration.config.metrics
        if let directory = metrics.textfileDirectory, pacing.metricsDue(now: now, interval: metrics.interval) {
            perform(.writeMetrics(directory: directory))
        }
        if pacing.statusDue(now: now) {
            adaptThreads()
            publishStatus()
        }
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
        status.paused = scenes.clock.isFrozen
        status.still = scene.isStill
        status.vtActive = vtActive
        status.frames = pacing.progress
        status.framesDueSince = pacing.framesDueSince
        status.waitingForDisplay = display.waitingForDisplay
        status.fps = pacing.meter.rate
        status.spiral = exerciseReport(withPath: false)
        status.inputDevices = exercise.inputDevices
        status.touchLatency = exercise.touchLatencies.summary
        status.uptime = now - startTime
        status.start = start
        status.publishedAt = now
        status.refreshRate = display.refreshInterval.map { 1 / $0 }
        status.rotation = configuration.rotation.rawValue
        status.fpsTarget = 1 / pacing.pacer.frameInterval
        status.frameTimes = pacing.frameTimes.summary
        status.language = configuration.config.text.language
        status.brightness = screen.brightness
        status.backlight = screen.backlight?.name
        status.power = screen.idle
        status.display = displayStatus
        status.schedule = hours.status
        status.configFile = configuration.source.path
        status.configFiles = configuration.configFiles
        status.configuration = configuration.config
        status.sessions = tallies.sessions
        status.errors = tallies.errors
        return status
    }

    /// Every couple of seconds at most (never per frame), and on changes:
    /// the shared status; with `notify`, STATUS= and the statistics file.
    func publishStatus(notify: Bool = true) {
        perform(.publish(notify: notify))
    }

    /// See `Pacing.threadsFor`.
    static func threadsFor(median: Double, threads: Int, interval: Double, maximum: Int) -> Int {
        Pacing.threadsFor(median: median, threads: threads, interval: interval, maximum: maximum)
    }

    /// Every status period (a couple of seconds): follow the drawing times.
    private func adaptThreads() {
        guard configuration.adaptiveThreads, animating,
              let chosen = pacing.threadsWanted(now: scenes.renderThreads, maximum: configuration.threads) else { return }
        scenes.useThreads(chosen)
    }
}
