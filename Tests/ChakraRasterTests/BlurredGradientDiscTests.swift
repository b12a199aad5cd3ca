import Foundation
import Testing
@testable import ChakraRaster

/// Brute-force 2-D convolution of the unit disc painted with opacity
/// α(X) = base + g·X, blurred by σ, at point (px, py): midpoint rule on a
/// grid of step h, each sample weighted by the 2-D Gaussian.
private func bruteForce(at px: Double, _ py: Double, sigma: Double, base: Double, gx: Double, gy: Double, h: Double = 0.004) -> Double {
    let n = Int((2 / h).rounded(.up))
    let samples = (0..<n).map { -1 + (Double($0) + 0.5) * h }
    let wx = samples.map { Ref.gaussian(px - $0, sigma: sigma) }
    let wy = samples.map { Ref.gaussian(py - $0, sigma: sigma) }
    var total = 0.0
    for j in 0..<n where wy[j] > 1e-12 {
        let y = samples[j]
        for i in 0..<n where wx[i] > 1e-12 {
            let x = samples[i]
            if x * x + y * y <= 1 { total += wx[i] * wy[j] * (base + gx * x + gy * y) }
        }
    }
    return total * h * h
}

@Suite("Blurred gradient discs")
struct BlurredGradientDiscTests {
    /// The points cover the centre, the edge and the fading tail, in
    /// several directions (the gradient part is not radial).
    static let points: [(Double, Double)] = [(0, 0), (0.3, -0.2), (-0.7, 0.1), (0.72, 0.72), (-0.9, -0.6), (1.2, 0.1), (0.2, -1.5), (-1.9, 0.4)]

    @Test("solid disc (g = 0) against brute force", arguments: [0.256, 0.625, 1.0])
    func solid(sigma: Double) {
        let disc = BlurredGradientDisc(sigma: sigma)
        for (x, y) in Self.points {
            let expected = bruteForce(at: x, y, sigma: sigma, base: 1, gx: 0, gy: 0)
            let measured = Double(disc.opacity(x: Float(x), y: Float(y), base: 1, gradientX: 0, gradientY: 0))
            #expect(abs(measured - expected) < 2e-4, "σ \(sigma) at (\(x), \(y)): brute force \(expected), table \(measured)")
        }
    }

    @Test("CSS linear-gradient(to bottom right, C, transparent) on the disc, turned, against brute force", arguments: [0.256, 0.32])
    func gradient(sigma: Double) {
        let disc = BlurredGradientDisc(sigma: sigma)
        // ½ − (X + Y)/4, the box gradient seen in radii, turned by 30°.
        let a = 30.0 * Double.pi / 180
        let gx = cos(a) * -0.25 - sin(a) * -0.25, gy = sin(a) * -0.25 + cos(a) * -0.25
        for (x, y) in Self.points {
            let expected = bruteForce(at: x, y, sigma: sigma, base: 0.5, gx: gx, gy: gy)
            let measured = Double(disc.opacity(x: Float(x), y: Float(y), base: 0.5, gradientX: Float(gx), gradientY: Float(gy)))
            #expect(abs(measured - expected) < 2e-4, "σ \(sigma) at (\(x), \(y)): brute force \(expected), table \(measured)")
        }
    }

    @Test("the moment table is finite at the centre and matches its small-ρ limit")
    func momentAtCentre() {
        // m(ρ)/ρ → ∫₀¹ r³/(2σ⁴) e^{−r²/2σ²} dr as ρ → 0.
        let sigma = 0.4
        let disc = BlurredGradientDisc(sigma: sigma)
        let limit = Ref.simpson(from: 0, to: 1, steps: 2000) { r in r * r * r / (2 * pow(sigma, 4)) * exp(-r * r / (2 * sigma * sigma)) }
        // Simpson with panels of σ/8 is good to a few parts in 10⁶.
        #expect(abs(disc.momentValue(at: 0) / limit - 1) < 1e-5)
        #expect(abs(disc.momentValue(at: 1e-4) / limit - 1) < 1e-5)
    }

