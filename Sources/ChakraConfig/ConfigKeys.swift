/// One configuration key: where it lives in the file, how a value is
/// checked and stored, and how the stored value reads back.
public struct ConfigKey: Sendable {
    /// "display.fps", or "reduce_motion" at the top level.
    public let path: String
    let read: @Sendable (inout ChakraConfig, ConfigValue) throws(ConfigProblem) -> Void
    let write: @Sendable (ChakraConfig) -> ConfigValue
    /// A reload applies it at once; false: only a restart does (the output,
    /// the VT, the input devices, the socket: what the daemon opens once).
    public private(set) var liveReload = true
    /// How a reload carries the value over, when read(write(value)) cannot
    /// (the schedule, which its own reader reads).
    var carry: (@Sendable (ChakraConfig, inout ChakraConfig) -> Void)?

    init(path: String, read: @escaping @Sendable (inout ChakraConfig, ConfigValue) throws(ConfigProblem) -> Void,
         write: @escaping @Sendable (ChakraConfig) -> ConfigValue,
         carry: (@Sendable (ChakraConfig, inout ChakraConfig) -> Void)? = nil) {
        (self.path, self.read, self.write, self.carry) = (path, read, write, carry)
    }

    /// The same key, applied only by a restart.
    func restartOnly() -> ConfigKey {
        var key = self
        key.liveReload = false
        return key
    }

    public var section: String? { path.contains("." as Character) ? String(path.split(separator: ".")[0]) : nil }
    public var name: String { String(path.split(separator: ".").last!) }

    public func value(in config: ChakraConfig) -> ConfigValue { write(config) }

    /// Sets this key in `target` to its value in `source` (a value read
    /// back from a valid configuration always passes the key's checks).
    public func copy(from source: ChakraConfig, into target: inout ChakraConfig) {
        if let carry { return carry(source, &target) }
        try? read(&target, write(source))
    }
}

/// Every key of chakra.toml, in the order of etc/chakra/chakra.toml: the one
/// place that lists them (after Hummingbird's Configuration.swift). The
/// parser, `get`, the reload report and the tests all go through this list.
public enum ConfigKeys {
    // Not a chain of +: Swift 6.0 (the arm64 build's) gives up on that.
    public static let all: [ConfigKey] = ([[reduceMotion], display, input, render, scene, lowPower, spiral, text, control, metrics, sessions, [schedule]] as [[ConfigKey]]).flatMap { $0 }

    /// [schedule] as one key: read by `ScheduleConfig` (its windows are
    /// arrays of tables), shown by `get` as a line per window, and carried
    /// whole by a reload.
    static let schedule = ConfigKey(path: "schedule", read: { _, _ throws(ConfigProblem) in
        throw ConfigProblem("is a section: write [schedule] and [[schedule.window]] tables")
    }, write: { config in
        guard let schedule = config.schedule else { return .array([]) }
        return .array(ScheduleConfig.lines(schedule).map { .string($0) })
    }, carry: { source, target in target.schedule = source.schedule })

    public static let sections = ["display", "input", "render", "scene", "low_power", "spiral", "text", "control", "metrics", "sessions"]

    /// The key at `path`; also one custom pattern ("spiral.patterns.calm"),
    /// which a drop-in sets and replaces whole (`LoadedConfig.lay`).
    public static func key(_ path: String) -> ConfigKey? { all.first { $0.path == path } ?? PatternConfig.key(path) }

