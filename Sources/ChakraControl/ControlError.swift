/// The error codes of the protocol (docs/protocol.md lists them with their
/// meaning). A code is for programs; the message next to it is for people.
public enum ErrorCode: String, Sendable, CaseIterable {
    // The request itself (the connection stays open, except line_too_long).
    /// The line is not JSON.
    case badJSON = "bad_json"
    /// JSON, but not a request: not an object, no "cmd", an "id" of the wrong type.
    case badRequest = "bad_request"
    case unknownCommand = "unknown_command"
    case unknownArgument = "unknown_argument"
    case missingArgument = "missing_argument"
    /// An argument of the wrong type or out of range.
    case badArgument = "bad_argument"
    /// The line is longer than the daemon's max_line; the connection is closed.
    case lineTooLong = "line_too_long"
    /// max_clients are connected; the connection is closed.
    case tooManyClients = "too_many_clients"
    /// The connection sent no request for [control] idle_timeout, or was
    /// the longest idle when a new one needed its place; it is closed.
    case idleTimeout = "idle_timeout"

    // What the daemon says to a well-formed request.
    case unknownScene = "unknown_scene"
    /// `spiral start` with a breathing pattern chakrad does not offer (none
    /// of that name, or one holding longer than spiral.max_breath_hold).
    case unknownPattern = "unknown_pattern"
    /// `get` of a key the configuration does not have.
    case unknownKey = "unknown_key"
    /// This machine cannot (brightness with no backlight).
    case notSupported = "not_supported"
    /// `snapshot` before the first frame was shown.
    case noFrame = "no_frame"
    /// `reload` of a file that is not valid; the old settings stay.
    case configInvalid = "config_invalid"
    /// The daemon is stopping, or its frame loop did not answer in time.
    case unavailable = "unavailable"
    /// Something that should not fail did (a PNG could not be encoded).
    case `internal` = "internal"
}

/// A refusal: a code and a message that names what was wrong.
public struct ControlError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: ErrorCode
    public var message: String

    public init(_ code: ErrorCode, _ message: String) {
        (self.code, self.message) = (code, message)
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
