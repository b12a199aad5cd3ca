/// What each command answers (the `result` of an ok reply), typed: the
/// daemon builds one of these and sends its `json`; chakractl and the
/// tests read it back with `init(json:)`. Each type's `Key` enum is the one
/// place its JSON keys are spelled (docs/protocol.md describes them).
/// `ControlCommand.replyType` says which type answers which command.
///
/// Strings that name a state ("power", "transition", "display_check") stay
/// strings here, so that a newer daemon's new values still read.
extension ControlCommand {
    /// The type of the `result` this command is answered with.
    public var replyType: any JSONConvertible.Type {
        switch self {
        case .ping: PongReply.self
        case .version: VersionReply.self
        case .status: StatusReply.self
        case .scenes: ScenesReply.self
        case .switchScene: SceneSwitched.self
        case .set: SettingsState.self
        case .get: GetReply.self
        case .reload: ReloadReply.self
        case .pause, .resume: PlaybackState.self
        case .snapshot: SnapshotReply.self
        case .wake: PowerLevel.self
        case .spiral: SpiralProgress.self
        case .display: DisplayState.self
        case .schedule: ScheduleReply.self
        case .health: HealthReply.self
        case .touch: TouchReply.self
        case .stats: StatsReply.self
        case .subscribe, .unsubscribe: SubscribeReply.self
        }
    }
}

/// `ping`.
public struct PongReply: JSONConvertible {
    public var pong: Bool

    enum Key: String { case pong }

    public init(pong: Bool = true) { self.pong = pong }

    public var json: JSONValue {
        var out = FieldWriter<Key>()
        out.set(.pong, pong)
        return out.json
    }

    public init(json: JSONValue) throws(ReplyDecodingError) {
        let read = try FieldReader<Key>(json)
        pong = try read(.pong)
    }
}

/// `version`: chakrad's release and protocol.
public struct VersionReply: JSONConvertible {
    public var version: String
    public var protocolVersion: Int
    /// "chakrad".
    public var daemon: String

    enum Key: String { case version, protocolVersion = "protocol", daemon }

    public init(version: String = ChakraVersion.current, protocolVersion: Int = ControlProtocol.version, daemon: String = "chakrad") {
        (self.version, self.protocolVersion, self.daemon) = (version, protocolVersion, daemon)
    }

    public var json: JSONValue {
        var out = FieldWriter<Key>()
        out.set(.version, version)
        out.set(.protocolVersion, protocolVersion)
        out.set(.daemon, daemon)
        return out.json
    }

    public init(json: JSONValue) throws(ReplyDecodingError) {
        let read = try FieldReader<Key>(json)
        version = try read(.version)
        protocolVersion = try read(.protocolVersion)
        daemon = try read(.daemon)
    }
}

/// `status`: what chakrad shows and how well it runs. The settings' and
/// the display's fields are flat in it (as in their own replies).
public struct StatusReply: JSONConvertible {
    /// Frames a second: the pacer's target and the measured rate.
    public struct Rate: JSONConvertible {
        public var target = 0.0, actual = 0.0

        enum Key: String { case target, actual }

        public init(target: Double = 0, actual: Double = 0) { (self.target, self.actual) = (target, actual) }

        public var json: JSONValue {
            var out = FieldWriter<Key>()
            out.set(.target, target)
            out.set(.actual, actual)
            return out.json
        }

        public init(json: JSONValue) throws(ReplyDecodingError) {
            let read = try FieldReader<Key>(json)
            target = try read(.target)
            actual = try read(.actual)
        }
    }

    /// Milliseconds over the last samples: drawing a frame, a touch to the screen.
    public struct Timings: JSONConvertible {
        public var median = 0.0, p99 = 0.0
        public var samples = 0

        enum Key: String { case median, p99, samples }

        public init(median: Double = 0, p99: Double = 0, samples: Int = 0) {
            (self.median, self.p99, self.samples) = (median, p99, samples)
        }