    static let display: [ConfigKey] = [
        choice("display.output", \.display.output).restartOnly(),
        optionalString("display.device", \.display.device, check: absolutePath).restartOnly(),
        optionalString("display.connector", \.display.connector).restartOnly(),
        ConfigKey(path: "display.mode", read: { config, value throws(ConfigProblem) in
            let text = try string(value)
            config.display.mode = text.isEmpty ? nil : try DisplayModeSetting.parse(text).get()
        }, write: { .string($0.display.mode?.description ?? "") }).restartOnly(),
        int("display.rotation", \.display.rotation, allowed: [0, 90, 180, 270]),
        ConfigKey(path: "display.fps", read: { config, value throws(ConfigProblem) in
            let fps = try number(value, in: 0...1000)
            guard fps == 0 || fps >= 1 else { throw ConfigProblem("must be 0 (the display's refresh) or 1...1000 (got \(value))") }
            config.display.fps = fps == 0 ? nil : fps
        }, write: { .double($0.display.fps ?? 0) }),
        ConfigKey(path: "display.vt", read: { config, value throws(ConfigProblem) in
            let text: String
            switch value {
            case .int(let n): text = "\(n)"
            case .string(let s): text = s
            default: throw ConfigProblem("must be \"auto\", \"none\" or a VT number 1...63 (got \(value.kindAndValue))")
            }
            guard let vt = VirtualTerminalChoice(parsing: text) else {
                throw ConfigProblem("must be \"auto\", \"none\" or a VT number 1...63 (got \(value))")
            }
            config.display.vt = vt
        }, write: {
            if case .number(let n) = $0.display.vt { return .int(n) }
            return .string($0.display.vt.description)
        }).restartOnly(),
        ConfigKey(path: "display.backlight", read: { config, value throws(ConfigProblem) in
            let name = try string(value)
            guard !name.contains("/" as Character), name != "..", name != "." else {
                throw ConfigProblem("must be a name under /sys/class/backlight, \"\" (the first one) or \"none\" (got \(value))")
            }
            config.display.backlight = name.isEmpty ? .auto : name == "none" ? .disabled : .named(name)
        }, write: {
            switch $0.display.backlight {
            case .auto: .string("")
            case .disabled: .string("none")
            case .named(let name): .string(name)
            }
        }).restartOnly(),
        ConfigKey(path: "display.cec", read: { config, value throws(ConfigProblem) in
            let text = try string(value)
            guard text.isEmpty || text == "none" || text.hasPrefix("/") else {
                throw ConfigProblem("must be a device path (/dev/cec0), \"\" (the first adapter) or \"none\" (got \(value))")
            }
            config.display.cec = text.isEmpty ? .auto : text == "none" ? .disabled : .device(text)
        }, write: {
            switch $0.display.cec {
            case .auto: .string("")
            case .disabled: .string("none")
            case .device(let path): .string(path)
            }
        }).restartOnly(),
        ConfigKey(path: "display.wake_on_touch", read: { config, value throws(ConfigProblem) in
            config.display.wakeOnTouch = try number(value, in: 0...86400)
        }, write: { .double($0.display.wakeOnTouch) }),
    ]

    static let input: [ConfigKey] = [
        optionalString("input.device", \.input.device, check: devicePathOrName).restartOnly(),
        ConfigKey(path: "input.rotation", read: { config, value throws(ConfigProblem) in
            switch value {
            case .string("display"): config.input.rotation = nil
            case .int(let degrees) where [0, 90, 180, 270].contains(degrees): config.input.rotation = degrees
            default: throw ConfigProblem("must be \"display\" (follow the display) or 0, 90, 180, 270 (got \(value))")
            }
        }, write: { $0.input.rotation.map { .int($0) } ?? .string("display") }).restartOnly(),
        ConfigKey(path: "input.calibration", read: { config, value throws(ConfigProblem) in
            let wrong = ConfigProblem("must be an array of 6 numbers, as libinput's calibration matrix (got \(value))")
            guard case .array(let items) = value, items.count == 6 else { throw wrong }
            var matrix: [Double] = []
            for item in items {
                guard let n = item.number, n.isFinite else { throw wrong }
                matrix.append(n)
            }
            config.input.calibration = matrix
        }, write: { .array($0.input.calibration.map { .double($0) }) }).restartOnly(),
        bool("input.grab", \.input.grab).restartOnly(),
        ConfigKey(path: "input.haptics", read: { config, value throws(ConfigProblem) in
            let text = try string(value)
            if !text.isEmpty, text != "none", let problem = devicePathOrName(text) { throw ConfigProblem(problem + " (got \(value))") }
            config.input.haptics = text.isEmpty ? .auto : text == "none" ? .disabled : .device(text)
        }, write: {
            switch $0.input.haptics {
            case .auto: .string("")
            case .disabled: .string("none")
            case .device(let device): .string(device)
            }
        }).restartOnly(),
    ]

    static let render: [ConfigKey] = [
        ConfigKey(path: "render.threads", read: { config, value throws(ConfigProblem) in
            let n = try int(value, in: 0...256)
            config.render.threads = n == 0 ? nil : n
        }, write: { .int($0.render.threads ?? 0) }),
    ]

