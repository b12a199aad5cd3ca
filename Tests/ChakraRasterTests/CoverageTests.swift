import Foundation
import Testing
@testable import ChakraRaster

private func f2(_ points: [SIMD2<Double>]) -> [SIMD2<Float>] { points.map { SIMD2<Float>($0) } }

@Suite("Coverage rasterizer")
struct CoverageTests {
    @Test("axis-aligned rectangle with fractional edges: exact edge coverage")
    func fractionalRectangle() {
        // x from 1.25 to 3.5, y from 1.5 to 4.75 on a 6×7 grid.
        let rect: [SIMD2<Float>] = [SIMD2(1.25, 1.5), SIMD2(3.5, 1.5), SIMD2(3.5, 4.75), SIMD2(1.25, 4.75)]
        let coverage = rasterize(width: 6, height: 7, polygons: [rect])
        // Per axis by hand: columns 1: 0.75, 2: 1, 3: 0.5; rows 1: 0.5, 2-3: 1, 4: 0.75.
        let columns: [Float] = [0, 0.75, 1, 0.5, 0, 0]
        let rows: [Float] = [0, 0.5, 1, 1, 0.75, 0, 0]
        for j in 0..<7 {
            for i in 0..<6 {
                #expect(abs(coverage[j * 6 + i] - columns[i] * rows[j]) < 1e-6, "cell \(i), \(j)")
            }
        }
    }

    @Test("the same rectangle through Canvas.fill and Path.rect")
    func fractionalRectangleThroughCanvas() {
        let alpha = fillAlpha(.rect(x: 1.25, y: 0, width: 2.25, height: 3), width: 6, height: 3)
        for j in 0..<3 {
            #expect(alpha[j * 6 ..< j * 6 + 6].map { $0 } == [0, 0.75, 1, 0.5, 0, 0])
        }
    }

