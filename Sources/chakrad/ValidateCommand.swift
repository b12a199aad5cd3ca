import ArgumentParser
import ChakraConfig
import ChakraDaemon
import Glibc

/// `chakrad validate`: the configuration checked as `chakrad run` checks it
/// at start (the file, its drop-ins, then the scene names against this
/// build), without opening a display: for a provisioning tool to run
/// before it reloads the daemon.
struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check a configuration file and its drop-ins without running.",
        discussion: """
        Reads FILE (default: \(ConfigSource.defaultPath), which may be missing) and the drop-ins in FILE.d/*.toml, \
        and applies every check chakrad applies at start. Valid: one line on standard output, exit 0. Invalid: every \
        error on standard error as FILE:LINE: KEY: PROBLEM, exit 1. Warnings go to standard error and do not fail \
        the check unless --strict is given: unknown keys, and deprecated keys of an earlier release, which chakrad reads \
        as what replaced them (the warning shows the lines to write instead).
        """
    )

    @Argument(help: ArgumentHelp("The main configuration file (must exist when given).", valueName: "file"))
    var file: String?

    @Flag(help: "Fail on warnings too (unknown keys and tables, deprecated keys).")
    var strict = false

    /// What the check found: lines for standard output and standard
    /// error, and the exit status.
    struct Outcome: Equatable {
        var output: [String] = []
        var errors: [String] = []
        var status: Int32 = 0
    }

    func check() -> Outcome {
        let source = ConfigSource(path: file ?? ConfigSource.defaultPath, required: file != nil)
        var outcome = Outcome()
        let loaded: LoadedConfig
        do {
            loaded = try source.load()
            try ConfigSource.check(loaded)
        } catch {
            outcome.errors = error.issues.map(\.description)
            outcome.status = 1
            return outcome
        }
        outcome.errors = loaded.warnings.map { "warning: \($0)" }
        if strict, !loaded.warnings.isEmpty {
            outcome.errors.append("invalid (--strict): \(Self.count(loaded.warningCount, "warning"))")
            outcome.status = 1
            return outcome
        }
        var summary = "valid: \(Self.count(loaded.keysSet.count, "key")) set, \(Self.count(loaded.dropIns.count, "drop-in"))"
        if loaded.file == nil { summary += " (no \(source.path ?? "file"): defaults)" }
        outcome.output = [summary]
        return outcome
    }

    func run() throws {
        let outcome = check()
        for line in outcome.errors { printToStandardError(line) }
        for line in outcome.output { print(line) }
        if outcome.status != 0 { throw ExitCode(outcome.status) }
    }

    private static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
}

private func printToStandardError(_ line: String) {
    var text = line + "\n"
    text.withUTF8 { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
}
