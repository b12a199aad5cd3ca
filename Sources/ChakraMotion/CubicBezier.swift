/// A CSS `cubic-bezier(x1, y1, x2, y2)` easing curve.
///
/// The curve runs from P0 = (0, 0) through control points P1 = (x1, y1) and
/// P2 = (x2, y2) to P3 = (1, 1) (CSS Easing Level 1, §"Cubic Bézier easing
/// functions"). Evaluating it means solving x(s) = x for the curve parameter s
/// and returning y(s); the solver follows WebKit's `UnitBezier.h`: a few Newton
/// steps from s = x, then bisection when Newton stalls on a flat derivative.
public struct CubicBezier: Sendable, Equatable, Hashable {
    public let x1: Double
    public let y1: Double
    public let x2: Double
    public let y2: Double

    // Power-basis coefficients, B(s) = ((a·s + b)·s + c)·s, precomputed once so
    // each evaluation is a handful of multiply-adds (WebKit UnitBezier).
    private let ax: Double, bx: Double, cx: Double
    private let ay: Double, by: Double, cy: Double

    // Slopes of the straight lines used outside [0, 1] (CSS extrapolation).
    private let startGradient: Double
    private let endGradient: Double

    /// The x tolerance of the solver. Newton usually lands far below it; it
    /// matters for the bisection fallback (about 34 halvings of [0, 1]).
    static let solverEpsilon = 1e-10

    /// CSS requires x1 and x2 in [0, 1] (otherwise the curve is not a function
    /// of x and the declaration is invalid). Rather than trap in a render loop,
    /// out-of-range x1/x2 are clamped into [0, 1]; `TimingFunction(cssName:)`
    /// rejects them instead, as a CSS parser would. y1, y2 are free.
    public init(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double) {
        precondition(x1.isFinite && y1.isFinite && x2.isFinite && y2.isFinite,
                     "cubic-bezier control points must be finite")
        let x1 = min(max(x1, 0), 1)
        let x2 = min(max(x2, 0), 1)
        (self.x1, self.y1, self.x2, self.y2) = (x1, y1, x2, y2)
        cx = 3 * x1
        bx = 3 * (x2 - x1) - cx
        ax = 1 - cx - bx
        cy = 3 * y1
        by = 3 * (y2 - y1) - cy
        ay = 1 - cy - by
        startGradient = Self.startTangentSlope(x1, y1, x2, y2)
        endGradient = Self.endTangentSlope(x1, y1, x2, y2)
    }

    /// The output progress y for input progress x.
    ///
    /// Inside [0, 1] this is the curve. Outside it, CSS Easing Level 1 extends
    /// the curve with its end tangents, so an input pushed past the ends (an
    /// overshooting whole-cycle curve feeding a per-keyframe one) still gets a
    /// continuous output.
    public func value(at x: Double) -> Double {
        if x <= 0 { return startGradient * x }
        if x >= 1 { return 1 + endGradient * (x - 1) }
        return sampleY(solveParameter(forX: x))
    }

    // MARK: - Curve sampling

    private func sampleX(_ s: Double) -> Double { ((ax * s + bx) * s + cx) * s }
    private func sampleY(_ s: Double) -> Double { ((ay * s + by) * s + cy) * s }
    private func sampleDerivativeX(_ s: Double) -> Double { (3 * ax * s + 2 * bx) * s + cx }

    /// Finds s in [0, 1] with x(s) ≈ x. x(s) is monotone because x1, x2 ∈ [0, 1].
    private func solveParameter(forX x: Double) -> Double {
        if let s = newtonParameter(forX: x) { return s }
        return bisectionParameter(forX: x)
    }

    /// WebKit's fast path: 8 Newton iterations from s = x. Gives up (nil) when
    /// the derivative is too flat to trust, e.g. at s = 0 when x1 = 0.
    private func newtonParameter(forX x: Double) -> Double? {
        var s = x
        for _ in 0..<8 {
            let error = sampleX(s) - x
            if abs(error) < Self.solverEpsilon { return s }
            let slope = sampleDerivativeX(s)
            if abs(slope) < 1e-6 { return nil }
            s -= error / slope
        }
        return nil
    }

    /// WebKit's fallback: bisection on [0, 1], always converges.
    private func bisectionParameter(forX x: Double) -> Double {
        var low = 0.0, high = 1.0
        var s = x
        // 100 halvings exhaust a Double's precision; the cap only guards
        // against looping forever if low and high become adjacent doubles.
        for _ in 0..<100 {
            let sampled = sampleX(s)
            if abs(sampled - x) < Self.solverEpsilon { return s }
            if x > sampled { low = s } else { high = s }
            s = (low + high) * 0.5
        }
        return s
    }

    // MARK: - CSS extrapolation

    /// CSS Easing Level 1: for input < 0, use the line through P0 and P1 when
    /// x1 > 0; otherwise the line through P0 and P2 when x2 > 0; otherwise the
    /// output is 0.
    private static func startTangentSlope(_ x1: Double, _ y1: Double,
                                          _ x2: Double, _ y2: Double) -> Double {
        if x1 > 0 { return y1 / x1 }
        if x2 > 0 { return y2 / x2 }
        return 0
    }

    /// CSS Easing Level 1: for input > 1, use the line through P2 and P3 when
    /// x2 < 1; otherwise the line through P1 and P3 when x1 < 1; otherwise the
    /// output is 1.
    private static func endTangentSlope(_ x1: Double, _ y1: Double,
                                        _ x2: Double, _ y2: Double) -> Double {
        if x2 < 1 { return (y2 - 1) / (x2 - 1) }
        if x1 < 1 { return (y1 - 1) / (x1 - 1) }
        return 0
    }
}
