import Foundation
import Testing
@testable import ChakraRaster

/// Brute-force 2-D convolution of an elliptical paint f(t), t = √((x/a)² + (y/b)²),
/// zero for t > 1, with a Gaussian of σ, evaluated at (px, py): the ellipse is
/// supersampled on a grid of step `h` (midpoint rule) and every sample is
/// weighted by the 2-D Gaussian.
private func bruteForceBlur(at px: Double, _ py: Double, a: Double, b: Double, sigma: Double, h: Double = 0.1,
                            paint: (Double) -> Double = { _ in 1 }) -> Double {
    let nx = Int((2 * a / h).rounded(.up)), ny = Int((2 * b / h).rounded(.up))
    let xs = (0..<nx).map { -a + (Double($0) + 0.5) * h }
    let ys = (0..<ny).map { -b + (Double($0) + 0.5) * h }
    let wx = xs.map { Ref.gaussian(px - $0, sigma: sigma) }
    let wy = ys.map { Ref.gaussian(py - $0, sigma: sigma) }
    var total = 0.0
    for j in 0..<ny where wy[j] > 1e-12 {
        let v = ys[j] / b
        var row = 0.0
        for i in 0..<nx where wx[i] > 1e-12 {
            let u = xs[i] / a
            let t2 = u * u + v * v
            if t2 <= 1 { row += wx[i] * paint(t2.squareRoot()) }
        }
        total += row * wy[j]
    }
    return total * h * h
}

@Suite("Blurred radial tables and ellipses")
struct BlurredEllipseTests {
    static let color = RGBA(0.6, 0.3, 0.15, 0.75)

    @Test("solid disc R = 20, σ = 4: table against a brute-force convolution")
    func solidDisc() {
        let (radius, sigma) = (20.0, 4.0)
        let table = BlurredRadialTable(stops: GradientStops([GradientStop(0, Self.color)]), sigma: sigma / radius)
        for rho in [0.0, 8, 14, 17, 19, 20, 21, 23, 26, 32, 40] {
            let expected = bruteForceBlur(at: rho, 0, a: radius, b: radius, sigma: sigma)
            let measured = table.value(at: Float(rho / radius))
            #expect(maxAbsDifference(measured, double4(Self.color) * expected) < 0.01, "ρ = \(rho): brute force \(expected), table \(measured)")
        }
        // At the edge of a disc much larger than σ the blur is about half (a
        // straight edge gives exactly ½; curvature takes a little away).
        let edge = Double(table.value(at: 1).w) / 0.75
        #expect(edge > 0.44 && edge < 0.5)
    }

    @Test("a disc with a radial gradient (colour → transparent) against brute force")
    func gradientDisc() {
        let (radius, sigma) = (20.0, 4.0)
        let stops = GradientStops([GradientStop(0, Self.color), GradientStop(1, .zero)])
        let table = BlurredRadialTable(stops: stops, sigma: sigma / radius)
        for rho in [0.0, 6, 12, 18, 22, 27] {
            let expected = bruteForceBlur(at: rho, 0, a: radius, b: radius, sigma: sigma) { 1 - $0 }
            #expect(maxAbsDifference(table.value(at: Float(rho / radius)), double4(Self.color) * expected) < 0.01, "ρ = \(rho)")
        }
    }

    @Test("the centre of a large disc with a small σ is the stop colour; far outside is transparent")
    func centreAndOutside() {
        let table = BlurredRadialTable(stops: GradientStops([GradientStop(0, Self.color)]), sigma: 0.01)
        #expect(maxAbsDifference(table.value(at: 0), double4(Self.color)) < 1e-4)
        #expect(maxAbsDifference(table.value(at: 0.9), double4(Self.color)) < 1e-4)
        // The table ends 4.5σ outside the disc, where Φ(−4.5)·0.75 ≈ 2.5e-6
        // remains; beyond it the last entry holds.
        #expect(maxAbsDifference(table.value(at: 1.2), .zero) < 1e-5)
        #expect(maxAbsDifference(table.value(at: 50), .zero) < 1e-5)
    }

