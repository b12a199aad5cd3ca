import ChakraControl
import ChakraSystem
import Glibc

struct Ping: PlainCommand {
    static let spec = CommandSpec(name: "ping", abstract: "Check that chakrad answers.")
    func request() -> ControlCommand { .ping }
    func human(_ reply: PongReply) -> String { "pong" }
}

struct Version: PlainCommand {
    static let spec = CommandSpec(name: "version", abstract: "Versions of chakrad, chakractl and the protocol.")
    func request() -> ControlCommand { .version }
    func human(_ reply: VersionReply) -> String {
        "chakrad \(reply.version) (protocol \(reply.protocolVersion)), "
            + "chakractl \(ChakraVersion.current) (protocol \(ControlProtocol.version))"
    }
}

struct Status: PlainCommand {
    static let spec = CommandSpec(name: "status", abstract: "What chakrad shows and how well it runs.")
    func request() -> ControlCommand { .status }

    func human(_ r: StatusReply) -> String {
        var state: [String] = []
        if r.paused { state.append("paused") }
        if r.still { state.append("still") }
        var rows: [(String, String)] = [
            ("scene", r.scene + (state.isEmpty ? "" : " (" + state.joined(separator: ", ") + ")")),
            ("output", r.outputSummary),
        ]
        if let device = r.device { rows.append(("device", device)) }
        rows += [
            ("mode", "\(r.mode), rotation \(r.rotation)°"),
            ("fps", "\(plain(r.fps.actual)) (target \(plain(r.fps.target)))"),
            ("frame time", "\(plain(r.frameTimes.median)) ms median, \(plain(r.frameTimes.p99)) ms p99 over \(r.frameTimes.samples) frames"),
            ("reduce motion", onOff(r.settings.reduceMotion)),
            ("low power", onOff(r.settings.lowPower)),
            ("display", r.display.summary + Self.check(r.display)),
            ("power", r.power),
            ("brightness", r.settings.brightness.map { "\($0)% (\(plain(r.backlight)))" } ?? "no backlight"),
            ("language", r.settings.language),
            ("schedule", Self.schedule(r.schedule)),
            ("uptime", duration(r.uptime)),
            ("started", r.start.summary),
            ("clients", "\(r.clients)"),
        ]
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { $0.0 + String(repeating: " ", count: max(0, width + 2 - $0.0.count)) + $0.1 }.joined(separator: "\n")
    }

    /// ", dark as planned (…)" or ", FAILED: …": whether powering the
    /// display was read back as done.
    static func check(_ display: DisplayState) -> String {
        let detail = display.checkDetail
        switch display.check {
        case "confirmed": return "; read back: \(detail)"
        case "failed": return "; FAILED: \(detail)"
        case "unchecked": return "; not read back: \(detail)"
        default: return ""
        }
    }

    /// "heart (window 1); next: off at 2026-11-26T22:00:00+01:00", or "none".
    static func schedule(_ now: ScheduleNow?) -> String {
        guard let now else { return "none" }
        var text = "\(now.action) (\(now.window))"
        if let next = now.nextChange { text += "; next: \(plain(now.nextAction)) at \(next)" }
        return text
    }

    private func duration(_ seconds: Double) -> String {
        let s = Int(seconds)
        if s < 60 { return "\(s) s" }
        if s < 3600 { return "\(s / 60) min \(s % 60) s" }
        return "\(s / 3600) h \(s % 3600 / 60) min"
    }
}

struct Scenes: PlainCommand {
    static let spec = CommandSpec(name: "scenes", abstract: "The scenes chakrad can show; * marks the one shown.")
    func request() -> ControlCommand { .scenes }
    func human(_ reply: ScenesReply) -> String {
        reply.scenes.map { ($0 == reply.current ? "* " : "  ") + $0 }.joined(separator: "\n")
    }
}

struct Switch: ClientCommand {
    static let spec = CommandSpec(name: "switch", abstract: "Show another scene.", arguments: [
        .positional("scene", help: "The scene (chakractl scenes lists them)."),
        .option("transition", value: "transition", help: "cut or crossfade (default: chakrad's [scene] transition).",
                choices: TransitionKind.allCases.map(\.rawValue)),
        .option("duration", value: "seconds", help: "Seconds of the transition, 0...60."),
    ])