        public var json: JSONValue {
            var out = FieldWriter<Key>()
            out.set(.median, median)
            out.set(.p99, p99)
            out.set(.samples, samples)
            return out.json
        }

        public init(json: JSONValue) throws(ReplyDecodingError) {
            let read = try FieldReader<Key>(json)
            median = try read(.median)
            p99 = try read(.p99)
            samples = try read(.samples)
        }
    }

    /// Breathing sessions since chakrad started.
    public struct Sessions: JSONConvertible {
        public var started = 0, completed = 0, abandoned = 0, recorded = 0
        public var breathedSeconds = 0.0

        enum Key: String { case started, completed, abandoned, recorded, breathedSeconds = "breathed_seconds" }

        public init(started: Int = 0, completed: Int = 0, abandoned: Int = 0, recorded: Int = 0, breathedSeconds: Double = 0) {
            (self.started, self.completed, self.abandoned) = (started, completed, abandoned)
            (self.recorded, self.breathedSeconds) = (recorded, breathedSeconds)
        }

        public var json: JSONValue {
            var out = FieldWriter<Key>()
            out.set(.started, started)
            out.set(.completed, completed)
            out.set(.abandoned, abandoned)
            out.set(.recorded, recorded)
            out.set(.breathedSeconds, breathedSeconds)
            return out.json
        }

        public init(json: JSONValue) throws(ReplyDecodingError) {
            let read = try FieldReader<Key>(json)
            started = try read(.started)
            completed = try read(.completed)
            abandoned = try read(.abandoned)
            recorded = try read(.recorded)
            breathedSeconds = try read(.breathedSeconds)
        }
    }

    public var scene = ""
    public var paused = false
    public var still = false
    /// The output's kind: drm, fbdev, headless.
    public var output = ""
    public var outputSummary = ""
    public var device: String?
    /// "1280x720" or "1920x1080@60".
    public var mode = ""
    public var width = 0, height = 0
    public var rotation = 0
    public var fps = Rate()
    public var frameTimes = Timings()
    public var sessions = Sessions()
    /// Errors since start, by kind (every kind, 0 included).
    public var errors: [String: Int] = [:]
    public var frames = 0
    public var vtActive = true
    public var backlight: String?
    /// The idle timers' power: normal, dimmed, blanked.
    public var power = ""
    public var schedule: ScheduleNow?
    public var uptime = 0.0
    public var clients = 0
    public var inputDevices: [String] = []
    public var touchLatency = Timings()
    public var spiral: SpiralProgress?
    public var configFile: String?
    public var configFiles: [String] = []
    public var version = ""
    /// Flat in the status: reduce_motion, low_power, language, brightness.
    public var settings = SettingsState()
    /// Flat in the status: display_power, display_summary, ...
    public var display = DisplayState()
    /// Flat in the status: start, start_reason.
    public var start = StartReport.fresh

    enum Key: String {
        case scene, paused, still, output, outputSummary = "output_summary", device, mode, width, height, rotation
        case fps, frameTimes = "frame_ms", sessions, errors, frames, vtActive = "vt_active", backlight, power, schedule
        case uptime, clients, inputDevices = "input_devices", touchLatency = "touch_latency_ms", spiral
        case configFile = "config_file", configFiles = "config_files", version
    }

    public init() {}

    public var json: JSONValue {
        var out = FieldWriter<Key>()
        out.set(.scene, scene)
        out.set(.paused, paused)
        out.set(.still, still)
        out.set(.output, output)
        out.set(.outputSummary, outputSummary)
        out.set(.device, device)
        out.set(.mode, mode)
        out.set(.width, width)
        out.set(.height, height)
        out.set(.rotation, rotation)
        out.set(.fps, fps)
        out.set(.frameTimes, frameTimes)
        out.set(.sessions, sessions)
        out.set(.errors, errors)
        out.set(.frames, frames)
        out.set(.vtActive, vtActive)
        out.set(.backlight, backlight)
        out.set(.power, power)
        out.set(.schedule, schedule)
        out.set(.uptime, uptime)
        out.set(.clients, clients)
        out.set(.inputDevices, inputDevices)
        out.set(.touchLatency, touchLatency)
        out.set(.spiral, spiral)
        out.set(.configFile, configFile)
        out.set(.configFiles, configFiles)
        out.set(.version, version)
        out.merge(settings)
        out.merge(display)
        out.merge(start)
        return out.json
    }

