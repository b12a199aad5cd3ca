/// An event's fields, typed by its kind: the daemon publishes
/// `ControlEvent(payload)`; a client reads a line's fields back with
/// `EventPayload(kind:json:)`. The fields of an event are flat beside its
/// `"event"`, and several are those of a reply (Replies.swift).
public enum EventPayload: Sendable, Equatable {
    case sceneChanged(SceneSwitched)
    case settingsChanged(SettingsState)
    case displayChanged(DisplayChange)
    case playbackChanged(PlaybackState)
    case powerChanged(PowerLevel)
    case configReloaded(ConfigReloaded)
    case spiralState(SpiralStateChange)
    case spiralProgress(SpiralProgress)
    case displayPower(DisplayState)
    case displayCheck(DisplayCheck)
    case scheduleChanged(ScheduleNow)
    case sessionFinished(SessionFinished)

    public var kind: EventKind {
        switch self {
        case .sceneChanged: .sceneChanged
        case .settingsChanged: .settingsChanged
        case .displayChanged: .displayChanged
        case .playbackChanged: .playbackChanged
        case .powerChanged: .powerChanged
        case .configReloaded: .configReloaded
        case .spiralState: .spiralState
        case .spiralProgress: .spiralProgress
        case .displayPower: .displayPower
        case .displayCheck: .displayCheck
        case .scheduleChanged: .scheduleChanged
        case .sessionFinished: .sessionFinished
        }
    }

    /// The fields, as an object (without "event").
    public var json: JSONValue {
        switch self {
        case .sceneChanged(let fields): fields.json
        case .settingsChanged(let fields): fields.json
        case .displayChanged(let fields): fields.json
        case .playbackChanged(let fields): fields.json
        case .powerChanged(let fields): fields.json
        case .configReloaded(let fields): fields.json
        case .spiralState(let fields): fields.json
        case .spiralProgress(let fields): fields.json
        case .displayPower(let fields): fields.json
        case .displayCheck(let fields): fields.json
        case .scheduleChanged(let fields): fields.json
        case .sessionFinished(let fields): fields.json
        }
    }

    /// Reads an event line's fields as `kind`'s ("event" among them is ignored).
    public init(kind: EventKind, json: JSONValue) throws(ReplyDecodingError) {
        switch kind {
        case .sceneChanged: self = .sceneChanged(try SceneSwitched(json: json))
        case .settingsChanged: self = .settingsChanged(try SettingsState(json: json))
        case .displayChanged: self = .displayChanged(try DisplayChange(json: json))
        case .playbackChanged: self = .playbackChanged(try PlaybackState(json: json))
        case .powerChanged: self = .powerChanged(try PowerLevel(json: json))
        case .configReloaded: self = .configReloaded(try ConfigReloaded(json: json))
        case .spiralState: self = .spiralState(try SpiralStateChange(json: json))
        case .spiralProgress: self = .spiralProgress(try SpiralProgress(json: json))
        case .displayPower: self = .displayPower(try DisplayState(json: json))
        case .displayCheck: self = .displayCheck(try DisplayCheck(json: json))
        case .scheduleChanged: self = .scheduleChanged(try ScheduleNow(json: json))
        case .sessionFinished: self = .sessionFinished(try SessionFinished(json: json))
        }
    }
}

extension ControlEvent {
    public init(_ payload: EventPayload) {
        self.init(payload.kind, payload.json.objectValue ?? [:])
    }

    /// The fields typed by the kind.
    public func payload() throws(ReplyDecodingError) -> EventPayload {
        try EventPayload(kind: kind, json: .object(fields))
    }
}

/// `display_changed`: the output changed (resized, unplugged, plugged in, VT switched).
public struct DisplayChange: JSONConvertible {
    /// "resized", "disconnected", "connected", "vt_away", "vt_back".
    public var reason: String
    public var outputSummary: String
    public var width: Int, height: Int

    enum Key: String { case reason, outputSummary = "output_summary", width, height }

    public init(reason: String, outputSummary: String, width: Int, height: Int) {
        (self.reason, self.outputSummary, self.width, self.height) = (reason, outputSummary, width, height)
    }

    public var json: JSONValue {
        var out = FieldWriter<Key>()
        out.set(.reason, reason)
        out.set(.outputSummary, outputSummary)
        out.set(.width, width)
        out.set(.height, height)
        return out.json
    }

    public init(json: JSONValue) throws(ReplyDecodingError) {
        let read = try FieldReader<Key>(json)
        reason = try read(.reason)
        outputSummary = try read(.outputSummary)
        width = try read(.width)
        height = try read(.height)
    }
}

