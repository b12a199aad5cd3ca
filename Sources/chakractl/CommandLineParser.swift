/// A command line chakractl cannot run: exit status 2, the message, and
/// where to read more.
struct UsageError: Error, Equatable, CustomStringConvertible {
    let description: String
    /// The command whose help explains it (nil: chakractl's own).
    var command: String?

    init(_ description: String, command: String? = nil) {
        self.description = description
        self.command = command
    }
}

/// What one command got from the command line: option values, flags and
/// positional words, each checked against its ArgumentSpec (known name,
/// value present, one of the choices). Commands read their own from here.
struct ParsedArguments {
    private(set) var values: [String: String] = [:]
    private(set) var flags: Swift.Set<String> = []
    private(set) var positionals: [String: [String]] = [:]

    /// An option's value (the last one given wins).
    func value(_ name: String) -> String? { values[name] }
    func flag(_ name: String) -> Bool { flags.contains(name) }
    /// A required positional: the parser made sure it is there.
    func positional(_ name: String) -> String { positionals[name]?.first ?? "" }
    /// A repeating positional's words, in order.
    func words(_ name: String) -> [String] { positionals[name] ?? [] }

    mutating func set(_ name: String, _ value: String) { values[name] = value }
    mutating func set(flag name: String) { flags.insert(name) }
    mutating func append(_ name: String, _ word: String) { positionals[name, default: []].append(word) }
}

/// What the command line asks for.
enum CommandLineRequest {
    /// Run `command` with these (the command's own and the connection options).
    case run(command: String, arguments: ParsedArguments)
    /// Print help: chakractl's (nil) or a command's.
    case help(command: String?)
    case version
    case dumpHelp
}

/// Reads chakractl's words: the connection options (`globals`) anywhere,
/// before the command or after it; then the command and its own options
/// and positionals. `--name=value` and `--name value` both work; `--` ends
/// the options; -h/--help anywhere asks for help, `help COMMAND` too.
struct CommandLineParser {
    let globals: [ArgumentSpec]
    let commands: [CommandSpec]

    func parse(_ words: [String]) throws(UsageError) -> CommandLineRequest {
        var arguments = ParsedArguments()
        var command: CommandSpec?
        var positionalWords: [String] = []
        var onlyPositionals = false
        var index = 0
        while index < words.count {
            let word = words[index]
            index += 1
            if onlyPositionals || !word.hasPrefix("-") || word == "-" {
                if command == nil {
                    if word == "help" { return try helpRequest(Array(words[index...])) }
                    guard let found = commands.first(where: { $0.name == word }) else {
                        throw UsageError("unknown command '\(word)'; commands: \(commands.map(\.name).joined(separator: ", "))")
                    }
                    command = found
                } else {
                    positionalWords.append(word)
                }
                continue
            }
            if word == "--" {
                onlyPositionals = true
                continue
            }
            if word == "-h" || word == "--help" { return .help(command: command?.name) }
            if command == nil && word == "--version" { return .version }
            if command == nil && word == "--experimental-dump-help" { return .dumpHelp }

            let (name, inlineValue) = Self.split(word)
            guard word.hasPrefix("--"), let spec = ((command?.options ?? []) + globals).first(where: { $0.name == name }) else {
                throw UsageError("unknown option '\(word)'", command: command?.name)
            }
            switch spec.kind {
            case .flag:
                if inlineValue != nil { throw UsageError("--\(name) takes no value", command: command?.name) }
                arguments.set(flag: name)
            case .option:
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard index < words.count else { throw UsageError("--\(name) needs a value (<\(spec.valueName)>)", command: command?.name) }
                    value = words[index]
                    index += 1
                }
                try Self.check(value, against: spec, command: command?.name)
                arguments.set(name, value)
            case .positional:
                break
            }
        }
        guard let command else { return .help(command: nil) }
        try Self.assign(positionalWords, to: command, in: &arguments)
        return .run(command: command.name, arguments: arguments)
    }

    /// `help`, `help COMMAND`.
    private func helpRequest(_ rest: [String]) throws(UsageError) -> CommandLineRequest {
        guard let name = rest.first else { return .help(command: nil) }
        guard commands.contains(where: { $0.name == name }) else {
            throw UsageError("unknown command '\(name)'; commands: \(commands.map(\.name).joined(separator: ", "))")
        }
        return .help(command: name)
    }

    /// The command's positionals in order; a repeating one takes the rest.
    private static func assign(_ words: [String], to command: CommandSpec, in arguments: inout ParsedArguments) throws(UsageError) {
        var remaining = words[...]
        for spec in command.positionals {
            if spec.isRepeating {
                for word in remaining {
                    try check(word, against: spec, command: command.name)
                    arguments.append(spec.name, word)
                }
                remaining = []
                break
            }
            guard let word = remaining.popFirst() else {
                throw UsageError("missing <\(spec.valueName)>", command: command.name)
            }
            try check(word, against: spec, command: command.name)
            arguments.append(spec.name, word)
        }
        if let extra = remaining.first {
            throw UsageError("unexpected argument '\(extra)'", command: command.name)
        }
    }

    private static func check(_ value: String, against spec: ArgumentSpec, command: String?) throws(UsageError) {
        guard spec.choices.isEmpty || spec.choices.contains(value) else {
            let what = spec.kind == .positional ? "<\(spec.valueName)>" : "--\(spec.name)"
            throw UsageError("'\(value)' is not a valid value for \(what); choose \(spec.choices.joined(separator: ", "))", command: command)
        }
    }

    /// "--name=value" into ("name", "value"); "--name" into ("name", nil).
    private static func split(_ word: String) -> (String, String?) {
        let body = word.hasPrefix("--") ? word.dropFirst(2) : word.dropFirst()
        guard let equals = body.firstIndex(of: "=") else { return (String(body), nil) }
        return (String(body[..<equals]), String(body[body.index(after: equals)...]))
    }
}
