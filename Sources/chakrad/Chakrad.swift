import ArgumentParser

/// chakrad: the Chakra display daemon. `chakrad` alone (or `chakrad run`)
/// runs it; `render` draws a frame offline and `bench` measures the renderer.
@main
struct Chakrad: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chakrad",
        abstract: "Chakra display daemon: calm scenes rendered on the CPU.",
        subcommands: [RunCommand.self, RenderCommand.self, BenchCommand.self],
        defaultSubcommand: RunCommand.self
    )
}
