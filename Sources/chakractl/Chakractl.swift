import ChakraControl
import Glibc

/// chakractl: drives a running chakrad over its control socket, one
/// command per protocol command (docs/protocol.md).
///
/// Exit status: 0 done, 1 the daemon said no or a file could not be
/// written, 2 usage (a file named that may not be written included), 3 the
/// daemon cannot be reached (or stopped answering).
@main
enum Chakractl {
    static let spec = CommandSpec(
        name: "chakractl",
        abstract: "Control a running chakrad.",
        discussion: "The socket is --socket PATH, else $CHAKRA_SOCKET, else \(ControlProtocol.defaultSocket). "
            + "Exit status: 0 done, 1 chakrad refused or a file could not be written, 2 usage error "
            + "(a FILE that is not a regular file or a link to one included), 3 chakrad unreachable."
    )

    static let version = "chakractl \(ChakraVersion.current) (protocol \(ControlProtocol.version))"

    /// Every command, in the order help lists them.
    static var commands: [any Subcommand.Type] {
        [
            Status.self, Scenes.self, Switch.self, Set.self, Get.self, Snapshot.self, Reload.self, Pause.self,
            Resume.self, Events.self, Spiral.self, Display.self, ScheduleCommand.self, Health.self, Stats.self, Touch.self, Wake.self, Ping.self, Version.self,
        ]
    }

    static let parser = CommandLineParser(globals: ConnectionOptions.specs, commands: commands.map { $0.spec })

    /// What a command line asks for, parsed and checked (nothing sent yet).
    enum Invocation {
        case run(any Subcommand, ConnectionOptions)
        /// Text for standard output, exit 0: help, the version, the ToolInfo JSON.
        case print(String)
    }

    static func invocation(_ words: [String]) throws(UsageError) -> Invocation {
        switch try parser.parse(words) {
        case .version:
            return .print(version)
        case .dumpHelp:
            return .print(ToolInfo.json(spec, globals: ConnectionOptions.specs, commands: parser.commands))
        case .help(let name):
            guard let name, let command = parser.commands.first(where: { $0.name == name }) else {
                return .print(HelpText.root(spec, globals: ConnectionOptions.specs, commands: parser.commands))
            }
            return .print(HelpText.command(command, root: spec.name, globals: ConnectionOptions.specs))
        case .run(let name, let arguments):
            let type = commands.first { $0.spec.name == name }!
            do {
                return .run(try type.init(arguments), try ConnectionOptions(arguments))
            } catch {
                throw UsageError(error.description, command: name)
            }
        }
    }

    static func main() {
        // A parent may hand down blocked signals (a daemon's signalfd mask):
        // Ctrl-C must still stop `chakractl events`.
        var none = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, nil)
        do {
            switch try invocation(Array(CommandLine.arguments.dropFirst())) {
            case .print(let text):
                writeAll(text.hasSuffix("\n") ? text : text + "\n", to: STDOUT_FILENO)
                exit(0)
            case .run(let command, let options):
                try command.run(options)
                exit(0)
            }
        } catch let failure as ClientFailure {
            writeAll("chakractl: \(failure.description)\n", to: STDERR_FILENO)
            exit(failure.status.rawValue)
        } catch let usage as UsageError {
            writeAll(usageMessage(usage), to: STDERR_FILENO)
            exit(ClientFailure.Status.usage.rawValue)
        } catch {
            writeAll("chakractl: \(error)\n", to: STDERR_FILENO)
            exit(ClientFailure.Status.usage.rawValue)
        }
    }

    /// The error, the usage line, where the help is.
    static func usageMessage(_ error: UsageError) -> String {
        guard let name = error.command, let command = parser.commands.first(where: { $0.name == name }) else {
            return "chakractl: \(error.description)\nUsage: \(spec.name) [options] <command> ...\n  See '\(spec.name) --help' for more information.\n"
        }
        return "chakractl: \(error.description)\nUsage: \(HelpText.usage(command, root: spec.name, globals: ConnectionOptions.specs))\n"
            + "  See '\(spec.name) \(name) --help' for more information.\n"
    }
}

/// --socket, --json and --timeout: before the command or after it.
struct ConnectionOptions: Equatable {
    var socket: String?
    var json = false
    var timeout: Double?

    static let specs: [ArgumentSpec] = [
        .option("socket", value: "path", help: "chakrad's control socket (default: $CHAKRA_SOCKET, else \(ControlProtocol.defaultSocket))."),
        .flag("json", help: "Print chakrad's replies as JSON, one per line, for scripts."),
        .option("timeout", value: "seconds", help: "Seconds to wait for an answer."),
    ]

    init(socket: String? = nil, json: Bool = false, timeout: Double? = nil) {
        self.socket = socket
        self.json = json
        self.timeout = timeout
    }

    init(_ arguments: ParsedArguments) throws(UsageError) {
        socket = arguments.value("socket")
        json = arguments.flag("json")
        if let text = arguments.value("timeout") {
            guard let seconds = Double(text), seconds > 0, seconds <= 3600 else {
                throw UsageError("--timeout must be more than 0 and at most 3600 seconds, not '\(text)'")
            }
            timeout = seconds
        }
        if socket?.isEmpty == true { throw UsageError("--socket needs a path") }
    }

    func socketPath(environment: [String: String] = Self.processEnvironment) -> String {
        if let socket { return socket }
        if let fromEnvironment = environment["CHAKRA_SOCKET"], !fromEnvironment.isEmpty { return fromEnvironment }
        return ControlProtocol.defaultSocket
    }

    /// CHAKRA_SOCKET from this process's environment.
    static var processEnvironment: [String: String] {
        guard let value = getenv("CHAKRA_SOCKET") else { return [:] }
        return ["CHAKRA_SOCKET": String(cString: value)]
    }
}
