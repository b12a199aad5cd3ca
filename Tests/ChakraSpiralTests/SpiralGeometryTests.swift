import ChakraConfig
import ChakraRaster
import Foundation
import Testing
@testable import ChakraSpiral

/// Arc length of r(θ) = a + bθ from 0 to θ in closed form:
/// s(θ) = [ρ√(ρ² + b²) + b² ln(ρ + √(ρ² + b²))]/(2b) evaluated between
/// ρ = a and ρ = a + bθ (b = spacing/2π), times the screen scale.
func archimedeanLength(theta: Double, startRadius a: Double, spacing: Double, scale: Double) -> Double {
    let b = spacing / (2 * .pi)
    func f(_ rho: Double) -> Double {
        let root = (rho * rho + b * b).squareRoot()
        return (rho * root + b * b * log(rho + root)) / (2 * b)
    }
    return (f(a + b * theta) - f(a)) * scale
}

@Suite("Spiral geometry")
struct SpiralGeometryTests {
    let config = ChakraConfig.Spiral()

    func geometry(pointsPerTurn: Int = SpiralGeometry.defaultPointsPerTurn, scale: Double = 1) -> SpiralGeometry {
        SpiralGeometry(startRadius: config.startRadius, spacing: config.spacing, rotations: config.rotations, scale: scale,
                       centre: Point(195, 422), lostDistance: config.proximity * scale, pointsPerTurn: pointsPerTurn)
    }

    @Test("the points lie on r = startRadius + spacing·θ/2π, starting above the centre")
    func pointsOnTheCurve() {
        let g = geometry(scale: 2)
        #expect(g.points.count == 4 * 180 + 1)
        #expect(g.points[0] == Point(195, 422 - 40))
        for (k, p) in g.points.enumerated() {
            let theta = 2 * Double.pi * 4 * Double(k) / Double(g.points.count - 1)
            let r = ((p.x - 195) * (p.x - 195) + (p.y - 422) * (p.y - 422)).squareRoot()
            #expect(abs(r - (20 + 36 * theta / (2 * .pi)) * 2) < 1e-9)
        }
        // Clockwise on screen: a quarter turn in, the point is to the right.
        #expect(g.points[45].x > 195 + 40)
    }

    @Test("cumulative lengths: the sums of the segments, and the closed-form arc length")
    func lengthTable() {
        let g = geometry()
        var sum = 0.0
        for k in 1..<g.points.count {
            let d = g.points[k] - g.points[k - 1]
            sum += (d.x * d.x + d.y * d.y).squareRoot()
            #expect(abs(g.cumulativeLengths[k] - sum) < 1e-9)
        }
        let exact = archimedeanLength(theta: 8 * .pi, startRadius: 20, spacing: 36, scale: 1)
        // A chord is shorter than its arc by about L·(Δθ)²·r²/(24·(r² + b²)) at most.
        #expect(g.totalLength < exact)
        let coarseError = (exact - g.totalLength) / exact
        #expect(coarseError < 1e-4)
        // Finer sampling converges on the closed form, as h² (chords).
        let fine = geometry(pointsPerTurn: 2000)
        let fineError = (exact - fine.totalLength) / exact
        #expect(fineError > 0 && fineError < 1e-6)
        let ratio: Double = (180.0 / 2000) * (180.0 / 2000)
        #expect(abs(fineError / coarseError - ratio) < 0.1 * ratio)
        // At every sample, the length so far matches the closed form.
        for k in stride(from: 0, to: fine.points.count, by: 400) {
            let theta = 8 * Double.pi * Double(k) / Double(fine.points.count - 1)
            #expect(abs(fine.cumulativeLengths[k] - archimedeanLength(theta: theta, startRadius: 20, spacing: 36, scale: 1)) < 1e-3)
        }
        #expect(abs(geometry(scale: 2.5).totalLength - 2.5 * g.totalLength) < 1e-9)
    }

