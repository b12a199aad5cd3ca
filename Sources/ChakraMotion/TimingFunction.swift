/// An easing function: maps input progress to output progress
/// (CSS Easing Level 1; Core Animation's `CAMediaTimingFunction`).
public enum TimingFunction: Sendable, Equatable, Hashable {
    /// The identity, `linear` in CSS (Easing Level 1 §"The linear easing function").
    case linear
    /// A `cubic-bezier(x1, y1, x2, y2)` curve.
    case cubicBezier(CubicBezier)
    /// `steps(count, position)`: a staircase with `count` intervals.
    case steps(Int, StepPosition)

    /// The output progress for input progress `x`.
    ///
    /// Outside [0, 1], `linear` stays the identity, cubic-bezier follows its end
    /// tangents and steps continue their staircase, all as CSS specifies.
    public func value(at x: Double) -> Double {
        switch self {
        case .linear:
            x
        case .cubicBezier(let curve):
            curve.value(at: x)
        case .steps(let count, let position):
            StepEasing.value(at: x, count: count, position: position)
        }
    }
}

// MARK: - CSS named easing functions (CSS Easing Level 1 §"cubic-bezier()")

extension TimingFunction {
    /// CSS `ease`: cubic-bezier(0.25, 0.1, 0.25, 1), the CSS default.
    public static let ease = TimingFunction.cubicBezier(CubicBezier(0.25, 0.1, 0.25, 1))
    /// CSS `ease-in`: cubic-bezier(0.42, 0, 1, 1).
    public static let easeIn = TimingFunction.cubicBezier(CubicBezier(0.42, 0, 1, 1))
    /// CSS `ease-out`: cubic-bezier(0, 0, 0.58, 1).
    public static let easeOut = TimingFunction.cubicBezier(CubicBezier(0, 0, 0.58, 1))
    /// CSS `ease-in-out`: cubic-bezier(0.42, 0, 0.58, 1).
    public static let easeInOut = TimingFunction.cubicBezier(CubicBezier(0.42, 0, 0.58, 1))
    /// CSS `step-start`: steps(1, jump-start).
    public static let stepStart = TimingFunction.steps(1, .jumpStart)
    /// CSS `step-end`: steps(1, jump-end).
    public static let stepEnd = TimingFunction.steps(1, .jumpEnd)
}

// MARK: - Core Animation named timing functions (CAMediaTimingFunctionName)

extension TimingFunction {
    /// `kCAMediaTimingFunctionLinear`.
    public static let caLinear = TimingFunction.linear
    /// `kCAMediaTimingFunctionEaseIn`: control points (0.42, 0), (1, 1).
    public static let caEaseIn = TimingFunction.cubicBezier(CubicBezier(0.42, 0, 1, 1))
    /// `kCAMediaTimingFunctionEaseOut`: control points (0, 0), (0.58, 1).
    public static let caEaseOut = TimingFunction.cubicBezier(CubicBezier(0, 0, 0.58, 1))
    /// `kCAMediaTimingFunctionEaseInEaseOut`: control points (0.42, 0), (0.58, 1).
    public static let caEaseInEaseOut = TimingFunction.cubicBezier(CubicBezier(0.42, 0, 0.58, 1))
    /// `kCAMediaTimingFunctionDefault`: control points (0.25, 0.1), (0.25, 1),
    /// the same curve as CSS `ease`.
    public static let caDefault = TimingFunction.cubicBezier(CubicBezier(0.25, 0.1, 0.25, 1))
}
