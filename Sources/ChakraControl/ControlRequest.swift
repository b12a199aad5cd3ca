/// One request line, read: `{"id": 7, "cmd": "switch", "scene": "heart"}`.
public struct ControlRequest: Sendable, Equatable {
    /// Echoed in the reply: a number or a string, or nil when not given.
    public var id: JSONValue?
    public var command: ControlCommand

    public init(id: JSONValue? = nil, _ command: ControlCommand) {
        (self.id, self.command) = (id, command)
    }
}

/// The commands of protocol version 1 (docs/protocol.md).
public enum ControlCommand: Sendable, Equatable {
    case ping
    case version
    case status
    case scenes
    case switchScene(SceneSwitch)
    case set(Setting)
    case get(key: String)
    case reload
    case pause
    case resume
    case snapshot
    /// Counts as activity: undims and unblanks the screen (idle timers).
    case wake
    /// `pattern`: a breathing pattern for the exercise `start` begins
    /// (only with start; nil: the configured one).
    case spiral(SpiralAction, pattern: String? = nil)
    /// The screen by hand (`off`, `on`) or following the schedule (`auto`).
    case display(DisplayPowerMode)
    /// Today's opening hours, the state and the next change.
    case schedule
    /// Whether frames reach the screen (or it is dark on purpose).
    case health
    /// A touch, as if from the touchscreen (tools, tests, a demo from afar).
    case touch(TouchRequest)
    /// What the breathing-session records say: counts, completion rate,
    /// minutes breathed, per day.
    case stats(StatsQuery)
    /// Events from now on; nil: every kind.
    case subscribe(events: [EventKind]?)
    case unsubscribe

    /// The name on the wire.
    public var name: String {
        switch self {
        case .ping: "ping"
        case .version: "version"
        case .status: "status"
        case .scenes: "scenes"
        case .switchScene: "switch"
        case .set: "set"
        case .get: "get"
        case .reload: "reload"
        case .pause: "pause"
        case .resume: "resume"
        case .snapshot: "snapshot"
        case .wake: "wake"
        case .spiral: "spiral"
        case .display: "display"
        case .schedule: "schedule"
        case .health: "health"
        case .touch: "touch"
        case .stats: "stats"
        case .subscribe: "subscribe"
        case .unsubscribe: "unsubscribe"
        }
    }

    /// Every command and the arguments it takes, beside "id" and "cmd".
    public static let arguments: [(command: String, arguments: [String])] = [
        ("ping", []), ("version", []), ("status", []), ("scenes", []),
        ("switch", ["scene", "transition", "duration"]),
        ("set", ["key", "value"]), ("get", ["key"]),
        ("reload", []), ("pause", []), ("resume", []), ("snapshot", []), ("wake", []),
        ("spiral", ["action", "pattern"]), ("display", ["mode"]), ("schedule", []), ("health", []),
        ("touch", ["phase", "x", "y", "contact"]), ("stats", ["since"]),
        ("subscribe", ["events"]), ("unsubscribe", []),
    ]

    public static var names: [String] { arguments.map(\.command) }
}

public struct SceneSwitch: Sendable, Equatable {
    public var scene: String
    /// nil: the daemon's configured default.
    public var transition: TransitionKind?
    /// Seconds of the transition; nil: the configured default.
    public var duration: Double?

    public init(scene: String, transition: TransitionKind? = nil, duration: Double? = nil) {
        (self.scene, self.transition, self.duration) = (scene, transition, duration)
    }

    /// Longest transition accepted, in seconds.
    public static let maxDuration = 60.0
}

/// How one scene gives way to another: at once, or mixed over a spring
/// (the protocol's `transition`, and [scene] transition in chakra.toml).
public enum TransitionKind: String, Sendable, CaseIterable {
    case cut, crossfade
}

/// What `set` changes at run time.
public enum Setting: Sendable, Equatable {
    case reduceMotion(Bool)
    case lowPower(Bool)
    case language(String)
    /// Percent of the backlight's maximum, 0...100.
    case brightness(Int)

    /// The keys as written on the wire ("reduce_motion" is accepted too).
    public static let keys = ["reduce-motion", "low-power", "language", "brightness"]

    public var key: String {
        switch self {
        case .reduceMotion: "reduce-motion"
        case .lowPower: "low-power"
        case .language: "language"
        case .brightness: "brightness"
        }
    }

