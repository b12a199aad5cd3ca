import ChakraControl
import ChakraSchedule

/// Everything /etc/chakra/chakra.toml can say, with the defaults that apply
/// when it says nothing (docs/configuration.md). Built from the file in one place
/// (`ConfigKeys`, which lists every key), overridden by the command line
/// (`ConfigOverrides`), and handed to the daemon whole. A value type: a
/// reload builds a new one and the old one stays until it is valid.
///
/// etc/chakra/chakra.toml in the repository documents every key with these
/// defaults; a test checks that it parses to exactly `ChakraConfig()`.
public struct ChakraConfig: Sendable, Equatable {
    public var display = Display()
    public var input = Input()
    public var render = Render()
    public var scene = Scene()
    /// Non-essential motion stops; every scene shows a still frame
    /// (docs/design.md, Reduce motion).
    public var reduceMotion = false
    public var lowPower = LowPower()
    public var spiral = Spiral()
    public var text = Text()
    public var control = Control()
    public var metrics = Metrics()
    public var sessions = Sessions()
    /// Opening hours ([schedule], `ScheduleConfig`); nil: none, the screen
    /// is always on.
    public var schedule: Schedule?

    public init() {}

    public struct Display: Sendable, Equatable {
        public var output: OutputChoice = .auto
        /// Device node for drm or fbdev; nil: the first that works.
        public var device: String?
        /// DRM connector name (HDMI-A-1); nil: the first connected one.
        public var connector: String?
        /// nil: the display's preferred mode.
        public var mode: DisplayModeSetting?
        /// Degrees clockwise: 0, 90, 180 or 270.
        public var rotation = 0
        /// Frame-rate cap; nil: the display's refresh.
        public var fps: Double?
        public var vt: VirtualTerminalChoice = .auto
        /// Backlight under /sys/class/backlight: nil picks the first one,
        /// `.disabled` ("none") never touches one.
        public var backlight: BacklightChoice = .auto
        /// The HDMI-CEC adapter that puts the TV in standby and wakes it:
        /// the first /dev/cec* there is (`.auto`), none, or a path.
        public var cec: CECChoice = .auto
        /// Seconds a touch wakes a screen that is off by schedule or by
        /// `chakractl display off`; 0: touches do not wake it.
        public var wakeOnTouch = 0.0
        public init() {}
    }

    public struct Input: Sendable, Equatable {
        /// evdev node (an absolute path, symlinks allowed), or a device
        /// name to match (case-insensitive, part of the name will do);
        /// nil: every touchscreen found.
        public var device: String?
        /// nil: follow the display's rotation.
        public var rotation: Int?
        /// libinput's LIBINPUT_CALIBRATION_MATRIX: the first two rows of a
        /// 3×3 matrix applied to normalised coordinates.
        public var calibration: [Double] = [1, 0, 0, 0, 1, 0]
        /// EVIOCGRAB: the console and other readers see no touches.
        public var grab = true
        /// The force-feedback (FF_RUMBLE) device for the spiral's haptics.
        public var haptics: HapticsChoice = .auto
        public init() {}
    }

    public struct Render: Sendable, Equatable {
        /// Worker threads per frame; nil: every core.
        public var threads: Int?
        public init() {}
    }

    public struct Scene: Sendable, Equatable {
        public var defaultScene = "heart"
        public var transition: TransitionKind = .crossfade
        /// Seconds; the howruSmooth spring's response (motion-design-system.md).
        public var transitionDuration = 0.5
        public init() {}
    }

    public struct LowPower: Sendable, Equatable {
        public var enabled = false
        /// The frame-rate cap while low power is on (docs/design.md, Low
        /// power: default 20).
        public var fps = 20.0
        /// Percent of the normal brightness once dimmed.
        public var dimLevel = 30
        /// Idle seconds before dimming / blanking; 0: never.
        public var dimAfter = 0.0
        public var blankAfter = 0.0
        public init() {}
    }

    /// The spiral exercise's visual and action settings (docs/design.md,
    /// The spiral), in design points for lengths. The design gives the hold
    /// timings (72 s; its 6-4-8 cycle is the default breathing pattern); the
    /// other defaults are ours.
    public struct Spiral: Sendable, Equatable {
        // SpiralVisualConfig
        public var headSize = 28.0
        public var lineWidth = 14.0
        public var colorDistanceOffset = 40.0
        public var startRadius = 20.0
        public var spacing = 36.0
        public var rotations = 4.0
        // SpiralActionConfig
        /// The wished length of the Hold state; it runs whole cycles of the
        /// pattern (`BreathingPattern.holdSeconds(near:)`).
        public var holdDuration = 72.0
        /// The breathing pattern of the hold: a preset's name
        /// (`BreathingPattern.presets`) or one of `customPatterns`.
        public var pattern = BreathingPattern.defaultName
        /// [spiral.patterns.NAME] tables, in file order (one may take a
        /// preset's name and replace it).
        public var customPatterns: [BreathingPattern] = []
        /// Seconds a pattern may hold the breath (hold-in or hold-out): on
        /// a public kiosk nobody is led into a long breath-hold.
        public var maxBreathHold = 10.0
        public var hapticFeedbackDistance = 12.0
        public var hapticBeatInterval = 0.25
        // The exercise's rules (docs/design.md, The spiral).
        /// The part of the path's length traced while inhaling.
        public var inhaleFraction = 0.5
        /// Strict proximity: progress only while the finger is this close to the head.
        public var proximity = 44.0
        /// Seconds the celebration shows before returning to Idle.
        public var completionDelay = 3.0
        /// Seconds an exercise may go on with no finger on the light before
        /// it is given up (back to Idle); 0: never.
        public var abandonAfter = 120.0
        public init() {}
    }

