import Foundation
import Testing
@testable import ChakraRaster

@Suite("Paths and flattening")
struct PathTests {
    @Test("bounds contain every control point")
    func bounds() throws {
        var path = Path()
        #expect(path.bounds == nil)
        path.move(to: Point(3, 4))
        path.cubic(to: Point(10, 2), control1: Point(-1, 9), control2: Point(12, -5))
        path.quad(to: Point(6, 7), control: Point(8, 11))
        let b = try #require(path.bounds)
        #expect(b.min == Point(-1, -5) && b.max == Point(12, 11))
    }

    @Test("a flattened circle stays within the tolerance of the circle")
    func flattenedCircle() throws {
        let (centre, r, tolerance) = (Point(50, 40), 100.0, 0.1)
        let flat = FlattenedPath(.circle(center: centre, radius: r), tolerance: tolerance)
        let contour = try #require(flat.contours.first)
        #expect(flat.contours.count == 1 && contour.closed)
        // The cubic approximation of a quarter circle is off by at most
        // 2.7e-4·r; chords cut inside by at most the tolerance.
        let curveError = 2.8e-4 * r
        for (k, p) in contour.points.enumerated() {
            let q = contour.points[(k + 1) % contour.points.count]
            #expect(abs(simdLength(p - centre) - r) <= curveError)
            #expect(simdLength((p + q) / 2 - centre) >= r - tolerance - curveError)
        }
    }

    @Test("quadratic segments are sampled exactly on the quadratic")
    func quadraticPoints() throws {
        let (p0, c, p2) = (Point(0, 0), Point(40, 60), Point(80, 0))
        var path = Path()
        path.move(to: p0)
        path.quad(to: p2, control: c)
        let points = try #require(FlattenedPath(path, tolerance: 0.05).contours.first).points
        let n = points.count - 1
        #expect(n > 4)
        for (k, p) in points.enumerated() {
            let t = Double(k) / Double(n)
            let expected = (1 - t) * (1 - t) * p0 + 2 * t * (1 - t) * c + t * t * p2
            #expect(simdLength(p - expected) < 1e-9)
        }
    }

    @Test("rounded rectangle: radii that do not fit are scaled together; area")
    func roundedRect() {
        // 30-px radii on a 100×40 box: 30 + 30 > 40, so all become 20.
        let path = Path.roundedRect(x: 10.5, y: 5.5, width: 100, height: 40, radii: .init(all: 30))
        let alpha = fillAlpha(path, width: 120, height: 50)
        let total = alpha.reduce(0.0) { $0 + Double($1) }
        let expected = 100.0 * 40 - (4 - Double.pi) * 20 * 20
        #expect(abs(total - expected) / expected < 0.002, "total \(total)")
        // The straight top edge between the corners is at y = 5.5: row 5 half covered.
        #expect(abs(alpha[5 * 120 + 60] - 0.5) < 1e-5)
        // The corner circle (centre (30.5, 25.5), r 20) at 45°: half a pixel of coverage.
        let d = 20 / 2.0.squareRoot()
        let (i, j) = (Int((30.5 - d).rounded(.down)), Int((25.5 - d).rounded(.down)))
        #expect(alpha[j * 120 + i] > 0.1 && alpha[j * 120 + i] < 0.9)
    }

    @Test("a line after close() starts at the closed subpath's first point (SVG)")
    func lineAfterClose() throws {
        var path = Path()
        path.move(to: Point(0, 0)); path.line(to: Point(10, 0)); path.line(to: Point(10, 10)); path.close()
        path.line(to: Point(0, 10)); path.line(to: Point(-5, 5)); path.close()
        let flat = FlattenedPath(path)
        try #require(flat.contours.count == 2)
        #expect(flat.contours[1].points == [Point(0, 0), Point(0, 10), Point(-5, 5)])
    }
}

@Suite("Strokes")
struct StrokeTests {
    static func strokeAlpha(_ path: Path, width lineWidth: Double, w: Int, h: Int) -> [Float] {
        let surface = Surface(width: w, height: h)
        let canvas = Canvas(capacityWidth: w, capacityHeight: h)
        canvas.stroke(path, width: lineWidth, paint: .solid(RGBA(1, 1, 1, 1)), on: surface)
        return (0..<(w * h)).map { surface.pixels[$0].w }
    }

