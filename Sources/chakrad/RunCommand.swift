import ArgumentParser
import ChakraConfig
import ChakraDaemon
import ChakraDisplay
import ChakraRaster
import ChakraScenes
import ChakraSystem
import FoundationEssentials
import Glibc

/// `chakrad run` (and `chakrad` alone): the daemon. Shows a scene on the
/// screen until SIGTERM or SIGINT, then puts the screen and console back.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the display daemon (the default command).",
        discussion: """
        Settings come from the configuration file (/etc/chakra/chakra.toml, or --config) and its drop-ins \
        (FILE.d/*.toml, laid over it in name order); the options below override them. Outputs: auto tries DRM/KMS (/dev/dri/card*), then the framebuffer (/dev/fb0), then headless, \
        and logs why it passed each one over. SIGTERM or SIGINT: restore the screen and console, exit 0. SIGHUP \
        (or `chakractl reload`): read the configuration again; an invalid one keeps the old settings. \
        An invalid configuration file at start: its errors with key and line, exit 78. Another chakrad \
        answering on the control socket: exit 75, before the screen is touched. \
        Under systemd (FileDescriptorStoreMax= in the unit), the scene, its time, the settings changed at run time, \
        the display mode, the control socket and the DRM device are kept in systemd's file descriptor store, so a \
        restart, a crash restarted by Restart= or a watchdog restart continues the scene where it was: on DRM, \
        SIGTERM then leaves the last frame on screen, and the next process flips onto it without a modeset. A stop \
        for good starts fresh: when systemd closes its copy of the device, the kernel gives the screen back to the \
        console. `chakractl status` says how the process started.
        """
    )

    @Option(help: ArgumentHelp("Configuration file (default: \(ConfigSource.defaultPath), if it exists).", valueName: "file"))
    var config: String?

    @Option(help: ArgumentHelp("Control socket path; \"none\" for no socket (default: [control] socket, \(ChakraConfig.Control().socket ?? "")).", valueName: "path"))
    var socket: String?

    @Option(help: "Output backend: auto, drm, fbdev or headless.", transform: { try optionValue($0) { OutputChoice(rawValue: $0.lowercased()) } })
    var output: OutputChoice?

    @Option(help: ArgumentHelp("Device node for --output drm or fbdev (default: the first /dev/dri/card* that can light a display; /dev/fb0).", valueName: "path"))
    var device: String?

    @Option(help: ArgumentHelp("DRM connector to use, as the kernel names it (e.g. HDMI-A-1, Virtual-1). Default: the first connected one.", valueName: "name"))
    var connector: String?

    @Option(help: ArgumentHelp("Display mode WIDTHxHEIGHT or WIDTHxHEIGHT@HZ (default: the display's preferred mode).", valueName: "mode"),
            transform: { text in do { return try DisplayModeSetting.parse(text).get() } catch { throw ValidationError("mode \((error as? ConfigProblem)?.message ?? "\(error)")") } })
    var mode: DisplayModeSetting?

    @Option(help: ArgumentHelp("Pixel format: XRGB8888 or RGB565 (default: what the device prefers, else XRGB8888).", valueName: "format"),
            transform: { try optionValue($0) { PixelFormat(rawValue: $0.uppercased()) } })
    var format: PixelFormat?

    @Option(help: "Turn the picture clockwise for portrait screens: 0, 90, 180 or 270.", transform: { try optionValue($0) { Int($0).flatMap(Rotation.init(rawValue:)) } })
    var rotation: Rotation?

    @Option(help: "Scene to show (\(DaemonScenes.names.joined(separator: ", "))).")
    var scene: SceneName?

    @Option(help: ArgumentHelp("Frame-rate cap (default: the display's refresh; 20 in low-power mode).", valueName: "fps"))
    var fps: Double?

    @OptionGroup var settings: SceneSettingsOptions

    @Option(help: "Render threads (default: as few as keep up, up to all cores).")
    var threads: Int?

    @Option(help: ArgumentHelp("Virtual terminal: auto (the one on standard input, if any), none, or a number to switch to.", valueName: "vt"),
            transform: { text in
                guard let vt = VirtualTerminalChoice(parsing: text) else { throw ValidationError("--vt '\(text)': expected auto, none, or a console number 1...63") }
                return vt
            })
    var vt: VirtualTerminalChoice?

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

    @Option(help: ArgumentHelp("Fade in from the picture on screen at start (a splash, the console): auto, or off (cut in).", visibility: .hidden),
            transform: { try optionValue($0) { OutputOptions.FadeIn(rawValue: $0.lowercased()) } })
    var fadeIn: OutputOptions.FadeIn = .auto

    @Option(help: ArgumentHelp("Debug: freeze scene time at this many seconds, 0 to 1e9 (compare the screen with `chakrad render --time`).", valueName: "seconds"))
    var pinTime: Double?

    @Option(help: ArgumentHelp("Debug: write frame statistics (key=value) to this file every 2 s and at exit.", valueName: "file"))
    var statsFile: String?

    @Flag(help: ArgumentHelp("Debug: present frames without drawing them (measures flip rate and pacing alone).", visibility: .hidden))
    var debugPresentOnly = false

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.", transform: { try optionValue($0) { Logger.Level(rawValue: $0.lowercased()) } })
    var logLevel: Logger.Level = .info

    func validate() throws {
        if let config, access(config, R_OK) != 0 { throw ValidationError("--config '\(config)': cannot read it: \(String(cString: strerror(errno)))") }
        if let fps { guard fps.isFinite, fps >= 1, fps <= 1000 else { throw ValidationError("--fps must be between 1 and 1000") } }
        if let threads { guard (1...256).contains(threads) else { throw ValidationError("--threads must be between 1 and 256") } }
        if let pinTime, let problem = SceneTime.problem(pinTime, option: "--pin-time") { throw ValidationError(problem) }
        guard headlessPngEvery >= 1 else { throw ValidationError("--headless-png-every must be at least 1") }
        if device != nil, output == .headless { throw ValidationError("--device makes no sense with --output headless") }
        if let socket, socket != "none", let problem = SocketPath.problem(socket) { throw ValidationError("--socket \(problem)") }
    }

    /// The command line's part of the configuration: beats the file.
    var overrides: ConfigOverrides {
        var o = ConfigOverrides()
        o.output = output
        o.device = device
        o.connector = connector
        o.mode = mode
        o.rotation = rotation?.rawValue
        o.fps = fps
        o.vt = vt
        o.scene = scene?.name
        o.reduceMotion = settings.reduceMotion ? true : nil
        o.lowPower = settings.lowPower ? true : nil
        o.threads = threads
        o.socket = socket.map { $0 == "none" ? "" : $0 }
        return o
    }

    /// Where the configuration file is.
    var configSource: ConfigSource {
        // Absolute: a reload reads the same file whatever the working directory.
        let path = config.map { $0.hasPrefix("/") ? $0 : FileManager.default.currentDirectoryPath + "/" + $0 }
        return ConfigSource(path: path ?? ConfigSource.defaultPath, required: config != nil)
    }

    /// The daemon's configuration from the defaults and the options (unit-tested).
    var daemonConfiguration: DaemonConfiguration { daemonConfiguration(file: ChakraConfig()) }

    /// The daemon's configuration: `file` with the options laid over it.
    func daemonConfiguration(file: ChakraConfig) -> DaemonConfiguration {
        var c = DaemonConfiguration(file: file, overrides: overrides, source: configSource)
        c.outputOptions.format = format
        c.outputOptions.drmInterface = drmApi
        c.outputOptions.pageFlips = drmPageFlips
        c.outputOptions.fadeIn = fadeIn
        c.outputOptions.headlessWidth = headlessSize.width
        c.outputOptions.headlessHeight = headlessSize.height
        c.outputOptions.headlessPNGDirectory = headlessPngDir
        c.outputOptions.headlessPNGEvery = headlessPngEvery
        c.pinnedTime = pinTime
        c.statsFile = statsFile
        c.presentOnly = debugPresentOnly
        return c
    }

    /// Reads and checks the configuration file; its errors name key and line.
    func loadConfiguration() throws(ConfigError) -> LoadedConfig {
        let loaded = try configSource.load()
        var checked = loaded
        checked.config = overrides.apply(to: loaded.config)
        try ConfigSource.check(checked)
        return loaded
    }

    func run() throws {
        // First, before any thread or log line: a log reader that goes away
        // (`chakrad run 2>&1 | head`) must cost a log line, not the daemon.
        let brokenPipes = Result { () throws(SystemError) in try BrokenPipes.ignore() }
        let allocatorSet = AllocatorPolicy.apply()
        let level = logLevel
        LogOutput.set(StreamLog.standardError(level: level))
        let logger = Logger(label: "chakrad")
        if case .failure(let error) = brokenPipes { logger.warning("signals: \(error); a log reader that goes away may stop chakrad") }
        if !allocatorSet { logger.warning("memory: glibc refused the allocator settings (mallopt); freed frames may stay resident") }
        let loaded: LoadedConfig
        do {
            loaded = try loadConfiguration()
        } catch {
            logger.critical("invalid configuration; not starting:\n\(error)")
            throw ExitCode(Self.configurationExitCode)
        }
        logger.info("config: \(loaded.file ?? "no file (\(ConfigSource.defaultPath) does not exist); defaults")")
        if !loaded.dropIns.isEmpty { logger.info("config: drop-ins \(loaded.dropIns.joined(separator: ", "))") }
        for warning in loaded.warnings { logger.warning("config: \(warning)") }
        do {
            var configuration = daemonConfiguration(file: loaded.config)
            configuration.configFiles = loaded.files
            try Daemon(configuration: configuration, logger: logger).run()
        } catch let error as DaemonStartError {
            logger.critical("\(error)")
            throw ExitCode(Self.socketInUseExitCode)
        } catch {
            logger.critical("\(error)")
            throw ExitCode.failure
        }
    }
}

extension RunCommand {
    /// EX_CONFIG (sysexits.h): chakrad.service does not restart on it.
    static let configurationExitCode: Int32 = 78
    /// EX_TEMPFAIL (sysexits.h): another chakrad answers on the control
    /// socket. Temporary: once that one is gone, a restart succeeds.
    static let socketInUseExitCode: Int32 = 75
}

/// An option value through `make`, or a usage error that names the value.
func optionValue<Value>(_ text: String, _ make: (String) -> Value?) throws -> Value {
    guard let value = make(text) else { throw ValidationError("invalid value '\(text)'") }
    return value
}
