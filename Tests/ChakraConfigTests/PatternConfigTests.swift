import Testing
@testable import ChakraConfig

/// Breathing patterns: the presets, [spiral.patterns.NAME] tables, the
/// checks (with file and line), the limit on holds, the drop-ins. (The
/// previous release's hold_cycle_* keys: RetiredKeysTests.)
@Suite("Breathing patterns")
struct PatternConfigTests {
    private func parse(_ text: String) throws -> LoadedConfig {
        try ConfigParser.parse(text, file: "test.toml")
    }

    private func issues(_ text: String) -> [ConfigIssue] {
        do {
            let loaded = try ConfigParser.parse(text, file: "test.toml")
            Issue.record("accepted: \(loaded.config.spiral)")
            return []
        } catch {
            return error.issues
        }
    }

    @Test("the presets are valid, within the default limit on holds, and 6-4-8 is the default")
    func presets() {
        #expect(BreathingPattern.presets.map(\.name) == ["6-4-8", "box", "4-7-8", "coherent"])
        for preset in BreathingPattern.presets {
            #expect(preset.shapeProblem == nil, "\(preset.name)")
            #expect(preset.holdProblem(maxBreathHold: 10) == nil, "\(preset.name)")
        }
        let spiral = ChakraConfig.Spiral()
        #expect(spiral.selectedPattern == BreathingPattern.preset(named: "6-4-8"))
        #expect(spiral.selectedPattern.phases == [BreathPhase(.in, 6), BreathPhase(.holdIn, 4), BreathPhase(.out, 8)])
        #expect(BreathingPattern.preset(named: "box")?.cycleSeconds == 16)
        #expect(BreathingPattern.preset(named: "4-7-8")?.longestHold == 7)
        #expect(BreathingPattern.preset(named: "coherent")?.longestHold == 0)
        #expect(spiral.availablePatterns.map(\.name) == ["6-4-8", "box", "4-7-8", "coherent"])
    }