    public init(json: JSONValue) throws(ReplyDecodingError) {
        let read = try FieldReader<Key>(json)
        scene = try read(.scene)
        paused = try read(.paused)
        still = try read(.still)
        output = try read(.output)
        outputSummary = try read(.outputSummary)
        device = try read(.device)
        mode = try read(.mode)
        width = try read(.width)
        height = try read(.height)
        rotation = try read(.rotation)
        fps = try read(.fps)
        frameTimes = try read(.frameTimes)
        sessions = try read(.sessions)
        errors = try read(.errors)
        frames = try read(.frames)
        vtActive = try read(.vtActive)
        backlight = try read(.backlight)
        power = try read(.power)
        schedule = try read(.schedule)
        uptime = try read(.uptime)
        clients = try read(.clients)
        inputDevices = try read(.inputDevices)
        touchLatency = try read(.touchLatency)
        spiral = try read(.spiral)
        configFile = try read(.configFile)
        configFiles = try read(.configFiles)
        version = try read(.version)
        settings = try SettingsState(json: json)
        display = try DisplayState(json: json)
        start = try StartReport(json: json)
    }
}

/// `scenes`: every scene, and the one shown.
public struct ScenesReply: JSONConvertible {
    public var scenes: [String]
    public var current: String

    enum Key: String { case scenes, current }

    public init(scenes: [String], current: String) { (self.scenes, self.current) = (scenes, current) }

    public var json: JSONValue {
        var out = FieldWriter<Key>()
        out.set(.scenes, scenes)
        out.set(.current, current)
        return out.json
    }

    public init(json: JSONValue) throws(ReplyDecodingError) {
        let read = try FieldReader<Key>(json)
        scenes = try read(.scenes)
        current = try read(.current)
    }
}

/// `switch`, and the `scene_changed` event: the scene shown now, the one
/// before, and how it came (the defaults filled in).
public struct SceneSwitched: JSONConvertible {
    public var scene: String
    public var previous: String
    /// cut or crossfade.
    public var transition: String
    /// Seconds.
    public var duration: Double

    enum Key: String { case scene, previous, transition, duration }

    public init(scene: String, previous: String, transition: String, duration: Double) {
        (self.scene, self.previous, self.transition, self.duration) = (scene, previous, transition, duration)
    }

    public var json: JSONValue {
        var out = FieldWriter<Key>()
        out.set(.scene, scene)
        out.set(.previous, previous)
        out.set(.transition, transition)
        out.set(.duration, duration)
        return out.json
    }

    public init(json: JSONValue) throws(ReplyDecodingError) {
        let read = try FieldReader<Key>(json)
        scene = try read(.scene)
        previous = try read(.previous)
        transition = try read(.transition)
        duration = try read(.duration)
    }
}

/// `set`, the `settings_changed` event, and flat in `status`: the run-time
/// settings in force.
public struct SettingsState: JSONConvertible {
    public var reduceMotion = false
    public var lowPower = false
    public var language = "en"
    /// Percent; nil without a backlight.
    public var brightness: Int?

    enum Key: String { case reduceMotion = "reduce_motion", lowPower = "low_power", language, brightness }

    public init(reduceMotion: Bool = false, lowPower: Bool = false, language: String = "en", brightness: Int? = nil) {
        (self.reduceMotion, self.lowPower, self.language, self.brightness) = (reduceMotion, lowPower, language, brightness)
    }

    public var json: JSONValue {
        var out = FieldWriter<Key>()
        out.set(.reduceMotion, reduceMotion)
        out.set(.lowPower, lowPower)
        out.set(.language, language)
        out.set(.brightness, brightness)
        return out.json
    }