/// `config_reloaded`: the file read again, and what changed.
public struct ConfigReloaded: JSONConvertible {
    public var file: String?
    public var changed: [String]
    public var restartNeeded: [String]

    enum Key: String { case file, changed, restartNeeded = "restart_needed" }

    public init(file: String?, changed: [String], restartNeeded: [String]) {
        (self.file, self.changed, self.restartNeeded) = (file, changed, restartNeeded)
    }

    public var json: JSONValue {
        var out = FieldWriter<Key>()
        out.set(.file, file)
        out.set(.changed, changed)
        out.set(.restartNeeded, restartNeeded)
        return out.json
    }

    public init(json: JSONValue) throws(ReplyDecodingError) {
        let read = try FieldReader<Key>(json)
        file = try read(.file)
        changed = try read(.changed)
        restartNeeded = try read(.restartNeeded)
    }
}

/// `spiral_state`: the exercise went from one state to another.
public struct SpiralStateChange: JSONConvertible {
    public var from: String, to: String

    enum Key: String { case from, to }

    public init(from: String, to: String) { (self.from, self.to) = (from, to) }

    public var json: JSONValue {
        var out = FieldWriter<Key>()
        out.set(.from, from)
        out.set(.to, to)
        return out.json
    }

    public init(json: JSONValue) throws(ReplyDecodingError) {
        let read = try FieldReader<Key>(json)
        from = try read(.from)
        to = try read(.to)
    }
}

/// `display_check`: one part of the display chain read back after powering it.
public struct DisplayCheck: JSONConvertible {
    /// "drm", "fbdev", "backlight", "cec", "headless".
    public var part: String
    /// What was asked: true for on.
    public var on: Bool
    public var method: String
    /// confirmed, failed or unchecked.
    public var check: String
    public var detail: String

    enum Key: String { case part, on, method, check, detail }

    public init(part: String, on: Bool, method: String, check: String, detail: String) {
        (self.part, self.on, self.method, self.check, self.detail) = (part, on, method, check, detail)
    }

    public var json: JSONValue {
        var out = FieldWriter<Key>()
        out.set(.part, part)
        out.set(.on, on)
        out.set(.method, method)
        out.set(.check, check)
        out.set(.detail, detail)
        return out.json
    }

    public init(json: JSONValue) throws(ReplyDecodingError) {
        let read = try FieldReader<Key>(json)
        part = try read(.part)
        on = try read(.on)
        method = try read(.method)
        check = try read(.check)
        detail = try read(.detail)
    }
}

/// `session_finished`: a breathing exercise ended, and whether its record
/// is on disk.
public struct SessionFinished: JSONConvertible {
    /// completed or abandoned.
    public var outcome = ""
    public var ending = ""
    public var pattern = ""
    /// Local ISO 8601.
    public var startedAt = ""
    public var duration = 0.0
    public var breathedSeconds = 0.0
    public var holdSeconds = 0.0
    public var lifts = 0
    public var furthestState = ""
    public var recorded = false
    /// Why the record is not on disk; nil once it is.
    public var error: String?

    enum Key: String {
        case outcome, ending, pattern, startedAt = "started_at", duration, breathedSeconds = "breathed_seconds"
        case holdSeconds = "hold_seconds", lifts, furthestState = "furthest_state", recorded, error
    }

    public init() {}

    public var json: JSONValue {
        var out = FieldWriter<Key>()
        out.set(.outcome, outcome)
        out.set(.ending, ending)
        out.set(.pattern, pattern)
        out.set(.startedAt, startedAt)
        out.set(.duration, duration)
        out.set(.breathedSeconds, breathedSeconds)
        out.set(.holdSeconds, holdSeconds)
        out.set(.lifts, lifts)
        out.set(.furthestState, furthestState)
        out.set(.recorded, recorded)
        out.set(.error, error)
        return out.json
    }

    public init(json: JSONValue) throws(ReplyDecodingError) {
        let read = try FieldReader<Key>(json)
        outcome = try read(.outcome)
        ending = try read(.ending)
        pattern = try read(.pattern)
        startedAt = try read(.startedAt)
        duration = try read(.duration)
        breathedSeconds = try read(.breathedSeconds)
        holdSeconds = try read(.holdSeconds)
        lifts = try read(.lifts)
        furthestState = try read(.furthestState)
        recorded = try read(.recorded)
        error = try read(.error)
    }
}
