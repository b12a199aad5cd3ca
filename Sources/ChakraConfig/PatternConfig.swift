/// The custom breathing patterns, `[spiral.patterns.NAME]` tables. Like
/// [schedule] they hold arrays of tables, so they are read here, not key by
/// key through `ConfigKeys`:
///
///     [spiral.patterns.calm]
///     phases = [
///         { kind = "in", seconds = 4 },
///         { kind = "hold-in", seconds = 4, text = "Hold gently" },
///         { kind = "out", seconds = 6 },
///     ]
///
/// (`[[spiral.patterns.calm.phases]]` tables are the same value in TOML and
/// read the same.) Each pattern is one key for the drop-ins: a drop-in's
/// `[spiral.patterns.calm]` replaces the whole of calm and leaves the other
/// patterns be. A problem in a phase names the phase's line
/// (`spiral.patterns.calm.phases.1`).
enum PatternConfig {
    static let section = "spiral.patterns"

    /// Every custom pattern as one key, for `get`, the reload report and a
    /// reload's carrying over: a line per pattern.
    static let patternsKey = ConfigKey(path: section, read: { _, _ throws(ConfigProblem) in
        throw ConfigProblem("is a table of patterns: write [spiral.patterns.NAME] tables with phases = [...]")
    }, write: { config in
        .array(config.spiral.customPatterns.map { .string($0.summary) })
    }, carry: { source, target in target.spiral.customPatterns = source.spiral.customPatterns })

    /// One custom pattern as a key ("spiral.patterns.calm"): what a file
    /// that defines it lays over the files before it.
    static func key(_ path: String) -> ConfigKey? {
        guard path.hasPrefix(section + ".") else { return nil }
        let name = String(path.dropFirst(section.count + 1))
        guard BreathingPattern.nameProblem(name) == nil else { return nil }
        return ConfigKey(path: path, read: { _, _ throws(ConfigProblem) in
            throw ConfigProblem("is a pattern: write it as a [\(path)] table")
        }, write: { config in
            .string(config.spiral.customPatterns.first { $0.name == name }?.summary ?? "")
        }, carry: { source, target in
            guard let pattern = source.spiral.customPatterns.first(where: { $0.name == name }) else { return }
            if let index = target.spiral.customPatterns.firstIndex(where: { $0.name == name }) {
                target.spiral.customPatterns[index] = pattern
            } else {
                target.spiral.customPatterns.append(pattern)
            }
        })
    }

    // MARK: - Reading one file

    static func read(_ node: TOML.Value, into loaded: inout LoadedConfig, errors: inout [ConfigIssue]) {
        guard let table = node.table else {
            errors.append(loaded.issue(key: section, "must be tables: [spiral.patterns.NAME] with phases = [...]"))
            return
        }
        for name in table.keys {
            guard let value = table[name] else { continue }
            let path = "\(section).\(name)"
            do {
                let pattern = try self.pattern(name, value, path: path, loaded: &loaded)
                // (A TOML document cannot define a table twice.)
                loaded.config.spiral.customPatterns.append(pattern)
                loaded.noteSet(path)
            } catch {
                errors.append(loaded.issue(key: error.key, error.message))
            }
        }
    }

    /// A problem in one pattern: the message, and the key it is about.
    struct Problem: Error {
        let message: String
        let key: String
        init(_ message: String, key: String) { (self.message, self.key) = (message, key) }
    }

    private static let kinds = "\"in\", \"hold-in\", \"out\" or \"hold-out\""

