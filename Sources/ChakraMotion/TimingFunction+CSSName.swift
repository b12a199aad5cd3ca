/// Parsing CSS `<easing-function>` text (CSS Easing Level 1 §"Easing functions"),
/// so scene descriptions can be written with the same words as a stylesheet.
extension TimingFunction {
    /// Parses `linear`, `ease`, `ease-in`, `ease-out`, `ease-in-out`,
    /// `step-start`, `step-end`, `cubic-bezier(x1, y1, x2, y2)` and
    /// `steps(n[, position])`. Case-insensitive, surrounding spaces ignored.
    /// Returns nil for anything CSS would reject (x1 or x2 outside [0, 1],
    /// `steps(0)`, `steps(1, jump-none)`, unknown keywords).
    public init?(cssName: String) {
        let text = Self.trimmed(cssName.lowercased())
        if let keyword = Self.keywordFunction(text) {
            self = keyword
        } else if let arguments = Self.arguments(of: "cubic-bezier", in: text) {
            guard let curve = Self.parseCubicBezier(arguments) else { return nil }
            self = curve
        } else if let arguments = Self.arguments(of: "steps", in: text) {
            guard let steps = Self.parseSteps(arguments) else { return nil }
            self = steps
        } else {
            return nil
        }
    }

    private static func keywordFunction(_ text: Substring) -> TimingFunction? {
        switch text {
        case "linear": .linear
        case "ease": .ease
        case "ease-in": .easeIn
        case "ease-out": .easeOut
        case "ease-in-out": .easeInOut
        case "step-start": .stepStart
        case "step-end": .stepEnd
        default: nil
        }
    }

    /// The comma-separated, trimmed arguments of `name(…)`, or nil if `text`
    /// is not a call of `name`.
    private static func arguments(of name: String, in text: Substring) -> [Substring]? {
        guard text.hasPrefix(name), text.hasSuffix(")") else { return nil }
        // CSS tokenises `name(` as one function token: no space before "(".
        let afterName = text.dropFirst(name.count)
        guard afterName.first == "(" else { return nil }
        let inner = afterName.dropFirst().dropLast()
        return inner.split(separator: ",", omittingEmptySubsequences: false).map { Self.trimmed($0) }
    }

    private static func parseCubicBezier(_ arguments: [Substring]) -> TimingFunction? {
        guard arguments.count == 4 else { return nil }
        var numbers: [Double] = []
        for argument in arguments {
            guard let number = Double(argument), number.isFinite else { return nil }
            numbers.append(number)
        }
        guard (0...1).contains(numbers[0]), (0...1).contains(numbers[2]) else { return nil }
        return .cubicBezier(CubicBezier(numbers[0], numbers[1], numbers[2], numbers[3]))
    }

    private static func parseSteps(_ arguments: [Substring]) -> TimingFunction? {
        guard arguments.count == 1 || arguments.count == 2,
              let count = Int(arguments[0]) else { return nil }
        let position: StepPosition
        if arguments.count == 2 {
            guard let parsed = Self.stepPosition(arguments[1]) else { return nil }
            position = parsed
        } else {
            position = .jumpEnd  // CSS: the position defaults to `end`.
        }
        guard count >= StepEasing.validStepCount(1, position) else { return nil }
        return .steps(count, position)
    }

    private static func stepPosition(_ text: Substring) -> StepPosition? {
        switch text {
        case "jump-start", "start": .jumpStart
        case "jump-end", "end": .jumpEnd
        case "jump-none": .jumpNone
        case "jump-both": .jumpBoth
        default: nil
        }
    }

    /// Strips ASCII whitespace at both ends (no Foundation needed).
    private static func trimmed<S: StringProtocol>(_ text: S) -> Substring where S.SubSequence == Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = text.firstIndex(where: { !isSpace($0) }),
              let last = text.lastIndex(where: { !isSpace($0) }) else { return text[text.endIndex...] }
        return text[first...last]
    }
}
