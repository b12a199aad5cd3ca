import Foundation
import Testing

/// Numbers on the command line that used to trap (issue 27): the real
/// binaries refuse each with a usage error that says why (chakrad: exit
/// 64, EX_USAGE; chakractl: exit 2), and none dies of a signal.
@Suite("Extreme numbers on the command line", .enabled(if: Binaries.directory != nil, "build chakrad and chakractl first"))
struct ExtremeArgumentsTests {
    /// chakrad arguments, and what its refusal must say.
    static let chakradRefusals: [([String], String)] = [
        (["render", "--scene", "spiral", "--time", "1e20"], "--time must be a number of seconds from 0 to 1e9"),
        (["render", "--scene", "heart", "--time", "1e300"], "--time must be a number of seconds from 0 to 1e9"),
        (["render", "--scene", "drift", "--time", "1000000001"], "--time must be a number of seconds from 0 to 1e9"),
        (["render", "--time=inf"], "--time must be"),
        (["render", "--time=nan"], "--time must be"),
        (["render", "--time=-1e300"], "--time must be"),
        (["render", "--scene", "spiral", "--spiral-state", "hold", "--hold-elapsed", "1e300"], "--hold-elapsed must be a number of seconds from 0 to 1e9"),
        (["render", "--size", "99999999999999999999x9"], "--size"),
        (["run", "--pin-time", "1e300", "--output", "headless", "--socket", "none"], "--pin-time must be a number of seconds from 0 to 1e9"),
        (["run", "--pin-time", "nan", "--output", "headless", "--socket", "none"], "--pin-time must be"),
        (["run", "--pin-time=-inf", "--output", "headless", "--socket", "none"], "--pin-time must be"),
        (["run", "--fps", "1e300", "--output", "headless", "--socket", "none"], "--fps must be between 1 and 1000"),
        (["run", "--threads", "9223372036854775807", "--output", "headless", "--socket", "none"], "--threads must be between 1 and 256"),
        (["run", "--threads", "9223372036854775808", "--output", "headless", "--socket", "none"], "--threads"),
        (["run", "--headless-png-every=-9223372036854775808", "--output", "headless", "--socket", "none"], "--headless-png-every must be at least 1"),
        (["bench", "--frames", "9223372036854775807"], "--frames must be 10...1000000"),
        (["bench", "--frames", "1e300"], "--frames"),
        (["bench", "--threads=-9223372036854775808"], "--threads must be between 1 and 256"),
    ]

    @Test(arguments: chakradRefusals)
    func chakradRefusesWithUsage(arguments: [String], message: String) throws {
        let output = "/tmp/chakra-extreme-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).png"
        defer { unlink(output) }
        let outcome = try Binaries.run(Binaries.chakrad, arguments + (arguments[0] == "render" ? ["-o", output] : []))
        #expect(!outcome.signalled, "\(arguments): killed by signal \(outcome.status)")
        #expect(outcome.status == 64, "\(arguments): exit \(outcome.status)\n\(outcome.error)")
        #expect(outcome.error.contains(message), "\(arguments): \(outcome.error)")
        #expect(access(output, F_OK) != 0, "nothing written")
    }

    /// The bound itself is safe: every scene renders at a billion seconds
    /// (and at -0, which is 0).
    @Test(arguments: ["heart", "drift", "calm", "spiral"])
    func everySceneRendersAtTheBound(scene: String) throws {
        let file = "/tmp/chakra-extreme-\(getpid())-\(scene).png"
        defer { unlink(file) }
        for time in ["1e9", "-0", "-0.0"] {
            let outcome = try Binaries.run(Binaries.chakrad, ["render", "--scene", scene, "--time=" + time, "--size", "64x36", "-o", file],
                                           directory: Binaries.repository.path)
            #expect(!outcome.signalled && outcome.status == 0, "\(scene) at \(time): \(outcome.status)\n\(outcome.error)")
        }
    }

    static let chakractlRefusals: [[String]] = [
        ["--timeout", "1e300", "ping"], ["--timeout", "nan", "ping"], ["--timeout", "-0", "ping"],
        ["switch", "heart", "--duration", "1e300"], ["switch", "heart", "--duration", "nan"],
        ["set", "brightness", "1e300"], ["set", "brightness", "9223372036854775808"], ["set", "brightness", "0.5"],
        ["touch", "down", "1e300", "5"], ["touch", "down", "5", "nan"], ["touch", "move", "100001", "0"], ["touch", "up", "--contact", "9223372036854775808"],
        ["stats", "--since", "99999999999-01-01"],
    ]

    @Test(arguments: chakractlRefusals)
    func chakractlRefusesWithUsage(arguments: [String]) throws {
        let outcome = try Binaries.run(Binaries.chakractl, ["--socket", "/nonexistent/chakra.sock"] + arguments)
        #expect(!outcome.signalled, "\(arguments): killed by signal \(outcome.status)")
        #expect(outcome.status == 2, "\(arguments): exit \(outcome.status)\n\(outcome.error)")
    }
}
