/// A reply to one request: `{"id": 7, "ok": true, "result": {...}}` or
/// `{"id": 7, "ok": false, "error": {"code": "...", "message": "..."}}`.
/// The id is null when the request had none (or it could not be read).
public struct ControlReply: Sendable, Equatable {
    public var id: JSONValue?
    public var outcome: Result<JSONValue, ControlError>

    public init(id: JSONValue?, _ outcome: Result<JSONValue, ControlError>) {
        (self.id, self.outcome) = (id, outcome)
    }

    public static func success(id: JSONValue?, _ result: JSONValue) -> ControlReply { ControlReply(id: id, .success(result)) }
    public static func failure(id: JSONValue?, _ error: ControlError) -> ControlReply { ControlReply(id: id, .failure(error)) }

    public var json: JSONValue {
        switch outcome {
        case .success(let result): ["id": id ?? .null, "ok": true, "result": result]
        case .failure(let error): ["id": id ?? .null, "ok": false, "error": error.json]
        }
    }

    /// One line to send, newline included.
    public var line: String { json.encoded + "\n" }
}

/// An event for subscribers: `{"event": "scene_changed", "scene": "heart", ...}`.
public struct ControlEvent: Sendable, Equatable {
    public var kind: EventKind
    public var fields: [String: JSONValue]

    public init(_ kind: EventKind, _ fields: [String: JSONValue] = [:]) {
        (self.kind, self.fields) = (kind, fields)
    }

    public var json: JSONValue {
        var all = fields
        all["event"] = .string(kind.rawValue)
        return .object(all)
    }

    public var line: String { json.encoded + "\n" }
}

/// A line from the daemon, as a client reads it.
public enum ControlMessage: Sendable, Equatable {
    case reply(id: JSONValue?, Result<JSONValue, RemoteError>)
    case event(name: String, JSONValue)

    /// nil when the line is neither a reply nor an event.
    public static func parse<Bytes: Collection<UInt8>>(_ line: Bytes) -> ControlMessage? {
        guard case .success(let json) = JSONValue.parse(line), case .object(let fields) = json else { return nil }
        if case .string(let name)? = fields["event"] { return .event(name: name, json) }
        guard case .bool(let ok)? = fields["ok"] else { return nil }
        let id = fields["id"] == .null ? nil : fields["id"]
        if ok { return .reply(id: id, .success(fields["result"] ?? .null)) }
        let error = fields["error"]
        return .reply(id: id, .failure(RemoteError(code: error?["code"]?.stringValue ?? "unknown",
                                                   message: error?["message"]?.stringValue ?? "(no message)")))
    }
}

/// An error as a client receives it: the code stays a string, so that codes
/// of a newer daemon still come through.
public struct RemoteError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: String
    public var message: String
    public init(code: String, message: String) { (self.code, self.message) = (code, message) }
    public var description: String { "\(message) (\(code))" }
}
