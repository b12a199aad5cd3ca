/// A request that cannot be carried out as sent, with the id to answer to
/// (when the line had a usable one).
public struct RequestFailure: Error, Sendable, Equatable {
    public var id: JSONValue?
    public var error: ControlError

    public init(id: JSONValue?, _ error: ControlError) {
        (self.id, self.error) = (id, error)
    }
}

extension ControlRequest {
    /// The longest string id (UTF-8 bytes) a request may carry.
    public static let maxIDBytes = 256

    /// Reads one request line (without its newline). Checks, in order: JSON,
    /// an object, the id's type, "cmd", the command, unknown arguments, then
    /// each argument. Nothing here touches the daemon: a refused request
    /// changes nothing.
    public static func parse<Bytes: Collection<UInt8>>(_ line: Bytes) -> Result<ControlRequest, RequestFailure> {
        let json: JSONValue
        switch JSONValue.parse(line) {
        case .success(let value): json = value
        case .failure(let failure): return .failure(RequestFailure(id: nil, ControlError(.badJSON, "not valid JSON: \(failure.reason)")))
        }
        return parse(json)
    }

    public static func parse(_ json: JSONValue) -> Result<ControlRequest, RequestFailure> {
        guard case .object(let fields) = json else {
            return .failure(RequestFailure(id: nil, ControlError(.badRequest, "a request is a JSON object, not \(json.kind)")))
        }
        var id: JSONValue?
        switch fields["id"] {
        case nil, .null?: id = nil
        case .string(let text)? where text.utf8.count > ControlRequest.maxIDBytes:
            // Every reply echoes the id: a megabyte id would be a megabyte reply.
            return .failure(RequestFailure(id: nil, ControlError(.badRequest, "\"id\" is longer than \(ControlRequest.maxIDBytes) bytes")))
        case .int?, .string?: id = fields["id"]
        case .double(let d)? where d == d.rounded() && abs(d) < 1e15: id = .int(Int(d))
        case let other?:
            return .failure(RequestFailure(id: nil, ControlError(.badRequest, "\"id\" must be an integer or a string, not \(other.kind)")))
        }
        let fail = { (code: ErrorCode, message: String) in Result<ControlRequest, RequestFailure>.failure(RequestFailure(id: id, ControlError(code, message))) }
        guard let cmdValue = fields["cmd"] else { return fail(.badRequest, "missing \"cmd\" (one of: \(ControlCommand.names.joined(separator: ", ")))") }
        guard case .string(let cmd) = cmdValue else { return fail(.badRequest, "\"cmd\" must be a string, not \(cmdValue.kind)") }
        guard let allowed = ControlCommand.arguments.first(where: { $0.command == cmd })?.arguments else {
            return fail(.unknownCommand, "unknown command '\(Excerpt.text(cmd))'; commands: \(ControlCommand.names.joined(separator: ", "))")
        }
        let unknown = fields.keys.filter { $0 != "id" && $0 != "cmd" && !allowed.contains($0) }.sorted()
        if !unknown.isEmpty {
            let takes = allowed.isEmpty ? "it takes none" : "it takes: \(allowed.joined(separator: ", "))"
            return fail(.unknownArgument, "unknown argument\(unknown.count > 1 ? "s" : "") \(Excerpt.names(unknown)) for '\(cmd)'; \(takes)")
        }
        switch ArgumentReader(commandName: cmd, fields: fields).result() {
        case .success(let command): return .success(ControlRequest(id: id, command))
        case .failure(let error): return .failure(RequestFailure(id: id, error))
        }
    }

