/// One phase of a breathing pattern: what the breath does, for how long,
/// and, optionally, the words shown for it instead of the catalog's.
public struct BreathPhase: Sendable, Equatable {
    /// What the breath does. The raw values are the names chakra.toml and
    /// the control protocol use.
    public enum Kind: String, Sendable, CaseIterable {
        /// Breathe in: the orb grows; heartbeat cues.
        case `in` = "in"
        /// Hold with full lungs: the orb stays large.
        case holdIn = "hold-in"
        /// Breathe out: the orb shrinks.
        case out = "out"
        /// Pause with empty lungs: the orb stays small.
        case holdOut = "hold-out"

        /// A held breath, which `spiral.max_breath_hold` limits.
        public var isHold: Bool { self == .holdIn || self == .holdOut }
    }

    public var kind: Kind
    /// Seconds, finite and more than 0.
    public var seconds: Double
    /// A literal guidance text for this phase; nil: the catalog's text for
    /// its kind, in the configured language.
    public var text: String?

    public init(_ kind: Kind, _ seconds: Double, text: String? = nil) {
        (self.kind, self.seconds, self.text) = (kind, seconds, text)
    }
}

/// How the Hold state breathes: a cycle of phases repeated while the finger
/// rests on the light (docs/spiral.md). A valid pattern is exactly `in`, an
/// optional `hold-in`, `out`, an optional `hold-out`, in that order, every
/// phase finite and more than 0 s long.
public struct BreathingPattern: Sendable, Equatable {
    /// As chakra.toml and `chakractl spiral start --pattern` name it.
    public var name: String
    public var phases: [BreathPhase]

    public init(name: String, phases: [BreathPhase]) {
        (self.name, self.phases) = (name, phases)
    }

    /// One cycle: the phases' seconds added up.
    public var cycleSeconds: Double { phases.reduce(0) { $0 + $1.seconds } }

    /// The longest held breath (hold-in or hold-out), 0 with no holds.
    public var longestHold: Double { phases.filter(\.kind.isHold).map(\.seconds).max() ?? 0 }

    /// How long the Hold state lasts for a wished `holdDuration`: the
    /// nearest whole number of cycles (halves round up), at least one, so
    /// that the hold ends where a cycle ends (72 s of 6-4-8 is 4 cycles).
    public func holdSeconds(near target: Double) -> Double {
        let cycle = cycleSeconds
        guard cycle > 0 else { return target }
        return max(1, (target / cycle).rounded()) * cycle
    }

    // MARK: - The rules

    /// A shorter cycle is panting, not paced breathing; every real pattern
    /// is well above it. A constant rather than a key: nobody needs to
    /// tune a sanity floor, and a key would only invite mistakes.
    public static let minimumCycleSeconds = 4.0
    /// No single phase is longer: a breath of more than a minute is no
    /// breath a visitor can follow.
    public static let maximumPhaseSeconds = 60.0
    /// A guidance text shows in one or two lines above the spiral.
    public static let maximumTextLength = 80
    public static let maximumNameLength = 32
    /// Every pattern's texts are drawn when the scene is made: a bound on
    /// the custom patterns bounds that memory.
    public static let maximumCustomPatterns = 16

    /// Why the phases are not a valid pattern, and the phase it is about
    /// (an index into `phases`; nil: the pattern as a whole). Holds are
    /// checked against `spiral.max_breath_hold` separately (`holdProblem`):
    /// that limit may be set in another file.
    public var shapeProblem: (message: String, phase: Int?)? {
        let order = "a pattern is in, an optional hold-in, out, an optional hold-out"
        guard !phases.isEmpty else { return ("has no phases; \(order)", nil) }
        var previous: BreathPhase.Kind?
        for (index, phase) in phases.enumerated() {
            let allowed: [BreathPhase.Kind]
            switch previous {
            case nil: allowed = [.in]
            case .in?: allowed = [.holdIn, .out]
            case .holdIn?: allowed = [.out]
            case .out?: allowed = [.holdOut]
            case .holdOut?: allowed = []
            }
            guard allowed.contains(phase.kind) else {
                let place = previous.map { "\"\(phase.kind.rawValue)\" cannot follow \"\($0.rawValue)\"" }
                    ?? "the first phase must be \"in\", not \"\(phase.kind.rawValue)\""
                return ("\(place); \(order)", index)
            }
            guard phase.seconds.isFinite, phase.seconds > 0 else {
                return ("seconds must be a finite number more than 0 (got \(phase.seconds))", index)
            }
            guard phase.seconds <= Self.maximumPhaseSeconds else {
                return ("seconds must be at most \(Int(Self.maximumPhaseSeconds)) (got \(phase.seconds))", index)
            }
            if let text = phase.text, let problem = Self.textProblem(text) { return (problem, index) }
            previous = phase.kind
        }
        guard phases.contains(where: { $0.kind == .out }) else { return ("has no \"out\" phase; \(order)", nil) }
        // (A hair of slack: phases written as decimals, 4/3 + 8/9 + 16/9, may add up to a bit under.)
        guard cycleSeconds >= Self.minimumCycleSeconds - 1e-9 else {
            return ("a cycle must last at least \(Int(Self.minimumCycleSeconds)) s (got \(cycleSeconds) s)", nil)
        }
        return nil
    }

