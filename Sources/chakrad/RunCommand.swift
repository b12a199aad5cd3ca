import ArgumentParser
import ChakraDaemon
import ChakraDisplay
import ChakraRaster
import ChakraScenes
import Glibc
import Logging

/// `chakrad run` (and `chakrad` alone): the daemon. Shows a scene on the
/// screen until SIGTERM or SIGINT, then puts the screen and console back.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the display daemon (the default command).",
        discussion: """
        Outputs: auto tries DRM/KMS (/dev/dri/card*), then the framebuffer (/dev/fb0), then headless, and logs why \
        it passed each one over. SIGTERM or SIGINT: restore the screen and console, exit 0. SIGHUP is reserved for \
        reloading the configuration file.
        """
    )

    @Option(help: ArgumentHelp("Configuration file. Accepted now; the TOML configuration is read from the next release (use the options below).", valueName: "file"))
    var config: String?

    @Option(help: "Output backend: auto, drm, fbdev or headless.", transform: { try optionValue($0) { OutputKind(rawValue: $0.lowercased()) } })
    var output: OutputKind = .auto

    @Option(help: ArgumentHelp("Device node for --output drm or fbdev (default: the first /dev/dri/card* that can light a display; /dev/fb0).", valueName: "path"))
    var device: String?

    @Option(help: ArgumentHelp("DRM connector to use, as the kernel names it (e.g. HDMI-A-1, Virtual-1). Default: the first connected one.", valueName: "name"))
    var connector: String?

    @Option(help: ArgumentHelp("Display mode WIDTHxHEIGHT or WIDTHxHEIGHT@HZ (default: the display's preferred mode).", valueName: "mode"),
            transform: { text in do { return try ModeRequest(parsing: text) } catch { throw ValidationError("\(error)") } })
    var mode: ModeRequest?

    @Option(help: ArgumentHelp("Pixel format: XRGB8888 or RGB565 (default: what the device prefers, else XRGB8888).", valueName: "format"),
            transform: { try optionValue($0) { PixelFormat(rawValue: $0.uppercased()) } })
    var format: PixelFormat?

    @Option(help: "Turn the picture clockwise for portrait screens: 0, 90, 180 or 270.", transform: { try optionValue($0) { Int($0).flatMap(Rotation.init(rawValue:)) } })
    var rotation: Rotation = .none

    @Option(help: "Scene to show (\(SceneCatalog.names.joined(separator: ", "))).")
    var scene = SceneName("heart")

    @Option(help: ArgumentHelp("Frame-rate cap (default: the display's refresh; 20 in low-power mode).", valueName: "fps"))
    var fps: Double?

    @OptionGroup var settings: SceneSettingsOptions

    @Option(help: "Render threads (default: all cores).")
    var threads: Int?

    @Option(help: ArgumentHelp("Virtual terminal: auto (the one on standard input, if any), none, or a number to switch to.", valueName: "vt"),
            transform: { text in do { return try TerminalRequest(parsing: text) } catch { throw ValidationError("\(error)") } })
    var vt: TerminalRequest = .auto

    @Option(help: ArgumentHelp("Frame size of the headless output.", valueName: "WxH"))
    var headlessSize = ScreenSize(width: 1280, height: 720)

    @Option(help: ArgumentHelp("Write headless frames as PNG files into this directory.", valueName: "dir"))
    var headlessPngDir: String?

    @Option(help: ArgumentHelp("With --headless-png-dir: write every Nth frame.", valueName: "n"))
    var headlessPngEvery = 60

    @Option(help: ArgumentHelp("DRM interface: auto (atomic where offered), atomic or legacy.", visibility: .hidden),
            transform: { try optionValue($0) { OutputOptions.DRMInterface(rawValue: $0.lowercased()) } })
    var drmApi: OutputOptions.DRMInterface = .auto

    @Option(help: ArgumentHelp("DRM page flips: auto, or off (draw into the buffer on screen and report damage).", visibility: .hidden),
            transform: { try optionValue($0) { OutputOptions.PageFlips(rawValue: $0.lowercased()) } })
    var drmPageFlips: OutputOptions.PageFlips = .auto

    @Option(help: ArgumentHelp("Debug: freeze scene time at this many seconds (compare the screen with `chakrad render --time`).", valueName: "seconds"))
    var pinTime: Double?

    @Option(help: ArgumentHelp("Debug: write frame statistics (key=value) to this file every 2 s and at exit.", valueName: "file"))
    var statsFile: String?

    @Flag(help: ArgumentHelp("Debug: present frames without drawing them (measures flip rate and pacing alone).", visibility: .hidden))
    var debugPresentOnly = false

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.", transform: { try optionValue($0) { Logger.Level(rawValue: $0.lowercased()) } })
    var logLevel: Logger.Level = .info

    func validate() throws {
        if let config, access(config, R_OK) != 0 { throw ValidationError("--config '\(config)': cannot read it") }
        if let fps { guard fps.isFinite, fps >= 1, fps <= 1000 else { throw ValidationError("--fps must be between 1 and 1000") } }
        if let threads { guard (1...256).contains(threads) else { throw ValidationError("--threads must be between 1 and 256") } }
        if let pinTime { guard pinTime.isFinite, pinTime >= 0 else { throw ValidationError("--pin-time must be a number of seconds ≥ 0") } }
        guard headlessPngEvery >= 1 else { throw ValidationError("--headless-png-every must be at least 1") }
        if device != nil, output == .headless { throw ValidationError("--device makes no sense with --output headless") }
    }

    /// The daemon's configuration from the options (unit-tested).
    var daemonConfiguration: DaemonConfiguration {
        var c = DaemonConfiguration()
        c.configFile = config
        c.output = output
        c.outputOptions.device = device
        c.outputOptions.connector = connector
        c.outputOptions.mode = mode
        c.outputOptions.format = format
        c.outputOptions.drmInterface = drmApi
        c.outputOptions.pageFlips = drmPageFlips
        c.outputOptions.headlessWidth = headlessSize.width
        c.outputOptions.headlessHeight = headlessSize.height
        c.outputOptions.headlessPNGDirectory = headlessPngDir
        c.outputOptions.headlessPNGEvery = headlessPngEvery
        c.rotation = rotation
        c.scene = scene.name
        c.fps = fps
        c.settings = settings.settings
        c.threads = threads ?? WorkerPool.coreCount
        c.terminal = vt
        c.pinnedTime = pinTime
        c.statsFile = statsFile
        c.presentOnly = debugPresentOnly
        return c
    }

    func run() throws {
        let level = logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "chakrad")
        do {
            try Daemon(configuration: daemonConfiguration, logger: logger).run()
        } catch {
            logger.critical("\(error)")
            throw ExitCode.failure
        }
    }
}

/// An option value through `make`, or a usage error that names the value.
private func optionValue<Value>(_ text: String, _ make: (String) -> Value?) throws -> Value {
    guard let value = make(text) else { throw ValidationError("invalid value '\(text)'") }
    return value
}