    private static func pattern(_ name: String, _ value: TOML.Value, path: String, loaded: inout LoadedConfig) throws(Problem) -> BreathingPattern {
        if let problem = BreathingPattern.nameProblem(name) { throw Problem(problem, key: path) }
        guard let table = value.table else {
            throw Problem("must be a table [\(path)] with phases = [...], not \(ConfigParser.value(of: value).kindAndValue)", key: path)
        }
        for key in table.keys where key != "phases" {
            loaded.warnings.append(loaded.issue(key: "\(path).\(key)", "unknown key, ignored; a pattern has phases"))
        }
        guard let list = table["phases"] else {
            throw Problem("missing phases = [{ kind = \"in\", seconds = 4 }, { kind = \"out\", seconds = 6 }, ...]", key: path)
        }
        guard case .array(let items) = list, items.allSatisfy({ $0.table != nil }) else {
            throw Problem("must be an array of tables such as { kind = \"in\", seconds = 4 }", key: "\(path).phases")
        }
        var phases: [BreathPhase] = []
        for (index, item) in items.enumerated() {
            phases.append(try phase(item.table!, path: "\(path).phases.\(index)", loaded: &loaded))
        }
        let pattern = BreathingPattern(name: name, phases: phases)
        if let problem = pattern.shapeProblem {
            throw Problem(problem.message, key: "\(path).phases" + (problem.phase.map { ".\($0)" } ?? ""))
        }
        return pattern
    }

    private static func phase(_ table: TOML.Table, path: String, loaded: inout LoadedConfig) throws(Problem) -> BreathPhase {
        for key in table.keys where !["kind", "seconds", "text"].contains(key) {
            loaded.warnings.append(loaded.issue(key: "\(path).\(key)", "unknown key, ignored; a phase has kind, seconds and text"))
        }
        guard let kindValue = table["kind"] else { throw Problem("missing kind (\(kinds))", key: path) }
        guard let kindName = kindValue.string, let kind = BreathPhase.Kind(rawValue: kindName) else {
            throw Problem("kind must be \(kinds) (got \(ConfigParser.value(of: kindValue).kindAndValue))", key: path)
        }
        guard let secondsValue = table["seconds"] else { throw Problem("missing seconds", key: path) }
        guard let seconds = ConfigParser.value(of: secondsValue).number else {
            throw Problem("seconds must be a number (got \(ConfigParser.value(of: secondsValue).kindAndValue))", key: path)
        }
        var text: String?
        if let textValue = table["text"] {
            guard let literal = textValue.string else {
                throw Problem("text must be a string (got \(ConfigParser.value(of: textValue).kindAndValue))", key: path)
            }
            text = literal
        }
        return BreathPhase(kind, seconds, text: text)
    }

    // MARK: - Once every file is read

    /// What only the merged configuration can tell: the chosen pattern
    /// exists, no pattern holds the breath longer than
    /// `spiral.max_breath_hold` (the limit and a pattern may be in
    /// different files), and there are not too many patterns.
    static func check(_ loaded: LoadedConfig) -> [ConfigIssue] {
        let spiral = loaded.config.spiral
        var issues: [ConfigIssue] = []
        for pattern in spiral.customPatterns {
            if let problem = pattern.holdProblem(maxBreathHold: spiral.maxBreathHold) {
                issues.append(loaded.issue(key: "\(section).\(pattern.name).phases.\(problem.phase)", problem.message))
            }
        }
        let limit = BreathingPattern.maximumCustomPatterns
        if spiral.customPatterns.count > limit {
            issues.append(loaded.issue(key: "\(section).\(spiral.customPatterns[limit].name)",
                                       "more than \(limit) patterns in [spiral.patterns]; every pattern's texts are drawn when the exercise is shown"))
        }
        // A custom pattern over the limit was named above.
        if !spiral.customPatterns.contains(where: { $0.name == spiral.pattern }), case .failure(let error) = spiral.pattern(named: spiral.pattern) {
            // The default pattern refused by a lowered limit: name the limit.
            let key = loaded.keysSet.contains("spiral.pattern") || !loaded.keysSet.contains("spiral.max_breath_hold") ? "spiral.pattern" : "spiral.max_breath_hold"
            issues.append(loaded.issue(key: key, error.description))
        }
        return issues
    }
}