    @Test("the hold runs whole cycles: the nearest number of them to hold_duration, at least one")
    func holdRounding() throws {
        func hold(_ name: String, _ target: Double) throws -> Double { try #require(BreathingPattern.preset(named: name)).holdSeconds(near: target) }
        #expect(try hold("6-4-8", 72) == 72)      // 4 × 18: as before patterns
        #expect(try hold("box", 72) == 80)        // 4.5 cycles: halves round up
        #expect(try hold("4-7-8", 72) == 76)      // 3.79 → 4 × 19
        #expect(try hold("coherent", 72) == 77)   // 6.55 → 7 × 11
        #expect(try hold("box", 23) == 16)        // 1.44 → 1
        #expect(try hold("box", 1) == 16)         // at least one cycle
        #expect(try hold("6-4-8", 3600) == 3600)
    }

    @Test("a custom pattern from the file, with its own texts, chosen by spiral.pattern")
    func customPattern() throws {
        let loaded = try parse("""
            [spiral]
            pattern = "calm"
            [spiral.patterns.calm]
            phases = [
                { kind = "in", seconds = 4 },
                { kind = "hold-in", seconds = 4, text = "Hold gently" },
                { kind = "out", seconds = 6.5 },
                { kind = "hold-out", seconds = 2 },
            ]
            [spiral.patterns.box]
            phases = [{ kind = "in", seconds = 5 }, { kind = "out", seconds = 5 }]
            """)
        #expect(loaded.warnings.isEmpty)
        let spiral = loaded.config.spiral
        let calm = BreathingPattern(name: "calm", phases: [BreathPhase(.in, 4), BreathPhase(.holdIn, 4, text: "Hold gently"),
                                                           BreathPhase(.out, 6.5), BreathPhase(.holdOut, 2)])
        #expect(spiral.selectedPattern == calm)
        #expect(spiral.selectedPattern.cycleSeconds == 16.5)
        // A custom pattern of a preset's name takes its place.
        #expect(spiral.availablePatterns.map(\.name) == ["6-4-8", "box", "4-7-8", "coherent", "calm"])
        #expect(try spiral.pattern(named: "box").get().phases == [BreathPhase(.in, 5), BreathPhase(.out, 5)])
        // `get` shows a line a pattern.
        #expect(loaded.config.values(for: "spiral.patterns")?.first?.value == .array([
            .string("calm: in 4, hold-in 4 \"Hold gently\", out 6.5, hold-out 2"), .string("box: in 5, out 5"),
        ]))
        #expect(loaded.config.changedKeys(from: ChakraConfig()) == ["spiral.pattern", "spiral.patterns"])
    }

    @Test("[[spiral.patterns.NAME.phases]] tables are the same value and read the same; their lines are known")
    func arrayOfTables() throws {
        let inline = try parse("[spiral.patterns.p]\nphases = [{ kind = \"in\", seconds = 4 }, { kind = \"out\", seconds = 4 }]\n")
        let tables = try parse("""
            [[spiral.patterns.p.phases]]
            kind = "in"
            seconds = 4
            [[spiral.patterns.p.phases]]
            kind = "out"
            seconds = 4
            """)
        #expect(inline.config == tables.config)
        let wrong = issues("""
            [[spiral.patterns.p.phases]]
            kind = "in"
            seconds = 4
            [[spiral.patterns.p.phases]]
            kind = "out"
            seconds = -4
            """)
        #expect(wrong.map(\.description) == ["test.toml:4: spiral.patterns.p.phases.1: seconds must be a finite number more than 0 (got -4.0)"])
    }

    /// A [spiral.patterns.p] table whose phases are `phases`, one a line
    /// from line 4 (line 2 is the table's header, line 3 `phases = [`).
    static func pattern(_ phases: [String]) -> String {
        "[spiral]\n[spiral.patterns.p]\nphases = [\n" + phases.map { "    \($0),\n" }.joined() + "]\n"
    }

    @Test("invalid patterns are refused, naming the file, the line of the phase and the problem", arguments: [
        // (phases, line, key, message)
        (["{ kind = \"in\", seconds = 0 }", "{ kind = \"out\", seconds = 4 }"], 4, "spiral.patterns.p.phases.0", "seconds must be a finite number more than 0 (got 0.0)"),
        (["{ kind = \"in\", seconds = 4 }", "{ kind = \"out\", seconds = -1 }"], 5, "spiral.patterns.p.phases.1", "more than 0 (got -1.0)"),
        (["{ kind = \"in\", seconds = nan }", "{ kind = \"out\", seconds = 4 }"], 4, "spiral.patterns.p.phases.0", "more than 0 (got nan)"),
        (["{ kind = \"in\", seconds = inf }", "{ kind = \"out\", seconds = 4 }"], 4, "spiral.patterns.p.phases.0", "a finite number"),
        (["{ kind = \"in\", seconds = 61 }", "{ kind = \"out\", seconds = 4 }"], 4, "spiral.patterns.p.phases.0", "at most 60 (got 61.0)"),
        (["{ kind = \"out\", seconds = 4 }", "{ kind = \"in\", seconds = 4 }"], 4, "spiral.patterns.p.phases.0", "the first phase must be \"in\", not \"out\""),
        (["{ kind = \"in\", seconds = 4 }", "{ kind = \"out\", seconds = 4 }", "{ kind = \"hold-in\", seconds = 4 }"], 6, "spiral.patterns.p.phases.2",
         "\"hold-in\" cannot follow \"out\"; a pattern is in, an optional hold-in, out, an optional hold-out"),
        (["{ kind = \"in\", seconds = 4 }", "{ kind = \"hold-out\", seconds = 4 }"], 5, "spiral.patterns.p.phases.1", "\"hold-out\" cannot follow \"in\""),
        (["{ kind = \"in\", seconds = 4 }", "{ kind = \"in\", seconds = 4 }"], 5, "spiral.patterns.p.phases.1", "\"in\" cannot follow \"in\""),
        (["{ kind = \"in\", seconds = 4 }", "{ kind = \"hold-in\", seconds = 4 }"], 3, "spiral.patterns.p.phases", "has no \"out\" phase"),
        ([], 3, "spiral.patterns.p.phases", "has no phases"),
        (["{ kind = \"in\", seconds = 1.5 }", "{ kind = \"out\", seconds = 2 }"], 3, "spiral.patterns.p.phases", "a cycle must last at least 4 s (got 3.5 s)"),
        (["{ kind = \"in\", seconds = 4 }", "{ kind = \"hold-in\", seconds = 10.5 }", "{ kind = \"out\", seconds = 4 }"], 5, "spiral.patterns.p.phases.1",
         "holds the breath 10.5 s (hold-in), longer than spiral.max_breath_hold (10 s)"),
        (["{ kind = \"inhale\", seconds = 4 }", "{ kind = \"out\", seconds = 4 }"], 4, "spiral.patterns.p.phases.0",
         "kind must be \"in\", \"hold-in\", \"out\" or \"hold-out\" (got the string \"inhale\")"),
        (["{ seconds = 4 }", "{ kind = \"out\", seconds = 4 }"], 4, "spiral.patterns.p.phases.0", "missing kind"),
        (["{ kind = \"in\" }", "{ kind = \"out\", seconds = 4 }"], 4, "spiral.patterns.p.phases.0", "missing seconds"),
        (["{ kind = \"in\", seconds = \"4\" }", "{ kind = \"out\", seconds = 4 }"], 4, "spiral.patterns.p.phases.0", "seconds must be a number (got the string \"4\")"),
        (["{ kind = \"in\", seconds = 4, text = \"\" }", "{ kind = \"out\", seconds = 4 }"], 4, "spiral.patterns.p.phases.0", "text must not be empty"),
        (["{ kind = \"in\", seconds = 4, text = \"\(String(repeating: "a", count: 81))\" }", "{ kind = \"out\", seconds = 4 }"], 4,
         "spiral.patterns.p.phases.0", "text must be at most 80 characters"),
        (["{ kind = \"in\", seconds = 4, text = \"two\\nlines\" }", "{ kind = \"out\", seconds = 4 }"], 4, "spiral.patterns.p.phases.0", "one line"),
        (["{ kind = \"in\", seconds = 4, text = 5 }", "{ kind = \"out\", seconds = 4 }"], 4, "spiral.patterns.p.phases.0", "text must be a string"),
        (["4", "8"], 3, "spiral.patterns.p.phases", "must be an array of tables"),
    ])
    func invalidPattern(phases: [String], line: Int, key: String, message: String) {
        let found = issues(Self.pattern(phases))
        #expect(found.count == 1, "\(found)")
        #expect(found.first?.file == "test.toml")
        #expect(found.first?.line == line, "\(found)")
        #expect(found.first?.key == key, "\(found)")
        #expect(found.first?.message.contains(message) == true, "\(found.first?.message ?? "nothing")")
    }

    @Test("other shapes refused with their lines: not a table, a bad name, no phases, [spiral] patterns = ...")
    func wrongShapes() {
        func one(_ text: String) -> String { issues(text).map(\.description).joined(separator: " | ") }
        #expect(one("[spiral.patterns]\ncalm = 4\n") == "test.toml:2: spiral.patterns.calm: must be a table [spiral.patterns.calm] with phases = [...], not the integer 4")
        #expect(one("[spiral.patterns.\"a b\"]\nphases = []\n").hasPrefix("test.toml:1: spiral.patterns.a b: a pattern's name is 1 to 32 letters, digits, - or _"))
        #expect(one("[spiral]\nhead_size = 20.0\n[spiral.patterns.calm]\n") == "test.toml:3: spiral.patterns.calm: missing phases = [{ kind = \"in\", seconds = 4 }, { kind = \"out\", seconds = 6 }, ...]")
        #expect(one("[spiral]\npatterns = 3\n") == "test.toml:2: spiral.patterns: must be tables: [spiral.patterns.NAME] with phases = [...]")
        #expect(one("[spiral]\npattern = \"no such\"\n").hasPrefix("test.toml:2: spiral.pattern: a pattern's name is"))
    }

    @Test("unknown keys in a pattern or a phase are warnings")
    func unknownKeysWarn() throws {
        let loaded = try parse("""
            [spiral.patterns.p]
            colour = "blue"
            phases = [
                { kind = "in", seconds = 4, sound = "bell" },
                { kind = "out", seconds = 4 },
            ]
            """)
        #expect(loaded.warnings.map(\.description) == [
            "test.toml:2: spiral.patterns.p.colour: unknown key, ignored; a pattern has phases",
            "test.toml:4: spiral.patterns.p.phases.0.sound: unknown key, ignored; a phase has kind, seconds and text",
        ])
    }

    @Test("spiral.pattern must name a pattern; the error lists the known ones")
    func unknownPatternName() {
        let found = issues("[spiral]\nhead_size = 20.0\npattern = \"square\"\n[spiral.patterns.calm]\nphases = [{ kind = \"in\", seconds = 4 }, { kind = \"out\", seconds = 4 }]\n")
        #expect(found.map(\.description) == ["test.toml:3: spiral.pattern: no breathing pattern named 'square'; patterns: 6-4-8, box, 4-7-8, coherent, calm"])
    }

    @Test("spiral.max_breath_hold: a preset chosen that holds longer is refused at the key that chose it; unchosen presets only become unavailable")
    func limitOnHolds() throws {
        let chosen = issues("[spiral]\npattern = \"4-7-8\"\nmax_breath_hold = 5\n")
        #expect(chosen.map(\.description) == ["test.toml:2: spiral.pattern: the pattern '4-7-8' holds the breath 7 s, longer than spiral.max_breath_hold (5 s)"])
        // The default pattern, not written in the file, refused by a lowered limit: the limit's line.
        let byDefault = issues("[spiral]\nmax_breath_hold = 3\n")
        #expect(byDefault.map(\.description) == ["test.toml:2: spiral.max_breath_hold: the pattern '6-4-8' holds the breath 4 s, longer than spiral.max_breath_hold (3 s)"])
        // No holds at all: coherent (no holds) is fine; the others cannot be chosen.
        let noHolds = try parse("[spiral]\npattern = \"coherent\"\nmax_breath_hold = 0\n").config.spiral
        #expect(noHolds.availablePatterns.map(\.name) == ["coherent"])
        #expect(noHolds.pattern(named: "box") == .failure(.holdTooLong("box", hold: 4, limit: 0)))
        #expect(noHolds.pattern(named: "boxx") == .failure(.unknown("boxx", known: ["coherent"])))
        #expect(issues("[spiral]\nmax_breath_hold = 61\n").first?.message.contains("must be in 0...60") == true)
    }

    @Test("at most 16 custom patterns")
    func tooManyPatterns() {
        let text = (0..<17).map { "[spiral.patterns.p\($0)]\nphases = [{ kind = \"in\", seconds = 4 }, { kind = \"out\", seconds = 4 }]\n" }.joined()
        let found = issues(text)
        #expect(found.map(\.description) == ["test.toml:33: spiral.patterns.p16: more than 16 patterns in [spiral.patterns]; every pattern's texts are drawn when the exercise is shown"])
    }

    @Test("the lines of inline tables in a multi-line array")
    func elementLines() throws {
        let lines = try TOML.read("""
            [spiral.patterns.p]
            phases = [   # a comment with a { brace
                { kind = "in", seconds = 4, text = "a ] \\" { b" },
                { kind = "out", seconds = 4 },
                { kind = "hold-out", seconds = 1 }
            ]
            next = 1
            """).lines
        #expect(lines.line(of: "spiral.patterns.p.phases") == 2)
        #expect(lines.line(of: "spiral.patterns.p.phases.0") == 3)
        #expect(lines.line(of: "spiral.patterns.p.phases.1.seconds") == 4)
        #expect(lines.line(of: "spiral.patterns.p.phases.2") == 5)
        #expect(lines.lines["spiral.patterns.p.phases.3"] == nil)
        #expect(lines.line(of: "spiral.patterns.p.next") == 7)
        #expect(lines.lines["spiral.patterns.p.seconds"] == nil)   // inside the array: no key of its own
    }
}

