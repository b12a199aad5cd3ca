import ChakraConfig
import ChakraControl
import ChakraScenes

/// What the daemon is doing, for `status`, `get` and STATUS=. Published by
/// the loop on every change and every couple of seconds while animating.
public struct DaemonStatus: Sendable, Equatable {
    /// What is drawn: the scene, how, and the exercise on it.
    public struct Picture: Sendable, Equatable {
        public var scene = ""
        public var settings = RenderSettings()
        public var paused = false
        /// Every frame is the same (reduce motion): one was shown, no more.
        public var still = false
        /// The spiral exercise, when it is the scene.
        public var spiral: SpiralReport?
    }

    /// Where it is drawn: the output and whether it can be drawn on.
    public struct Output: Sendable, Equatable {
        public var summary = ""
        /// The screen's size in pixels (memory, before rotation).
        public var width = 0, height = 0
        /// The display's refresh in Hz, when it has one.
        public var refreshRate: Double?
        public var rotation = 0
        public var vtActive = true
        /// The display is unplugged and the output waits for it.
        public var waitingForDisplay = false
        /// The touchscreens in use.
        public var inputDevices: [String] = []
    }

    /// How frames come.
    public struct Frames: Sendable, Equatable {
        /// Frames presented, the last one's time, the last stall. In the
        /// published copy as of publishing; `DaemonControl.status(at:)` lays
        /// the loop's live values over it.
        public var progress = FrameProgress()
        /// Since when frames have been due without a break (monotonic): from
        /// start, the screen powered up, the VT back, the display plugged in,
        /// the scene moving again; nil while none are due by design (a still
        /// or paused picture, the screen off, the VT away, the display
        /// unplugged). Health measures a frame's lateness from the later of
        /// this and the last frame.
        public var dueSince: Double?
        public var fps = 0.0
        /// The pacer's rate: the cap, or the display's refresh.
        public var fpsTarget = 0.0
        /// Milliseconds to draw a frame over the last frames (`FrameTimes`).
        public var drawTimes = FrameTimes.Summary()
        /// From a touch's event time to the frame showing it on screen (ms).
        public var touchLatency = FrameTimes.Summary()
    }

    /// The light: the backlight, the idle timers, the screen's power and
    /// the opening hours that decide it.
    public struct Light: Sendable, Equatable {
        /// Percent, when there is a backlight.
        public var brightness: Int?
        public var backlight: String?
        public var power = PowerState.normal
        /// The screen: on, dimmed or off, why, and the read-back.
        public var display = DisplayPowerStatus()
        /// Opening hours now; nil without a schedule.
        public var schedule: ScheduleStatus?
    }

    /// The configuration in force and where it came from.
    public struct Configured: Sendable, Equatable {
        public var language = "en"
        public var file: String?
        /// Every file the configuration in force was read from, drop-ins included.
        public var files: [String] = []
        /// The configuration in force, run-time changes included (`get`).
        public var config = ChakraConfig()
    }

    public var picture = Picture()
    public var outputState = Output()
    public var frameState = Frames()
    public var light = Light()
    public var configured = Configured()
    public var uptime = 0.0
    /// How this process started: fresh, or continuing a previous one.
    public var start = StartReport.fresh
    /// Monotonic time of publishing (uptime moves on from here).
    public var publishedAt = 0.0
    /// Breathing sessions and errors since start.
    public var sessions = SessionCounts()
    public var errors = ErrorCounts()

