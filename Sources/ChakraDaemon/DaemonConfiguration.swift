import ChakraDisplay
import ChakraRaster
import ChakraScenes

/// Everything `chakrad run` is told, with its defaults. Built from the
/// command line now; the configuration file (next issue) fills the same
/// struct in one place.
public struct DaemonConfiguration: Sendable {
    public var output: OutputKind = .auto
    public var outputOptions = OutputOptions()
    /// Turns frames clockwise for portrait kiosks, in the final pass.
    public var rotation: Rotation = .none
    public var scene = "heart"
    /// Frame-rate cap; nil: the display's refresh (60 with no display).
    public var fps: Double?
    /// The cap in low-power mode (SPEC §4: configurable, default 20).
    public var lowPowerFPS = 20.0
    public var settings = RenderSettings()
    /// Render threads (the scene's worker pool).
    public var threads = 1
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
    /// Accepted and kept; read once the configuration file exists.
    public var configFile: String?

    public init() {}

    /// The cap to pace by: low power lowers it to `lowPowerFPS` unless an
    /// even lower --fps was asked.
    public var effectiveFPSCap: Double? {
        guard settings.lowPower else { return fps }
        return min(fps ?? lowPowerFPS, lowPowerFPS)
    }
}