    public init(json: JSONValue) throws(ReplyDecodingError) {
        let read = try FieldReader<Key>(json)
        reduceMotion = try read(.reduceMotion)
        lowPower = try read(.lowPower)
        language = try read(.language)
        brightness = try read(.brightness)
    }
}

/// `get`: a key and its value, or a section and an object of its keys.
public struct GetReply: JSONConvertible {
    public var key: String
    /// As in chakra.toml: a boolean, number, string, array, or (a section) an object.
    public var value: JSONValue

    enum Key: String { case key, value }

    public init(key: String, value: JSONValue) { (self.key, self.value) = (key, value) }

    public var json: JSONValue {
        var out = FieldWriter<Key>()
        out.set(.key, key)
        out.set(.value, value)
        return out.json
    }

    public init(json: JSONValue) throws(ReplyDecodingError) {
        let read = try FieldReader<Key>(json)
        key = try read(.key)
        value = try read(.value)
    }
}

/// `reload`: the file read, and what changed.
public struct ReloadReply: JSONConvertible {
    public var file: String?
    public var changed: [String] = []
    /// Of those, the keys that take effect after a restart.
    public var restartNeeded: [String] = []
    /// Of those, the keys chakrad's command line decides (the file's value is not used).
    public var ignored: [String] = []
    public var warnings: [String] = []

    enum Key: String { case file, changed, restartNeeded = "restart_needed", ignored, warnings }

    public init(file: String?, changed: [String] = [], restartNeeded: [String] = [], ignored: [String] = [], warnings: [String] = []) {
        (self.file, self.changed, self.restartNeeded) = (file, changed, restartNeeded)
        (self.ignored, self.warnings) = (ignored, warnings)
    }

    public var json: JSONValue {
        var out = FieldWriter<Key>()
        out.set(.file, file)
        out.set(.changed, changed)
        out.set(.restartNeeded, restartNeeded)
        out.set(.ignored, ignored)
        out.set(.warnings, warnings)
        return out.json
    }

    public init(json: JSONValue) throws(ReplyDecodingError) {
        let read = try FieldReader<Key>(json)
        file = try read(.file)
        changed = try read(.changed)
        restartNeeded = try read(.restartNeeded)
        ignored = try read(.ignored)
        warnings = try read(.warnings)
    }
}

/// `pause`, `resume`, and the `playback_changed` event.
public struct PlaybackState: JSONConvertible {
    public var paused: Bool

    enum Key: String { case paused }

    public init(paused: Bool) { self.paused = paused }

    public var json: JSONValue {
        var out = FieldWriter<Key>()
        out.set(.paused, paused)
        return out.json
    }

    public init(json: JSONValue) throws(ReplyDecodingError) {
        let read = try FieldReader<Key>(json)
        paused = try read(.paused)
    }
}

/// `wake`, and the `power_changed` event: the idle timers' power.
public struct PowerLevel: JSONConvertible {
    /// normal, dimmed or blanked.
    public var power: String

    enum Key: String { case power }

    public init(power: String) { self.power = power }

    public var json: JSONValue {
        var out = FieldWriter<Key>()
        out.set(.power, power)
        return out.json
    }

    public init(json: JSONValue) throws(ReplyDecodingError) {
        let read = try FieldReader<Key>(json)
        power = try read(.power)
    }
}

/// `snapshot`: the frame on screen as a PNG, base64.
public struct SnapshotReply: JSONConvertible {
    /// "png".
    public var format: String
    public var width: Int, height: Int
    /// The PNG file's bytes, base64.
    public var png: String

    enum Key: String { case format, width, height, png }

    public init(format: String = "png", width: Int, height: Int, png: String) {
        (self.format, self.width, self.height, self.png) = (format, width, height, png)
    }

