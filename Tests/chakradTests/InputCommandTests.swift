import ArgumentParser
import ChakraInput
import ChakraRaster
import Testing
@testable import chakrad

/// `chakrad input` options (parseAsRoot); the command itself runs against
/// real devices in tests/vm/cases/40-touch-uinput.sh.
@Suite("chakrad input options")
struct InputCommandTests {
    private func parse(_ arguments: [String]) throws -> InputCommand {
        try #require(try Chakrad.parseAsRoot(["input"] + arguments) as? InputCommand)
    }

    @Test func defaults() throws {
        let command = try parse([])
        #expect(!command.watch && !command.grab && command.device == nil && command.rumble == nil)
        #expect(command.size == ScreenSize(width: 1280, height: 720) && command.rotation == .none && command.calibration == .identity)
    }

    @Test func watchOptions() throws {
        let command = try parse(["--watch", "--size", "640x480", "--rotation", "90", "--calibration", "0 1 0 -1 0 1",
                                 "--device", "goodix", "--grab"])
        #expect(command.watch && command.grab && command.device == "goodix")
        #expect(command.size == ScreenSize(width: 640, height: 480) && command.rotation == .clockwise90)
        #expect(command.calibration == Calibration([0, 1, 0, -1, 0, 1]))
        #expect(try parse(["--calibration", "0.5,0,0.25,0,1,0"]).calibration == Calibration([0.5, 0, 0.25, 0, 1, 0]))
        #expect(try parse(["--rumble", "beat", "--haptics", "/dev/input/event4"]).rumble == .beat)
    }

    @Test func badValuesAreUsageErrors() {
        for arguments in [["--rotation", "45"], ["--calibration", "1 0 0 0 1"], ["--size", "640"], ["--rumble", "buzz"],
                          ["--watch", "--rumble", "tick"]] {
            #expect(throws: (any Error).self, "\(arguments)") { try Chakrad.parseAsRoot(["input"] + arguments) }
        }
    }
}