    public var value: JSONValue {
        switch self {
        case .reduceMotion(let on), .lowPower(let on): .bool(on)
        case .language(let code): .string(code)
        case .brightness(let percent): .int(percent)
        }
    }
}

public enum SpiralAction: String, Sendable, CaseIterable {
    /// Show the exercise (crossfading from an ambient scene) at Idle,
    /// optionally with another breathing pattern for that one exercise.
    case start
    /// Back to Idle (and to the ambient scene it was started from).
    case cancel
    /// The path's points in screen pixels.
    case path
}

/// `display`: the screen by hand, or following the schedule.
public enum DisplayPowerMode: String, Sendable, CaseIterable {
    /// Follow the schedule (and the idle timers).
    case auto
    /// On, whatever the schedule says, until its next change.
    case on
    /// Off, whatever the schedule says, until its next change (for good,
    /// with no schedule).
    case off
}

/// The kinds of events a subscriber can ask for.
public enum EventKind: String, Sendable, CaseIterable {
    /// Another scene is shown.
    case sceneChanged = "scene_changed"
    /// reduce-motion, low-power, language or brightness changed.
    case settingsChanged = "settings_changed"
    /// The output changed: size, unplugged, plugged in, VT switched.
    case displayChanged = "display_changed"
    /// Paused or resumed.
    case playbackChanged = "playback_changed"
    /// Dimmed, blanked, or back to normal (idle timers, `wake`).
    case powerChanged = "power_changed"
    /// The configuration file was read again.
    case configReloaded = "config_reloaded"
    /// The spiral exercise changed state (`from`, `to`).
    case spiralState = "spiral_state"
    /// The spiral's progress, at most five times a second while it moves.
    case spiralProgress = "spiral_progress"
    /// The screen went on, dimmed or off (why, until when), or the hand
    /// took it or gave it back to the schedule.
    case displayPower = "display_power"
    /// One part of the display chain read back after powering it: dark
    /// (or lit) as planned, or the attempt failed.
    case displayCheck = "display_check"
    /// The schedule moved to another window, or outside them.
    case scheduleChanged = "schedule_changed"
    /// A breathing exercise ended and its record is on disk (or could not
    /// be written: `recorded` false).
    case sessionFinished = "session_finished"
}

/// `touch`: one contact's down, move or lift, in the frame's pixels as a
/// person sees it (the coordinates `spiral path` gives).
public struct TouchRequest: Sendable, Equatable {
    public enum Phase: String, Sendable, CaseIterable {
        case down, move, up, cancel
    }

    public var phase: Phase
    /// Which finger, 0..<maxContacts; separate from the touchscreen's own.
    public var contact: Int
    /// Required for down and move; ignored for up and cancel.
    public var x: Double?, y: Double?

    public init(phase: Phase, contact: Int = 0, x: Double? = nil, y: Double? = nil) {
        (self.phase, self.contact, self.x, self.y) = (phase, contact, x, y)
    }

    public static let maxContacts = 10
    /// Coordinates beyond this are refused (no screen is that large).
    public static let maxCoordinate = 100_000.0
}

/// `stats`: which days to count.
public struct StatsQuery: Sendable, Equatable {
    /// The first local day counted; nil: every record kept.
    public var since: Day?

    public init(since: Day? = nil) { self.since = since }

    /// A calendar day as the protocol writes it, "2026-11-26".
    public struct Day: Sendable, Equatable, CustomStringConvertible {
        public var year: Int, month: Int, day: Int

        public init?(year: Int, month: Int, day: Int) {
            guard (1970...9999).contains(year), (1...12).contains(month),
                  (1...Self.days(inMonth: month, year: year)).contains(day) else { return nil }
            (self.year, self.month, self.day) = (year, month, day)
        }

        /// "YYYY-MM-DD", a real date; nil otherwise.
        public init?(_ text: String) {
            let parts = text.split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
                  parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
                  let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]) else { return nil }
            self.init(year: y, month: m, day: d)
        }

        public var description: String {
            func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
            return "\(year)-\(two(month))-\(two(day))"
        }

        static func days(inMonth month: Int, year: Int) -> Int {
            switch month {
            case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
            case 4, 6, 9, 11: 30
            default: 31
            }
        }
    }
}