    public var json: JSONValue {
        var out = FieldWriter<Key>()
        out.set(.format, format)
        out.set(.width, width)
        out.set(.height, height)
        out.set(.png, png)
        return out.json
    }

    public init(json: JSONValue) throws(ReplyDecodingError) {
        let read = try FieldReader<Key>(json)
        format = try read(.format)
        width = try read(.width)
        height = try read(.height)
        png = try read(.png)
    }
}

/// What `chakractl snapshot --json` prints once the PNG is written (the
/// file instead of its bytes).
public struct SnapshotSaved: JSONConvertible {
    public var file: String
    public var width: Int, height: Int
    public var format: String

    enum Key: String { case file, width, height, format }

    public init(file: String, width: Int, height: Int, format: String = "png") {
        (self.file, self.width, self.height, self.format) = (file, width, height, format)
    }

    public var json: JSONValue {
        var out = FieldWriter<Key>()
        out.set(.file, file)
        out.set(.width, width)
        out.set(.height, height)
        out.set(.format, format)
        return out.json
    }

    public init(json: JSONValue) throws(ReplyDecodingError) {
        let read = try FieldReader<Key>(json)
        file = try read(.file)
        width = try read(.width)
        height = try read(.height)
        format = try read(.format)
    }
}

/// `spiral`, the `spiral_progress` event, and `status`'s `spiral`: the
/// exercise's state. Lengths are screen pixels of the frame as seen.
public struct SpiralProgress: JSONConvertible {
    public struct Point: JSONConvertible {
        public var x = 0.0, y = 0.0

        enum Key: String { case x, y }

        public init(x: Double = 0, y: Double = 0) { (self.x, self.y) = (x, y) }

        public var json: JSONValue {
            var out = FieldWriter<Key>()
            out.set(.x, x)
            out.set(.y, y)
            return out.json
        }

        public init(json: JSONValue) throws(ReplyDecodingError) {
            let read = try FieldReader<Key>(json)
            x = try read(.x)
            y = try read(.y)
        }
    }

    public var state = ""
    /// Of the path's length, 0–1.
    public var progress = 0.0
    public var holdRemaining = 0.0
    public var head = Point()
    public var touching = false
    public var needsResume = false
    public var pattern = ""
    /// During Hold: in, hold-in, out or hold-out.
    public var phase: String?
    /// The path's points, [x, y] each (`spiral path` only; absent otherwise).
    public var points: [[Double]]?

    enum Key: String {
        case state, progress, holdRemaining = "hold_remaining", head, touching, needsResume = "needs_resume", pattern, phase, points
    }

    public init() {}

    public var json: JSONValue {
        var out = FieldWriter<Key>()
        out.set(.state, state)
        out.set(.progress, progress)
        out.set(.holdRemaining, holdRemaining)
        out.set(.head, head)
        out.set(.touching, touching)
        out.set(.needsResume, needsResume)
        out.set(.pattern, pattern)
        out.set(.phase, phase)
        out.set(.points, ifPresent: points)
        return out.json
    }

    public init(json: JSONValue) throws(ReplyDecodingError) {
        let read = try FieldReader<Key>(json)
        state = try read(.state)
        progress = try read(.progress)
        holdRemaining = try read(.holdRemaining)
        head = try read(.head)
        touching = try read(.touching)
        needsResume = try read(.needsResume)
        pattern = try read(.pattern)
        phase = try read(.phase)
        points = try read(.points)
    }
}

/// `display`, the `display_power` event, and flat in `status` and
/// `schedule`: the screen, why, until when, and the read-back.
public struct DisplayState: JSONConvertible {
    /// on, dimmed or off.
    public var power = "on"
    /// manual, schedule, idle, touch, exercise; "" when on as normal.
    public var reason = ""
    /// auto, on or off.
    public var mode = "auto"
    /// Local ISO 8601; nil when nothing ends it.
    public var until: String?
    /// "off by schedule until 07:30".
    public var summary = "on"
    /// confirmed, failed, unchecked; "" before any read-back.
    public var check = ""
    public var checkDetail = ""