    let scene: String
    let transition: TransitionKind?
    let duration: Double?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        scene = arguments.positional("scene")
        if scene.isEmpty { throw UsageError("the scene name is empty") }
        transition = arguments.value("transition").flatMap(TransitionKind.init(rawValue:))
        if let text = arguments.value("duration") {
            guard let seconds = Double(text), seconds >= 0, seconds <= SceneSwitch.maxDuration else {
                throw UsageError("--duration must be 0...\(Int(SceneSwitch.maxDuration)) seconds, not '\(text)'")
            }
            duration = seconds
        } else {
            duration = nil
        }
    }

    func request() -> ControlCommand {
        .switchScene(SceneSwitch(scene: scene, transition: transition, duration: duration))
    }

    func human(_ reply: SceneSwitched) -> String {
        "\(reply.scene) (was \(reply.previous); \(reply.transition))"
    }
}

struct Set: ClientCommand {
    static let spec = CommandSpec(
        name: "set",
        abstract: "Change a setting at run time.",
        discussion: "reduce-motion on|off, low-power on|off, language CODE, brightness 0-100 (with a backlight).",
        arguments: [
            .positional("key", help: "The setting to change.",
                        choices: ["reduce-motion", "low-power", "language", "brightness"]),
            .positional("value", help: "on/off; a language code; a percentage."),
        ]
    )

    let setting: Setting

    init(_ arguments: ParsedArguments) throws(UsageError) {
        let key = arguments.positional("key")
        let value = arguments.positional("value")
        switch key {
        case "reduce-motion", "low-power":
            guard let on = switchValue(value) else { throw UsageError("\(key) takes on or off, not '\(value)'") }
            setting = key == "reduce-motion" ? .reduceMotion(on) : .lowPower(on)
        case "language":
            guard !value.isEmpty, value.count <= 35, value.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
                throw UsageError("language takes a code such as en, de or pt-BR, not '\(value)'")
            }
            setting = .language(value)
        default:
            guard let percent = Int(value.hasSuffix("%") ? String(value.dropLast()) : value), (0...100).contains(percent) else {
                throw UsageError("brightness takes a percentage 0...100, not '\(value)'")
            }
            setting = .brightness(percent)
        }
    }

    func request() -> ControlCommand { .set(setting) }

    func human(_ reply: SettingsState) -> String {
        switch setting {
        case .reduceMotion: "reduce-motion \(onOff(reply.reduceMotion))"
        case .lowPower: "low-power \(onOff(reply.lowPower))"
        case .language: "language \(reply.language)"
        case .brightness: "brightness \(plain(reply.brightness))%"
        }
    }
}

struct Get: ClientCommand {
    static let spec = CommandSpec(
        name: "get",
        abstract: "A configuration value in force (run-time changes included).",
        discussion: "KEY as in chakra.toml: low_power.fps, reduce_motion, scene.default; or a section: low_power.",
        arguments: [.positional("key", help: "A key or a section of chakra.toml.")]
    )

    let key: String

    init(_ arguments: ParsedArguments) {
        key = arguments.positional("key")
    }

    func request() -> ControlCommand { .get(key: key) }

    func human(_ reply: GetReply) -> String {
        let key = reply.key
        guard case .object(let fields) = reply.value else { return "\(key) = \(toml(reply.value))" }
        return fields.keys.sorted().map { "\(key).\($0) = \(toml(fields[$0]!))" }.joined(separator: "\n")
    }

    private func toml(_ value: JSONValue) -> String {
        if case .array(let items) = value { return "[" + items.map(toml).joined(separator: ", ") + "]" }
        return value.encoded
    }
}

struct Reload: PlainCommand {
    static let spec = CommandSpec(name: "reload", abstract: "Read the configuration file again (an invalid one changes nothing).")
    func request() -> ControlCommand { .reload }

    func human(_ reply: ReloadReply) -> String {
        var lines = ["reloaded \(plain(reply.file))" + (reply.changed.isEmpty ? ": nothing changed" : ": changed " + reply.changed.joined(separator: ", "))]
        if !reply.restartNeeded.isEmpty { lines.append("needs a restart: " + reply.restartNeeded.joined(separator: ", ")) }
        if !reply.ignored.isEmpty { lines.append("set on chakrad's command line (file value not used): " + reply.ignored.joined(separator: ", ")) }
        lines += reply.warnings.map { "warning: \($0)" }
        return lines.joined(separator: "\n")
    }
}

struct Pause: PlainCommand {
    static let spec = CommandSpec(name: "pause", abstract: "Freeze the scene (a still frame costs nothing).")
    func request() -> ControlCommand { .pause }
    func human(_ reply: PlaybackState) -> String { "paused" }
}