    @Test("ellipse a = 20, b = 22, σ = 3: along x, along y and on a diagonal against brute force")
    func ellipse() {
        let (a, b, sigma) = (20.0, 22.0, 3.0)
        let ellipse = BlurredEllipse(stops: GradientStops([GradientStop(0, Self.color)]), semiAxisX: a, semiAxisY: b, sigmaLevels: [sigma])
        var points: [(Double, Double)] = []
        points += [0.0, 10, 17, 20, 23, 27].map { ($0, 0.0) }
        points += [10.0, 19, 22, 25, 29].map { (0.0, $0) }
        points += [14.0, 18, 21, 23, 26].map { ($0 / 2.0.squareRoot(), $0 / 2.0.squareRoot()) }
        points += [(-15.0, 12.0), (8.0, -19.5)]
        for (x, y) in points {
            let expected = bruteForceBlur(at: x, y, a: a, b: b, sigma: sigma)
            let measured = ellipse.value(normalizedX: Float(x / a), y: Float(y / b))
            #expect(maxAbsDifference(measured, double4(Self.color) * expected) < 0.015, "at (\(x), \(y)): brute force \(expected), measured \(measured.w / 0.75)")
        }
    }

    @Test("ellipse with a radial gradient against brute force")
    func gradientEllipse() {
        let (a, b, sigma) = (20.0, 22.0, 3.0)
        let stops = GradientStops([GradientStop(0, Self.color), GradientStop(0.6, Self.color * 0.5), GradientStop(1, .zero)])
        let ellipse = BlurredEllipse(stops: stops, semiAxisX: a, semiAxisY: b, sigmaLevels: [sigma])
        func f(_ t: Double) -> Double { t < 0.6 ? 1 - 0.5 * t / 0.6 : 0.5 * (1 - t) / 0.4 }
        for (x, y) in [(0.0, 0.0), (12.0, 0.0), (21.0, 0.0), (0.0, 13.0), (0.0, 23.0), (12.0, 12.0), (15.0, 16.0)] {
            let expected = bruteForceBlur(at: x, y, a: a, b: b, sigma: sigma, paint: f)
            #expect(maxAbsDifference(ellipse.value(normalizedX: Float(x / a), y: Float(y / b)), double4(Self.color) * expected) < 0.015, "at (\(x), \(y))")
        }
    }

    @Test("select(sigma:) mixes the two nearest levels linearly and clamps to the range")
    func selectSigma() {
        let stops = GradientStops([GradientStop(0, Self.color)])
        let animated = BlurredEllipse(stops: stops, semiAxisX: 20, semiAxisY: 22, sigmaLevels: [2, 4, 8])
        let points: [(Float, Float)] = [(0, 0), (1, 0), (0, 1.05), (0.7, 0.7), (1.2, 0.3)]
        func values(_ sigma: Double) -> [RGBA] {
            animated.select(sigma: sigma)
            return points.map { animated.value(normalizedX: $0.0, y: $0.1) }
        }
        let (v2, v4, v8) = (values(2), values(4), values(8))
        let v3 = values(3), v7 = values(7)
        for k in points.indices {
            #expect(maxAbsDifference(v3[k], (double4(v2[k]) + double4(v4[k])) / 2) < 1e-6)
            #expect(maxAbsDifference(v7[k], double4(v4[k]) * 0.25 + double4(v8[k]) * 0.75) < 1e-6)
        }
        #expect(values(1) == v2 && values(20) == v8)
        #expect(animated.sigma == 20)
        // A level matches a single-level ellipse built for it.
        let fixed = BlurredEllipse(stops: stops, semiAxisX: 20, semiAxisY: 22, sigmaLevels: [4], count: 512)
        // Tables span different reaches (1 + 4.5·σmax/min(a, b)), so compare values, not entries.
        for (k, p) in points.enumerated() {
            #expect(maxAbsDifference(fixed.value(normalizedX: p.0, y: p.1), double4(v4[k])) < 2e-3)
        }
    }

