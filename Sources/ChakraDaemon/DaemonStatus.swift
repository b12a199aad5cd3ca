import ChakraConfig
import ChakraScenes

/// What the daemon is doing, for `status`, `get` and STATUS=. Published by
/// the loop on every change and every couple of seconds while animating.
public struct DaemonStatus: Sendable, Equatable {
    public var scene = ""
    public var output = ""
    /// The screen's size in pixels (memory, before rotation).
    public var width = 0, height = 0
    /// The display's refresh in Hz, when it has one.
    public var refreshRate: Double?
    public var rotation = 0
    public var settings = RenderSettings()
    public var paused = false
    /// Every frame is the same (reduce motion): one was shown, no more.
    public var still = false
    public var vtActive = true
    /// Frames presented, the last one's time, the last stall. In the
    /// published copy as of publishing; `DaemonControl.status(at:)` lays
    /// the loop's live values over it.
    public var frames = FrameProgress()
    /// Since when frames have been due without a break (monotonic): from
    /// start, the screen powered up, the VT back, the display plugged in,
    /// the scene moving again; nil while none are due by design (a still
    /// or paused picture, the screen off, the VT away, the display
    /// unplugged). Health measures a frame's lateness from the later of
    /// this and the last frame.
    public var framesDueSince: Double?
    /// The display is unplugged and the output waits for it.
    public var waitingForDisplay = false
    public var fps = 0.0
    /// The spiral exercise, when it is the scene.
    public var spiral: SpiralReport?
    /// The touchscreens in use.
    public var inputDevices: [String] = []
    /// From a touch's event time to the frame showing it on screen (ms).
    public var touchLatency = FrameTimes.Summary()
    /// The pacer's rate: the cap, or the display's refresh.
    public var fpsTarget = 0.0
    /// Milliseconds to draw a frame over the last frames (`FrameTimes`).
    public var frameTimes = FrameTimes.Summary()
    public var uptime = 0.0
    /// Monotonic time of publishing (uptime moves on from here).
    public var publishedAt = 0.0
    public var language = "en"
    /// Percent, when there is a backlight.
    public var brightness: Int?
    public var backlight: String?
    public var power = PowerState.normal
    /// The screen: on, dimmed or off, why, and the read-back.
    public var display = DisplayPowerStatus()
    /// Opening hours now; nil without a schedule.
    public var schedule: ScheduleStatus?
    public var configFile: String?
    /// Every file the configuration in force was read from, drop-ins included.
    public var configFiles: [String] = []
    /// The configuration in force, run-time changes included (`get`).
    public var configuration = ChakraConfig()
    /// Breathing sessions and errors since start.
    public var sessions = SessionCounts()
    public var errors = ErrorCounts()

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