struct Resume: PlainCommand {
    static let spec = CommandSpec(name: "resume", abstract: "Continue a paused scene.")
    func request() -> ControlCommand { .resume }
    func human(_ reply: PlaybackState) -> String { "resumed" }
}

struct Wake: PlainCommand {
    static let spec = CommandSpec(name: "wake", abstract: "Count as activity: undim or unblank the screen, restart the idle timers.")
    func request() -> ControlCommand { .wake }
    func human(_ reply: PowerLevel) -> String { "power \(reply.power)" }
}

struct Display: ClientCommand {
    static let spec = CommandSpec(
        name: "display",
        abstract: "Turn the screen off or on by hand, or let it follow the schedule again.",
        discussion: "off powers the display down (no signal, the backlight and an HDMI-CEC TV off); on powers it up. "
            + "Either holds until the schedule's next change; auto follows the schedule at once.",
        arguments: [.positional("mode", help: "off, on or auto.", choices: DisplayPowerMode.allCases.map(\.rawValue))]
    )

    let mode: DisplayPowerMode

    init(_ arguments: ParsedArguments) throws(UsageError) {
        guard let mode = DisplayPowerMode(rawValue: arguments.positional("mode")) else { throw UsageError("unknown display mode") }
        self.mode = mode
    }

    func request() -> ControlCommand { .display(mode) }

    func human(_ reply: DisplayState) -> String {
        "display \(reply.summary)" + Status.check(reply)
    }
}

struct Health: PlainCommand {
    static let spec = CommandSpec(
        name: "health",
        abstract: "Exit 0 when frames reach the screen (or it is dark on purpose), 1 when not.",
        discussion: "For update tools that commit or roll back an update (RAUC, Mender, balena) and for monitoring: "
            + "healthy is a frame on screen within 30 frame intervals (at least 5 s) of the last one, or of the start or the "
            + "screen's power-up while the first is on the way; a still or paused picture; the VT switched away; or a screen off "
            + "by schedule, by hand or idle whose power-down was not read back as failed. A stall longer than that counts "
            + "against it for as long again after frames resume (docs/protocol.md, health). Exit 3: chakrad does not answer."
    )
    func request() -> ControlCommand { .health }

    func human(_ reply: HealthReply) -> String {
        "\(reply.healthy ? "healthy" : "unhealthy"): \(reply.reason)"
    }

    /// Prints the answer, then exits 1 if it says unhealthy.
    func run(_ options: ConnectionOptions) throws {
        let connection = try ControlConnection(path: options.socketPath())
        let outcome = try connection.call(request(), timeout: options.timeout ?? defaultTimeout)
        try Self.report(outcome, json: options.json, human: { result in try human(Self.reply(result)) }, machine: json)
        if case .success(let result) = outcome, try !Self.reply(result).healthy {
            throw ClientFailure(status: .failed, description: "unhealthy")
        }
    }
}

struct ScheduleCommand: PlainCommand {
    static let spec = CommandSpec(name: "schedule", abstract: "Today's opening hours, what the screen does now, and the next change.")
    func request() -> ControlCommand { .schedule }

    func human(_ r: ScheduleReply) -> String {
        var lines = ["\(r.weekday) \(r.date)"]
        if r.runs.isEmpty { lines.append("  no window today") }
        for run in r.runs {
            lines.append("  \(run.startClock)–\(run.endClock)  \(run.action)  (\(run.window))")
        }
        lines.append("  outside the windows: \(r.outside)")
        lines.append("now: " + Status.schedule(r.now))
        lines.append("display: \(r.display.summary)" + Status.check(r.display))
        return lines.joined(separator: "\n")
    }
}

struct Spiral: ClientCommand {
    static let spec = CommandSpec(
        name: "spiral",
        abstract: "Start or cancel the spiral-breathing exercise, or print its path.",
        discussion: "start shows the exercise (from an ambient scene, which it returns to at the end), with --pattern "
            + "breathing as that pattern for this one exercise (the configured spiral.pattern again once it ends); cancel goes back; "
            + "path prints the path's points in screen pixels, one \"x y\" per line (--json: the whole reply).",
        arguments: [
            .positional("action", help: "start, cancel or path.", choices: SpiralAction.allCases.map(\.rawValue)),
            .option("pattern", value: "name", help: "start: the breathing pattern of this exercise: a preset (6-4-8, box, 4-7-8, "
                + "coherent) or one of chakra.toml's [spiral.patterns]."),
        ]
    )