    static func line(_ a: Point, _ b: Point) -> Path {
        var path = Path()
        path.move(to: a)
        path.line(to: b)
        return path
    }

    @Test("horizontal line: area w·L + π(w/2)², exact rows, 1 inside, 0 beyond w/2 + 1")
    func horizontalLine() {
        let (a, b, lineWidth) = (Point(10.3, 20.5), Point(50.3, 20.5), 5.4)
        let (w, h) = (64, 40)
        let alpha = Self.strokeAlpha(Self.line(a, b), width: lineWidth, w: w, h: h)
        let total = alpha.reduce(0.0) { $0 + Double($1) }
        let expected = lineWidth * 40 + Double.pi * pow(lineWidth / 2, 2)
        #expect(abs(total - expected) / expected < 0.01, "total \(total), expected \(expected)")
        // Away from the caps the band is y ∈ [17.8, 23.2]: rows 17 and 23 are 0.2 covered.
        for i in 20...40 {
            let column = (0..<h).map { alpha[$0 * w + i] }
            let band: [Float] = [0.2, 1, 1, 1, 1, 1, 0.2]
            for (k, v) in band.enumerated() { #expect(abs(column[17 + k] - v) < 1e-5, "column \(i) row \(17 + k)") }
            #expect(column[16] == 0 && column[24] == 0)
        }
        for j in 0..<h {
            for i in 0..<w {
                let d = Ref.distanceToSegment(SIMD2(Double(i) + 0.5, Double(j) + 0.5), a, b)
                if d <= lineWidth / 2 - 0.5 { #expect(alpha[j * w + i] == 1, "cell \(i), \(j)") }
                if d >= lineWidth / 2 + 1 { #expect(alpha[j * w + i] == 0, "cell \(i), \(j)") }
            }
        }
    }

    @Test("diagonal line: area w·L + π(w/2)², inside and beyond")
    func diagonalLine() {
        let (a, b, lineWidth) = (Point(8.2, 9.7), Point(44.6, 35.1), 4.0)
        let (w, h) = (56, 48)
        let alpha = Self.strokeAlpha(Self.line(a, b), width: lineWidth, w: w, h: h)
        let total = alpha.reduce(0.0) { $0 + Double($1) }
        let expected = lineWidth * simdLength(b - a) + Double.pi * pow(lineWidth / 2, 2)
        #expect(abs(total - expected) / expected < 0.01, "total \(total), expected \(expected)")
        for j in 0..<h {
            for i in 0..<w {
                let d = Ref.distanceToSegment(SIMD2(Double(i) + 0.5, Double(j) + 0.5), a, b)
                if d <= lineWidth / 2 - 0.5 { #expect(alpha[j * w + i] == 1, "cell \(i), \(j)") }
                if d >= lineWidth / 2 + 1 { #expect(alpha[j * w + i] == 0, "cell \(i), \(j)") }
            }
        }
    }

    @Test("a closed rectangle's stroke: four sides, empty inside, round outer corners")
    func closedRectangle() {
        let (w, h) = (40, 30)
        let alpha = Self.strokeAlpha(.rect(x: 5.5, y: 5.5, width: 28, height: 18), width: 3, w: w, h: h)
        func at(_ i: Int, _ j: Int) -> Float { alpha[j * w + i] }
        #expect(at(20, 5) == 1 && at(20, 23) == 1 && at(5, 15) == 1 && at(33, 15) == 1)  // on each side
        #expect(at(20, 15) == 0 && at(12, 12) == 0)                                      // inside
        // Beyond the corner (5.5, 5.5) along the diagonal, at distance √2·2.5 ≈ 3.5 > 1.5 + 1.
        #expect(at(3, 3) == 0)
        // Total: the outer outline is a 31×21 rectangle with corners rounded
        // by 1.5, the inner one a 25×15 rectangle.
        let total = alpha.reduce(0.0) { $0 + Double($1) }
        let expected = 31.0 * 21 - (4 - Double.pi) * 1.5 * 1.5 - 25 * 15
        #expect(abs(total - expected) / expected < 0.01, "total \(total), expected \(expected)")
    }
}
