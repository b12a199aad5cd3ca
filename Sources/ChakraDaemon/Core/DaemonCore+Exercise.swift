import ChakraConfig
import ChakraControl
import ChakraScenes

/// The exercise as the rest of the daemon sees it: started from an ambient
/// scene and back there when it ends; its sessions recorded; the screen
/// kept on while it is under way. The scene is reached through
/// `ExerciseScene` only; `ExerciseTracker` follows the touches and events.
extension DaemonCore {
    /// Every turn: the scene catches up with scene time; its state changes
    /// and (throttled) progress go to subscribers; haptic cues are played;
    /// a finished exercise leads back to the ambient scene.
    func pumpInteractiveScene() {
        guard let interactive = scenes.interactive else { return }
        if exercise.pump(interactive, sceneTime: scenes.time(at: now)) { returnFromExercise(because: "completed") }
        if let running = scenes.exercise { collectExercises(of: running) }
        // The exercise that kept the screen on has ended: the schedule (or
        // the idle blank) has its way now, not at the next turn.
        if screen.screen.reason == .exercise, !exerciseInProgress { updatePower() }
        if let report = exerciseReport(withPath: false), exercise.progressDue(report, now: now) {
            emit(.spiralProgress(report))
        }
    }

    /// The exercises that ended since the last look: each becomes a
    /// session record.
    func collectExercises(of scene: ExerciseScene) {
        exercise.collect(scene, now: now, sceneNow: scenes.time(at: now), wallOffset: hours.wallOffset)
    }

    /// When the scene next changes by itself, in monotonic time.
    func interactiveDeadline() -> Double? {
        guard let deadline = scenes.interactive?.nextDeadline, !scenes.clock.isFrozen else { return nil }
        return now + max(0, deadline - scenes.time(at: now))
    }

    /// SIGTERM, SIGINT or `stop`: an exercise in progress is recorded as
    /// interrupted (the shell writes what is queued before it exits), and
    /// the loop ends.
    func stop() {
        pumpInteractiveScene()
        if let running = scenes.exercise, running.isExerciseRunning {
            running.interruptExercise(time: scenes.time(at: now))
            collectExercises(of: running)
        }
        running = false
    }

    // MARK: the exercise's commands

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
            if scenes.exercise == nil {
                let shown = scenes.showExercise(transition: defaultTransition, canFade: canFade, now: now,
                                                display: display, configuration: configuration)
                if case .failure(let error) = shown { return .failure(error) }
                pacing.restartCadence()
            }
            guard let started = scenes.exercise else { return .failure(.notSupported("the spiral could not be shown")) }
            // Started from an ambient scene: the end goes back there, not to Idle.
            started.startExercise(time: scenes.time(at: now), pattern: pattern, returnsToIdle: scenes.returnScene == nil)
            // An exercise the start cut short is recorded now, not at the next turn.
            collectExercises(of: started)
        case .cancel:
            guard let cancelled = scenes.exercise else { return .failure(.notSupported("the spiral exercise is not on screen")) }
            cancelled.cancelExercise(time: scenes.time(at: now))
            pumpInteractiveScene()
            let report = exerciseReport(withPath: false)!
            returnFromExercise(because: "cancelled")
            if screen.screen.reason == .exercise { updatePower() }
            exercise.changed()
            return .success(report)
        case .path:
            guard scenes.exercise != nil else { return .failure(.notSupported("the spiral exercise is not on screen")) }
        }
        exercise.changed()
        return exerciseReport(withPath: command == .path).map { .success($0) } ?? .failure(.notSupported("the spiral exercise is not on screen"))
    }

    func exerciseReport(withPath: Bool) -> SpiralReport? {
        scenes.exercise?.exerciseReport(at: scenes.time(at: now), withPath: withPath)
    }

    /// Back to the ambient scene the exercise was started from, if any.
    func returnFromExercise(because reason: String) {
        guard let back = scenes.returnScene, scenes.exercise != nil else { return }
        logger.info("spiral: \(reason); back to \(back)")
        _ = switchScene(to: back, transition: defaultTransition)
    }
}
