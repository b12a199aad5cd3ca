import ChakraConfig
import ChakraDisplay
import ChakraRaster
import ChakraScenes
import Glibc

/// Everything `chakrad run` is told: the configuration in force (`config`)
/// and the options only the command line has (debugging, the headless
/// output's size).
///
/// `config` is the one copy of the values in force: made from the file with
/// the command line laid over it (`init(file:overrides:)`), then changed key
/// by key by reloads (the keys the file changed, unless the command line
/// decides them or only a restart applies them) and by `set` at run time.
/// Everything else here that names a setting (`settings`, `rotation`,
/// `fps`...) reads it from `config` and writes it there: nothing is copied.
///
/// `DaemonConfiguration()` is the daemon with no file, no control socket and
/// no backlight (tests build it field by field).
public struct DaemonConfiguration: Sendable {
    /// The configuration in force.
    public var config: ChakraConfig

    // Only the command line says these.

    /// The output's options the file has no key for (the headless size, its
    /// PNGs, DRM details); device, connector and mode come from `config`.
    private var outputExtras = OutputOptions()
    /// Debug: scene time frozen at this many seconds (the VM tests compare
    /// the screen with `chakrad render --time`).
    public var pinnedTime: Double?
    /// Debug: key=value statistics written here every couple of seconds and
    /// at exit (frames, fps); the VM tests read it.
    public var statsFile: String?
    /// Debug: present frames without drawing them, to measure the display
    /// path alone (flip rate and pacing) where drawing is slow (emulators).
    public var presentOnly = false
    /// Where backlights are (tests point it at a directory of their own).
    public var backlightRoot = "/sys/class/backlight"
    /// Where input devices appear (tests point it at a directory of their own).
    public var inputDirectory = "/dev/input"
    /// The spiral's string catalogs (<language>.toml files).
    public var catalogDirectory = DaemonScenes.defaultCatalogDirectory()

    // Where the configuration comes from, for reloads.

    /// Where the file is (re-read on reload).
    public var source = ConfigSource(path: nil, required: false)
    /// The file as last read (a reload compares against it).
    public var file = ChakraConfig()
    /// The files it was read from: the main file, then its drop-ins.
    public var configFiles: [String] = []
    /// The command line's part: laid over the file again on every reload.
    public var overrides = ConfigOverrides()

    /// No file: the defaults, but no control socket, no backlight and one
    /// render thread (what tests and tools want unless they say otherwise).
    public init() {
        config = ChakraConfig()
        config.control.socket = nil
        config.display.backlight = .disabled
        config.render.threads = 1
    }

    /// The file's configuration with the command line laid over it.
    public init(file: ChakraConfig, overrides: ConfigOverrides = ConfigOverrides(), source: ConfigSource = ConfigSource(path: nil, required: false)) {
        self.source = source
        self.file = file
        self.overrides = overrides
        config = overrides.apply(to: file)
    }

    // MARK: read from `config`

    public var output: OutputKind {
        get { OutputKind(rawValue: config.display.output.rawValue) ?? .auto }
        set { config.display.output = OutputChoice(rawValue: newValue.rawValue) ?? .auto }
    }

    public var outputOptions: OutputOptions {
        get {
            var options = outputExtras
            options.device = config.display.device
            options.connector = config.display.connector
            options.mode = config.display.mode.map { ModeRequest(width: $0.width, height: $0.height, refresh: $0.refresh) }
            return options
        }
        set {
            outputExtras = newValue
            config.display.device = newValue.device
            config.display.connector = newValue.connector
            config.display.mode = newValue.mode.map { DisplayModeSetting(width: $0.width, height: $0.height, refresh: $0.refresh) }
        }
    }

    /// Turns frames clockwise for portrait kiosks, in the final pass.
    public var rotation: Rotation {
        get { Rotation(rawValue: config.display.rotation) ?? .none }
        set { config.display.rotation = newValue.rawValue }
    }

    /// The scene shown at start.
    public var scene: String {
        get { config.scene.defaultScene }
        set { config.scene.defaultScene = newValue }
    }

    /// Frame-rate cap; nil: the display's refresh (60 with no display).
    public var fps: Double? {
        get { config.display.fps }
        set { config.display.fps = newValue }
    }

    /// The cap in low-power mode (docs/design.md, Low power: default 20).
    public var lowPowerFPS: Double {
        get { config.lowPower.fps }
        set { config.lowPower.fps = newValue }
    }