    /// The request as JSON (chakractl sends this), without the newline.
    public var json: JSONValue {
        var fields: [String: JSONValue] = ["cmd": .string(command.name)]
        if let id { fields["id"] = id }
        switch command {
        case .switchScene(let request):
            fields["scene"] = .string(request.scene)
            if let transition = request.transition { fields["transition"] = .string(transition.rawValue) }
            if let duration = request.duration { fields["duration"] = .double(duration) }
        case .set(let setting):
            fields["key"] = .string(setting.key)
            fields["value"] = setting.value
        case .get(let key): fields["key"] = .string(key)
        case .spiral(let action, let pattern):
            fields["action"] = .string(action.rawValue)
            if let pattern { fields["pattern"] = .string(pattern) }
        case .display(let mode): fields["mode"] = .string(mode.rawValue)
        case .touch(let touch):
            fields["phase"] = .string(touch.phase.rawValue)
            fields["contact"] = .int(touch.contact)
            if let x = touch.x { fields["x"] = .double(x) }
            if let y = touch.y { fields["y"] = .double(y) }
        case .stats(let query):
            if let since = query.since { fields["since"] = .string(since.description) }
        case .subscribe(let events?): fields["events"] = .array(events.map { .string($0.rawValue) })
        default: break
        }
        return .object(fields)
    }

    /// One line to send, newline included.
    public var line: String { json.encoded + "\n" }
}

/// Reads the arguments of one command; every refusal names the argument.
struct ArgumentReader {
    let commandName: String
    let fields: [String: JSONValue]

    func result() -> Result<ControlCommand, ControlError> {
        do {
            return .success(try read())
        } catch {
            return .failure(error)
        }
    }

    private func read() throws(ControlError) -> ControlCommand {
        switch commandName {
        case "ping": return .ping
        case "version": return .version
        case "status": return .status
        case "scenes": return .scenes
        case "reload": return .reload
        case "pause": return .pause
        case "resume": return .resume
        case "snapshot": return .snapshot
        case "wake": return .wake
        case "unsubscribe": return .unsubscribe
        case "switch": return .switchScene(try sceneSwitch())
        case "set": return .set(try setting())
        case "get":
            let key = try string("key")
            guard !key.isEmpty else { throw ControlError(.badArgument, "'key' must not be empty") }
            return .get(key: key)
        case "spiral": return try spiral()
        case "display": return .display(try choice("mode", DisplayPowerMode.self))
        case "schedule": return .schedule
        case "health": return .health
        case "touch": return .touch(try touch())
        case "stats": return .stats(try stats())
        case "subscribe": return .subscribe(events: try events())
        default: throw ControlError(.unknownCommand, "unknown command '\(Excerpt.text(commandName))'")
        }
    }

    private func sceneSwitch() throws(ControlError) -> SceneSwitch {
        let scene = try string("scene")
        guard !scene.isEmpty, scene.utf8.count <= 64 else { throw ControlError(.badArgument, "'scene' must be a scene name") }
        var request = SceneSwitch(scene: scene)
        if fields["transition"] != nil, fields["transition"] != .null {
            request.transition = try choice("transition", TransitionKind.self)
        }
        if let value = fields["duration"], value != .null {
            guard let seconds = value.doubleValue else { throw ControlError(.badArgument, "'duration' must be a number of seconds, not \(value.kind)") }
            guard seconds.isFinite, seconds >= 0, seconds <= SceneSwitch.maxDuration else {
                throw ControlError(.badArgument, "'duration' must be 0...\(Int(SceneSwitch.maxDuration)) seconds (got \(seconds))")
            }
            request.duration = seconds
        }
        return request
    }

    /// The daemon knows which patterns exist (chakra.toml may define
    /// more): here only the name's form is checked.
    private func spiral() throws(ControlError) -> ControlCommand {
        let action = try choice("action", SpiralAction.self)
        guard let value = fields["pattern"], value != .null else { return .spiral(action) }
        guard action == .start else { throw ControlError(.badArgument, "'pattern' goes with the action start only (got '\(action.rawValue)')") }
        guard case .string(let name) = value, !name.isEmpty, name.utf8.count <= 64 else {
            throw ControlError(.badArgument, "'pattern' must be a breathing pattern's name, not \(Excerpt.value(value))")
        }
        return .spiral(action, pattern: name)
    }