@Suite("Breathing patterns in drop-ins")
struct PatternDropInTests {
    @Test("a pattern is one key: a drop-in replaces the one it names, keeps the others, and may define the chosen one")
    func patternsAreKeys() throws {
        let tree = try ConfigTree()
        try tree.writeMain("""
            [spiral]
            pattern = "calm"
            [spiral.patterns.calm]
            phases = [{ kind = "in", seconds = 4 }, { kind = "out", seconds = 4 }]
            [spiral.patterns.slow]
            phases = [{ kind = "in", seconds = 8 }, { kind = "out", seconds = 8 }]
            """)
        try tree.write("50-site.toml", """
            [spiral.patterns.calm]
            phases = [{ kind = "in", seconds = 5 }, { kind = "hold-in", seconds = 2 }, { kind = "out", seconds = 5 }]
            [spiral.patterns.site]
            phases = [{ kind = "in", seconds = 3 }, { kind = "out", seconds = 3 }]
            """)
        let spiral = try tree.load().config.spiral
        #expect(spiral.customPatterns.map(\.name) == ["calm", "slow", "site"])
        #expect(spiral.selectedPattern.phases == [BreathPhase(.in, 5), BreathPhase(.holdIn, 2), BreathPhase(.out, 5)])

        // Chosen in a drop-in, defined in the main file (a lone file naming it would be refused).
        let other = try ConfigTree()
        try other.writeMain("[spiral.patterns.calm]\nphases = [{ kind = \"in\", seconds = 4 }, { kind = \"out\", seconds = 4 }]\n")
        try other.write("60-choice.toml", "[spiral]\npattern = \"calm\"\n")
        #expect(try other.load().config.spiral.selectedPattern.name == "calm")
    }