    /// The first hold longer than `maxBreathHold`, as a message and its
    /// phase; nil when every hold is within it.
    public func holdProblem(maxBreathHold: Double) -> (message: String, phase: Int)? {
        guard let index = phases.firstIndex(where: { $0.kind.isHold && $0.seconds > maxBreathHold }) else { return nil }
        let phase = phases[index]
        return ("holds the breath \(Self.seconds(phase.seconds)) (\(phase.kind.rawValue)), longer than spiral.max_breath_hold (\(Self.seconds(maxBreathHold)))", index)
    }

    /// Letters, digits, - and _: a TOML bare key, and a word on a command line.
    public static func nameProblem(_ name: String) -> String? {
        guard !name.isEmpty, name.count <= maximumNameLength,
              name.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_") })
        else { return "a pattern's name is 1 to \(maximumNameLength) letters, digits, - or _ (got \"\(name)\")" }
        return nil
    }

    static func textProblem(_ text: String) -> String? {
        if text.isEmpty || text.allSatisfy(\.isWhitespace) { return "text must not be empty (leave it out for the catalog's text)" }
        if text.count > maximumTextLength { return "text must be at most \(maximumTextLength) characters (got \(text.count))" }
        if text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "text must be one line of printable characters"
        }
        return nil
    }

    /// "4 s", "5.5 s".
    static func seconds(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e9 ? "\(Int(value)) s" : "\(value) s"
    }

    // MARK: - Presets

    /// The default: the design's hold cycle, 6 s in, 4 s held, 8 s out.
    public static let defaultName = "6-4-8"

    /// Compiled in, documented in docs/configuration.md; a custom pattern
    /// of the same name takes a preset's place.
    public static let presets: [BreathingPattern] = [
        BreathingPattern(name: "6-4-8", phases: [BreathPhase(.in, 6), BreathPhase(.holdIn, 4), BreathPhase(.out, 8)]),
        // Box breathing: four equal sides.
        BreathingPattern(name: "box", phases: [BreathPhase(.in, 4), BreathPhase(.holdIn, 4), BreathPhase(.out, 4), BreathPhase(.holdOut, 4)]),
        // The relaxing breath: a long hold and a longer exhale.
        BreathingPattern(name: "4-7-8", phases: [BreathPhase(.in, 4), BreathPhase(.holdIn, 7), BreathPhase(.out, 8)]),
        // Coherent (resonant) breathing: about 5.5 breaths a minute, no holds.
        BreathingPattern(name: "coherent", phases: [BreathPhase(.in, 5.5), BreathPhase(.out, 5.5)]),
    ]

    public static func preset(named name: String) -> BreathingPattern? { presets.first { $0.name == name } }

    /// "in 4, hold-in 4 \"Hold gently\", out 6": how `chakractl get` shows one.
    public var summary: String {
        "\(name): " + phases.map { phase in
            let seconds = phase.seconds == phase.seconds.rounded() && abs(phase.seconds) < 1e9 ? "\(Int(phase.seconds))" : "\(phase.seconds)"
            return "\(phase.kind.rawValue) \(seconds)" + (phase.text.map { " " + ConfigValue.string($0).description } ?? "")
        }.joined(separator: ", ")
    }
}

/// Why a pattern name cannot be used for an exercise.
public enum PatternChoiceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No preset or custom pattern has the name; `known`: those that do.
    case unknown(String, known: [String])
    /// It holds the breath longer than `spiral.max_breath_hold` allows.
    case holdTooLong(String, hold: Double, limit: Double)

    public var description: String {
        switch self {
        case .unknown(let name, let known):
            "no breathing pattern named '\(name)'; patterns: \(known.joined(separator: ", "))"
        case .holdTooLong(let name, let hold, let limit):
            "the pattern '\(name)' holds the breath \(BreathingPattern.seconds(hold)), longer than spiral.max_breath_hold (\(BreathingPattern.seconds(limit)))"
        }
    }
}

extension ChakraConfig.Spiral {
    /// Every pattern an exercise may use, presets first (in their order;
    /// a custom pattern of a preset's name in its place), then the custom
    /// ones in file order; patterns holding longer than `maxBreathHold`
    /// are left out.
    public var availablePatterns: [BreathingPattern] {
        let presets = BreathingPattern.presets.map { preset in customPatterns.first { $0.name == preset.name } ?? preset }
        let others = customPatterns.filter { BreathingPattern.preset(named: $0.name) == nil }
        return (presets + others).filter { $0.longestHold <= maxBreathHold }
    }

    /// The pattern called `name`, if an exercise may use it.
    public func pattern(named name: String) -> Result<BreathingPattern, PatternChoiceError> {
        if let found = availablePatterns.first(where: { $0.name == name }) { return .success(found) }
        let defined = customPatterns.first { $0.name == name } ?? BreathingPattern.preset(named: name)
        if let defined { return .failure(.holdTooLong(name, hold: defined.longestHold, limit: maxBreathHold)) }
        return .failure(.unknown(name, known: availablePatterns.map(\.name)))
    }

    /// The configured pattern (`pattern`). A loaded configuration always
    /// has it; one made in code with a name it lacks gets the default
    /// preset, and with a limit that refuses that too, the first pattern
    /// that fits.
    public var selectedPattern: BreathingPattern {
        if case .success(let chosen) = pattern(named: pattern) { return chosen }
        if case .success(let fallback) = pattern(named: BreathingPattern.defaultName) { return fallback }
        return availablePatterns.first ?? BreathingPattern.preset(named: "coherent")!
    }
}