    @Test("either winding direction gives the same coverage")
    func windingDirection() {
        let triangle: [SIMD2<Double>] = [SIMD2(1.3, 0.7), SIMD2(9.2, 2.9), SIMD2(3.6, 8.4)]
        let clockwise = rasterize(width: 11, height: 10, polygons: [f2(triangle)])
        let counter = rasterize(width: 11, height: 10, polygons: [f2(triangle.reversed())])
        for k in clockwise.indices { #expect(abs(clockwise[k] - counter[k]) < 1e-6) }
        for j in 0..<10 {
            for i in 0..<11 {
                #expect(abs(Double(clockwise[j * 11 + i]) - Ref.cellCoverage(triangle, i, j)) < 1e-4, "cell \(i), \(j)")
            }
        }
    }

    @Test("shapes partly outside the grid (left, right, top, bottom) keep exact coverage inside")
    func clipping() {
        let (w, h) = (10, 12)
        let shapes: [[SIMD2<Double>]] = [
            [SIMD2(-7.3, 1.2), SIMD2(14.6, 3.1), SIMD2(2.2, 9.7)],                       // crosses both sides
            [SIMD2(-3.6, -2.4), SIMD2(13.3, 2.8), SIMD2(11.7, 14.9), SIMD2(-2.1, 8.3)],   // all four sides
            [SIMD2(-20, 5.5), SIMD2(30, 5.5), SIMD2(30, 7.25), SIMD2(-20, 7.25)],         // wider than the grid: full rows
            [SIMD2(-20, 2), SIMD2(-1, 2), SIMD2(-1, 9), SIMD2(-20, 9)],                   // entirely left: nothing
            [SIMD2(12, 2), SIMD2(30, 2), SIMD2(30, 9), SIMD2(12, 9)],                     // entirely right: nothing
        ]
        for (index, shape) in shapes.enumerated() {
            let coverage = rasterize(width: w, height: h, polygons: [f2(shape)])
            for j in 0..<h {
                for i in 0..<w {
                    // Inside the grid the exact area is that of the shape itself.
                    let expected = Ref.cellCoverage(shape, i, j)
                    #expect(abs(Double(coverage[j * w + i]) - expected) < 2e-4, "shape \(index), cell \(i), \(j)")
                }
            }
        }
        // By hand for the band wider than the grid: it covers every cell of
        // rows 5 (half), 6 (full) and 7 (a quarter); the shapes beside the
        // grid cover nothing.
        let band = rasterize(width: w, height: h, polygons: [f2(shapes[2])])
        for i in 0..<w {
            #expect(band[5 * w + i] == 0.5 && band[6 * w + i] == 1 && band[7 * w + i] == 0.25 && band[8 * w + i] == 0)
        }
        #expect(rasterize(width: w, height: h, polygons: [f2(shapes[3])]).allSatisfy { $0 == 0 })
        #expect(rasterize(width: w, height: h, polygons: [f2(shapes[4])]).allSatisfy { $0 == 0 })
    }

    @Test("non-zero fill: same-direction overlap clamps to 1, an opposite contour makes a hole")
    func nonZero() {
        let outer: [SIMD2<Float>] = [SIMD2(1, 1), SIMD2(9, 1), SIMD2(9, 9), SIMD2(1, 9)]
        let innerSame: [SIMD2<Float>] = [SIMD2(3, 3), SIMD2(7, 3), SIMD2(7, 7), SIMD2(3, 7)]
        let innerOpposite = Array(innerSame.reversed())
        let overlapped = rasterize(width: 10, height: 10, polygons: [outer, innerSame])
        let holed = rasterize(width: 10, height: 10, polygons: [outer, innerOpposite])
        #expect(overlapped[5 * 10 + 5] == 1 && overlapped[2 * 10 + 2] == 1)
        #expect(holed[5 * 10 + 5] == 0 && holed[2 * 10 + 2] == 1 && holed[0] == 0)
        #expect(holed.reduce(0, +) == 64 - 16)
    }

    @Test("a filled circle's total coverage is πr²")
    func circleArea() {
        let r = 20.0
        let alpha = fillAlpha(.circle(center: Point(32.3, 30.7), radius: r), width: 64, height: 64)
        let total = alpha.reduce(0.0) { $0 + Double($1) }
        #expect(abs(total - Double.pi * r * r) / (Double.pi * r * r) < 0.005, "total \(total)")
    }

    @Test("anti-aliased circle edge: ½ at distance r, decreasing outward")
    func circleEdge() {
        // Centre on a cell centre; (15, 20), (7, 24), (25, 0) are at distance 25.
        let (n, r) = (64, 25.0)
        let alpha = fillAlpha(.circle(center: Point(32.5, 32.5), radius: r), width: n, height: n)
        func at(_ i: Int, _ j: Int) -> Float { alpha[j * n + i] }
        for (dx, dy) in [(25, 0), (0, 25), (-25, 0), (0, -25), (15, 20), (-20, 15), (7, 24), (-24, -7)] {
            #expect(abs(at(32 + dx, 32 + dy) - 0.5) <= 0.1, "offset \(dx), \(dy)")
        }
        #expect(at(32, 32) > 0.99999 && at(32 + 20, 32) > 0.99999 && at(32 + 29, 32) == 0)
        // Monotone along rays: to the right, and along the diagonal.
        for i in 50..<63 { #expect(at(i + 1, 32) <= at(i, 32) + 1e-6) }
        for k in 10..<30 { #expect(at(32 + k + 1, 32 + k + 1) <= at(32 + k, 32 + k) + 1e-6) }  // float noise in the interior
        // and strictly where the edge is.
        for i in 56..<58 { #expect(at(i + 1, 32) < at(i, 32)) }  // 1 → ½ → 0 across x = 57.5
        // The edge is one pixel wide: strictly between 0 and 1 only within ±1 of r.
        for j in 0..<n {
            for i in 0..<n {
                let d = ((Double(i) - 32).squaredMagnitude(Double(j) - 32)).squareRoot()
                if d < r - 1 { #expect(at(i, j) > 0.99999, "cell \(i), \(j)") }
                if d > r + 1 { #expect(at(i, j) < 1e-5, "cell \(i), \(j)") }
            }
        }
    }

    @Test("a rotated square keeps its area and matches exact cell areas")
    func rotatedSquare() {
        let (cx, cy, angle) = (20.3, 19.8, 30.0)
        let alpha = fillAlpha(.rect(x: -5, y: -5, width: 10, height: 10), transform: Transform.translation(cx, cy).rotated(degrees: angle), width: 40, height: 40)
        let total = alpha.reduce(0.0) { $0 + Double($1) }
        #expect(abs(total - 100) < 1e-3)
        // The corners rotated by hand (clockwise on screen, y down).
        let (c, s) = (cos(angle * .pi / 180), sin(angle * .pi / 180))
        let corners: [SIMD2<Double>] = [(-5.0, -5.0), (5, -5), (5, 5), (-5, 5)].map { SIMD2(cx + $0.0 * c - $0.1 * s, cy + $0.0 * s + $0.1 * c) }
        for j in 0..<40 {
            for i in 0..<40 {
                #expect(abs(Double(alpha[j * 40 + i]) - Ref.cellCoverage(corners, i, j)) < 3e-4, "cell \(i), \(j)")
            }
        }
    }

    @Test("on a coarse surface each cell gets the box-filtered coverage of its screen square")
    func coarseSurface() {
        let surface = Surface(capacityWidth: 20, capacityHeight: 20)
        let (f, ox, oy) = (4, -8, 4)
        surface.place(width: 12, height: 10, originX: ox, originY: oy, factor: f)
        surface.clear()
        let canvas = Canvas(capacityWidth: 20, capacityHeight: 20)
        let triangle: [SIMD2<Double>] = [SIMD2(-3, 7.5), SIMD2(30.25, 12), SIMD2(10, 40.5)]
        var path = Path()
        path.move(to: triangle[0]); path.line(to: triangle[1]); path.line(to: triangle[2]); path.close()
        canvas.fill(path, paint: .solid(RGBA(1, 1, 1, 1)), on: surface)
        for j in 0..<surface.height {
            for i in 0..<surface.width {
                // Grid point (i, j) is the centre of screen pixel (ox + 4i, oy + 4j);
                // its cell is the f×f square around that pixel's centre.
                let x = Double(surface.screenX(i)), y = Double(surface.screenY(j))
                let area = Ref.areaInside(triangle, minX: x - 2, minY: y - 2, maxX: x + 2, maxY: y + 2)
                #expect(abs(Double(surface[i, j].w) - area / 16) < 1e-4, "cell \(i), \(j)")
            }
        }
    }

    @Test("fillPolygon equals fill of the same closed path")
    func fillPolygon() {
        let points: [Point] = [Point(2.5, 1.25), Point(17.75, 4.5), Point(12, 15.5), Point(3.3, 11)]
        var path = Path()
        path.move(to: points[0]); for p in points.dropFirst() { path.line(to: p) }; path.close()
        let a = Surface(width: 20, height: 18), b = Surface(width: 20, height: 18)
        let canvas = Canvas(capacityWidth: 20, capacityHeight: 18)
        canvas.fill(path, paint: .solid(RGBA(0.5, 0.25, 0, 0.5)), on: a)
        points.withUnsafeBufferPointer { canvas.fillPolygon($0, paint: .solid(RGBA(0.5, 0.25, 0, 0.5)), on: b) }
        for k in 0..<(20 * 18) { #expect(a.pixels[k] == b.pixels[k]) }
        // Coverage times the colour, composited over transparent.
        let exact = Ref.cellCoverage(points, 5, 5)
        #expect(abs(Double(a[5, 5].x) - 0.5 * exact) < 1e-5)
    }

    @Test("paint opacity scales the coverage; source-over on an existing colour")
    func opacityAndBlend() {
        let surface = Surface(width: 4, height: 1)
        surface.clear(to: RGBA(0, 0, 0.5, 0.5))
        let canvas = Canvas(capacityWidth: 4, capacityHeight: 1)
        canvas.fill(.rect(x: 1, y: 0, width: 2.5, height: 1), paint: .solid(RGBA(0.8, 0, 0, 0.8)), opacity: 0.5, on: surface)
        // cell 1: src = 0.4·(1,0,0,1) … (0.4, 0, 0, 0.4) over (0, 0, .5, .5) = (0.4, 0, 0.3, 0.7)
        #expect(maxAbsDifference(surface[1, 0], SIMD4(0.4, 0, 0.3, 0.7)) < 1e-6)
        // cell 3, coverage ½: src = (0.2, 0, 0, 0.2) → (0.2, 0, 0.4, 0.6)
        #expect(maxAbsDifference(surface[3, 0], SIMD4(0.2, 0, 0.4, 0.6)) < 1e-6)
        #expect(surface[0, 0] == RGBA(0, 0, 0.5, 0.5))
    }
}

private extension Double {
    func squaredMagnitude(_ other: Double) -> Double { self * self + other * other }
}
