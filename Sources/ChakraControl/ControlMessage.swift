/// The keys of a line's envelope: a reply's id, ok, result or error (code
/// and message), an event's name. What is inside a result or beside an
/// event's name is the reply's or the event's (Replies.swift, Events.swift).
enum EnvelopeKey: String {
    case id, ok, result, error, code, message, event
}

extension ControlError {
    public var json: JSONValue {
        var out = FieldWriter<EnvelopeKey>()
        out.set(.code, code.rawValue)
        out.set(.message, message)
        return out.json
    }
}

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
        var out = FieldWriter<EnvelopeKey>()
        out.set(.id, id ?? .null)
        switch outcome {
        case .success(let result):
            out.set(.ok, true)
            out.set(.result, result)
        case .failure(let error):
            out.set(.ok, false)
            out.set(.error, error.json)
        }
        return out.json
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
        all[EnvelopeKey.event.rawValue] = .string(kind.rawValue)
        return .object(all)
    }

    public var line: String { json.encoded + "\n" }

    /// An event line's fields, without its name.
    public static func fields(of json: JSONValue) -> [String: JSONValue] {
        (json.objectValue ?? [:]).filter { $0.key != EnvelopeKey.event.rawValue }
    }
}

/// A line from the daemon, as a client reads it.
public enum ControlMessage: Sendable, Equatable {
    case reply(id: JSONValue?, Result<JSONValue, RemoteError>)
    case event(name: String, JSONValue)

    /// nil when the line is neither a reply nor an event.
    public static func parse<Bytes: Collection<UInt8>>(_ line: Bytes) -> ControlMessage? {
        guard case .success(let json) = JSONValue.parse(line), case .object(let fields) = json else { return nil }
        func field(_ key: EnvelopeKey, of fields: [String: JSONValue]?) -> JSONValue? { fields?[key.rawValue] }
        if case .string(let name)? = field(.event, of: fields) { return .event(name: name, json) }
        guard case .bool(let ok)? = field(.ok, of: fields) else { return nil }
        let id = field(.id, of: fields) == .null ? nil : field(.id, of: fields)
        if ok { return .reply(id: id, .success(field(.result, of: fields) ?? .null)) }
        let error = field(.error, of: fields)?.objectValue
        return .reply(id: id, .failure(RemoteError(code: field(.code, of: error)?.stringValue ?? "unknown",
                                                   message: field(.message, of: error)?.stringValue ?? "(no message)")))
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

/// What `chakractl --json` prints: a reply without its id.
public enum ClientOutput {
    public static func success(_ result: JSONValue) -> JSONValue {
        var out = FieldWriter<EnvelopeKey>()
        out.set(.ok, true)
        out.set(.result, result)
        return out.json
    }

    public static func failure(_ error: RemoteError) -> JSONValue {
        var refusal = FieldWriter<EnvelopeKey>()
        refusal.set(.code, error.code)
        refusal.set(.message, error.message)
        var out = FieldWriter<EnvelopeKey>()
        out.set(.ok, false)
        out.set(.error, refusal.json)
        return out.json
    }
}