    enum Key: String {
        case power = "display_power", reason = "display_reason", mode = "display_mode", until = "display_until"
        case summary = "display_summary", check = "display_check", checkDetail = "display_check_detail"
    }

    public init() {}

    public var json: JSONValue {
        var out = FieldWriter<Key>()
        out.set(.power, power)
        out.set(.reason, reason)
        out.set(.mode, mode)
        out.set(.until, until)
        out.set(.summary, summary)
        out.set(.check, check)
        out.set(.checkDetail, checkDetail)
        return out.json
    }

    public init(json: JSONValue) throws(ReplyDecodingError) {
        let read = try FieldReader<Key>(json)
        power = try read(.power)
        reason = try read(.reason)
        mode = try read(.mode)
        until = try read(.until)
        summary = try read(.summary)
        check = try read(.check)
        checkDetail = try read(.checkDetail)
    }
}

/// The schedule now: `status`'s `schedule`, `schedule`'s `now`, and the
/// `schedule_changed` event.
public struct ScheduleNow: JSONConvertible {
    /// "heart", "off", "dim", "low-power".
    public var action: String
    /// "window 2", "date 1", or "outside".
    public var window: String
    /// Local ISO 8601; nil when nothing changes within eight days.
    public var nextChange: String?
    public var nextAction: String?

    enum Key: String { case action, window, nextChange = "next_change", nextAction = "next_action" }

    public init(action: String, window: String, nextChange: String? = nil, nextAction: String? = nil) {
        (self.action, self.window, self.nextChange, self.nextAction) = (action, window, nextChange, nextAction)
    }

    public var json: JSONValue {
        var out = FieldWriter<Key>()
        out.set(.action, action)
        out.set(.window, window)
        out.set(.nextChange, nextChange)
        out.set(.nextAction, nextAction)
        return out.json
    }

    public init(json: JSONValue) throws(ReplyDecodingError) {
        let read = try FieldReader<Key>(json)
        action = try read(.action)
        window = try read(.window)
        nextChange = try read(.nextChange)
        nextAction = try read(.nextAction)
    }
}

/// `schedule`: today's windows, what is outside them, the state now, and
/// the screen (its fields flat, as in `display`).
public struct ScheduleReply: JSONConvertible {
    public struct Run: JSONConvertible {
        /// Local ISO 8601.
        public var start: String, end: String
        /// "07:30".
        public var startClock: String, endClock: String
        public var action: String
        public var window: String

        enum Key: String { case start, end, startClock = "start_clock", endClock = "end_clock", action, window }

        public init(start: String, end: String, startClock: String, endClock: String, action: String, window: String) {
            (self.start, self.end, self.startClock, self.endClock) = (start, end, startClock, endClock)
            (self.action, self.window) = (action, window)
        }

        public var json: JSONValue {
            var out = FieldWriter<Key>()
            out.set(.start, start)
            out.set(.end, end)
            out.set(.startClock, startClock)
            out.set(.endClock, endClock)
            out.set(.action, action)
            out.set(.window, window)
            return out.json
        }

        public init(json: JSONValue) throws(ReplyDecodingError) {
            let read = try FieldReader<Key>(json)
            start = try read(.start)
            end = try read(.end)
            startClock = try read(.startClock)
            endClock = try read(.endClock)
            action = try read(.action)
            window = try read(.window)
        }
    }

    /// Local date, "2026-11-26".
    public var date = ""
    public var weekday = ""
    public var runs: [Run] = []
    public var outside = ""
    /// nil: no wall clock yet.
    public var now: ScheduleNow?
    public var display = DisplayState()

    enum Key: String { case date, weekday, runs, outside, now }

    public init() {}

    public var json: JSONValue {
        var out = FieldWriter<Key>()
        out.set(.date, date)
        out.set(.weekday, weekday)
        out.set(.runs, runs)
        out.set(.outside, outside)
        out.set(.now, now)
        out.merge(display)
        return out.json
    }

