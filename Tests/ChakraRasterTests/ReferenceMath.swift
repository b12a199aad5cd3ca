import Foundation
@testable import ChakraRaster

// Reference computations written independently of ChakraRaster's code paths
// (polygon clipping instead of signed-area accumulation, direct 2-D sums
// instead of separable or tabulated ones, Simpson's rule instead of closed
// forms), so each test compares two different methods.

enum Ref {
    // MARK: Normal distribution

    static func gaussian(_ x: Double, sigma: Double) -> Double {
        exp(-x * x / (2 * sigma * sigma)) / (sigma * (2 * Double.pi).squareRoot())
    }

    static func normalCDF(_ z: Double) -> Double { 0.5 * erfc(-z / 2.0.squareRoot()) }

    /// Composite Simpson's rule with `steps` (made even) intervals.
    static func simpson(from a: Double, to b: Double, steps: Int, _ f: (Double) -> Double) -> Double {
        let n = steps + steps % 2
        let h = (b - a) / Double(n)
        var sum = f(a) + f(b)
        for k in 1..<n { sum += f(a + Double(k) * h) * (k % 2 == 1 ? 4 : 2) }
        return sum * h / 3
    }

    // MARK: Polygons

    typealias P2 = SIMD2<Double>

    /// Signed area (shoelace), positive for clockwise-on-screen (y down) order.
    static func signedArea(_ polygon: [P2]) -> Double {
        guard polygon.count > 2 else { return 0 }
        var sum = 0.0
        for k in polygon.indices {
            let p = polygon[k], q = polygon[(k + 1) % polygon.count]
            sum += p.x * q.y - q.x * p.y
        }
        return sum / 2
    }

    /// Sutherland–Hodgman clip of `polygon` to the axis-aligned box.
    static func clip(_ polygon: [P2], minX: Double, minY: Double, maxX: Double, maxY: Double) -> [P2] {
        func clipAgainst(_ input: [P2], inside: (P2) -> Bool, intersect: (P2, P2) -> P2) -> [P2] {
            guard !input.isEmpty else { return [] }
            var output: [P2] = []
            for k in input.indices {
                let current = input[k], previous = input[(k + input.count - 1) % input.count]
                if inside(current) {
                    if !inside(previous) { output.append(intersect(previous, current)) }
                    output.append(current)
                } else if inside(previous) {
                    output.append(intersect(previous, current))
                }
            }
            return output
        }
        func atX(_ x: Double) -> (P2, P2) -> P2 {
            { p, q in P2(x, p.y + (q.y - p.y) * (x - p.x) / (q.x - p.x)) }
        }
        func atY(_ y: Double) -> (P2, P2) -> P2 {
            { p, q in P2(p.x + (q.x - p.x) * (y - p.y) / (q.y - p.y), y) }
        }
        var out = polygon
        out = clipAgainst(out, inside: { $0.x >= minX }, intersect: atX(minX))
        out = clipAgainst(out, inside: { $0.x <= maxX }, intersect: atX(maxX))
        out = clipAgainst(out, inside: { $0.y >= minY }, intersect: atY(minY))
        out = clipAgainst(out, inside: { $0.y <= maxY }, intersect: atY(maxY))
        return out
    }

    /// Exact area of the polygon inside the box: the box-filtered coverage.
    static func areaInside(_ polygon: [P2], minX: Double, minY: Double, maxX: Double, maxY: Double) -> Double {
        abs(signedArea(clip(polygon, minX: minX, minY: minY, maxX: maxX, maxY: maxY)))
    }

    /// Exact coverage of cell (i, j) = [i, i+1]×[j, j+1] by a convex polygon.
    static func cellCoverage(_ polygon: [P2], _ i: Int, _ j: Int) -> Double {
        areaInside(polygon, minX: Double(i), minY: Double(j), maxX: Double(i + 1), maxY: Double(j + 1))
    }

    /// Distance from p to the segment ab.
    static func distanceToSegment(_ p: P2, _ a: P2, _ b: P2) -> Double {
        let ab = b - a
        let t = max(0, min(1, ((p - a) * ab).sum() / (ab * ab).sum()))
        let d = p - (a + ab * t)
        return (d * d).sum().squareRoot()
    }

    // MARK: Gradient stops

    /// Piecewise-linear interpolation of premultiplied colours between
    /// (already ordered) stops, clamped to the end colours: CSS Images 4.
    static func stopColor(_ t: Double, _ stops: [(Double, SIMD4<Double>)]) -> SIMD4<Double> {
        if t <= stops[0].0 { return stops[0].1 }
        for k in 1..<stops.count where t < stops[k].0 {
            let (t0, c0) = stops[k - 1], (t1, c1) = stops[k]
            let f = (t - t0) / (t1 - t0)
            return c0 * (1 - f) + c1 * f
        }
        return stops[stops.count - 1].1
    }

    // MARK: Ordered dithering

    /// The 8×8 Bayer index matrix built by the recursive definition
    /// M(2n) = [[4M, 4M+2], [4M+3, 4M+1]] from M(1) = [0] (independent of the
    /// table in PixelPacker.swift).
    static let bayer8: [[Int]] = {
        var m = [[0]]
        for _ in 0..<3 {
            let n = m.count
            var next = [[Int]](repeating: [Int](repeating: 0, count: 2 * n), count: 2 * n)
            for y in 0..<n {
                for x in 0..<n {
                    next[y][x] = 4 * m[y][x]
                    next[y][x + n] = 4 * m[y][x] + 2
                    next[y + n][x] = 4 * m[y][x] + 3
                    next[y + n][x + n] = 4 * m[y][x] + 1
                }
            }
            m = next
        }
        return m
    }()
}

// MARK: - Small helpers

func rgba(_ v: SIMD4<Double>) -> RGBA { RGBA(Float(v.x), Float(v.y), Float(v.z), Float(v.w)) }
func double4(_ v: RGBA) -> SIMD4<Double> { SIMD4<Double>(Double(v.x), Double(v.y), Double(v.z), Double(v.w)) }

func maxAbsDifference(_ a: RGBA, _ b: SIMD4<Double>) -> Double {
    let d = double4(a) - b
    return max(max(abs(d.x), abs(d.y)), max(abs(d.z), abs(d.w)))
}

/// A grid of coverage values from the rasterizer alone (row-major).
func rasterize(width: Int, height: Int, polygons: [[SIMD2<Float>]]) -> [Float] {
    let rasterizer = CoverageRasterizer(capacityWidth: width, capacityHeight: height)
    rasterizer.begin(width: width, height: height)
    for polygon in polygons {
        polygon.withUnsafeBufferPointer { rasterizer.addPolygon($0) }
    }
    var out = [Float](repeating: 0, count: width * height)
    rasterizer.finish { row, column, coverage in out[row * width + column] = coverage }
    return out
}

/// Alpha of each pixel after filling `path` in opaque white on a clear surface.
func fillAlpha(_ path: Path, transform: Transform = .identity, width: Int, height: Int) -> [Float] {
    let surface = Surface(width: width, height: height)
    let canvas = Canvas(capacityWidth: width, capacityHeight: height)
    canvas.fill(path, transform: transform, paint: .solid(RGBA(1, 1, 1, 1)), on: surface)
    return (0..<(width * height)).map { surface.pixels[$0].w }
}
