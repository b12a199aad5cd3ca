import ArgumentParser

/// chakrad: the Chakra display daemon. For now it renders frames offline
/// (`render`) and measures the renderer (`bench`); the daemon itself lands
/// with the display backends.
@main
struct Chakrad: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chakrad",
        abstract: "Chakra display daemon: calm scenes rendered on the CPU.",
        subcommands: [RenderCommand.self, BenchCommand.self]
    )
}