    public init(json: JSONValue) throws(ReplyDecodingError) {
        let read = try FieldReader<Key>(json)
        date = try read(.date)
        weekday = try read(.weekday)
        runs = try read(.runs)
        outside = try read(.outside)
        now = try read(.now)
        display = try DisplayState(json: json)
    }
}

/// `health`: whether frames reach the screen (or it is dark on purpose).
public struct HealthReply: JSONConvertible {
    public var healthy: Bool
    public var reason: String
    /// Seconds since the last frame reached the screen; nil before the first.
    public var lastFrameAge: Double?

    enum Key: String { case healthy, reason, lastFrameAge = "last_frame_age" }

    public init(healthy: Bool, reason: String, lastFrameAge: Double? = nil) {
        (self.healthy, self.reason, self.lastFrameAge) = (healthy, reason, lastFrameAge)
    }

    public var json: JSONValue {
        var out = FieldWriter<Key>()
        out.set(.healthy, healthy)
        out.set(.reason, reason)
        out.set(.lastFrameAge, lastFrameAge)
        return out.json
    }

    public init(json: JSONValue) throws(ReplyDecodingError) {
        let read = try FieldReader<Key>(json)
        healthy = try read(.healthy)
        reason = try read(.reason)
        lastFrameAge = try read(.lastFrameAge)
    }
}

/// `touch`: the contact as taken.
public struct TouchReply: JSONConvertible {
    /// down, move, up or cancel.
    public var phase: String
    public var contact: Int

    enum Key: String { case phase, contact }

    public init(phase: String, contact: Int) { (self.phase, self.contact) = (phase, contact) }

    public var json: JSONValue {
        var out = FieldWriter<Key>()
        out.set(.phase, phase)
        out.set(.contact, contact)
        return out.json
    }

    public init(json: JSONValue) throws(ReplyDecodingError) {
        let read = try FieldReader<Key>(json)
        phase = try read(.phase)
        contact = try read(.contact)
    }
}

/// `stats`: what the breathing-session records say.
public struct StatsReply: JSONConvertible {
    /// Counts over some sessions: the total's, or a day's.
    public struct Counts: JSONConvertible {
        public var started = 0, completed = 0, abandoned = 0
        /// Completed of started, 0...1 (to 4 places); nil with no session.
        public var completionRate: Double?
        /// Unrounded: whoever shows it rounds it, once.
        public var minutesBreathed = 0.0

        enum Key: String {
            case started, completed, abandoned, completionRate = "completion_rate", minutesBreathed = "minutes_breathed"
        }

        public init(started: Int = 0, completed: Int = 0, abandoned: Int = 0, completionRate: Double? = nil, minutesBreathed: Double = 0) {
            (self.started, self.completed, self.abandoned) = (started, completed, abandoned)
            (self.completionRate, self.minutesBreathed) = (completionRate, minutesBreathed)
        }

        public var json: JSONValue {
            var out = FieldWriter<Key>()
            out.set(.started, started)
            out.set(.completed, completed)
            out.set(.abandoned, abandoned)
            out.set(.completionRate, completionRate)
            out.set(.minutesBreathed, minutesBreathed)
            return out.json
        }

        public init(json: JSONValue) throws(ReplyDecodingError) {
            let read = try FieldReader<Key>(json)
            started = try read(.started)
            completed = try read(.completed)
            abandoned = try read(.abandoned)
            completionRate = try read(.completionRate)
            minutesBreathed = try read(.minutesBreathed)
        }
    }

    /// One local day's counts, flat beside its date.
    public struct Day: JSONConvertible {
        /// "2026-11-26".
        public var date: String
        public var counts: Counts

        enum Key: String { case date }

        public init(date: String, counts: Counts) { (self.date, self.counts) = (date, counts) }

        public var json: JSONValue {
            var out = FieldWriter<Key>()
            out.merge(counts)
            out.set(.date, date)
            return out.json
        }