    @Test("far outside the reach the disc is transparent; a sharp disc is its own paint inside")
    func limits() {
        let disc = BlurredGradientDisc(sigma: 0.02)
        #expect(disc.opacity(x: Float(disc.reach) + 0.01, y: 0, base: 1, gradientX: 0, gradientY: 0) == 0)
        #expect(abs(disc.opacity(x: 0.3, y: 0.1, base: 0.5, gradientX: -0.25, gradientY: -0.25) - Float(0.5 - 0.1)) < 1e-4)
        #expect(disc.opacity(x: 1.5, y: 0, base: 1, gradientX: 0, gradientY: 0) < 1e-6)
    }
}

@Suite("Dot lattices")
struct DotLatticeTests {
    @Test("a pixel's circle coverage is its exact area", arguments: [(0.4, 0.3), (0.75, 0.75), (2.0, 1.6)])
    func coverage(centre: (Double, Double)) {
        // The circle as a 4096-gon: polygon clipping gives each pixel's area.
        let radius = 0.75
        let polygon = (0..<4096).map { k -> Ref.P2 in
            let a = Double(k) / 4096 * 2 * Double.pi
            return Ref.P2(centre.0 + radius * cos(a), centre.1 + radius * sin(a))
        }
        var total = 0.0
        for y in -1...3 {
            for x in -1...3 {
                let expected = Ref.cellCoverage(polygon, x, y)
                let measured = DotLattice.circleCoverage(centre: Point(centre.0, centre.1), radius: radius, pixelX: x, pixelY: y)
                #expect(abs(measured - expected) < 2e-4, "pixel (\(x), \(y))")
                total += measured
            }
        }
        #expect(abs(total - Double.pi * radius * radius) < 1e-3)
    }

    @Test("dots repeat at the pitch from the first centre; tint paints coverage × colour")
    func layout() {
        let lattice = DotLattice(width: 200, height: 120, pitch: 50, diameter: 1.5, firstCentre: Point(0.75, 0.75))
        // Columns at x = 0.75, 50.75, 100.75, 150.75; rows at y = 0.75, 50.75, 100.75.
        #expect(lattice.dots.count == 12 && lattice.surfaces.count == 4)
        #expect(Set(lattice.dots.map(\.centre.x)) == [0.75, 50.75, 100.75, 150.75])
        #expect(Set(lattice.dots.map(\.centre.y)) == [0.75, 50.75, 100.75])
        // One surface per column of dots, covering exactly its pixels'
        // columns, from the first dot's top row to the last dot's bottom.
        let surface = lattice.surfaces[2]
        #expect(surface.originX == 100 && surface.width == 2 && surface.originY == 0 && surface.height == 102 && surface.factor == 1)
        // Rows between the dots are empty: the compositor skips them.
        #expect(surface.rowFirst[0] == 0 && surface.rowLast[0] == 1)
        #expect(surface.rowFirst[25] > surface.rowLast[25])
        let color = RGBA(0.2, 0.4, 0.6, 1)
        lattice.tint(opacity: 0.5) { _ in color }
        let c = DotLattice.circleCoverage(centre: Point(100.75, 50.75), radius: 0.75, pixelX: 101, pixelY: 51)
        #expect(c > 0.1 && surface[1, 51] == color * Float(0.5 * c))
        #expect(surface[1, 25] == .zero)
        // Dots cut by the screen's edge keep only their pixels on it.
        let edge = DotLattice(width: 51, height: 51, pitch: 50, diameter: 3, firstCentre: Point(0.5, 0.5))
        #expect(edge.surfaces.allSatisfy { $0.originX >= 0 && $0.originY >= 0 && $0.originX + $0.width <= 51 && $0.originY + $0.height <= 51 })
        #expect(edge.dots.count == 4 && edge.surfaces.count == 2)
    }
}
