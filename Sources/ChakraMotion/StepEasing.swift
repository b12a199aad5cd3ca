/// The CSS step easing function, kept apart from `TimingFunction` so the
/// algorithm reads as the spec does.
enum StepEasing {
    /// CSS Easing Level 1, §"Step easing functions": output for `steps(count,
    /// position)` at `input`.
    ///
    /// The spec's "before flag" (which makes a jump-start step at exactly the
    /// first boundary drop back while an animation is still in its before
    /// phase) is not modelled: this engine asks for easing only with a resolved
    /// directed progress, never in the before phase without a backwards fill.
    static func value(at input: Double, count: Int, position: StepPosition) -> Double {
        let steps = validStepCount(count, position)
        var currentStep = (input * Double(steps)).rounded(.down)
        if position == .jumpStart || position == .jumpBoth { currentStep += 1 }
        let jumps = Double(jumpCount(steps, position))
        if input >= 0 && currentStep < 0 { currentStep = 0 }
        if input <= 1 && currentStep > jumps { currentStep = jumps }
        return currentStep / jumps
    }

    /// CSS makes `steps(0, …)` and `steps(1, jump-none)` invalid. An enum case
    /// cannot refuse construction, so the smallest valid count is used instead
    /// (the parser, `TimingFunction(cssName:)`, rejects them).
    static func validStepCount(_ count: Int, _ position: StepPosition) -> Int {
        max(count, position == .jumpNone ? 2 : 1)
    }

    /// The number of jumps, which is also the denominator of the output.
    private static func jumpCount(_ steps: Int, _ position: StepPosition) -> Int {
        switch position {
        case .jumpStart, .jumpEnd: steps
        case .jumpNone: steps - 1
        case .jumpBoth: steps + 1
        }
    }
}