    static let scene: [ConfigKey] = [
        ConfigKey(path: "scene.default", read: { config, value throws(ConfigProblem) in
            let name = try string(value)
            guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
                throw ConfigProblem("must be a scene name (got \(value))")
            }
            config.scene.defaultScene = name
        }, write: { .string($0.scene.defaultScene) }),
        choice("scene.transition", \.scene.transition),
        // The same range as a switch request's duration (docs/protocol.md).
        double("scene.transition_duration", \.scene.transitionDuration, in: 0...60),
    ]

    static let reduceMotion = bool("reduce_motion", \.reduceMotion)

    static let lowPower: [ConfigKey] = [
        bool("low_power.enabled", \.lowPower.enabled),
        double("low_power.fps", \.lowPower.fps, in: 1...1000),
        int("low_power.dim_level", \.lowPower.dimLevel, in: 0...100),
        double("low_power.dim_after", \.lowPower.dimAfter, in: 0...604_800),
        double("low_power.blank_after", \.lowPower.blankAfter, in: 0...604_800),
    ]

    static let spiral: [ConfigKey] = [
        positive("spiral.head_size", \.spiral.headSize),
        positive("spiral.line_width", \.spiral.lineWidth),
        double("spiral.color_distance_offset", \.spiral.colorDistanceOffset, in: 0...10_000),
        double("spiral.start_radius", \.spiral.startRadius, in: 0...10_000),
        positive("spiral.spacing", \.spiral.spacing),
        positive("spiral.rotations", \.spiral.rotations, max: 100),
        positive("spiral.hold_duration", \.spiral.holdDuration, max: 3600),
        // Whether the name exists is checked once every file is read
        // (`PatternConfig.check`): a drop-in may define it.
        ConfigKey(path: "spiral.pattern", read: { config, value throws(ConfigProblem) in
            let name = try string(value)
            if let problem = BreathingPattern.nameProblem(name) { throw ConfigProblem(problem) }
            config.spiral.pattern = name
        }, write: { .string($0.spiral.pattern) }),
        PatternConfig.patternsKey,
        double("spiral.max_breath_hold", \.spiral.maxBreathHold, in: 0...BreathingPattern.maximumPhaseSeconds),
        double("spiral.haptic_feedback_distance", \.spiral.hapticFeedbackDistance, in: 0...10_000),
        positive("spiral.haptic_beat_interval", \.spiral.hapticBeatInterval, max: 60),
        ConfigKey(path: "spiral.inhale_fraction", read: { config, value throws(ConfigProblem) in
            let f = try number(value, in: 0...1)
            guard f > 0, f < 1 else { throw ConfigProblem("must be between 0 and 1, exclusive (got \(value))") }
            config.spiral.inhaleFraction = f
        }, write: { .double($0.spiral.inhaleFraction) }),
        positive("spiral.proximity", \.spiral.proximity),
        double("spiral.completion_delay", \.spiral.completionDelay, in: 0...600),
        double("spiral.abandon_after", \.spiral.abandonAfter, in: 0...86_400),
    ]

    static let text: [ConfigKey] = [
        ConfigKey(path: "text.font", read: { config, value throws(ConfigProblem) in
            let path = try string(value)
            guard path.hasPrefix("/") else { throw ConfigProblem("must be an absolute path to a font file (got \(value))") }
            config.text.font = path
        }, write: { .string($0.text.font) }),
        ConfigKey(path: "text.language", read: { config, value throws(ConfigProblem) in
            let code = try string(value)
            guard LanguageCode.isValid(code) else { throw ConfigProblem(LanguageCode.rule + " (got \(value))") }
            config.text.language = code
        }, write: { .string($0.text.language) }),
    ]

    static let control: [ConfigKey] = [
        ConfigKey(path: "control.socket", read: { config, value throws(ConfigProblem) in
            let path = try string(value)
            if let problem = SocketPath.problem(path) { throw ConfigProblem(problem) }
            config.control.socket = path.isEmpty ? nil : path
        }, write: { .string($0.control.socket ?? "") }).restartOnly(),
        ConfigKey(path: "control.mode", read: { config, value throws(ConfigProblem) in
            let wrong = ConfigProblem("must be permission bits in octal, as \"0660\" or 0o660 (got \(value))")
            switch value {
            case .int(let bits) where (0...0o777).contains(bits): config.control.mode = bits
            case .string(let text):
                guard !text.isEmpty, text.count <= 4, let bits = Int(text, radix: 8), (0...0o777).contains(bits) else { throw wrong }
                config.control.mode = bits
            default: throw wrong
            }
        }, write: { .string("0" + String($0.control.mode, radix: 8)) }).restartOnly(),
        optionalString("control.group", \.control.group).restartOnly(),
        int("control.max_clients", \.control.maxClients, in: 1...1024),
        int("control.max_line", \.control.maxLine, in: 256...1_048_576),
        double("control.idle_timeout", \.control.idleTimeout, in: 1...86_400),
    ]

    static let metrics: [ConfigKey] = [
        optionalString("metrics.textfile_directory", \.metrics.textfileDirectory, check: absolutePath),
        // At least a second: the file is written from the frame loop, and a
        // scrape every 15 s or more gains nothing from faster writes.
        double("metrics.interval", \.metrics.interval, in: 1...3600),
    ]
}

