import Testing
@testable import ChakraMotion

@Suite("CubicBezier")
struct CubicBezierTests {
    static let sampleXs: [Double] = [0.001, 0.01, 0.05, 0.1, 0.25, 0.4, 0.5, 0.6, 0.75, 0.9, 0.99, 0.999]

    static let curves: [(name: String, x1: Double, y1: Double, x2: Double, y2: Double)] = [
        ("ease", 0.25, 0.1, 0.25, 1),
        ("ease-in-out", 0.42, 0, 0.58, 1),
        ("ease-out", 0, 0, 0.58, 1),
        ("ease-in", 0.42, 0, 1, 1),
        ("back (overshoots both ends)", 0.68, -0.55, 0.265, 1.55),
        ("steep start, flat end", 0.1, 0.9, 1, 0.1),
    ]

    @Test("matches a dense parametric sampling of B(s)", arguments: curves.indices)
    func matchesDenseSampling(curveIndex: Int) {
        let c = Self.curves[curveIndex]
        let curve = CubicBezier(c.x1, c.y1, c.x2, c.y2)
        let table = ReferenceBezier.Table(c.x1, c.y1, c.x2, c.y2)
        for x in Self.sampleXs {
            let expected = table.y(atX: x)
            #expect(isClose(curve.value(at: x), expected, 1e-5), "\(c.name) at x = \(x): \(curve.value(at: x)) vs \(expected)")
        }
    }

    @Test("matches bisection on the curve parameter to 1e-7", arguments: curves.indices)
    func matchesBisection(curveIndex: Int) {
        let c = Self.curves[curveIndex]
        let curve = CubicBezier(c.x1, c.y1, c.x2, c.y2)
        for i in 1..<200 {
            let x = Double(i) / 200
            let expected = ReferenceBezier.yByBisection(x, c.x1, c.y1, c.x2, c.y2)
            #expect(isClose(curve.value(at: x), expected, 1e-7), "\(c.name) at x = \(x)")
        }
    }

    /// ease-out is cubic-bezier(0, 0, 0.58, 1). With P1 = (0, 0), P2 = (0.58, 1):
    ///   x(s) = 3(1−s)s²·0.58 + s³ = 1.74s² − 0.74s³
    ///   y(s) = 3(1−s)s²·1 + s³    = 3s² − 2s³
    /// x(s) = 0.5 ⇔ f(s) = 0.74s³ − 1.74s² + 0.5 = 0, f'(s) = 2.22s² − 3.48s.
    ///   Newton from s = 0.6:      f = 0.03344,   f' = −1.2888 → s = 0.625947
    ///   again from s = 0.625947:  f = −0.000263, f' = −1.3085 → s = 0.625747
    ///   y = 3s² − 2s³ = 1.174676 − 0.490033 = 0.684643
    @Test func easeOutAtHalfByHand() {
        #expect(isClose(TimingFunction.easeOut.value(at: 0.5), 0.684643, 1e-6))
    }

    /// ease-in-out's control points are symmetric about (0.5, 0.5), so the
    /// curve is point-symmetric there and y(0.5) = 0.5 exactly, and
    /// y(x) + y(1 − x) = 1 for every x.
    @Test func easeInOutIsPointSymmetric() {
        #expect(isClose(TimingFunction.easeInOut.value(at: 0.5), 0.5, 1e-9))
        for x in [0.1, 0.2, 0.3, 0.45] {
            let sum = TimingFunction.easeInOut.value(at: x) + TimingFunction.easeInOut.value(at: 1 - x)
            #expect(isClose(sum, 1, 1e-9))
        }
    }

    /// ease-in (0.42, 0, 1, 1) is ease-out (0, 0, 0.58, 1) rotated by 180° about
    /// (0.5, 0.5): easeIn(x) = 1 − easeOut(1 − x).
    @Test func easeInMirrorsEaseOut() {
        for x in [0.05, 0.3, 0.5, 0.7, 0.95] {
            let mirrored = 1 - TimingFunction.easeOut.value(at: 1 - x)
            #expect(isClose(TimingFunction.easeIn.value(at: x), mirrored, 1e-9))
        }
    }

    /// With P1 = (1/3, 1/3), P2 = (2/3, 2/3) the control points are evenly
    /// spaced on the diagonal, so x(s) = y(s) = s: the identity.
    /// cubic-bezier(0, 0, 1, 1) is also the identity: x(s) = y(s) = 3s² − 2s³.
    @Test func diagonalCurvesAreIdentity() {
        let thirds = CubicBezier(1.0 / 3, 1.0 / 3, 2.0 / 3, 2.0 / 3)
        let corners = CubicBezier(0, 0, 1, 1)
        for x in stride(from: 0.0, through: 1.0, by: 0.05) {
            #expect(isClose(thirds.value(at: x), x, 1e-9))
            #expect(isClose(corners.value(at: x), x, 1e-9))
        }
    }

    @Test func endpointsAreExact() {
        for c in Self.curves {
            let curve = CubicBezier(c.x1, c.y1, c.x2, c.y2)
            #expect(curve.value(at: 0) == 0, "\(c.name)")
            #expect(curve.value(at: 1) == 1, "\(c.name)")
        }
    }

    /// CSS Easing Level 1: outside [0, 1] the curve continues along its end
    /// tangents. ease: start slope y1/x1 = 0.1/0.25 = 0.4; end: x2 < 1, slope
    /// (y2 − 1)/(x2 − 1) = 0. ease-out: x1 = 0, so the start line goes through
    /// P2: slope 1/0.58. ease-in: x2 = 1, so the end line goes through P1:
    /// slope (0 − 1)/(0.42 − 1) = 1/0.58.
    @Test func extrapolatesAlongEndTangents() {
        #expect(isClose(TimingFunction.ease.value(at: -0.5), -0.2, 1e-12))
        #expect(isClose(TimingFunction.ease.value(at: 1.5), 1, 1e-12))
        #expect(isClose(TimingFunction.easeOut.value(at: -1), -1 / 0.58, 1e-12))
        #expect(isClose(TimingFunction.easeIn.value(at: 2), 1 + 1 / 0.58, 1e-12))
        #expect(CubicBezier(0, 0.5, 0, 0.5).value(at: -1) == 0)  // no usable tangent: 0
    }

    @Test func clampsControlXIntoUnitInterval() {
        #expect(CubicBezier(-1, 0, 2, 1) == CubicBezier(0, 0, 1, 1))
    }

    @Test func isMonotoneForMonotoneControlPoints() {
        var previous = -1.0
        for i in 0...1000 {
            let y = TimingFunction.ease.value(at: Double(i) / 1000)
            #expect(y >= previous)
            previous = y
        }
    }
}