        public init(json: JSONValue) throws(ReplyDecodingError) {
            let read = try FieldReader<Key>(json)
            date = try read(.date)
            counts = try Counts(json: json)
        }
    }

    /// The records' file; nil when sessions are not recorded.
    public var file: String?
    public var recording = false
    /// The first day counted, as asked; nil: every record kept.
    public var since: String?
    /// Why the records cannot be used; nil when they can.
    public var problem: String?
    /// Damaged lines skipped.
    public var damaged = 0
    /// The first day on record; nil with none.
    public var firstDay: String?
    public var total = Counts()
    /// Days with a session, oldest first.
    public var days: [Day] = []
    /// Sessions per breathing pattern.
    public var patterns: [String: Int] = [:]

    enum Key: String { case file, recording, since, problem, damaged, firstDay = "first_day", total, days, patterns }

    public init() {}

    public var json: JSONValue {
        var out = FieldWriter<Key>()
        out.set(.file, file)
        out.set(.recording, recording)
        out.set(.since, since)
        out.set(.problem, problem)
        out.set(.damaged, damaged)
        out.set(.firstDay, firstDay)
        out.set(.total, total)
        out.set(.days, days)
        out.set(.patterns, patterns)
        return out.json
    }

    public init(json: JSONValue) throws(ReplyDecodingError) {
        let read = try FieldReader<Key>(json)
        file = try read(.file)
        recording = try read(.recording)
        since = try read(.since)
        problem = try read(.problem)
        damaged = try read(.damaged)
        firstDay = try read(.firstDay)
        total = try read(.total)
        days = try read(.days)
        patterns = try read(.patterns)
    }
}

/// `subscribe` (the kinds subscribed to) and `unsubscribe` (no `events`).
public struct SubscribeReply: JSONConvertible {
    public var subscribed: Bool
    public var events: [String]?

    enum Key: String { case subscribed, events }

    public init(subscribed: Bool, events: [String]? = nil) { (self.subscribed, self.events) = (subscribed, events) }

    public var json: JSONValue {
        var out = FieldWriter<Key>()
        out.set(.subscribed, subscribed)
        out.set(.events, ifPresent: events)
        return out.json
    }

    public init(json: JSONValue) throws(ReplyDecodingError) {
        let read = try FieldReader<Key>(json)
        subscribed = try read(.subscribed)
        events = try read(.events)
    }
}

/// Flat in `status`: how this chakrad process started (issue 30,
/// docs/seams.md). `start`: `fresh` (nothing from a previous process),
/// `restarted` (systemd passed the last process's state and screen: the
/// picture was kept), `restarted-without-picture` (a previous process left
/// something, but the picture could not be kept); `start_reason` says why
/// not, and is null otherwise.
public struct StartReport: JSONConvertible, Equatable, Sendable {
    public enum Kind: String, Sendable, CaseIterable {
        case fresh, restarted
        case restartedWithoutPicture = "restarted-without-picture"
    }

    public var kind: Kind
    /// Why the picture was not kept (`restartedWithoutPicture` only).
    public var reason: String?

    enum Key: String { case kind = "start", reason = "start_reason" }

    public init(kind: Kind = .fresh, reason: String? = nil) { (self.kind, self.reason) = (kind, reason) }

    public static let fresh = StartReport()

    /// "fresh", "restarted", "restarted-without-picture (no drm descriptor)".
    public var summary: String { reason.map { "\(kind.rawValue) (\($0))" } ?? kind.rawValue }

    public var json: JSONValue {
        var out = FieldWriter<Key>()
        out.set(.kind, kind.rawValue)
        out.set(.reason, reason)
        return out.json
    }

    public init(json: JSONValue) throws(ReplyDecodingError) {
        let read = try FieldReader<Key>(json)
        let text: String = try read(.kind)
        guard let kind = Kind(rawValue: text) else { throw ReplyDecodingError(path: Key.kind.rawValue, "not a start kind: '\(text)'") }
        self.kind = kind
        reason = try read(.reason)
    }
}
