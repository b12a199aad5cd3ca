import ChakraConfig
import ChakraRaster
import ChakraSpiral

/// The spiral exercise in the loop: commands, the session's clock and
/// events, and the way back to the ambient scene it was started from.
/// Session times are scene times (the clock `render` gets), so a paused
/// scene pauses the exercise too.
extension FrameLoop {
    var spiralScene: SpiralScene? { scene as? SpiralScene }

    func spiral(_ command: SpiralCommand, now: Double) -> Result<SpiralReport, DaemonCommandError> {
        switch command {
        case .start:
            if spiralScene == nil {
                let from = sceneName
                let kept = scene
                let defaults = configuration.config.scene
                if case .failure(let error) = switchScene(to: SpiralScene.name, transition: SceneTransition(kind: defaults.transition, duration: defaults.transitionDuration), now: now) {
                    return .failure(error)
                }
                spiralReturnScene = from
                parkedScene = kept
            }
            guard let session = spiralScene?.session else { return .failure(.notSupported("the spiral could not be shown")) }
            // Started from an ambient scene: the end goes back there, not to Idle.
            session.returnsToIdle = spiralReturnScene == nil
            session.start(time: clock.time(at: now))
        case .cancel:
            guard let session = spiralScene?.session else { return .failure(.notSupported("the spiral exercise is not on screen")) }
            session.cancel(time: clock.time(at: now))
            pumpSpiral(now: now)
            let report = spiralReport(now: now, withPath: false)!
            returnFromSpiral(now: now, because: "cancelled")
            redraw = true
            return .success(report)
        case .path:
            guard spiralScene != nil else { return .failure(.notSupported("the spiral exercise is not on screen")) }
        }
        redraw = true
        return spiralReport(now: now, withPath: command == .path).map { .success($0) } ?? .failure(.notSupported("the spiral exercise is not on screen"))
    }

    func spiralReport(now: Double, withPath: Bool) -> SpiralReport? {
        guard let session = spiralScene?.session else { return nil }
        let t = clock.time(at: now)
        let head = session.headPosition
        return SpiralReport(state: session.state.rawValue, progress: session.progress,
                            holdRemaining: max(0, session.holdRemaining(at: t)),
                            headX: head.x, headY: head.y, touching: session.isTouching, needsResume: session.needsResume,
                            points: withPath ? session.pathPoints.map { [$0.x, $0.y] } : nil)
    }

    /// Every loop turn: the session catches up with scene time; its state
    /// changes and (throttled) progress go to subscribers; haptic cues are
    /// played; a finished celebration leads back to the ambient scene.
    func pumpSpiral(now: Double) {
        guard let session = spiralScene?.session else { return }
        session.advance(to: clock.time(at: now))
        for event in session.takeEvents() {
            switch event {
            case .stateChanged(let from, let to, _):
                logger.info("spiral: \(from.rawValue) → \(to.rawValue)")
                emit(.spiralState(from: from.rawValue, to: to.rawValue))
                redraw = true
            case .haptic(let cue, _):
                playHaptic(cue)
            case .celebrationEnded:
                returnFromSpiral(now: now, because: "completed")
            }
        }
        if let report = spiralReport(now: now, withPath: false),
           abs(report.progress - lastSpiralProgressEvent.progress) >= 0.001, now - lastSpiralProgressEvent.time >= 0.2 {
            lastSpiralProgressEvent = (now, report.progress)
            emit(.spiralProgress(report))
        }
    }

    /// Back to the ambient scene `spiral start` came from, if any.
    func returnFromSpiral(now: Double, because reason: String) {
        guard let back = spiralReturnScene, spiralScene != nil else { return }
        logger.info("spiral: \(reason); back to \(back)")
        let defaults = configuration.config.scene
        _ = switchScene(to: back, transition: SceneTransition(kind: defaults.transition, duration: defaults.transitionDuration), now: now)
    }

    /// When the session next changes by itself, in monotonic time.
    func spiralDeadline(now: Double) -> Double? {
        guard let deadline = spiralScene?.session.nextDeadline, !clock.isFrozen else { return nil }
        return now + max(0, deadline - clock.time(at: now))
    }

    func playHaptic(_ cue: HapticCue) {
        switch cue {
        case .tick: haptics?.tick()
        case .beat: haptics?.beat()
        }
    }
}