    public struct Text: Sendable, Equatable {
        public var font = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
        public var language = "en"
        public init() {}
    }

    public struct Control: Sendable, Equatable {
        /// nil: no control socket.
        public var socket: String? = "/run/chakra/control.sock"
        /// Permission bits of the socket file.
        public var mode = 0o660
        /// Group of the socket file; nil: the daemon's own group.
        public var group: String?
        /// Connections at once. High, because a connection costs one
        /// descriptor and a few KB, and because idle ones are closed anyway
        /// (`idleTimeout`): what keeps an operator from being locked out.
        public var maxClients = 256
        /// Bytes in one request line, newline excluded.
        public var maxLine = 16384
        /// Seconds a connection may go without a request (unless it is
        /// subscribed to events or waiting for an answer) before it is closed.
        public var idleTimeout = 60.0
        public init() {}
    }

    /// Metrics for node_exporter's textfile collector: a `chakra.prom` file
    /// rewritten every `interval` seconds (no listening socket: the kiosk
    /// opens no port, and node_exporter already runs on a fleet's machines).
    public struct Metrics: Sendable, Equatable {
        /// The collector's directory; nil: no metrics file.
        public var textfileDirectory: String?
        /// Seconds between writes.
        public var interval = 15.0
        public init() {}
    }
}

extension ChakraConfig {
    /// The session log: one line per spiral exercise, kept on the disk
    /// for the operator's statistics (ChakraSessions; docs/robustness.md,
    /// Session records).
    public struct Sessions: Sendable, Equatable {
        /// nil: no sessions recorded.
        public var file: String? = "/var/lib/chakra/sessions.log"
        /// Records older than this many days are dropped.
        public var retentionDays = 365
        /// Bytes; past it the oldest records are dropped. A record is
        /// 150 to 250 bytes: the default holds about 20,000.
        public var maxSize = 4 << 20
        public init() {}

        /// Up to ten years.
        public static let retentionDaysRange = 1...3650
        /// 64 KiB (some 300 records) to 64 MiB: the file is read whole
        /// at start, and twice this is the most it may grow to while its
        /// compaction fails.
        public static let maxSizeRange = 65_536...67_108_864
    }
}

public enum OutputChoice: String, Sendable, CaseIterable {
    case auto, drm, fbdev, headless
}

/// "" (the first evdev device with FF_RUMBLE), "none", or a device path
/// or name as for `input.device`.
public enum HapticsChoice: Sendable, Equatable {
    case auto, disabled
    case device(String)
}

public enum BacklightChoice: Sendable, Equatable {
    case auto, disabled
    case named(String)
}

/// "" (the first /dev/cec* adapter, if any), "none", or a device path.
public enum CECChoice: Sendable, Equatable {
    case auto, disabled
    case device(String)
}

/// "auto" (the VT on standard input, if any), "none", or a VT number.
public enum VirtualTerminalChoice: Sendable, Equatable, CustomStringConvertible {
    // Not `none`: an optional's `.none` would be nil.
    case auto, disabled
    case number(Int)

    public init?(parsing text: String) {
        switch text.lowercased() {
        case "auto": self = .auto
        case "none": self = .disabled
        default:
            guard let n = Int(text), (1...63).contains(n) else { return nil }
            self = .number(n)
        }
    }

    public var description: String {
        switch self {
        case .auto: "auto"
        case .disabled: "none"
        case .number(let n): "\(n)"
        }
    }
}

/// "1920x1080" or "1920x1080@60" (the same grammar as `chakrad --mode`).
public struct DisplayModeSetting: Sendable, Equatable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    public var refresh: Double?

    public init(width: Int, height: Int, refresh: Double? = nil) {
        (self.width, self.height, self.refresh) = (width, height, refresh)
    }

    /// nil with the reason when `text` is not a mode.
    public static func parse(_ text: String) -> Result<DisplayModeSetting, ConfigProblem> {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        let size = parts[0].lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count <= 2, size.count == 2, let w = Int(size[0]), let h = Int(size[1]) else {
            return .failure(ConfigProblem("'\(text)' is not WIDTHxHEIGHT or WIDTHxHEIGHT@HZ (e.g. 1920x1080@60)"))
        }
        guard (1...16384).contains(w), (1...16384).contains(h) else {
            return .failure(ConfigProblem("width and height must be 1...16384 (got '\(text)')"))
        }
        guard parts.count == 2 else { return .success(DisplayModeSetting(width: w, height: h)) }
        guard let hz = Double(parts[1]), hz.isFinite, hz > 0, hz <= 1000 else {
            return .failure(ConfigProblem("the refresh must be a number of Hz in (0, 1000] (got '\(text)')"))
        }
        return .success(DisplayModeSetting(width: w, height: h, refresh: hz))
    }

    public var description: String {
        guard let refresh else { return "\(width)x\(height)" }
        return "\(width)x\(height)@" + (refresh == refresh.rounded() ? "\(Int(refresh))" : "\(refresh)")
    }
}

/// Why a value is refused, before the key and line are known.
public struct ConfigProblem: Error, Sendable, Equatable {
    public let message: String
    public init(_ message: String) { self.message = message }
}