    // The fields by their old flat names: what the wire coding, `get`,
    // the metrics and the tests read.
    public var scene: String { get { picture.scene } set { picture.scene = newValue } }
    public var settings: RenderSettings { get { picture.settings } set { picture.settings = newValue } }
    public var paused: Bool { get { picture.paused } set { picture.paused = newValue } }
    public var still: Bool { get { picture.still } set { picture.still = newValue } }
    public var spiral: SpiralReport? { get { picture.spiral } set { picture.spiral = newValue } }
    public var output: String { get { outputState.summary } set { outputState.summary = newValue } }
    public var width: Int { get { outputState.width } set { outputState.width = newValue } }
    public var height: Int { get { outputState.height } set { outputState.height = newValue } }
    public var refreshRate: Double? { get { outputState.refreshRate } set { outputState.refreshRate = newValue } }
    public var rotation: Int { get { outputState.rotation } set { outputState.rotation = newValue } }
    public var vtActive: Bool { get { outputState.vtActive } set { outputState.vtActive = newValue } }
    public var waitingForDisplay: Bool { get { outputState.waitingForDisplay } set { outputState.waitingForDisplay = newValue } }
    public var inputDevices: [String] { get { outputState.inputDevices } set { outputState.inputDevices = newValue } }
    public var frames: FrameProgress { get { frameState.progress } set { frameState.progress = newValue } }
    public var framesDueSince: Double? { get { frameState.dueSince } set { frameState.dueSince = newValue } }
    public var fps: Double { get { frameState.fps } set { frameState.fps = newValue } }
    public var fpsTarget: Double { get { frameState.fpsTarget } set { frameState.fpsTarget = newValue } }
    public var frameTimes: FrameTimes.Summary { get { frameState.drawTimes } set { frameState.drawTimes = newValue } }
    public var touchLatency: FrameTimes.Summary { get { frameState.touchLatency } set { frameState.touchLatency = newValue } }
    public var brightness: Int? { get { light.brightness } set { light.brightness = newValue } }
    public var backlight: String? { get { light.backlight } set { light.backlight = newValue } }
    public var power: PowerState { get { light.power } set { light.power = newValue } }
    public var display: DisplayPowerStatus { get { light.display } set { light.display = newValue } }
    public var schedule: ScheduleStatus? { get { light.schedule } set { light.schedule = newValue } }
    public var language: String { get { configured.language } set { configured.language = newValue } }
    public var configFile: String? { get { configured.file } set { configured.file = newValue } }
    public var configFiles: [String] { get { configured.files } set { configured.files = newValue } }
    public var configuration: ChakraConfig { get { configured.config } set { configured.config = newValue } }

    public init() {}

    /// What is known before the first frame: the configuration (so that
    /// `get` and `status` answer right from the start).
    init(starting configuration: DaemonConfiguration, at now: Double) {
        scene = configuration.scene
        settings = configuration.settings
        rotation = configuration.rotation.rawValue
        language = configuration.config.text.language
        configFile = configuration.source.path
        configFiles = configuration.configFiles
        self.configuration = configuration.config
        publishedAt = now
        // The first frame is due from the start (health's grace runs from here).
        framesDueSince = now
    }

    /// The first word of the output summary: drm, fbdev, headless.
    public var outputKind: String { String(output.split(separator: " ").first ?? "") }

    /// The device node in the output summary, if any.
    public var device: String? {
        output.split(separator: " ").first { $0.hasPrefix("/dev/") }.map { String($0.hasSuffix(",") ? $0.dropLast() : $0) }
    }

    /// "1280x720" or "1920x1080@60".
    public var mode: String {
        let size = "\(width)x\(height)"
        guard let hz = refreshRate, hz > 0 else { return size }
        let rounded = (hz * 100).rounded() / 100
        return size + "@" + (rounded == rounded.rounded() ? "\(Int(rounded))" : "\(rounded)")
    }

    /// The STATUS= line: "heart, 59.9 fps — drm /dev/dri/card0 Virtual-1 ...".
    public var line: String {
        var state = format1(fps) + " fps"
        if paused { state = "paused" } else if !vtActive { state = "VT switched away" } else if still { state = "still" }
        if display.screen.power == .off { state = "display " + display.summary }
        let modes = [settings.reduceMotion ? "reduce-motion" : nil, settings.lowPower ? "low-power" : nil].compactMap { $0 }
        return "\(scene)\(modes.isEmpty ? "" : " (" + modes.joined(separator: ", ") + ")"), \(state) — \(output)"
    }

    /// key=value lines for --stats-file.
    public var keyValues: String {
        """
        scene=\(scene)
        output=\(output)
        size=\(width)x\(height)
        frames=\(frames.presented)
        fps=\(format1(fps))
        paused=\(paused)
        still=\(still)
        vt_active=\(vtActive)
        reduce_motion=\(settings.reduceMotion)
        low_power=\(settings.lowPower)
        display_power=\(display.screen.power.rawValue)
        display_reason=\(display.screen.reason?.rawValue ?? "")
        display_check=\(display.check)
        uptime=\(format1(uptime))

        """
    }

    private func format1(_ value: Double) -> String {
        let tenths = (value * 10).rounded()
        return "\(Int(tenths) / 10).\(abs(Int(tenths)) % 10)"
    }
}
