import ArgumentParser
import ChakraDaemon
import ChakraDisplay
import ChakraRaster
import Testing
@testable import chakrad

/// `chakrad run` options as parsed from the command line (swift-argument-
/// parser's parseAsRoot), and the daemon configuration they make.
@Suite("chakrad run options")
struct RunCommandTests {
    private func configuration(_ arguments: [String]) throws -> DaemonConfiguration {
        let command = try Chakrad.parseAsRoot(arguments)
        let run = try #require(command as? RunCommand)
        return run.daemonConfiguration
    }

    @Test func runIsTheDefaultSubcommand() throws {
        #expect(try Chakrad.parseAsRoot([]) is RunCommand)
        #expect(try Chakrad.parseAsRoot(["--output", "headless"]) is RunCommand)
        #expect(try Chakrad.parseAsRoot(["run"]) is RunCommand)
        #expect(try Chakrad.parseAsRoot(["render", "-o", "x.png"]) is RenderCommand)
    }

    @Test func defaults() throws {
        let c = try configuration([])
        #expect(c.output == .auto)
        #expect(c.scene == "heart")
        #expect(c.rotation == .none)
        #expect(c.fps == nil)
        #expect(c.terminal == .auto)
        #expect(c.pinnedTime == nil)
        #expect(c.outputOptions.mode == nil)
        #expect(c.outputOptions.headlessWidth == 1280 && c.outputOptions.headlessHeight == 720)
        #expect(c.threads >= 1)
    }

    @Test func everyOption() throws {
        let c = try configuration([
            "run", "--output", "drm", "--device", "/dev/dri/card1", "--connector", "HDMI-A-1", "--mode", "1920x1080@60",
            "--format", "rgb565", "--rotation", "270", "--scene", "heart", "--fps", "30", "--reduce-motion", "--low-power",
            "--threads", "3", "--vt", "2", "--headless-size", "640x360", "--headless-png-dir", "/tmp/frames",
            "--headless-png-every", "10", "--drm-api", "legacy", "--pin-time", "2.5", "--stats-file", "/tmp/s",
        ])
        #expect(c.output == .drm)
        #expect(c.outputOptions.device == "/dev/dri/card1")
        #expect(c.outputOptions.connector == "HDMI-A-1")
        #expect(c.outputOptions.mode == ModeRequest(width: 1920, height: 1080, refresh: 60))
        #expect(c.outputOptions.format == .rgb565)
        #expect(c.outputOptions.drmInterface == .legacy)
        #expect(c.rotation == .clockwise270)
        #expect(c.fps == 30)
        #expect(c.settings.reduceMotion && c.settings.lowPower)
        #expect(c.effectiveFPSCap == 20)
        #expect(c.threads == 3)
        #expect(c.terminal == .number(2))
        #expect(c.outputOptions.headlessWidth == 640 && c.outputOptions.headlessHeight == 360)
        #expect(c.outputOptions.headlessPNGDirectory == "/tmp/frames" && c.outputOptions.headlessPNGEvery == 10)
        #expect(c.pinnedTime == 2.5)
        #expect(c.statsFile == "/tmp/s")
    }

    @Test(arguments: [
        ["--mode", "1920"], ["--mode", "1920x1080@fast"], ["--rotation", "45"], ["--output", "x11"],
        ["--format", "YUYV"], ["--fps", "0"], ["--threads", "0"], ["--vt", "tty1"], ["--scene", "nope"],
        ["--pin-time", "-1"], ["--pin-time", "1e300"], ["--pin-time", "1000000001"], ["--pin-time", "nan"], ["--headless-png-every", "0"], ["--config", "/nonexistent/chakra.toml"],
        ["--output", "headless", "--device", "/dev/fb0"], ["--log-level", "loud"],
    ])
    func badInputIsAUsageError(arguments: [String]) {
        do {
            _ = try Chakrad.parseAsRoot(["run"] + arguments)
            Issue.record("accepted \(arguments)")
        } catch {
            #expect(Chakrad.exitCode(for: error) == .validationFailure, "\(arguments): \(Chakrad.message(for: error))")
        }
    }
}
