import ChakraConfig
import ChakraDisplay
import ChakraRaster
import ChakraScenes
import Glibc

/// Everything `chakrad run` is told, with its defaults: the configuration
/// file with the command line laid over it (`init(file:overrides:)`), plus
/// options only the command line has (debugging, the headless output).
/// The frame loop owns its copy and changes it at run time (`set`, reload).
///
/// `DaemonConfiguration()` is the daemon with no file and no control
/// socket (tests build it field by field).
public struct DaemonConfiguration: Sendable {
    public var output: OutputKind = .auto
    public var outputOptions = OutputOptions()
    /// Turns frames clockwise for portrait kiosks, in the final pass.
    public var rotation: Rotation = .none
    public var scene = "heart"
    /// Frame-rate cap; nil: the display's refresh (60 with no display).
    public var fps: Double?
    /// The cap in low-power mode (docs/design.md, Low power: default 20).
    public var lowPowerFPS = 20.0
    public var settings = RenderSettings()
    /// Render threads (the scene's worker pool).
    public var threads = 1
    /// `threads` is a ceiling and the loop uses as few as keep frames well
    /// inside the frame interval ([render] threads unset or 0).
    public var adaptiveThreads = false
    public var terminal: TerminalRequest = .auto
    /// Debug: scene time frozen at this many seconds (the VM tests compare
    /// the screen with `chakrad render --time`).
    public var pinnedTime: Double?
    /// Debug: key=value statistics written here every couple of seconds and
    /// at exit (frames, fps); the VM tests read it.
    public var statsFile: String?
    /// Debug: present frames without drawing them, to measure the display
    /// path alone (flip rate and pacing) where drawing is slow (emulators).
    public var presentOnly = false

    // The configuration file and what the loop reads from it directly.

    /// Where the configuration comes from (re-read on reload).
    public var source = ConfigSource(path: nil, required: false)
    /// The file as last read (a reload compares against it).
    public var file = ChakraConfig()
    /// The command line's part: laid over the file again on every reload.
    public var overrides = ConfigOverrides()
    /// The rest of the effective configuration: idle timers, dim level,
    /// text, spiral, transitions, control limits.
    public var config = ChakraConfig()
    /// The control socket; nil: none.
    public var control: ChakraConfig.Control?
    public var backlight: BacklightChoice = .disabled
    /// Where backlights are (tests point it at a directory of their own).
    public var backlightRoot = "/sys/class/backlight"
    /// Where input devices appear (tests point it at a directory of their own).
    public var inputDirectory = "/dev/input"
    /// The spiral's string catalogs (<language>.toml files).
    public var catalogDirectory = DaemonScenes.defaultCatalogDirectory()

    public init() {}

    /// The file's configuration with the command line laid over it.
    public init(file: ChakraConfig, overrides: ConfigOverrides = ConfigOverrides(), source: ConfigSource = ConfigSource(path: nil, required: false)) {
        self.source = source
        self.file = file
        self.overrides = overrides
        let effective = overrides.apply(to: file)
        config = effective
        output = OutputKind(rawValue: effective.display.output.rawValue) ?? .auto
        outputOptions.device = effective.display.device
        outputOptions.connector = effective.display.connector
        outputOptions.mode = effective.display.mode.map { ModeRequest(width: $0.width, height: $0.height, refresh: $0.refresh) }
        terminal = switch effective.display.vt {
        case .auto: .auto
        case .disabled: .none
        case .number(let n): .number(n)
        }
        scene = effective.scene.defaultScene
        control = effective.control.socket == nil ? nil : effective.control
        backlight = effective.display.backlight
        applyLive(effective)
    }

    /// The keys a reload applies at once (docs/configuration.md).
    mutating func applyLive(_ effective: ChakraConfig) {
        rotation = Rotation(rawValue: effective.display.rotation) ?? .none
        fps = effective.display.fps
        lowPowerFPS = effective.lowPower.fps
        settings = RenderSettings(reduceMotion: effective.reduceMotion, lowPower: effective.lowPower.enabled)
        threads = effective.render.threads ?? WorkerPool.coreCount
        adaptiveThreads = effective.render.threads == nil
        config = effective
    }

