/// How many threads draw a frame, when the configuration leaves it open:
/// as few as keep drawing well inside the frame interval. One thread costs
/// the least CPU per frame (no hand-over, no second core woken); more are
/// used only when one would take over half the interval, and given back
/// when one would take under a third of it.
extension FrameLoop {
    static let busyShare = 0.5, idleShare = 1.0 / 3

    /// The thread count for drawing times of `median` seconds with
    /// `threads` threads at a frame interval of `interval` seconds.
    static func threadsFor(median: Double, threads: Int, interval: Double, maximum: Int) -> Int {
        guard median > 0, interval > 0 else { return threads }
        if median > busyShare * interval, threads < maximum { return threads + 1 }
        // What one thread fewer would take, at best (perfect scaling).
        if threads > 1, median * Double(threads) / Double(threads - 1) < idleShare * interval { return threads - 1 }
        return threads
    }

    /// Every status period (a couple of seconds): follow the drawing times.
    func adaptThreads() {
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
