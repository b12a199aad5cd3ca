import ChakraControl

/// chakractl's command line, described as data: what each command takes,
/// what its help says. The parser (CommandLineParser), the --help text and
/// the man page (--experimental-dump-help, read by scripts/manpage.py) all
/// come from these descriptions, so they cannot disagree.
///
/// chakractl reads its command line with this small table rather than with
/// swift-argument-parser (which chakrad uses): that library links
/// FoundationEssentials, about 7.5 MB of a static chakractl whose whole job
/// is a dozen words and a socket.
struct ArgumentSpec: Sendable {
    enum Kind: Sendable {
        /// --name, no value.
        case flag
        /// --name VALUE or --name=VALUE.
        case option
        /// A word in its place after the command.
        case positional
    }

    let kind: Kind
    /// The long name without "--" (flags and options); the value's name for positionals.
    let name: String
    /// What the help shows for the value: --socket <path>.
    let valueName: String
    let help: String
    /// The only values accepted, when the argument has a fixed set.
    var choices: [String] = []
    /// A positional that takes every remaining word (zero or more).
    var isRepeating = false

    static func flag(_ name: String, help: String) -> ArgumentSpec {
        ArgumentSpec(kind: .flag, name: name, valueName: "", help: help)
    }

    static func option(_ name: String, value: String, help: String, choices: [String] = []) -> ArgumentSpec {
        ArgumentSpec(kind: .option, name: name, valueName: value, help: help, choices: choices)
    }

    static func positional(_ name: String, help: String, choices: [String] = [], repeating: Bool = false) -> ArgumentSpec {
        ArgumentSpec(kind: .positional, name: name, valueName: name, help: help, choices: choices, isRepeating: repeating)
    }

    /// How the usage line shows it.
    var usage: String {
        switch kind {
        case .flag: "[--\(name)]"
        case .option: "[--\(name) <\(valueName)>]"
        case .positional: isRepeating ? "[<\(valueName)> ...]" : "<\(valueName)>"
        }
    }

    /// The left column of the help: --socket <path>, <scene>.
    var label: String {
        switch kind {
        case .flag: "--\(name)"
        case .option: "--\(name) <\(valueName)>"
        case .positional: "<\(valueName)>" + (isRepeating ? " ..." : "")
        }
    }
}

/// One command: its name, what it does, what it takes.
struct CommandSpec: Sendable {
    let name: String
    let abstract: String
    var discussion = ""
    var arguments: [ArgumentSpec] = []

    var options: [ArgumentSpec] { arguments.filter { $0.kind != .positional } }
    var positionals: [ArgumentSpec] { arguments.filter { $0.kind == .positional } }
}

/// The help texts, laid out as a terminal shows them (80 columns).
enum HelpText {
    static let width = 80
    /// Where the right column of ARGUMENTS and OPTIONS starts.
    static let column = 26

    /// chakractl --help.
    static func root(_ root: CommandSpec, globals: [ArgumentSpec], commands: [CommandSpec]) -> String {
        var out = overview(root)
        out += "USAGE: \(root.name) \((globals.map(\.usage) + ["<command>"]).joined(separator: " "))\n\n"
        out += "OPTIONS:\n"
        out += rows(globals.map { ($0.label, describe($0)) })
        out += rows([("--version", "Show the version."), ("-h, --help", "Show help information.")])
        out += "\nCOMMANDS:\n"
        out += rows(commands.map { ($0.name, $0.abstract) })
        out += "\n  See '\(root.name) help <command>' for detailed help.\n"
        return out
    }

    /// chakractl COMMAND --help.
    static func command(_ command: CommandSpec, root: String, globals: [ArgumentSpec]) -> String {
        var out = overview(command)
        out += "USAGE: \(usage(command, root: root, globals: globals))\n"
        if !command.positionals.isEmpty {
            out += "\nARGUMENTS:\n"
            out += rows(command.positionals.map { ($0.label, describe($0)) })
        }
        out += "\nOPTIONS:\n"
        out += rows((command.options + globals).map { ($0.label, describe($0)) })
        out += rows([("-h, --help", "Show help information.")])
        return out
    }

    static func usage(_ command: CommandSpec, root: String, globals: [ArgumentSpec]) -> String {
        ([root, command.name] + (command.positionals + command.options + globals).map(\.usage)).joined(separator: " ")
    }

    private static func overview(_ command: CommandSpec) -> String {
        var out = "OVERVIEW: \(command.abstract)\n\n"
        if !command.discussion.isEmpty { out += wrap(command.discussion, indent: 0, first: 0) + "\n\n" }
        return out
    }

    private static func describe(_ argument: ArgumentSpec) -> String {
        argument.choices.isEmpty ? argument.help : "\(argument.help) (values: \(argument.choices.joined(separator: ", ")))"
    }

    /// Two columns; a label too long for the left one gets a line of its own.
    private static func rows(_ rows: [(String, String)]) -> String {
        var out = ""
        for (label, text) in rows {
            let left = "  " + label
            if left.count + 2 <= column {
                out += left + String(repeating: " ", count: column - left.count) + wrap(text, indent: column, first: column) + "\n"
            } else {
                out += left + "\n" + String(repeating: " ", count: column) + wrap(text, indent: column, first: column) + "\n"
            }
        }
        return out
    }

    /// Words filled to the width; continuation lines indented. `first` is
    /// the column the first line starts at.
    static func wrap(_ text: String, indent: Int, first: Int) -> String {
        var out = ""
        var column = first
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            if !out.isEmpty {
                if column + 1 + word.count > width {
                    out += "\n" + String(repeating: " ", count: indent)
                    column = indent
                } else {
                    out += " "
                    column += 1
                }
            }
            out += word
            column += word.count
        }
        return out
    }
}

/// --experimental-dump-help: the commands as swift-argument-parser's
/// ToolInfo JSON (serialization version 0), the shape scripts/manpage.py
/// reads to write the man page. chakrad prints the same shape through the
/// library itself.
enum ToolInfo {
    static func json(_ root: CommandSpec, globals: [ArgumentSpec], commands: [CommandSpec]) -> String {
        var rootInfo = command(root, arguments: globals)
        rootInfo["subcommands"] = .array(commands.map { .object(command($0, arguments: $0.arguments + globals)) })
        let info: JSONValue = ["serializationVersion": 0, "command": .object(rootInfo)]
        return info.encoded
    }

    private static func command(_ command: CommandSpec, arguments: [ArgumentSpec]) -> [String: JSONValue] {
        var fields: [String: JSONValue] = [
            "commandName": .string(command.name),
            "abstract": .string(command.abstract),
            "shouldDisplay": true,
            "arguments": .array(arguments.map(argument)),
        ]
        if !command.discussion.isEmpty { fields["discussion"] = .string(command.discussion) }
        return fields
    }

    private static func argument(_ argument: ArgumentSpec) -> JSONValue {
        var fields: [String: JSONValue] = [
            "kind": .string(argument.kind == .flag ? "flag" : argument.kind == .option ? "option" : "positional"),
            "abstract": .string(argument.help),
            "shouldDisplay": true,
            "isOptional": .bool(argument.kind != .positional || argument.isRepeating),
            "isRepeating": .bool(argument.isRepeating),
        ]
        if argument.kind != .positional {
            let name: JSONValue = ["kind": "long", "name": .string(argument.name)]
            fields["names"] = [name]
            fields["preferredName"] = name
        }
        if !argument.valueName.isEmpty { fields["valueName"] = .string(argument.valueName) }
        if !argument.choices.isEmpty { fields["allValues"] = .array(argument.choices.map(JSONValue.string)) }
        return .object(fields)
    }
}
