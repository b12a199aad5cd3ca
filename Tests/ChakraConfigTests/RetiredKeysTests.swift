import Testing
@testable import ChakraConfig

/// The hold cycle before breathing patterns (spiral.hold_cycle_up,
/// _pause, _down_duration): read as the pattern it is, with one warning
/// showing what to write instead, never refused for a value its release
/// took.
@Suite("Retired keys: the hold cycle")
struct RetiredKeysTests {
    private func parse(_ text: String) throws -> LoadedConfig {
        try ConfigParser.parse(text, file: "test.toml")
    }

    private func issues(_ text: String) -> [String] {
        do {
            let loaded = try ConfigParser.parse(text, file: "test.toml")
            Issue.record("accepted: \(loaded.config.spiral)")
            return []
        } catch {
            return error.issues.map(\.description)
        }
    }

    /// The spiral's hold as the file chooses it: the phases, kind and seconds.
    private func breath(_ text: String) throws -> [String] {
        try parse(text).config.spiral.selectedPattern.phases.map { "\($0.kind.rawValue) \(HoldCycle.text($0.seconds))" }
    }

    @Test("a cycle other than 6-4-8 becomes the pattern hold-cycle, chosen, with one warning showing the lines to write")
    func translated() throws {
        let loaded = try parse("""
            [spiral]
            hold_duration = 72.0
            hold_cycle_up_duration = 3.0
            hold_cycle_pause_duration = 2
            hold_cycle_down_duration = 5.0
            """)
        #expect(loaded.config.spiral.pattern == "hold-cycle")
        #expect(loaded.config.spiral.selectedPattern == BreathingPattern(name: "hold-cycle", phases: [BreathPhase(.in, 3), BreathPhase(.holdIn, 2), BreathPhase(.out, 5)]))
        #expect(loaded.config.spiral.availablePatterns.map(\.name) == ["6-4-8", "box", "4-7-8", "coherent", "hold-cycle"])
        #expect(loaded.warnings.map(\.description) == ["""
            test.toml:3: spiral.hold_cycle_up_duration: deprecated, as are hold_cycle_pause_duration and hold_cycle_down_duration \
            (the hold cycle before breathing patterns): up 3, pause 2, down 5 s is read as the pattern "hold-cycle" \
            (in 3 s, hold-in 2 s, out 5 s), which breathes the same; write instead, in [spiral]:
                pattern = "hold-cycle"
            and, after [spiral]'s keys:
                [spiral.patterns.hold-cycle]
                phases = [{ kind = "in", seconds = 3 }, { kind = "hold-in", seconds = 2 }, { kind = "out", seconds = 5 }]
            """])
    }

    @Test("the lines the warning shows, written instead of the old keys, give the same configuration and no warning")
    func theWarningsLinesAreTheSame() throws {
        for (up, pause, down) in [(3.0, 2.0, 5.0), (5.5, 0, 6.25), (4, 7, 8), (90, 15, 1)] {
            let old = try parse("[spiral]\nhold_cycle_up_duration = \(up)\nhold_cycle_pause_duration = \(pause)\nhold_cycle_down_duration = \(down)\n")
            let message = try #require(old.warnings.first?.message)
            // The indented lines, in the places the warning says.
            let shown = message.split(separator: "\n").filter { $0.hasPrefix("    ") }.map { $0.dropFirst(4) }
            let choice = try #require(shown.first { $0.hasPrefix("pattern = ") })
            let table = shown.filter { !$0.hasPrefix("pattern = ") }.joined(separator: "\n")
            let new = try parse("[spiral]\n\(choice)\n\(table)\n")
            #expect(new.warnings.isEmpty)
            #expect(new.config == old.config, "\(up) \(pause) \(down)")
        }
    }

    @Test("keys not set take their old defaults 6, 4, 8; a pause of 0 is no hold-in")
    func oldDefaults() throws {
        #expect(try breath("[spiral]\nhold_cycle_up_duration = 3\n") == ["in 3", "hold-in 4", "out 8"])
        #expect(try breath("[spiral]\nhold_cycle_down_duration = 10\n") == ["in 6", "hold-in 4", "out 10"])
        #expect(try breath("[spiral]\nhold_cycle_pause_duration = 0\n") == ["in 6", "out 8"])
        let one = try parse("[spiral]\nhold_cycle_down_duration = 10\n")
        #expect(one.warnings.count == 1)
        #expect(one.warnings[0].message.hasPrefix("deprecated (the hold cycle before breathing patterns): up 6, pause 4, down 10 s (keys not set: their old defaults) is read as"))
    }

    @Test("the old defaults (every file installed from the old example) are the default preset: nothing changes but a warning")
    func oldDefaultsAreTheDefaultPattern() throws {
        let loaded = try parse("""
            [spiral]
            hold_cycle_up_duration = 6.0
            hold_cycle_pause_duration = 4
            hold_cycle_down_duration = 8.0
            """)
        #expect(loaded.config == ChakraConfig())
        #expect(loaded.warnings.map(\.description) == [
            "test.toml:2: spiral.hold_cycle_up_duration: deprecated, as are hold_cycle_pause_duration and hold_cycle_down_duration (the hold cycle before breathing patterns): up 6, pause 4, down 8 s is the pattern \"6-4-8\" (in 6 s, hold-in 4 s, out 8 s), which breathes the same; delete these lines (it is the default; or write pattern = \"6-4-8\" in [spiral])",
        ])
    }

    @Test("a cycle that is another preset chooses that preset")
    func presets() throws {
        let loaded = try parse("[spiral]\nhold_cycle_up_duration = 4\nhold_cycle_pause_duration = 7\nhold_cycle_down_duration = 8\n")
        #expect(loaded.config.spiral.pattern == "4-7-8")
        #expect(loaded.config.spiral.customPatterns.isEmpty)
        #expect(loaded.warnings.first?.message.hasSuffix("write instead, in [spiral]:\n    pattern = \"4-7-8\"") == true)
        // A table that takes the preset's name is not that preset: the cycle gets a pattern of its own.
        let replaced = try parse("""
            [spiral]
            hold_cycle_up_duration = 4
            hold_cycle_pause_duration = 7
            hold_cycle_down_duration = 8
            [spiral.patterns.4-7-8]
            phases = [{ kind = "in", seconds = 5 }, { kind = "out", seconds = 5 }]
            """)
        #expect(replaced.config.spiral.pattern == "hold-cycle")
        #expect(replaced.config.spiral.selectedPattern.phases == [BreathPhase(.in, 4), BreathPhase(.holdIn, 7), BreathPhase(.out, 8)])
    }

    @Test("values the old release took and this one's limits refuse are brought within them, and the warning says how")
    func limits() throws {
        // Phases of at most 60 s (the old release took 600).
        #expect(try breath("[spiral]\nhold_cycle_up_duration = 90\nhold_cycle_down_duration = 600\n") == ["in 60", "hold-in 4", "out 60"])
        // A pause longer than spiral.max_breath_hold holds that long; raising the limit keeps it.
        #expect(try breath("[spiral]\nhold_cycle_pause_duration = 15\n") == ["in 6", "hold-in 10", "out 8"])
        #expect(try breath("[spiral]\nhold_cycle_pause_duration = 15\nmax_breath_hold = 20\n") == ["in 6", "hold-in 15", "out 8"])
        #expect(try breath("[spiral]\nhold_cycle_pause_duration = 600\nmax_breath_hold = 0\n") == ["in 6", "out 8"])
        // A cycle under 4 s: in and out stretched in proportion to 4 s.
        #expect(try breath("[spiral]\nhold_cycle_up_duration = 1\nhold_cycle_pause_duration = 0\nhold_cycle_down_duration = 1\n") == ["in 2", "out 2"])
        #expect(try breath("[spiral]\nhold_cycle_up_duration = 0.5\nhold_cycle_pause_duration = 0.5\nhold_cycle_down_duration = 1\n") == ["in 1.167", "hold-in 0.5", "out 2.334"])
        #expect(try breath("[spiral]\nhold_cycle_up_duration = 0.001\nhold_cycle_pause_duration = 0\nhold_cycle_down_duration = 0.001\n") == ["in 2", "out 2"])

        let warned = try parse("[spiral]\nhold_cycle_up_duration = 90\nhold_cycle_pause_duration = 15\n")
        #expect(warned.warnings.count == 1)
        #expect(warned.warnings[0].message.contains("""
            up 90, pause 15, down 8 s (keys not set: their old defaults) is read as the pattern "hold-cycle" (in 60 s, hold-in 10 s, out 8 s), \
            which breathes as near to it as this release allows: in 60 s, not 90 (a phase lasts at most 60 s); \
            hold-in 10 s, not 15 (spiral.max_breath_hold; raising it to 15 holds as before); write instead
            """))
    }

    @Test("values the old release refused are still refused, with its range")
    func oldRanges() {
        #expect(issues("[spiral]\nhold_cycle_up_duration = 0\nhold_cycle_pause_duration = -1\nhold_cycle_down_duration = 601\n") == [
            "test.toml:2: spiral.hold_cycle_up_duration: must be a number in more than 0...600, as when it was read (got the integer 0); better, write the hold cycle as a breathing pattern (docs/configuration.md, Breathing patterns)",
            "test.toml:3: spiral.hold_cycle_pause_duration: must be a number in 0...600, as when it was read (got the integer -1); better, write the hold cycle as a breathing pattern (docs/configuration.md, Breathing patterns)",
            "test.toml:4: spiral.hold_cycle_down_duration: must be a number in more than 0...600, as when it was read (got the integer 601); better, write the hold cycle as a breathing pattern (docs/configuration.md, Breathing patterns)",
        ])
        #expect(issues("[spiral]\nhold_cycle_up_duration = \"6\"\n").count == 1)
        // The old bounds themselves are taken.
        #expect(throws: Never.self) { try parse("[spiral]\nhold_cycle_up_duration = 600\nhold_cycle_pause_duration = 0\nhold_cycle_down_duration = 600\n") }
    }

    @Test("spiral.pattern set too: it chooses, and the old keys are ignored with one warning naming it")
    func patternWins() throws {
        let loaded = try parse("""
            [spiral]
            pattern = "box"
            hold_cycle_up_duration = 3
            hold_cycle_down_duration = 5
            """)
        #expect(loaded.config.spiral.pattern == "box")
        #expect(loaded.config.spiral.customPatterns.isEmpty)
        #expect(loaded.warnings.map(\.description) == [
            "test.toml:3: spiral.hold_cycle_up_duration: deprecated, as is hold_cycle_down_duration (the hold cycle before breathing patterns): ignored, as spiral.pattern (test.toml:2) chooses the pattern; delete these lines",
        ])
    }

    @Test("a [spiral.patterns.hold-cycle] table (what the warning says to write) is used instead of the old keys")
    func tableWins() throws {
        let loaded = try parse("""
            [spiral]
            hold_cycle_up_duration = 3
            [spiral.patterns.hold-cycle]
            phases = [{ kind = "in", seconds = 4 }, { kind = "out", seconds = 4 }]
            [spiral.patterns.calm]
            phases = [{ kind = "in", seconds = 5 }, { kind = "out", seconds = 5 }]
            """)
        #expect(loaded.config.spiral.pattern == "hold-cycle")
        #expect(loaded.config.spiral.selectedPattern.phases == [BreathPhase(.in, 4), BreathPhase(.out, 4)])
        #expect(loaded.warnings.count == 1)
        #expect(loaded.warnings.first?.message.contains("the pattern [spiral.patterns.hold-cycle] (test.toml:3) is used in its place") == true)
        // Other tables do not stand in the cycle's way: it is chosen, they stay available.
        let other = try parse("""
            [spiral]
            hold_cycle_up_duration = 3
            [spiral.patterns.calm]
            phases = [{ kind = "in", seconds = 5 }, { kind = "out", seconds = 5 }]
            """)
        #expect(other.config.spiral.pattern == "hold-cycle")
        #expect(other.config.spiral.customPatterns.map(\.name) == ["calm", "hold-cycle"])
    }

    @Test("spiral.hold_cycle_duration (never read) is ignored with its own warning, beside the cycle's one")
    func cycleDuration() throws {
        let loaded = try parse("[spiral]\nhold_cycle_duration = 10\nhold_cycle_up_duration = 3\nhold_cycle_pause_duration = 2\nhold_cycle_down_duration = 5\n")
        #expect(loaded.warnings.map(\.key) == ["spiral.hold_cycle_duration", "spiral.hold_cycle_up_duration"])
        #expect(loaded.config.spiral.selectedPattern.cycleSeconds == 10)
    }
}

@Suite("Retired keys in drop-ins")
struct RetiredKeysDropInTests {
    @Test("the cycle's keys are laid key by key like any others, then read as one pattern with one warning")
    func laidKeyByKey() throws {
        let tree = try ConfigTree()
        try tree.writeMain("[spiral]\nhold_cycle_up_duration = 3\nhold_cycle_down_duration = 6\n")
        try tree.write("50-site.toml", "\n[spiral]\nhold_cycle_down_duration = 5\n")
        let loaded = try tree.load()
        #expect(loaded.config.spiral.selectedPattern.phases == [BreathPhase(.in, 3), BreathPhase(.holdIn, 4), BreathPhase(.out, 5)])
        #expect(loaded.warnings.count == 1)
        #expect(loaded.warnings.first?.file == tree.main && loaded.warnings.first?.line == 2)
        // Only in a drop-in: the warning names it.
        let other = try ConfigTree()
        let path = try other.write("50-site.toml", "[spiral]\nhold_cycle_pause_duration = 1\n")
        let alone = try other.load(required: false)
        #expect(alone.config.spiral.selectedPattern.phases == [BreathPhase(.in, 6), BreathPhase(.holdIn, 1), BreathPhase(.out, 8)])
        #expect(alone.warnings.map { "\($0.file ?? ""):\($0.line ?? 0)" } == ["\(path):2"])
    }

    @Test("spiral.pattern or the limit on holds in another file apply to the cycle")
    func otherFiles() throws {
        let tree = try ConfigTree()
        try tree.writeMain("[spiral]\nhold_cycle_up_duration = 3\nhold_cycle_pause_duration = 8\n")
        try tree.write("50-limit.toml", "[spiral]\nmax_breath_hold = 5\n")
        #expect(try tree.load().config.spiral.selectedPattern.phases == [BreathPhase(.in, 3), BreathPhase(.holdIn, 5), BreathPhase(.out, 8)])
        let choice = try tree.write("60-choice.toml", "[spiral]\npattern = \"coherent\"\n")
        let loaded = try tree.load()
        #expect(loaded.config.spiral.pattern == "coherent")
        #expect(loaded.warnings.first?.message.contains("ignored, as spiral.pattern (\(choice):2) chooses the pattern") == true)
    }
}