    let action: SpiralAction
    let pattern: String?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        guard let action = SpiralAction(rawValue: arguments.positional("action")) else { throw UsageError("unknown spiral action") }
        self.action = action
        pattern = arguments.value("pattern")
        if let pattern {
            guard action == .start else { throw UsageError("--pattern goes with start only") }
            if pattern.isEmpty { throw UsageError("the pattern name is empty") }
        }
    }

    func request() -> ControlCommand { .spiral(action, pattern: pattern) }

    func human(_ reply: SpiralProgress) -> String {
        if action == .path, let points = reply.points {
            return points.map { xy in xy.count == 2 ? "\(plain(xy[0])) \(plain(xy[1]))" : "" }.joined(separator: "\n")
        }
        return "spiral \(reply.state), progress \(plain(reply.progress)), pattern \(reply.pattern)"
    }
}

struct Snapshot: ClientCommand {
    static let spec = CommandSpec(
        name: "snapshot",
        abstract: "Save the frame on screen as a PNG file.",
        discussion: "chakrad sends the PNG over the socket; chakractl writes the file (chakrad never writes files for clients).",
        arguments: [.positional("file.png", help: "Where to write the PNG.")]
    )

    let file: String

    init(_ arguments: ParsedArguments) throws(UsageError) {
        file = arguments.positional("file.png")
        if file.isEmpty { throw UsageError("the file name is empty") }
    }

    var defaultTimeout: Double { 30 }

    /// A FILE that is a directory, FIFO, device or dangling link is the
    /// command line's mistake: refused (exit 2) before a frame is encoded.
    func prepare() throws {
        do {
            _ = try OutputFile.destination(of: file)
        } catch {
            throw ClientFailure(status: error.refusesTarget ? .usage : .failed, description: error.description)
        }
    }

    func request() -> ControlCommand { .snapshot }

    func human(_ reply: SnapshotReply) throws -> String {
        try save(reply)
        return "wrote \(file) (\(reply.width)x\(reply.height))"
    }

    func json(_ result: JSONValue) throws -> JSONValue {
        let reply = try Self.reply(result)
        try save(reply)
        return ClientOutput.success(SnapshotSaved(file: file, width: reply.width, height: reply.height).json)
    }

    private static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    private func save(_ reply: SnapshotReply) throws {
        guard let png = Base64.decode(reply.png), png.starts(with: Self.pngSignature) else {
            throw ClientFailure(status: .unreachable, description: "chakrad's snapshot is not a PNG")
        }
        do {
            try OutputFile.write(png, to: file)
        } catch {
            // The file checked in prepare() turned into something else, or
            // the system refused the write (ENOSPC, EIO): an I/O failure.
            throw ClientFailure(status: .failed, description: error.description)
        }
    }
}

struct Events: Subcommand {
    static let spec = CommandSpec(
        name: "events",
        abstract: "Print chakrad's events as they happen, until interrupted.",
        discussion: "Kinds: \(EventKind.allCases.map(\.rawValue).joined(separator: ", ")) (default: all).",
        arguments: [.positional("kind", help: "Only these kinds of events.", repeating: true)]
    )

    let kinds: [EventKind]

    init(_ arguments: ParsedArguments) throws(UsageError) {
        var kinds: [EventKind] = []
        for word in arguments.words("kind") {
            // power-changed and power_changed alike.
            guard let kind = EventKind(rawValue: String(word.map { $0 == "-" ? "_" : $0 })) else {
                throw UsageError("'\(word)' is not an event kind; kinds: \(EventKind.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            kinds.append(kind)
        }
        self.kinds = kinds
    }

    func run(_ options: ConnectionOptions) throws {
        let connection = try ControlConnection(path: options.socketPath())
        let outcome = try connection.call(.subscribe(events: kinds.isEmpty ? nil : kinds), timeout: options.timeout ?? 10)
        if case .failure(let error) = outcome { throw ClientFailure(status: .failed, description: "\(error.message) (\(error.code))") }
        while true {
            guard case .event(let name, let json) = try connection.readMessage(deadline: nil) else { continue }
            var line = json.encoded
            if !options.json {
                let fields = ControlEvent.fields(of: json)
                line = ([name] + fields.keys.sorted().map { "\($0)=\(plain(fields[$0]!))" }).joined(separator: " ")
            }
            // Unbuffered: a line as soon as it comes, into pipes too.
            writeAll(line + "\n", to: STDOUT_FILENO)
        }
    }
}
