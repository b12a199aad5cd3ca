/// Keys a release shipped and a later one no longer reads. chakra.toml is
/// the kiosk's own (a conffile that upgrades keep), and after `apt upgrade`
/// nobody may be there to edit it: a retired key never stops chakrad. It
/// is read as what replaced it, with one warning that shows the lines to
/// write instead; a key that never changed anything is ignored, with a
/// warning. A value the key's own release refused is still refused: no
/// kiosk ever started with it.
///
/// Removing a key from `ConfigKeys` means adding it here: the test of every
/// key any release shipped (ShippedKeysTests) fails otherwise.
enum RetiredKeys {
    /// Summed by the first release from the three keys of the cycle and
    /// never read by any (its warning said so).
    static let holdCycleDuration = "spiral.hold_cycle_duration"

    static func isRetired(_ path: String) -> Bool {
        path == holdCycleDuration || HoldCycle.keys.contains { $0.path == path }
    }

    // MARK: - One file

    /// Reads `path` if it is a retired key; false when it is not one. The
    /// cycle's keys are kept aside (`LoadedConfig.holdCycleKeys`) until
    /// every file is laid, as a drop-in may set one of them over the main
    /// file's, key by key, as it could in their release.
    static func read(_ path: String, _ value: ConfigValue, into loaded: inout LoadedConfig, errors: inout [ConfigIssue]) -> Bool {
        if path == holdCycleDuration {
            loaded.warnings.append(loaded.issue(key: path, "ignored: the hold cycle is a breathing pattern now (spiral.pattern); delete the line"))
            return true
        }
        guard let key = HoldCycle.keys.first(where: { $0.path == path }) else { return false }
        let range = "\(key.zeroAllowed ? "0" : "more than 0")...\(HoldCycle.text(HoldCycle.oldMaximum))"
        guard let seconds = value.number, seconds.isFinite, seconds <= HoldCycle.oldMaximum, key.zeroAllowed ? seconds >= 0 : seconds > 0 else {
            errors.append(loaded.issue(key: path, "must be a number in \(range), as when it was read (got \(value.kindAndValue)); better, write the hold cycle as a breathing pattern (docs/configuration.md, Breathing patterns)"))
            return true
        }
        loaded.holdCycleKeys[path] = seconds
        return true
    }

    // MARK: - Every file laid

    /// The hold cycle the files set, as the breathing pattern it is, with
    /// one warning however many of its keys are set and wherever:
    ///
    /// - `spiral.pattern` set in any file: it chooses, the cycle is ignored;
    /// - a `[spiral.patterns.hold-cycle]` table in any file (the one the
    ///   warning tells to write): that table is the cycle, and is chosen;
    /// - else the cycle (the old defaults for keys not set), brought within
    ///   this release's limits (`HoldCycle.fitted`), is chosen: the preset
    ///   that breathes the same if there is one (6-4-8 for the old defaults),
    ///   else a pattern `hold-cycle` added to the custom ones.
    static func translateHoldCycle(_ loaded: inout LoadedConfig) {
        let set = HoldCycle.keys.filter { loaded.holdCycleKeys[$0.path] != nil }
        guard let first = set.first else { return }
        let values = loaded.holdCycleKeys
        loaded.holdCycleKeys = [:]
        let others = set.dropFirst().map(\.name)
        let deprecated = "deprecated" + (others.isEmpty ? "" : ", as \(others.count == 1 ? "is" : "are") \(others.joined(separator: " and "))") + " (the hold cycle before breathing patterns)"
        func warn(_ message: String) { loaded.warnings.append(loaded.issue(key: first.path, deprecated + ": " + message)) }
        let name = HoldCycle.patternName

        if loaded.keysSet.contains("spiral.pattern") {
            return warn("ignored, as spiral.pattern (\(place(of: "spiral.pattern", in: loaded))) chooses the pattern; delete these lines")
        }
        if loaded.config.spiral.customPatterns.contains(where: { $0.name == name }) {
            loaded.config.spiral.pattern = name
            return warn("the pattern [spiral.patterns.\(name)] (\(place(of: "spiral.patterns.\(name)", in: loaded))) is used in its place; delete these lines and write pattern = \"\(name)\" in [spiral]")
        }
        let old = HoldCycle(values)
        let (cycle, notes) = old.fitted(maxBreathHold: loaded.config.spiral.maxBreathHold)
        let was = "\(HoldCycle.keys.map { key in "\(key.word) \(HoldCycle.text(old[keyPath: key.field]))" }.joined(separator: ", ")) s"
            + (set.count < HoldCycle.keys.count ? " (keys not set: their old defaults)" : "")
        let likeness = notes.isEmpty ? "which breathes the same" : "which breathes as near to it as this release allows: " + notes.joined(separator: "; ")
        let spiral = loaded.config.spiral
        if let preset = BreathingPattern.presets.first(where: { preset in
            if case .success(let available) = spiral.pattern(named: preset.name) { return available.phases == cycle.phases }
            return false
        }) {
            loaded.config.spiral.pattern = preset.name
            let instead = preset.name == BreathingPattern.defaultName
                ? "delete these lines (it is the default; or write pattern = \"\(preset.name)\" in [spiral])"
                : "write instead, in [spiral]:\n    pattern = \"\(preset.name)\""
            return warn("\(was) is the pattern \"\(preset.name)\" (\(cycle.breath)), \(likeness); \(instead)")
        }
        loaded.config.spiral.customPatterns.append(BreathingPattern(name: name, phases: cycle.phases))
        loaded.config.spiral.pattern = name
        warn("\(was) is read as the pattern \"\(name)\" (\(cycle.breath)), \(likeness); write instead, in [spiral]:\n"
            + "    pattern = \"\(name)\"\nand, after [spiral]'s keys:\n    " + cycle.table(named: name))
    }

    /// "chakra.toml.d/50-site.toml:3": where a key was set.
    private static func place(of key: String, in loaded: LoadedConfig) -> String {
        let issue = loaded.issue(key: key, "")
        return (issue.file ?? "configuration") + (issue.line.map { ":\($0)" } ?? "")
    }
}
