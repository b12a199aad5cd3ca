import ChakraConfig
import ChakraControl
import ChakraInput
import ChakraRaster
import ChakraScenes
import ChakraSpiral

/// Touches and interactive scenes (the spiral exercise): any touch is
/// activity (a dimmed or blank screen comes back); an interactive scene
/// follows one finger, the first down, and changes by itself between
/// frames. Its times are scene times (the clock `render` gets), so a
/// paused scene pauses the exercise too.
extension DaemonCore {
    /// The spiral, for the commands only it answers (start, cancel, path).
    var spiralScene: SpiralScene? { scene as? SpiralScene }

    // MARK: touches

    func handleTouch(_ event: TouchContactEvent) {
        trackContact(event)
        if consumesTouch(event) { return }
        switch event.phase {
        case .down:
            logger.debug("touch: contact \(event.id) down at \(event.x), \(event.y)")
            noteActivity()
        case .move:
            // A finger tracing is someone there: the idle timers must not
            // dim the light under it.
            noteActivity()
        case .up, .cancel:
            break
        }
        guard let interactive = interactiveScene else { return }
        if event.phase == .down, followedContact == nil { followedContact = event.id }
        guard event.id == followedContact else { return }
        // At the core's time: the touch's own (the shell hands it in at
        // its kernel time), unless something later was handled already. A
        // lift read late then cannot undo touched time the status showed.
        let t = clock.time(at: now)
        let point = Point(event.x, event.y)
        switch event.phase {
        case .down: interactive.touchDown(at: point, time: t)
        case .move: interactive.touchMoved(to: point, time: t)
        case .up, .cancel:
            interactive.touchUp(time: t)
            followedContact = nil
        }
        if unshownTouchTime == nil { unshownTouchTime = now }
        redraw = true
        // Its state changes go out now, not at the next turn: a session
        // begun by this touch is counted even if chakrad stops before then.
        pumpInteractiveScene()
    }

    /// A frame is being drawn: it shows the touches applied so far.
    func touchesDrawn() {
        if unshownTouchTime != nil { (drawnTouchTime, unshownTouchTime) = (unshownTouchTime, nil) }
    }

    /// That frame is on screen at `time`: its touches took this long.
    func touchesShown(at time: Double) {
        guard let touched = drawnTouchTime else { return }
        touchLatencies.record((time - touched) * 1000)
        drawnTouchTime = nil
    }

    // MARK: the scene's own changes

    /// Every turn: the scene catches up with scene time; its state changes
    /// and (throttled) progress go to subscribers; haptic cues are played;
    /// a finished exercise leads back to the ambient scene.
    func pumpInteractiveScene() {
        guard let interactive = interactiveScene else { return }
        interactive.advance(to: clock.time(at: now))
        for event in interactive.takeEvents() {
            switch event {
            case .stateChanged(let from, let to):
                logger.info("spiral: \(from) → \(to)")
                if from == SpiralState.idle.rawValue, to == SpiralState.inhale.rawValue { sessionStarted() }
                emit(.spiralState(from: from, to: to))
                redraw = true
            case .haptic(let cue):
                perform(.haptic(cue))
            case .finished:
                returnFromSpiral(because: "completed")
            }
        }
        if let session = spiralScene?.session { collectExercises(of: session) }
        // The exercise that kept the screen on has ended: the schedule (or
        // the idle blank) has its way now, not at the next turn.
        if screen.reason == .exercise, !exerciseInProgress { updatePower() }
        if let report = spiralReport(withPath: false),
           abs(report.progress - lastSpiralProgressEvent.progress) >= 0.001, now - lastSpiralProgressEvent.time >= 0.2 {
            lastSpiralProgressEvent = (now, report.progress)
            emit(.spiralProgress(report))
        }
    }

    // MARK: exercises

    /// The spiral is no longer the scene (another was switched to, or it
    /// was rebuilt for new settings): an exercise under way ends there.
    func spiralSceneLeft(_ left: SpiralScene) {
        let session = left.session
        if session.isExerciseRunning { session.finishExercise(time: clock.time(at: now)) }
        collectExercises(of: session)
    }

    /// The exercises that ended since the last look: each becomes a
    /// session record (DaemonCore+Sessions).
    func collectExercises(of session: SpiralSession) {
        while let summary = session.takeFinishedExercise() { finishSession(summary) }
    }

    /// When the scene next changes by itself, in monotonic time.
    func interactiveDeadline() -> Double? {
        guard let deadline = interactiveScene?.nextDeadline, !clock.isFrozen else { return nil }
        return now + max(0, deadline - clock.time(at: now))
    }

    // MARK: the spiral's commands

    func spiral(_ command: SpiralAction, pattern name: String? = nil) -> Result<SpiralReport, DaemonCommandError> {
        switch command {
        case .start:
            // Checked before anything changes: a refused start leaves the scene as it was.
            var pattern: BreathingPattern?
            if let name {
                switch configuration.config.spiral.pattern(named: name) {
                case .success(let found): pattern = found
                case .failure(let error): return .failure(.unknownPattern(error))
                }
            }
            if spiralScene == nil {
                let from = sceneName
                let kept = scene
                if case .failure(let error) = switchScene(to: SpiralScene.name, transition: defaultTransition) {
                    return .failure(error)
                }
                spiralReturnScene = from
                parkedScene = kept
            }
            guard let session = spiralScene?.session else { return .failure(.notSupported("the spiral could not be shown")) }
            // Started from an ambient scene: the end goes back there, not to Idle.
            session.returnsToIdle = spiralReturnScene == nil
            session.start(time: clock.time(at: now), pattern: pattern)
            // An exercise the start cut short is recorded now, not at the next turn.
            collectExercises(of: session)
        case .cancel:
            guard let session = spiralScene?.session else { return .failure(.notSupported("the spiral exercise is not on screen")) }
            session.cancel(time: clock.time(at: now))
            pumpInteractiveScene()
            let report = spiralReport(withPath: false)!
            returnFromSpiral(because: "cancelled")
            if screen.reason == .exercise { updatePower() }
            redraw = true
            return .success(report)
        case .path:
            guard spiralScene != nil else { return .failure(.notSupported("the spiral exercise is not on screen")) }
        }
        redraw = true
        return spiralReport(withPath: command == .path).map { .success($0) } ?? .failure(.notSupported("the spiral exercise is not on screen"))
    }

    func spiralReport(withPath: Bool) -> SpiralReport? {
        guard let session = spiralScene?.session else { return nil }
        let t = clock.time(at: now)
        let head = session.headPosition
        let phase = session.state == .hold ? session.holdPhase(elapsed: session.holdElapsed(at: t)).kind.rawValue : nil
        return SpiralReport(state: session.state.rawValue, progress: session.progress,
                            holdRemaining: max(0, session.holdRemaining(at: t)),
                            headX: head.x, headY: head.y, touching: session.isTouching, needsResume: session.needsResume,
                            pattern: session.pattern.name, phase: phase,
                            points: withPath ? session.pathPoints.map { [$0.x, $0.y] } : nil)
    }

    /// The transition [scene] asks for by default.
    var defaultTransition: SceneTransition {
        let defaults = configuration.config.scene
        return SceneTransition(kind: defaults.transition, duration: defaults.transitionDuration)
    }

    /// Back to the ambient scene `spiral start` came from, if any.
    func returnFromSpiral(because reason: String) {
        guard let back = spiralReturnScene, spiralScene != nil else { return }
        logger.info("spiral: \(reason); back to \(back)")
        _ = switchScene(to: back, transition: defaultTransition)
    }
}
