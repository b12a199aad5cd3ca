import ChakraControl
import Glibc

/// A chakractl command: its description (the parser and the help read it),
/// built from what the command line gave, then run against chakrad.
protocol Subcommand {
    static var spec: CommandSpec { get }
    /// Reads and checks the command's own arguments; nothing is sent yet.
    init(_ arguments: ParsedArguments) throws(UsageError)
    func run(_ options: ConnectionOptions) throws
}

/// A command that sends one request and prints the answer.
protocol ClientCommand: Subcommand {
    /// What the daemon answers (ChakraControl's Replies.swift).
    associatedtype Reply: JSONConvertible
    /// The request to send.
    func request() -> ControlCommand
    /// Checks made before anything is sent (a file to write must be
    /// writable as one), so that a wrong target costs no request.
    func prepare() throws
    /// Seconds to wait unless --timeout says.
    var defaultTimeout: Double { get }
    /// What a person reads for a successful result.
    func human(_ reply: Reply) throws -> String
    /// What a script reads for a successful result (--json): the result as
    /// chakrad sent it, fields of a newer chakrad included.
    func json(_ result: JSONValue) throws -> JSONValue
}

/// A command that takes nothing but the connection options.
protocol PlainCommand: ClientCommand {
    init()
}

extension PlainCommand {
    init(_ arguments: ParsedArguments) { self.init() }
}

extension ClientCommand {
    var defaultTimeout: Double { 10 }

    func prepare() throws {}

    func json(_ result: JSONValue) throws -> JSONValue { ClientOutput.success(result) }

    func run(_ options: ConnectionOptions) throws {
        try prepare()
        let connection = try ControlConnection(path: options.socketPath())
        let outcome = try connection.call(request(), timeout: options.timeout ?? defaultTimeout)
        try Self.report(outcome, json: options.json, human: { result in try human(Self.reply(result)) }, machine: json)
    }

    /// The result read as this command's reply; one that does not fit (a
    /// field missing, of another type) is chakrad's fault, named.
    static func reply(_ result: JSONValue) throws -> Reply {
        do throws(ReplyDecodingError) {
            return try Reply(json: result)
        } catch {
            throw ClientFailure(status: .unreachable, description: "chakrad's reply to \(spec.name) cannot be read: \(error)")
        }
    }

    static func report(_ outcome: Result<JSONValue, RemoteError>, json: Bool,
                       human: (JSONValue) throws -> String, machine: (JSONValue) throws -> JSONValue) throws {
        switch outcome {
        case .success(let result):
            let text = json ? try machine(result).encoded : try human(result)
            if !text.isEmpty { writeAll(text + "\n", to: STDOUT_FILENO) }
        case .failure(let error):
            if json {
                writeAll(ClientOutput.failure(error).encoded + "\n", to: STDOUT_FILENO)
            }
            throw ClientFailure(status: .failed, description: "\(error.message) (\(error.code))")
        }
    }
}

/// on/off (also true/false, yes/no, 1/0).
func switchValue(_ word: String) -> Bool? {
    switch word.lowercased() {
    case "on", "true", "yes", "1": true
    case "off", "false", "no", "0": false
    default: nil
    }
}

/// A setting as a person reads it: on or off.
func onOff(_ value: Bool) -> String { value ? "on" : "off" }

/// Values as a person reads them: strings bare, numbers trimmed.
func plain(_ value: JSONValue) -> String {
    switch value {
    case .null: "none"
    case .bool(let b): b ? "true" : "false"
    case .string(let s): s
    case .int(let i): "\(i)"
    case .double(let d): d == d.rounded() && abs(d) < 1e15 ? "\(Int(d))" : "\(d)"
    default: value.encoded
    }
}

/// A reply's field as a person reads it (nil as "none").
func plain(_ value: some JSONConvertible) -> String { plain(value.json) }