    @Test("clear radii: nothing visible inside clearInside or beyond clearOutside; something just within", arguments: [2.0, 12.0])
    func clearRadii(sigma: Double) {
        // A ring: transparent inside r = 0.6, the stop colour from 0.6 to 1.
        let stops = GradientStops([GradientStop(0, RGBA(0, 0, 0, 0)), GradientStop(0.6, RGBA(0, 0, 0, 0)), GradientStop(0.6, RGBA(1, 1, 1, 1)), GradientStop(1, RGBA(1, 1, 1, 1))])
        let ellipse = BlurredEllipse(stops: stops, semiAxisX: 40, semiAxisY: 44, sigmaLevels: [sigma])
        // A small blur leaves the middle clear (exp(−r²/2σ²) of the ring reaches it).
        #expect(ellipse.clearInside < 0.6 && (sigma > 4 || ellipse.clearInside > 0.3))
        #expect(ellipse.clearOutside > 1 && ellipse.clearOutside.isFinite)
        for step in 0...400 {
            let t = Float(step) / 400 * Float(ellipse.reach)
            for angle in [0.0, 0.4, 0.8, 1.2, Double.pi / 2] {
                let c = ellipse.value(normalizedX: t * Float(cos(angle)), y: t * Float(sin(angle)))
                if t < ellipse.clearInside || t > ellipse.clearOutside {
                    #expect(c.max() <= BlurredEllipse.clearLevel, "t \(t), angle \(angle)")
                }
            }
        }
        // Just inside the visible band something shows (the radii are tight).
        let outer = ellipse.value(normalizedX: ellipse.clearOutside - 0.05, y: 0)
        #expect(outer.w > BlurredEllipse.clearLevel)
        if ellipse.clearInside > 0 { #expect(ellipse.value(normalizedX: ellipse.clearInside + 0.05, y: 0).w > BlurredEllipse.clearLevel) }
    }

    @Test("evaluate(into:) writes exactly value(normalizedX:y:) for each cell, circles and ellipses, with 1-3 cells left over",
          arguments: [(20.0, 20.0), (20.0, 22.0)])
    func batchMatchesSingle(axes: (Double, Double)) {
        let stops = GradientStops([GradientStop(0, Self.color), GradientStop(0.6, RGBA(0.1, 0.2, 0.3, 0.4)), GradientStop(1, .zero)])
        let ellipse = BlurredEllipse(stops: stops, semiAxisX: axes.0, semiAxisY: axes.1, sigmaLevels: [3])
        let width = 64
        let row = UnsafeMutablePointer<RGBA>.allocate(capacity: width)
        defer { row.deallocate() }
        let sentinel = RGBA(9, 9, 9, 9)
        // Ranges of every length mod 4, starting at different lanes; one
        // reaching past the table's end (clamped there) and one through the centre.
        for (cells, x0, dx, y) in [(3..<4, Float(-0.3), Float(0.05), Float(0.2)), (5..<11, -1.6, 0.11, 0.0), (0..<33, -2.0, 0.125, 0.4),
                                    (7..<62, -9.0, 0.3, 1.1), (10..<40, -0.2, 0.0125, 0)] {
            row.initialize(repeating: sentinel, count: width)
            ellipse.evaluate(into: row, cells: cells, x0: x0, dx: dx, y: y)
            for i in 0..<width {
                if cells.contains(i) {
                    let expected = ellipse.value(normalizedX: x0 + Float(i) * dx, y: y)
                    let d: RGBA = row[i] - expected
                    let error = max(max(abs(d.x), abs(d.y)), max(abs(d.z), abs(d.w)))
                    #expect(error < 2e-6, "cell \(i) of \(cells): \(row[i]) against \(expected)")
                } else {
                    #expect(row[i] == sentinel, "cell \(i) outside \(cells) was written")
                }
            }
        }
    }
}