extension ConfigKeys {
    /// [sessions]: the file is opened once (a new one needs a restart);
    /// the bounds apply at the next compaction.
    static let sessions: [ConfigKey] = [
        ConfigKey(path: "sessions.file", read: { config, value throws(ConfigProblem) in
            let path = try string(value)
            guard path.isEmpty || (path.hasPrefix("/") && !path.hasSuffix("/")) else {
                throw ConfigProblem("must be an absolute path to a file, or \"\" to record no sessions (got \(value))")
            }
            config.sessions.file = path.isEmpty ? nil : path
        }, write: { .string($0.sessions.file ?? "") }).restartOnly(),
        int("sessions.retention_days", \.sessions.retentionDays, in: ChakraConfig.Sessions.retentionDaysRange),
        int("sessions.max_size", \.sessions.maxSize, in: ChakraConfig.Sessions.maxSizeRange),
    ]
}

// MARK: - Key builders

extension ConfigKeys {
    static func bool(_ path: String, _ field: WritableKeyPath<ChakraConfig, Bool> & Sendable) -> ConfigKey {
        ConfigKey(path: path, read: { config, value throws(ConfigProblem) in
            guard case .bool(let b) = value else { throw ConfigProblem("must be true or false (got \(value.kindAndValue))") }
            config[keyPath: field] = b
        }, write: { .bool($0[keyPath: field]) })
    }

    static func int(_ path: String, _ field: WritableKeyPath<ChakraConfig, Int> & Sendable, in range: ClosedRange<Int>) -> ConfigKey {
        ConfigKey(path: path, read: { config, value throws(ConfigProblem) in
            config[keyPath: field] = try int(value, in: range)
        }, write: { .int($0[keyPath: field]) })
    }

    static func int(_ path: String, _ field: WritableKeyPath<ChakraConfig, Int> & Sendable, allowed: [Int]) -> ConfigKey {
        ConfigKey(path: path, read: { config, value throws(ConfigProblem) in
            guard case .int(let n) = value, allowed.contains(n) else {
                throw ConfigProblem("must be one of \(allowed.map(String.init).joined(separator: ", ")) (got \(value.kindAndValue))")
            }
            config[keyPath: field] = n
        }, write: { .int($0[keyPath: field]) })
    }

    static func double(_ path: String, _ field: WritableKeyPath<ChakraConfig, Double> & Sendable, in range: ClosedRange<Double>) -> ConfigKey {
        ConfigKey(path: path, read: { config, value throws(ConfigProblem) in
            config[keyPath: field] = try number(value, in: range)
        }, write: { .double($0[keyPath: field]) })
    }

    /// A length or duration that must be more than 0.
    static func positive(_ path: String, _ field: WritableKeyPath<ChakraConfig, Double> & Sendable, max: Double = 10_000) -> ConfigKey {
        ConfigKey(path: path, read: { config, value throws(ConfigProblem) in
            let n = try number(value, in: 0...max)
            guard n > 0 else { throw ConfigProblem("must be more than 0 (got \(value))") }
            config[keyPath: field] = n
        }, write: { .double($0[keyPath: field]) })
    }

