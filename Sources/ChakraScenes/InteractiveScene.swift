import ChakraRaster

/// A scene people touch: it follows one finger and changes by itself
/// between frames (a session's timers), reporting what happened. Times are
/// scene times, the clock `render` is given. The daemon routes touches
/// and turns the events into its own (state changes for subscribers,
/// haptic cues, going back to the ambient scene) without knowing which
/// scene it is.
public protocol InteractiveScene: Scene {
    func touchDown(at point: Point, time: Double)
    func touchMoved(to point: Point, time: Double)
    func touchUp(time: Double)
    /// Catches up with scene time `time` (timers that ran out fire).
    func advance(to time: Double)
    /// The scene time of the next change it makes by itself; nil: none.
    var nextDeadline: Double? { get }
    /// What happened since the last call, oldest first.
    func takeEvents() -> [SceneEvent]
}

/// What an interactive scene reports.
public enum SceneEvent: Sendable, Equatable {
    /// Its state changed (names for the log and the protocol's events).
    case stateChanged(from: String, to: String)
    case haptic(HapticCue)
    /// The exercise is over: the daemon goes back to where it came from.
    case finished
}

/// A haptic cue for the daemon to play (FF_RUMBLE), or to drop where
/// there is no force-feedback device.
public enum HapticCue: String, Sendable, Equatable {
    /// Tracing: one per `hapticFeedbackDistance` of traced length.
    case tick
    /// The heartbeat: every `hapticBeatInterval` during each hold cycle's
    /// inhale (up) phase.
    case beat
}