    public var settings: RenderSettings {
        get { RenderSettings(reduceMotion: config.reduceMotion, lowPower: config.lowPower.enabled) }
        set {
            config.reduceMotion = newValue.reduceMotion
            config.lowPower.enabled = newValue.lowPower
        }
    }

    /// Render threads (the scene's worker pool): [render] threads, or every
    /// core when it is unset.
    public var threads: Int {
        get { config.render.threads ?? WorkerPool.coreCount }
        set { config.render.threads = newValue }
    }

    /// `threads` is a ceiling and the loop uses as few as keep frames well
    /// inside the frame interval ([render] threads unset or 0).
    public var adaptiveThreads: Bool { config.render.threads == nil }

    public var terminal: TerminalRequest {
        get {
            switch config.display.vt {
            case .auto: .auto
            case .disabled: .none
            case .number(let n): .number(n)
            }
        }
        set {
            config.display.vt = switch newValue {
            case .auto: .auto
            case .none: .disabled
            case .number(let n): .number(n)
            }
        }
    }

    /// The control socket's settings; nil: no socket.
    public var control: ChakraConfig.Control? {
        get { config.control.socket == nil ? nil : config.control }
        set {
            if let newValue { config.control = newValue } else { config.control.socket = nil }
        }
    }

    public var backlight: BacklightChoice {
        get { config.display.backlight }
        set { config.display.backlight = newValue }
    }

    /// The cap to pace by: low power lowers it to `lowPowerFPS` unless an
    /// even lower --fps was asked.
    public var effectiveFPSCap: Double? {
        guard settings.lowPower else { return fps }
        return min(fps ?? lowPowerFPS, lowPowerFPS)
    }

    // MARK: reload

    /// A new file read on reload. Each key the file changed since it was
    /// last read takes the file's value, unless the command line decides it
    /// or only a restart applies it (those are reported, not applied); every
    /// other key keeps the value in force, so a setting changed with `set`
    /// stays until the file changes that key.
    mutating func reload(_ newFile: ChakraConfig) -> ReloadReport {
        let changed = newFile.changedKeys(from: file)
        let decidedByCommandLine = Set(overrides.keys)
        let laid = overrides.apply(to: newFile)
        var restartNeeded: [String] = []
        for path in changed {
            guard let key = ConfigKeys.key(path) else { continue }
            guard key.liveReload else {
                if !decidedByCommandLine.contains(path) { restartNeeded.append(path) }
                continue
            }
            key.copy(from: laid, into: &config)
        }
        file = newFile
        return ReloadReport(changed: changed, restartNeeded: restartNeeded, ignored: changed.filter { decidedByCommandLine.contains($0) })
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
/// /etc/chakra/chakra.toml (defaults when it does not exist); either with
/// its drop-ins (`ConfigFiles`).
public struct ConfigSource: Sendable, Equatable {
    public static let defaultPath = "/etc/chakra/chakra.toml"

    public var path: String?
    public var required: Bool

    public init(path: String?, required: Bool) {
        (self.path, self.required) = (path, required)
    }

    /// Reads it and its drop-ins (at start and on every reload); the
    /// defaults and the drop-ins when there is no file and none was asked for.
    public func load() throws(ConfigError) -> LoadedConfig {
        guard let path else { return LoadedConfig(config: ChakraConfig()) }
        return try ConfigFiles.load(path: path, required: required)
    }

    /// Checks the file's values against this build (the scene catalog):
    /// errors that name the key and its line.
    public static func check(_ loaded: LoadedConfig) throws(ConfigError) {
        var issues: [ConfigIssue] = []
        func unknown(_ scene: String) -> String { "no scene named '\(scene)'; scenes: \(DaemonScenes.names.joined(separator: ", "))" }
        let scene = loaded.config.scene.defaultScene
        if !DaemonScenes.names.contains(scene) { issues.append(loaded.issue(key: "scene.default", unknown(scene))) }
        if let schedule = loaded.config.schedule {
            // A window may show a scene, or off, dim, low-power.
            let shown = schedule.windows.enumerated().map { ("schedule.window.\($0.offset).show", $0.element.action) }
                + schedule.dates.enumerated().map { ("schedule.date.\($0.offset).show", $0.element.action) }
                + [("schedule.outside", schedule.outside)]
            for (key, action) in shown {
                if case .scene(let name) = action, !DaemonScenes.names.contains(name) {
                    issues.append(loaded.issue(key: key, unknown(name) + ", or off, dim, low-power"))
                }
            }
        }
        guard issues.isEmpty else { throw ConfigError(issues) }
    }
}