    @Test("point at length / progress: by length, never by index")
    func pointAtLength() {
        let g = geometry()
        #expect(g.point(atLength: 0) == g.points[0])
        #expect(g.point(atLength: -5) == g.points[0])
        #expect(g.point(atLength: g.totalLength + 10) == g.points[g.points.count - 1])
        #expect(g.point(atProgress: 1) == g.points[g.points.count - 1])
        // Brute force: walk the segments.
        for length in stride(from: 0.0, through: g.totalLength, by: 37.3) {
            var k = 0
            while k < g.points.count - 2, g.cumulativeLengths[k + 1] < length { k += 1 }
            let t = (length - g.cumulativeLengths[k]) / (g.cumulativeLengths[k + 1] - g.cumulativeLengths[k])
            let expected = g.points[k] + (g.points[k + 1] - g.points[k]) * t
            let p = g.point(atLength: length)
            #expect(abs(p.x - expected.x) < 1e-9 && abs(p.y - expected.y) < 1e-9)
        }
        // Half the length is not half the points: the inner turns are short.
        let half = g.point(atProgress: 0.5)
        let byIndex = g.points[g.points.count / 2]
        #expect(((half - byIndex).x * (half - byIndex).x + (half - byIndex).y * (half - byIndex).y).squareRoot() > 30)
        // On the fine curve, the point at a length is the exact curve's point at the θ with that arc length.
        let fine = geometry(pointsPerTurn: 2000)
        let theta = 5.0
        let exact = SpiralGeometry.point(theta: theta, startRadius: 20, spacing: 36, scale: 1, centre: Point(195, 422))
        let found = fine.point(atLength: archimedeanLength(theta: theta, startRadius: 20, spacing: 36, scale: 1))
        #expect(abs(found.x - exact.x) < 0.01 && abs(found.y - exact.y) < 0.01)
    }

    @Test("the local search equals a brute-force search while tracking; it falls back when lost")
    func nearestProgress() {
        var g = geometry(scale: 1.5)
        var rng = SeededRandom(seed: 42)
        // A finger moving along the path with jitter: every answer equals the brute force.
        var length = 0.0
        var fullScans = 0
        while length < g.totalLength {
            let on = g.point(atLength: length)
            let jitter = Point(rng.next() * 2 - 1, rng.next() * 2 - 1) * 12
            let touch = on + jitter
            let match = g.closestProgress(to: touch)
            let brute = bruteForce(g, touch)
            #expect(abs(match.length - brute.length) < 1e-9)
            #expect(abs(match.distance - brute.distance) < 1e-9)
            if match.fullScan { fullScans += 1 }
            length += 4 + rng.next() * 8
        }
        // Only the first touch (no last match yet) scanned everything.
        #expect(fullScans == 1)

        // Random touches anywhere near the spiral, each after a random last
        // match: the answer is the brute force's whenever it reports a full
        // scan, or when the local best is within the lost distance.
        for _ in 0..<400 {
            let touch = Point(195 + (rng.next() * 2 - 1) * 300, 422 + (rng.next() * 2 - 1) * 300)
            g.track(fromLength: rng.next() * g.totalLength)
            let match = g.closestProgress(to: touch)
            let brute = bruteForce(g, touch)
            if match.fullScan {
                #expect(abs(match.length - brute.length) < 1e-9)
            } else {
                #expect(match.distance <= g.lostDistance)
                #expect(match.distance >= brute.distance - 1e-9)
            }
        }
    }

    @Test("a jump to another turn is lost tracking: the whole path is scanned")
    func lostTracking() {
        var g = geometry()
        _ = g.closestProgress(to: g.point(atLength: 100))
        #expect(g.lastIndex != nil)
        // Two turns out, far beyond ±50 points: the window's best is far away.
        let target = g.totalLength * 0.9
        let match = g.closestProgress(to: g.point(atLength: target))
        #expect(match.fullScan)
        #expect(abs(match.length - target) < 1e-6)
        // Next to the last match again: local.
        let near = g.closestProgress(to: g.point(atLength: target + 3))
        #expect(!near.fullScan)
        g.resetTracking()
        #expect(g.closestProgress(to: g.point(atLength: 10)).fullScan)
    }

    /// Every segment, each by its own exact projection (written here, apart
    /// from the code under test).
    func bruteForce(_ g: SpiralGeometry, _ touch: Point) -> (length: Double, distance: Double) {
        var best = (length: 0.0, distance: Double.infinity)
        for index in 0..<(g.points.count - 1) {
            let a = g.points[index], ab = g.points[index + 1] - a
            let t = min(max(((touch - a) * ab).sum() / (ab * ab).sum(), 0), 1)
            let p = a + ab * t
            let d = ((p - touch) * (p - touch)).sum().squareRoot()
            if d < best.distance { best = (g.cumulativeLengths[index] + t * (g.cumulativeLengths[index + 1] - g.cumulativeLengths[index]), d) }
        }
        return best
    }
}
