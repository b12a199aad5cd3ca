/// Where the jumps of a CSS `steps(n, <step-position>)` easing happen
/// (CSS Easing Level 1, §"Step easing functions").
///
/// The legacy keywords `start` and `end` are the same as `jump-start` and
/// `jump-end`; they are offered as aliases below.
public enum StepPosition: Sendable, Equatable, Hashable {
    /// The first jump happens at the start: output 1/n right after 0.
    case jumpStart
    /// The last jump happens at the end: output stays below 1 until input 1.
    case jumpEnd
    /// No jump at either end: n - 1 jumps in between, holding 0 and 1.
    case jumpNone
    /// Jumps at both ends: n + 1 jumps, never resting on 0 or 1 inside (0, 1).
    case jumpBoth

    /// CSS `start`, identical to `jump-start`.
    public static let start = StepPosition.jumpStart
    /// CSS `end`, identical to `jump-end`.
    public static let end = StepPosition.jumpEnd
}
