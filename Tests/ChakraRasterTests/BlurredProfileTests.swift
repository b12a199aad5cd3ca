import Foundation
import Testing
@testable import ChakraRaster

@Suite("Blurred piecewise-linear profiles")
struct BlurredProfileTests {
    /// ∫ f(s)·φσ(x − s) ds by Simpson's rule over each linear piece
    /// [p, q] separately (the integrand is smooth there), 20 000 steps each.
    static func numericBlur(_ pieces: [(p: Double, q: Double, f: (Double) -> Double)], at x: Double, sigma: Double) -> Double {
        pieces.reduce(0) { total, piece in
            total + Ref.simpson(from: piece.p, to: piece.q, steps: 20_000) { s in piece.f(s) * Ref.gaussian(x - s, sigma: sigma) }
        }
    }

    static let xs: [Double] = [-30, -12, -5.5, -2, 0, 1.3, 4, 7.7, 10, 15, 40]

    @Test("blurred box against numerical integration", arguments: [0.4, 2.0, 6.5])
    func box(sigma: Double) {
        let (a, b) = (-3.0, 8.0)
        for x in Self.xs {
            let expected = Self.numericBlur([(a, b, { _ in 1 })], at: x, sigma: sigma)
            let measured = PiecewiseLinearProfile.blurredBox(at: x, from: a, to: b, sigma: sigma)
            #expect(abs(measured - expected) < 1e-9, "x = \(x)")
            #expect(abs(PiecewiseLinearProfile.box(a, b).blurred(at: x, sigma: sigma) - expected) < 1e-9)
        }
    }

    @Test("blurred triangle against numerical integration", arguments: [0.4, 2.0, 6.5])
    func triangle(sigma: Double) {
        let (a, b) = (-4.0, 10.0)  // peak at 3
        let pieces: [(p: Double, q: Double, f: (Double) -> Double)] = [(a, 3, { ($0 - a) / 7 }), (3, b, { (b - $0) / 7 })]
        for x in Self.xs {
            let expected = Self.numericBlur(pieces, at: x, sigma: sigma)
            #expect(abs(PiecewiseLinearProfile.blurredTriangle(at: x, from: a, to: b, sigma: sigma) - expected) < 1e-9, "x = \(x)")
            #expect(abs(PiecewiseLinearProfile.triangle(a, b).blurred(at: x, sigma: sigma) - expected) < 1e-9, "x = \(x)")
        }
    }

    @Test("a general profile: blurred(at:) is the sum of its segments' blurs")
    func generalProfile() {
        let segments = [
            PiecewiseLinearProfile.Segment(from: -6, to: -1, valueFrom: 0.2, valueTo: 0.9),
            PiecewiseLinearProfile.Segment(from: -1, to: 2, valueFrom: 0.5, valueTo: 0.5),   // a jump at −1
            PiecewiseLinearProfile.Segment(from: 2, to: 9, valueFrom: 1, valueTo: 0),
        ]
        let profile = PiecewiseLinearProfile(segments)
        let sigma = 1.7
        for x in Self.xs {
            let sum = segments.reduce(0.0) {
                $0 + PiecewiseLinearProfile.blurredSegment(at: x, from: $1.from, to: $1.to, valueFrom: $1.valueFrom, valueTo: $1.valueTo, sigma: sigma)
            }
            #expect(abs(profile.blurred(at: x, sigma: sigma) - sum) < 1e-12)
            let expected = Self.numericBlur([(-6, -1, { 0.2 + 0.7 * ($0 + 6) / 5 }), (-1, 2, { _ in 0.5 }), (2, 9, { (9 - $0) / 7 })], at: x, sigma: sigma)
            #expect(abs(sum - expected) < 1e-9, "x = \(x)")
        }
        // σ = 0 is the profile itself; a reversed segment contributes nothing.
        #expect(abs(profile.blurred(at: -3.5, sigma: 0) - (0.2 + 0.7 * 2.5 / 5)) < 1e-12)
        #expect(abs(profile.value(at: 5.5) - 0.5) < 1e-12 && profile.value(at: 9.5) == 0)
        #expect(PiecewiseLinearProfile.blurredSegment(at: 0, from: 2, to: 1, valueFrom: 1, valueTo: 1, sigma: 1) == 0)
    }

    @Test("profile values: box and triangle")
    func values() {
        let t = PiecewiseLinearProfile.triangle(2, 6)
        #expect(t.value(at: 1) == 0 && t.value(at: 3) == 0.5 && t.value(at: 4) == 1 && t.value(at: 5.5) == 0.25)
        #expect(PiecewiseLinearProfile.box(0, 1).value(at: 0.5) == 1)
    }
}
