import ArgumentParser
import Foundation
import Testing
@testable import chakrad

/// `chakrad validate`: the start's checks without a display, the exit
/// status and the lines it prints.
@Suite("chakrad validate")
struct ValidateCommandTests {
    /// A main file and its drop-in directory in a temporary directory.
    final class Tree {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("chakra-validate-\(UUID().uuidString)").path
        var main: String { root + "/chakra.toml" }

        init(main text: String) throws {
            try FileManager.default.createDirectory(atPath: main + ".d", withIntermediateDirectories: true)
            try text.write(toFile: main, atomically: false, encoding: .utf8)
        }

        deinit { try? FileManager.default.removeItem(atPath: root) }

        @discardableResult
        func dropIn(_ name: String, _ text: String) throws -> String {
            let path = main + ".d/" + name
            try text.write(toFile: path, atomically: false, encoding: .utf8)
            return path
        }
    }

    private func validate(_ arguments: [String]) throws -> ValidateCommand.Outcome {
        try #require(try Chakrad.parseAsRoot(["validate"] + arguments) as? ValidateCommand).check()
    }

    @Test("valid: exit 0 and one line counting the keys and drop-ins")
    func valid() throws {
        let tree = try Tree(main: "[display]\nfps = 30\n")
        try tree.dropIn("50-site.toml", "[display]\nfps = 25\nrotation = 90\n")
        let outcome = try validate([tree.main])
        #expect(outcome == ValidateCommand.Outcome(output: ["valid: 2 keys set, 1 drop-in"], errors: [], status: 0))
        try tree.dropIn("60-more.toml", "reduce_motion = true\n")
        #expect(try validate([tree.main]).output == ["valid: 3 keys set, 2 drop-ins"])
    }

    @Test("the old hold cycle's keys: valid (chakrad runs with them), one warning saying they are deprecated and what to write")
    func deprecatedHoldCycle() throws {
        let tree = try Tree(main: "[spiral]\nhold_cycle_up_duration = 3\nhold_cycle_pause_duration = 2\nhold_cycle_down_duration = 5\n")
        let outcome = try validate([tree.main])
        #expect(outcome.status == 0 && outcome.output == ["valid: 0 keys set, 0 drop-ins"])
        #expect(outcome.errors.count == 1, "\(outcome.errors)")
        let warning = try #require(outcome.errors.first)
        #expect(warning.hasPrefix("warning: \(tree.main):2: spiral.hold_cycle_up_duration: deprecated"))
        #expect(warning.contains("read as the pattern \"hold-cycle\" (in 3 s, hold-in 2 s, out 5 s), which breathes the same"))
        #expect(warning.contains("\n    pattern = \"hold-cycle\"\n"))
        #expect(warning.hasSuffix("\n    [spiral.patterns.hold-cycle]\n    phases = [{ kind = \"in\", seconds = 3 }, { kind = \"hold-in\", seconds = 2 }, { kind = \"out\", seconds = 5 }]"))
        // --strict fails on warnings, this one too: the file still has keys to rewrite.
        #expect(try validate([tree.main, "--strict"]).status == 1)
    }

    @Test("invalid: exit 1 with every error as file:line: key: problem")
    func invalid() throws {
        let tree = try Tree(main: "[display]\nrotation = 45\n")
        let site = try tree.dropIn("50-site.toml", "# site\n[display]\nfps = \"fast\"\n")
        let outcome = try validate([tree.main])
        #expect(outcome.status == 1 && outcome.output.isEmpty)
        #expect(outcome.errors.count == 2, "\(outcome.errors)")
        #expect(outcome.errors.first?.hasPrefix(tree.main + ":2: display.rotation: must be one of 0, 90, 180, 270") == true, "\(outcome.errors)")
        #expect(outcome.errors.last?.hasPrefix(site + ":3: display.fps: ") == true, "\(outcome.errors)")
    }

    @Test("the daemon's start checks too: scene names, in the file that names them")
    func sceneNames() throws {
        let tree = try Tree(main: "[scene]\ndefault = \"heart\"\n")
        let site = try tree.dropIn("50-site.toml", "[scene]\ndefault = \"nope\"\n\n[[schedule.window]]\ndays = \"daily\"\nstart = \"08:00\"\nend = \"20:00\"\nshow = \"disco\"\n")
        let outcome = try validate([tree.main])
        #expect(outcome.status == 1)
        #expect(outcome.errors.count == 2, "\(outcome.errors)")
        #expect(outcome.errors.first?.hasPrefix(site + ":2: scene.default: no scene named 'nope'") == true, "\(outcome.errors)")
        #expect(outcome.errors.last?.hasPrefix(site + ":8: schedule.window.0.show: no scene named 'disco'") == true, "\(outcome.errors)")
    }

    @Test("warnings are printed and pass; with --strict they fail")
    func warnings() throws {
        let tree = try Tree(main: "")
        let site = try tree.dropIn("50-site.toml", "[display]\nfsp = 30\n")
        let warning = "warning: " + site + ":2: display.fsp: unknown key, ignored; did you mean display.fps?"
        let lenient = try validate([tree.main])
        #expect(lenient == ValidateCommand.Outcome(output: ["valid: 0 keys set, 1 drop-in"], errors: [warning], status: 0))
        let strict = try validate([tree.main, "--strict"])
        #expect(strict.status == 1 && strict.output.isEmpty && strict.errors == [warning, "invalid (--strict): 1 warning"])
    }

    @Test("a FILE that does not exist is an error")
    func missingFile() throws {
        let outcome = try validate(["/nonexistent/chakra.toml"])
        #expect(outcome.status == 1 && outcome.errors.count == 1 && outcome.errors[0].hasPrefix("/nonexistent/chakra.toml: cannot read the file"))
    }

    @Test("the exit status reaches the shell")
    func exitStatus() throws {
        let tree = try Tree(main: "[display]\nfps = \"fast\"\n")
        let command = try #require(try Chakrad.parseAsRoot(["validate", tree.main]) as? ValidateCommand)
        #expect(throws: ExitCode(1)) { try command.run() }
    }
}