    private func setting() throws(ControlError) -> Setting {
        let key = String(decoding: try string("key").utf8.map { $0 == UInt8(ascii: "_") ? UInt8(ascii: "-") : $0 }, as: UTF8.self)
        guard let value = fields["value"] else { throw ControlError(.missingArgument, "'set \(key)' needs a 'value'") }
        switch key {
        case "reduce-motion", "low-power":
            guard case .bool(let on) = value else { throw ControlError(.badArgument, "'value' of \(key) must be true or false, not \(value.kind)") }
            return key == "reduce-motion" ? .reduceMotion(on) : .lowPower(on)
        case "language":
            guard case .string(let code) = value, !code.isEmpty, code.utf8.count <= 35 else {
                throw ControlError(.badArgument, "'value' of language must be a language code such as \"en\" or \"de\", not \(value.kind)")
            }
            return .language(code)
        case "brightness":
            guard let percent = value.doubleValue, percent == percent.rounded(), (0...100).contains(percent) else {
                throw ControlError(.badArgument, "'value' of brightness must be a whole percentage 0...100, not \(Excerpt.value(value))")
            }
            return .brightness(Int(percent))
        default:
            throw ControlError(.badArgument, "'key' must be one of \(Setting.keys.joined(separator: ", ")) (got '\(Excerpt.text(key))')")
        }
    }

    private func touch() throws(ControlError) -> TouchRequest {
        var request = TouchRequest(phase: try choice("phase", TouchRequest.Phase.self))
        if let value = fields["contact"], value != .null {
            guard let n = value.doubleValue, n == n.rounded(), (0..<Double(TouchRequest.maxContacts)).contains(n) else {
                throw ControlError(.badArgument, "'contact' must be a whole number 0...\(TouchRequest.maxContacts - 1), not \(Excerpt.value(value))")
            }
            request.contact = Int(n)
        }
        let needsPoint = request.phase == .down || request.phase == .move
        for name in ["x", "y"] {
            guard let value = fields[name], value != .null else {
                if needsPoint { throw ControlError(.missingArgument, "'touch \(request.phase.rawValue)' needs 'x' and 'y' (pixels)") }
                continue
            }
            guard let n = value.doubleValue, n.isFinite, abs(n) <= TouchRequest.maxCoordinate else {
                throw ControlError(.badArgument, "'\(name)' must be a number of pixels within ±\(Int(TouchRequest.maxCoordinate)), not \(Excerpt.value(value))")
            }
            if name == "x" { request.x = n } else { request.y = n }
        }
        return request
    }

    private func stats() throws(ControlError) -> StatsQuery {
        guard let value = fields["since"], value != .null else { return StatsQuery() }
        guard case .string(let text) = value, let day = StatsQuery.Day(text) else {
            throw ControlError(.badArgument, "'since' must be a date as YYYY-MM-DD, such as \"2026-11-01\" (got \(Excerpt.value(value)))")
        }
        return StatsQuery(since: day)
    }

    private func events() throws(ControlError) -> [EventKind]? {
        guard let value = fields["events"], value != .null else { return nil }
        let names = EventKind.allCases.map(\.rawValue).joined(separator: ", ")
        guard case .array(let items) = value else { throw ControlError(.badArgument, "'events' must be an array of event names (\(names))") }
        var kinds: [EventKind] = []
        for item in items {
            guard case .string(let name) = item, let kind = EventKind(rawValue: name) else {
                throw ControlError(.badArgument, "unknown event \(Excerpt.value(item)) in 'events'; events: \(names)")
            }
            if !kinds.contains(kind) { kinds.append(kind) }
        }
        return kinds
    }

    private func string(_ name: String) throws(ControlError) -> String {
        guard let value = fields[name] else { throw ControlError(.missingArgument, "'\(commandName)' needs '\(name)'") }
        guard case .string(let text) = value else { throw ControlError(.badArgument, "'\(name)' must be a string, not \(value.kind)") }
        return text
    }

    private func choice<Choice: RawRepresentable & CaseIterable>(_ name: String, _: Choice.Type) throws(ControlError) -> Choice
    where Choice.RawValue == String {
        let text = try string(name)
        guard let value = Choice(rawValue: text) else {
            throw ControlError(.badArgument, "'\(name)' must be one of \(Choice.allCases.map(\.rawValue).joined(separator: ", ")) (got '\(Excerpt.text(text))')")
        }
        return value
    }
}
