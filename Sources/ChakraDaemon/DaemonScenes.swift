import ChakraConfig
import ChakraControl
import ChakraScenes
import ChakraSpiral
import ChakraSystem
import ChakraText
import Glibc

/// The scenes the daemon shows: the ambient catalog's, and the spiral
/// exercise, which needs the [spiral] and [text] settings and a session
/// the daemon feeds with touches (so it is made here, not by
/// `SceneCatalog`).
public enum DaemonScenes {
    public static let names = SceneCatalog.names + [SpiralScene.name]

    /// `name` at `width`×`height` (the frame as seen), or nil when no such
    /// scene exists. Throws when the spiral's font cannot be opened.
    static func make(_ name: String, width: Int, height: Int, configuration: DaemonConfiguration) throws -> Scene? {
        if name == SpiralScene.name {
            return try SpiralScene(width: width, height: height, settings: configuration.settings, threads: configuration.threads,
                                   spiral: configuration.config.spiral, text: configuration.config.text,
                                   catalogDirectory: configuration.catalogDirectory)
        }
        return SceneCatalog.make(name, width: width, height: height, settings: configuration.settings, threads: configuration.threads)
    }

    /// Where the string catalogs are: the installed /etc/chakra/lang, or
    /// etc/chakra/lang of the working directory when run from a checkout.
    public static func defaultCatalogDirectory() -> String {
        if access(StringCatalog.defaultDirectory, R_OK) == 0 { return StringCatalog.defaultDirectory }
        if access("etc/chakra/lang/en.toml", R_OK) == 0 { return "etc/chakra/lang" }
        return StringCatalog.defaultDirectory
    }
}

/// The shell's scene factory: the catalog's scenes and the spiral, made
/// with the fonts and string catalogs they need (files the core never
/// reads itself).
struct DaemonSceneFactory: SceneFactory {
    let logger: Logger

    var names: [String] { DaemonScenes.names }
    var exerciseSceneName: String { SpiralScene.name }
    var fallbackSceneName: String { "heart" }

    func make(_ name: String, width: Int, height: Int, configuration: DaemonConfiguration) throws -> Scene {
        guard let scene = try DaemonScenes.make(name, width: width, height: height, configuration: configuration) else {
            throw DaemonCommandError.unknownScene(name)
        }
        if let problem = (scene as? SpiralScene)?.fontProblem {
            logger.warning("text: \(problem); the texts are in \(Font.defaultPath)")
        }
        return scene
    }
}

/// The spiral is the daemon's exercise: what the core asks of it, in the
/// session's terms.
extension SpiralScene: ExerciseScene {
    public var isExerciseUnderWay: Bool { session.state != .idle }
    public var isExerciseRunning: Bool { session.isExerciseRunning }

    public func startExercise(time: Double, pattern: BreathingPattern?, returnsToIdle: Bool) {
        session.returnsToIdle = returnsToIdle
        session.start(time: time, pattern: pattern)
    }

    public func cancelExercise(time: Double) { session.cancel(time: time) }
    public func interruptExercise(time: Double) { session.finishExercise(time: time) }
    public func takeFinishedExercise() -> SpiralExerciseSummary? { session.takeFinishedExercise() }

    public func holdElapsed(at t: Double) -> Double { session.holdElapsed(at: t) }

    public func exerciseReport(at t: Double, withPath: Bool) -> SpiralReport {
        let head = session.headPosition
        let phase = session.state == .hold ? session.holdPhase(elapsed: session.holdElapsed(at: t)).kind.rawValue : nil
        return SpiralReport(state: session.state.rawValue, progress: session.progress,
                            holdRemaining: max(0, session.holdRemaining(at: t)),
                            headX: head.x, headY: head.y, touching: session.isTouching, needsResume: session.needsResume,
                            pattern: session.pattern.name, phase: phase,
                            points: withPath ? session.pathPoints.map { [$0.x, $0.y] } : nil)
    }
}
