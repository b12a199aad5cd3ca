import ChakraControl
import ChakraRaster
import ChakraScenes

/// Scene changes as the rest of the daemon sees them: the director changes
/// the scene; frames start again from now, and a crossfade needs a picture
/// on screen to fade from.
extension DaemonCore {
    /// The scene made again for new settings or a new size; false (and
    /// nothing changed) when it cannot be made.
    @discardableResult
    func rebuildScene(reason: String) -> Bool {
        guard scenes.rebuild(display: display, configuration: configuration, reason: reason) else { return false }
        pacing.repace(display: display, configuration: configuration)
        return true
    }

    func switchScene(to name: String, transition: SceneTransition) -> Result<Void, DaemonCommandError> {
        let result = scenes.show(name, transition: transition, canFade: canFade, now: now, display: display, configuration: configuration)
        if case .success = result { pacing.restartCadence() }
        return result
    }

    /// The first frames fade in from `picture`, what was on screen when
    /// chakrad started (docs/seams.md, Boot), read by the shell: an XRGB8888
    /// frame of the scene's size. False, and the start is a cut as ever,
    /// when a frame of chakrad's is up already, frames are not drawn
    /// (`--present-only`), the VT is not in front or the screen is off.
    /// A screen turned off before the first frame lets go of it (the
    /// scene then comes back from black).
    public func fadeInFromScreen(_ picture: FrameBuffer) -> Bool {
        guard !pacing.firstFrameShown, !configuration.presentOnly, vtActive, screen.screen.power != .off else { return false }
        return scenes.fadeInFromScreen(picture, transition: defaultTransition, reduceMotion: configuration.settings.reduceMotion)
    }

    /// A crossfade needs a picture on screen to fade from.
    var canFade: Bool { pacing.firstFrameShown && vtActive && screen.screen.power != .off }

    /// The transition [scene] asks for by default.
    var defaultTransition: SceneTransition {
        let defaults = configuration.config.scene
        return SceneTransition(kind: defaults.transition, duration: defaults.transitionDuration)
    }

    func setPaused(_ paused: Bool) {
        if scenes.setPaused(paused, now: now), !paused { pacing.restartCadence() }
    }

    /// A scene is no longer shown (another was switched to, or it was
    /// rebuilt for new settings): the finger it followed is let go of, and
    /// an exercise under way ends there.
    func sceneReplaced(_ old: Scene) {
        exercise.sceneReplaced()
        guard let left = old as? ExerciseScene else { return }
        if left.isExerciseRunning { left.interruptExercise(time: scenes.time(at: now)) }
        collectExercises(of: left)
    }
}