    static func choice<Choice: RawRepresentable & CaseIterable & Sendable>(
        _ path: String, _ field: WritableKeyPath<ChakraConfig, Choice> & Sendable
    ) -> ConfigKey where Choice.RawValue == String {
        ConfigKey(path: path, read: { config, value throws(ConfigProblem) in
            let names = Choice.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            guard case .string(let text) = value, let choice = Choice(rawValue: text) else {
                throw ConfigProblem("must be one of \(names) (got \(value.kindAndValue))")
            }
            config[keyPath: field] = choice
        }, write: { .string($0[keyPath: field].rawValue) })
    }

    /// A string where "" means "not set" (nil).
    static func optionalString(_ path: String, _ field: WritableKeyPath<ChakraConfig, String?> & Sendable,
                               check: (@Sendable (String) -> String?)? = nil) -> ConfigKey {
        ConfigKey(path: path, read: { config, value throws(ConfigProblem) in
            let text = try string(value)
            if !text.isEmpty, let problem = check?(text) { throw ConfigProblem(problem + " (got \(value))") }
            config[keyPath: field] = text.isEmpty ? nil : text
        }, write: { .string($0[keyPath: field] ?? "") })
    }

    static func string(_ value: ConfigValue) throws(ConfigProblem) -> String {
        guard case .string(let text) = value else { throw ConfigProblem("must be a string (got \(value.kindAndValue))") }
        return text
    }

    static func int(_ value: ConfigValue, in range: ClosedRange<Int>) throws(ConfigProblem) -> Int {
        let limits = "\(range.lowerBound)...\(range.upperBound)"
        guard case .int(let n) = value else { throw ConfigProblem("must be a whole number in \(limits) (got \(value.kindAndValue))") }
        guard range.contains(n) else { throw ConfigProblem("must be in \(limits) (got \(n))") }
        return n
    }

    static func number(_ value: ConfigValue, in range: ClosedRange<Double>) throws(ConfigProblem) -> Double {
        let limits = "\(ConfigValue.double(range.lowerBound).numberText)...\(ConfigValue.double(range.upperBound).numberText)"
        guard let n = value.number else { throw ConfigProblem("must be a number in \(limits) (got \(value.kindAndValue))") }
        guard n.isFinite, range.contains(n) else { throw ConfigProblem("must be in \(limits) (got \(value))") }
        return n
    }

    static let absolutePath: @Sendable (String) -> String? = { $0.hasPrefix("/") ? nil : "must be an absolute path" }
    /// An evdev node (/dev/input/event3) or a device name ("Goodix"): a
    /// relative path is neither.
    static let devicePathOrName: @Sendable (String) -> String? = {
        $0.hasPrefix("/") || !$0.contains("/" as Character) ? nil : "must be an absolute path or a device name"
    }
}

extension ConfigValue {
    /// 20 rather than 20.0 in ranges.
    var numberText: String {
        if case .double(let d) = self, d == d.rounded(), abs(d) < 1e15 { return "\(Int(d))" }
        return description
    }
}

/// A language as the string catalogs name them: "en", "de", "pt-BR", "zh_Hant".
public enum LanguageCode {
    public static let rule = "must be a language code such as \"en\", \"de\" or \"pt-BR\""

    public static func isValid(_ code: String) -> Bool {
        let parts = code.split(separator: "-", omittingEmptySubsequences: false).flatMap { $0.split(separator: "_", omittingEmptySubsequences: false) }
        guard let first = parts.first, (2...3).contains(first.count), first.allSatisfy({ $0.isASCII && $0.isLowercase }) else { return false }
        return parts.dropFirst().allSatisfy { part in
            (2...8).contains(part.count) && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
        }
    }
}

/// What makes a control socket path usable: absolute, and short enough for
/// sockaddr_un (108 bytes with the terminating NUL).
public enum SocketPath {
    public static let maxBytes = 107

    /// nil when fine ("" is fine: no socket).
    public static func problem(_ path: String) -> String? {
        if path.isEmpty { return nil }
        if !path.hasPrefix("/") { return "must be an absolute path, or \"\" for no control socket (got \"\(path)\")" }
        if path.utf8.count > maxBytes { return "is \(path.utf8.count) bytes long; a Unix socket path holds at most \(maxBytes)" }
        if path.hasSuffix("/") { return "names a directory, not a socket (got \"\(path)\")" }
        return nil
    }
}
