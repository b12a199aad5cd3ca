import ArgumentParser
import ChakraControl

/// chakrad: the Chakra display daemon. `chakrad` alone (or `chakrad run`)
/// runs it; `validate` checks a configuration, `render` draws a frame
/// offline, `bench` measures the renderer and `input` shows the touchscreens
/// and their touches.
@main
struct Chakrad: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chakrad",
        abstract: "Chakra display daemon: calm scenes rendered on the CPU.",
        version: "chakrad \(ChakraVersion.current) (protocol \(ControlProtocol.version))",
        subcommands: [RunCommand.self, ValidateCommand.self, RenderCommand.self, BenchCommand.self, InputCommand.self],
        defaultSubcommand: RunCommand.self
    )
}
