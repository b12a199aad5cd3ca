/// The spiral's hold cycle as the releases before breathing patterns read
/// it: spiral.hold_cycle_up_duration, _pause_duration and _down_duration,
/// seconds, 6, 4 and 8 when not set. It is a breathing pattern: up is
/// `in`, pause `hold-in` (none when 0), down `out`, in that order, which
/// is how those releases breathed it (SpiralSession.holdPhase before
/// commit 2055082).
struct HoldCycle: Sendable, Equatable {
    var up = 6.0
    var pause = 4.0
    var down = 8.0

    /// One of the three keys, with the range its release accepted
    /// (`positive(max: 600)` for up and down, `0...600` for the pause).
    struct Key: Sendable {
        let path: String
        /// "up", "pause", "down".
        let word: String
        let field: WritableKeyPath<HoldCycle, Double> & Sendable
        let zeroAllowed: Bool
        var name: String { String(path.dropFirst("spiral.".count)) }
    }

    static let keys: [Key] = [
        Key(path: "spiral.hold_cycle_up_duration", word: "up", field: \.up, zeroAllowed: false),
        Key(path: "spiral.hold_cycle_pause_duration", word: "pause", field: \.pause, zeroAllowed: true),
        Key(path: "spiral.hold_cycle_down_duration", word: "down", field: \.down, zeroAllowed: false),
    ]
    static let oldMaximum = 600.0

    /// What a pattern that replaces the cycle is called when no preset is
    /// the same breath.
    static let patternName = "hold-cycle"

    init(up: Double = 6, pause: Double = 4, down: Double = 8) {
        (self.up, self.pause, self.down) = (up, pause, down)
    }

    /// The values the files set, the old defaults for the others.
    init(_ values: [String: Double]) {
        self.init()
        for key in Self.keys { if let value = values[key.path] { self[keyPath: key.field] = value } }
    }

    var phases: [BreathPhase] {
        [BreathPhase(.in, up)] + (pause > 0 ? [BreathPhase(.holdIn, pause)] : []) + [BreathPhase(.out, down)]
    }

    /// The cycle as this release's limits allow it, and a note for each
    /// value changed. The old release took up to 600 s a phase and any
    /// cycle; this one takes phases of at most 60 s, holds of at most
    /// `spiral.max_breath_hold` and cycles of at least 4 s. A kiosk that
    /// started before must still start, so the cycle is brought inside
    /// the limits rather than refused: a phase longer than 60 s lasts 60 s
    /// (a minute is no breath a visitor follows), a pause longer than the
    /// limit on holds lasts that long (the limit is a safety rule for public
    /// kiosks, which an old file cannot have meant to override; raising it
    /// restores the old pause), and a cycle under 4 s has its breaths in and
    /// out stretched in proportion until it lasts 4 s.
    func fitted(maxBreathHold: Double) -> (cycle: HoldCycle, notes: [String]) {
        var cycle = self
        var notes: [String] = []
        let longest = BreathingPattern.maximumPhaseSeconds
        for (field, name) in [(\HoldCycle.up, "in"), (\HoldCycle.down, "out")] where cycle[keyPath: field] > longest {
            notes.append("\(name) \(Self.text(longest)) s, not \(Self.text(cycle[keyPath: field])) (a phase lasts at most \(Self.text(longest)) s)")
            cycle[keyPath: field] = longest
        }
        if cycle.pause > maxBreathHold {
            notes.append(maxBreathHold > 0
                ? "hold-in \(Self.text(maxBreathHold)) s, not \(Self.text(cycle.pause)) (spiral.max_breath_hold; raising it to \(Self.text(cycle.pause)) holds as before)"
                : "no hold-in, not \(Self.text(cycle.pause)) s (spiral.max_breath_hold is 0)")
            cycle.pause = maxBreathHold
        }
        let shortest = BreathingPattern.minimumCycleSeconds
        if cycle.up + cycle.pause + cycle.down < shortest {
            let stretch = (shortest - cycle.pause) / (cycle.up + cycle.down)
            let (up, down) = (Self.millisecondsUp(cycle.up * stretch), Self.millisecondsUp(cycle.down * stretch))
            notes.append("in \(Self.text(up)) s and out \(Self.text(down)) s, not \(Self.text(cycle.up)) and \(Self.text(cycle.down)) (a cycle lasts at least \(Self.text(shortest)) s)")
            (cycle.up, cycle.down) = (up, down)
        }
        return (cycle, notes)
    }

    /// The table that writes the cycle as a pattern, on one line as TOML.
    func table(named name: String) -> String {
        let phases = phases.map { "{ kind = \"\($0.kind.rawValue)\", seconds = \(Self.text($0.seconds)) }" }
        return "[spiral.patterns.\(name)]\n    phases = [\(phases.joined(separator: ", "))]"
    }

    /// "in 3 s, hold-in 2 s, out 5 s".
    var breath: String { phases.map { "\($0.kind.rawValue) \(Self.text($0.seconds)) s" }.joined(separator: ", ") }

    /// 6 rather than 6.0, 5.5 as it is.
    static func text(_ seconds: Double) -> String { ConfigValue.double(seconds).numberText }

    /// Up to the next millisecond (a hair under it stays: 1.6000000000000001 is 1.6).
    private static func millisecondsUp(_ seconds: Double) -> Double { (seconds * 1000 - 1e-6).rounded(.up) / 1000 }
}
