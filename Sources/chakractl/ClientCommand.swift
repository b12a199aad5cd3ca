import ArgumentParser
import ChakraControl

/// A subcommand that sends one request and prints the answer.
protocol ClientCommand: ParsableCommand {
    var root: Chakractl { get }
    var connection: ConnectionOptions { get }
    /// The request to send.
    func request() throws -> ControlCommand
    /// Seconds to wait unless --timeout says.
    var defaultTimeout: Double { get }
    /// What a person reads for a successful result.
    func human(_ result: JSONValue) throws -> String
    /// What a script reads for a successful result (--json).
    func json(_ result: JSONValue) throws -> JSONValue
}

extension ClientCommand {
    var defaultTimeout: Double { 10 }

    func json(_ result: JSONValue) throws -> JSONValue { ["ok": true, "result": result] }

    /// --socket and friends, wherever they were given.
    var options: ConnectionOptions { connection.merged(with: root.connection) }

    func run() throws {
        let options = self.options
        let command = try request()
        let connection = try ControlConnection(path: options.socketPath())
        let outcome = try connection.call(command, timeout: options.timeout ?? defaultTimeout)
        try Self.report(outcome, json: options.json, human: human, machine: json)
    }

    static func report(_ outcome: Result<JSONValue, RemoteError>, json: Bool,
                       human: (JSONValue) throws -> String, machine: (JSONValue) throws -> JSONValue) throws {
        switch outcome {
        case .success(let result):
            let text = json ? try machine(result).encoded : try human(result)
            if !text.isEmpty { print(text) }
        case .failure(let error):
            if json {
                let refusal: JSONValue = ["ok": false, "error": ["code": .string(error.code), "message": .string(error.message)]]
                print(refusal.encoded)
            }
            throw ClientFailure(status: .refused, description: "\(error.message) (\(error.code))")
        }
    }
}

/// on/off (also true/false, yes/no, 1/0).
enum Switchable: String, ExpressibleByArgument, CaseIterable {
    case on, off

    init?(argument: String) {
        switch argument.lowercased() {
        case "on", "true", "yes", "1": self = .on
        case "off", "false", "no", "0": self = .off
        default: return nil
        }
    }

    var isOn: Bool { self == .on }
}

/// A setting as a person reads it: on or off.
func onOff(_ value: JSONValue?) -> String {
    value?.boolValue.map { $0 ? "on" : "off" } ?? "unknown"
}

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