    /// The cap to pace by: low power lowers it to `lowPowerFPS` unless an
    /// even lower --fps was asked.
    public var effectiveFPSCap: Double? {
        guard settings.lowPower else { return fps }
        return min(fps ?? lowPowerFPS, lowPowerFPS)
    }

    /// The configuration in force now, as `get` shows it: run-time changes
    /// (`set`) included.
    public var current: ChakraConfig {
        var c = config
        c.reduceMotion = settings.reduceMotion
        c.lowPower.enabled = settings.lowPower
        c.display.fps = fps
        c.lowPower.fps = lowPowerFPS
        c.display.rotation = rotation.rawValue
        return c
    }

    /// A new file read on reload. Keys the file changed since it was last
    /// read take effect, unless the command line decides them; a setting
    /// changed with `set` stays until the file changes that key. Keys that
    /// need a restart are reported, not applied.
    mutating func reload(_ newFile: ChakraConfig) -> ReloadReport {
        let changed = newFile.changedKeys(from: file)
        let decidedByCommandLine = Set(overrides.keys)
        var next = overrides.apply(to: newFile)
        // Run-time settings the file did not change stay as they are.
        if !changed.contains("reduce_motion") { next.reduceMotion = settings.reduceMotion }
        if !changed.contains("low_power.enabled") { next.lowPower.enabled = settings.lowPower }
        if !changed.contains("text.language") { next.text.language = config.text.language }
        // Keys only a restart applies keep their running values.
        next.display = Self.keepingRestartKeys(of: config.display, in: next.display)
        next.input = config.input
        next.control.socket = config.control.socket
        next.control.mode = config.control.mode
        next.control.group = config.control.group
        file = newFile
        applyLive(next)
        return ReloadReport(
            changed: changed,
            restartNeeded: changed.filter { ConfigKeys.key($0)?.liveReload == false && !decidedByCommandLine.contains($0) },
            ignored: changed.filter { decidedByCommandLine.contains($0) }
        )
    }

    private static func keepingRestartKeys(of running: ChakraConfig.Display, in new: ChakraConfig.Display) -> ChakraConfig.Display {
        var kept = running
        kept.rotation = new.rotation
        kept.fps = new.fps
        return kept
    }
}

/// What a reload did.
public struct ReloadReport: Sendable, Equatable {
    /// Keys whose values the file changed.
    public var changed: [String]
    /// Of those, the ones that take effect only after a restart.
    public var restartNeeded: [String]
    /// Of those, the ones the command line decides: the file's value is not used.
    public var ignored: [String]
    /// Unknown keys and the like, with their lines.
    public var warnings: [String] = []
}

/// Where the configuration file is: `--config FILE` (which must exist), or
/// /etc/chakra/chakra.toml (defaults when it does not exist).
public struct ConfigSource: Sendable, Equatable {
    public static let defaultPath = "/etc/chakra/chakra.toml"

    public var path: String?
    public var required: Bool

    public init(path: String?, required: Bool) {
        (self.path, self.required) = (path, required)
    }

    /// Reads it; the defaults when there is no file and none was asked for.
    public func load() throws(ConfigError) -> LoadedConfig {
        guard let path, required || access(path, F_OK) == 0 else {
            return LoadedConfig(config: ChakraConfig(), warnings: [], lines: SourceLines(""), file: nil)
        }
        return try ConfigParser.load(path: path)
    }

    /// Checks the file's values against this build (the scene catalog):
    /// errors that name the key and its line.
    public static func check(_ loaded: LoadedConfig) throws(ConfigError) {
        let scene = loaded.config.scene.defaultScene
        guard DaemonScenes.names.contains(scene) else {
            throw ConfigError([loaded.issue(key: "scene.default", "no scene named '\(scene)'; scenes: \(DaemonScenes.names.joined(separator: ", "))")])
        }
    }
}
