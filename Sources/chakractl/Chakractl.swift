import ArgumentParser
import ChakraControl
import Glibc

/// chakractl: drives a running chakrad over its control socket, one
/// subcommand per protocol command (docs/protocol.md).
///
/// Exit status: 0 done, 1 the daemon said no, 2 usage, 3 the daemon
/// cannot be reached (or stopped answering).
@main
struct Chakractl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chakractl",
        abstract: "Control a running chakrad.",
        discussion: """
        The socket is --socket PATH, else $CHAKRA_SOCKET, else \(ControlProtocol.defaultSocket). \
        Exit status: 0 done, 1 chakrad refused, 2 usage error, 3 chakrad unreachable.
        """,
        version: "chakractl \(ChakraVersion.current) (protocol \(ControlProtocol.version))",
        subcommands: [
            Status.self, Scenes.self, Switch.self, Set.self, Get.self, Snapshot.self, Reload.self, Pause.self,
            Resume.self, Events.self, Spiral.self, Wake.self, Ping.self, Version.self,
        ]
    )

    @OptionGroup var connection: ConnectionOptions

    /// Exit statuses beside ArgumentParser's: usage errors are 2, not 64.
    static let usageStatus: Int32 = 2

    static func main() {
        // A parent may hand down blocked signals (a daemon's signalfd mask):
        // Ctrl-C must still stop `chakractl events`.
        var none = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, nil)
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let failure as ClientFailure {
            writeAll("chakractl: \(failure.description)\n", to: STDERR_FILENO)
            Glibc.exit(failure.status.rawValue)
        } catch {
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if code == .success {
                if !message.isEmpty { print(message) }
                Glibc.exit(0)
            }
            if !message.isEmpty { writeAll(message + "\n", to: STDERR_FILENO) }
            Glibc.exit(code == .validationFailure ? usageStatus : code.rawValue)
        }
    }
}

/// --socket, --json and --timeout: before the subcommand or after it.
struct ConnectionOptions: ParsableArguments {
    @Option(help: ArgumentHelp("chakrad's control socket (default: $CHAKRA_SOCKET, else \(ControlProtocol.defaultSocket)).", valueName: "path"))
    var socket: String?

    @Flag(help: "Print chakrad's replies as JSON, one per line, for scripts.")
    var json = false

    @Option(help: ArgumentHelp("Seconds to wait for an answer.", valueName: "seconds"))
    var timeout: Double?

    func validate() throws {
        if let timeout, !(timeout > 0 && timeout <= 3600) { throw ValidationError("--timeout must be more than 0 and at most 3600 seconds") }
        if let socket, socket.isEmpty { throw ValidationError("--socket needs a path") }
    }

    /// These options, or the same ones given before the subcommand.
    func merged(with outer: ConnectionOptions) -> ConnectionOptions {
        var merged = self
        merged.socket = socket ?? outer.socket
        merged.json = json || outer.json
        merged.timeout = timeout ?? outer.timeout
        return merged
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
