import ChakraConfig
import ChakraControl
import ChakraScenes
import ChakraSpiral

/// Where the core's scenes come from. Making a scene opens fonts, reads
/// string catalogs and starts render threads: the shell's business, so the
/// shell hands the core a factory (`DaemonSceneFactory`) and the core,
/// which touches no devices and reads no files, only asks for scenes by
/// name. Tests hand it one of their own.
public protocol SceneFactory {
    /// Every scene that can be asked for by name.
    var names: [String] { get }
    /// The scene that runs the breathing exercise (`spiral start` shows it).
    var exerciseSceneName: String { get }
    /// Shown when the scene asked for cannot be made (the spiral with no
    /// readable font at all): the picture goes on. It must always be made.
    var fallbackSceneName: String { get }
    /// `name` at `width`×`height` (the frame as seen). Throws
    /// `DaemonCommandError.unknownScene` for a name that is no scene, or
    /// why the scene cannot be made.
    func make(_ name: String, width: Int, height: Int, configuration: DaemonConfiguration) throws -> Scene
}

/// What the core needs from a scene that runs a breathing exercise,
/// beyond touches and time (`InteractiveScene`): whether one is under way,
/// starting, cancelling and ending it, its finished exercises as records,
/// and its state for `status`. The core reaches the exercise only through
/// this, never through the scene's own type.
public protocol ExerciseScene: InteractiveScene {
    /// From the first touch on the light through the celebration: the
    /// person breathing must not be cut off by the screen going dark.
    var isExerciseUnderWay: Bool { get }
    /// Begun and not yet summed up (a summary comes when it ends).
    var isExerciseRunning: Bool { get }
    /// Starts an exercise now (`pattern` nil: the configured one); at its
    /// end the scene goes back to idle, or reports `.finished`.
    func startExercise(time: Double, pattern: BreathingPattern?, returnsToIdle: Bool)
    /// Given up by request.
    func cancelExercise(time: Double)
    /// Cut short from outside (the screen went dark, the daemon stops, the
    /// scene is left): it ends as interrupted.
    func interruptExercise(time: Double)
    /// The exercises that ended since the last call, one at a time.
    func takeFinishedExercise() -> SpiralExerciseSummary?
    /// The exercise at scene time `time`, for `status`, events and replies.
    func exerciseReport(at time: Double, withPath: Bool) -> SpiralReport
    /// Seconds of the hold counted at scene time `time` (the continuation record).
    func holdElapsed(at time: Double) -> Double
}
