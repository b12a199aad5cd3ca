import ArgumentParser
import ChakraConfig
import ChakraDaemon
import ChakraDisplay
import Foundation
import Testing
@testable import chakrad

/// The configuration file under the command line: a given option beats
/// the file's key, an absent one leaves it.
@Suite("chakrad run: configuration file and options")
struct ConfigurationOptionsTests {
    private func run(_ arguments: [String]) throws -> RunCommand {
        try #require(try Chakrad.parseAsRoot(["run"] + arguments) as? RunCommand)
    }

    @Test func optionsBeatTheFileAndTheFileBeatsTheDefaults() throws {
        var file = ChakraConfig()
        file.display.output = .fbdev
        file.display.rotation = 90
        file.display.fps = 30
        file.scene.defaultScene = "heart"
        file.lowPower.fps = 12
        file.control.socket = "/run/kiosk/chakra.sock"
        file.control.maxClients = 4

        let fromFile = try run([]).daemonConfiguration(file: file)
        #expect(fromFile.output == .fbdev && fromFile.rotation == .clockwise90 && fromFile.fps == 30 && fromFile.lowPowerFPS == 12)
        #expect(fromFile.control?.socket == "/run/kiosk/chakra.sock" && fromFile.control?.maxClients == 4)

        let overridden = try run(["--output", "headless", "--rotation", "180", "--fps", "50", "--socket", "/tmp/c.sock", "--low-power"])
            .daemonConfiguration(file: file)
        #expect(overridden.output == .headless && overridden.rotation == .upsideDown && overridden.fps == 50)
        #expect(overridden.control?.socket == "/tmp/c.sock" && overridden.control?.maxClients == 4)
        #expect(overridden.settings.lowPower && overridden.effectiveFPSCap == 12)
        #expect(overridden.overrides.keys == ["display.output", "display.rotation", "display.fps", "low_power.enabled", "control.socket"])

        #expect(try run(["--socket", "none"]).daemonConfiguration(file: file).control == nil)
    }

    @Test func configSource() throws {
        let standard = try run([]).configSource
        #expect(standard == ConfigSource(path: "/etc/chakra/chakra.toml", required: false))
        let temporary = FileManager.default.temporaryDirectory.appendingPathComponent("chakra-run-\(UUID().uuidString).toml").path
        try "".write(toFile: temporary, atomically: false, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: temporary) }
        #expect(try run(["--config", temporary]).configSource == ConfigSource(path: temporary, required: true))
        // A relative path is made absolute: a reload reads the same file
        // whatever the working directory is then.
        let cwd = FileManager.default.currentDirectoryPath
        if FileManager.default.isReadableFile(atPath: "Package.swift") {
            #expect(try run(["--config", "Package.swift"]).configSource.path == cwd + "/Package.swift")
        }
    }

    @Test(arguments: [["--socket", "relative.sock"], ["--socket", "/" + String(repeating: "s", count: 120)], ["--vt", "0"]])
    func badOptions(arguments: [String]) {
        do {
            _ = try Chakrad.parseAsRoot(["run"] + arguments)
            Issue.record("accepted \(arguments)")
        } catch {
            #expect(Chakrad.exitCode(for: error) == .validationFailure)
        }
    }

    @Test func aMissingDefaultFileMeansDefaults() throws {
        let source = ConfigSource(path: "/nonexistent/chakra.toml", required: false)
        let loaded = try source.load()
        #expect(loaded.config == ChakraConfig() && loaded.file == nil)
        #expect(throws: ConfigError.self) { try ConfigSource(path: "/nonexistent/chakra.toml", required: true).load() }
    }
}
