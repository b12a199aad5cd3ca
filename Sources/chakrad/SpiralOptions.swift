import ArgumentParser
import ChakraConfig
import ChakraDaemon
import ChakraScenes
import ChakraSpiral
import ChakraText
import FoundationEssentials

/// Scenes `render` and `bench` can make: the daemon's (`DaemonScenes`); the
/// spiral is made here (`SpiralScene`), with a scripted session.
struct OfflineSceneName: ExpressibleByArgument, CustomStringConvertible {
    static let names = DaemonScenes.names
    let name: String
    init?(argument: String) {
        guard Self.names.contains(argument) else { return nil }
        name = argument
    }
    init(_ name: String) { self.name = name }
    var description: String { name }
    static var allValueStrings: [String] { names }
}

extension SpiralState: ExpressibleByArgument {}

/// Where the spiral is and what it says, for `render` and `bench`: the
/// session is driven there by scripted touches (`SpiralScript`).
struct SpiralOptions: ParsableArguments {
    @Option(help: "Spiral: the exercise's state (idle, inhale, hold, exhale, completed).")
    var spiralState: SpiralState = .idle

    @Option(help: "Spiral: traced part of the path, 0...1 (inhale: up to the inhale fraction; exhale: beyond it).")
    var progress: Double?

    @Option(help: "Spiral: seconds of hold already counted (hold).")
    var holdElapsed = 20.0

    @Option(help: "Spiral: the breathing pattern of the hold, a preset (\(BreathingPattern.presets.map(\.name).joined(separator: ", "))).")
    var pattern = BreathingPattern.defaultName

    @Flag(help: "Spiral: the finger has lifted (shows how to resume).")
    var lifted = false

    @Option(help: "Spiral: text language (a catalog in --lang-dir).")
    var language = "en"

    @Option(help: "Spiral: the catalogs' directory (default /etc/chakra/lang, else etc/chakra/lang here).")
    var langDir: String?

    @Option(help: "Spiral: the font file.")
    var font = Font.defaultPath

    func validate() throws {
        if let progress, !(0...1).contains(progress) { throw ValidationError("--progress must be within 0...1") }
        if let problem = SceneTime.problem(holdElapsed, option: "--hold-elapsed") { throw ValidationError(problem) }
        if case .failure(let error) = spiralConfig.pattern(named: pattern) { throw ValidationError("--pattern: \(error)") }
    }

    var catalogDirectory: String {
        if let langDir { return langDir }
        let installed = StringCatalog.defaultDirectory
        if FileManager.default.fileExists(atPath: installed) { return installed }
        return FileManager.default.fileExists(atPath: "etc/chakra/lang") ? "etc/chakra/lang" : installed
    }

    /// The [spiral] settings: the defaults with the chosen pattern.
    var spiralConfig: ChakraConfig.Spiral {
        var spiral = ChakraConfig.Spiral()
        spiral.pattern = pattern
        return spiral
    }

    /// A spiral scene driven into the chosen state; returns it and the
    /// session time at which that state was reached.
    func makeScene(width: Int, height: Int, settings: RenderSettings, threads: Int) throws -> (SpiralScene, Double) {
        var text = ChakraConfig.Text()
        text.font = font
        text.language = language
        let scene = try SpiralScene(width: width, height: height, settings: settings, threads: threads, spiral: spiralConfig,
                                    text: text, catalogDirectory: catalogDirectory)
        let reached = SpiralScript.drive(scene.session, to: spiralState, progress: progress, holdElapsed: holdElapsed, lifted: lifted)
        return (scene, reached)
    }
}
