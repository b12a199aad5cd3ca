import ArgumentParser
import ChakraDaemon
import ChakraScenes

/// A screen size written as WIDTHxHEIGHT.
struct ScreenSize: ExpressibleByArgument, CustomStringConvertible, Equatable {
    let width: Int, height: Int

    init(width: Int, height: Int) { (self.width, self.height) = (width, height) }

    init?(argument: String) {
        let parts = argument.lowercased().split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0, w <= 16384, h <= 16384 else { return nil }
        (width, height) = (w, h)
    }

    var description: String { "\(width)x\(height)" }
}

/// A scene name that must be in the catalog.
struct SceneName: ExpressibleByArgument, CustomStringConvertible {
    let name: String
    init?(argument: String) {
        guard DaemonScenes.names.contains(argument) else { return nil }
        name = argument
    }
    init(_ name: String) { self.name = name }
    var description: String { name }
    static var allValueStrings: [String] { DaemonScenes.names }
}

struct SceneSettingsOptions: ParsableArguments {
    @Flag(help: "Render the still reduce-motion form.")
    var reduceMotion = false

    @Flag(help: "Render the low-power form (fewer effects, coarser blurs).")
    var lowPower = false

    var settings: RenderSettings { RenderSettings(reduceMotion: reduceMotion, lowPower: lowPower) }
}