    @Test("errors name the file that set the pattern or the key, with its line")
    func errorsNameTheFile() throws {
        let tree = try ConfigTree()
        try tree.writeMain("""
            [spiral]
            head_size = 20.0
            [spiral.patterns.calm]
            phases = [
                { kind = "in", seconds = 4 },
                { kind = "hold-in", seconds = 8 },
                { kind = "out", seconds = 4 },
            ]
            """)
        // The limit lowered in a drop-in: the main file's phase is named.
        try tree.write("50-limit.toml", "[spiral]\nmax_breath_hold = 6\n")
        let dropInPath = try tree.write("60-choice.toml", "\n[spiral]\npattern = \"nothing\"\n")
        #expect(tree.issues() == [
            "\(tree.main):6: spiral.patterns.calm.phases.1: holds the breath 8 s (hold-in), longer than spiral.max_breath_hold (6 s)",
            "\(dropInPath):3: spiral.pattern: no breathing pattern named 'nothing'; patterns: 6-4-8, box, coherent",
        ])
        // A pattern's own problem in a drop-in: that drop-in's line.
        let bad = try ConfigTree()
        let path = try bad.write("10-bad.toml", "[spiral.patterns.calm]\nphases = [\n  { kind = \"in\", seconds = 4 },\n  { kind = \"out\", seconds = 0 },\n]\n")
        #expect(bad.issues(required: false) == ["\(path):4: spiral.patterns.calm.phases.1: seconds must be a finite number more than 0 (got 0.0)"])
    }
}
