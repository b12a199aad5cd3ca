import Glibc

/// Draws shapes onto a surface: paths and polygons filled or stroked with a
/// paint, composited source-over. Shapes are given in screen pixels and
/// mapped onto the surface's grid (so a coarse surface receives the
/// box-filtered coverage of each of its cells).
///
/// Ownership: a canvas holds a rasterizer sized for the largest surface it
/// will draw into; reuse one canvas per render thread.
public final class Canvas: @unchecked Sendable {
    public let rasterizer: CoverageRasterizer
    private let coverage: UnsafeMutablePointer<Float>
    private let coverageCapacity: Int

    public init(capacityWidth: Int, capacityHeight: Int) {
        rasterizer = CoverageRasterizer(capacityWidth: capacityWidth, capacityHeight: capacityHeight)
        coverageCapacity = capacityWidth * capacityHeight
        coverage = .allocate(capacity: coverageCapacity)
        coverage.initialize(repeating: 0, count: coverageCapacity)
    }

    deinit { coverage.deallocate() }

    /// Screen point → grid-cell coordinates of `surface` (cell i spans [i, i+1]).
    @inline(__always)
    static func toGrid(_ p: Point, _ surface: Surface) -> SIMD2<Float> {
        let f = Double(surface.factor)
        let x = (p.x - Double(surface.originX) - 0.5) / f + 0.5
        let y = (p.y - Double(surface.originY) - 0.5) / f + 0.5
        return SIMD2(Float(x), Float(y))
    }

    /// Fills a path (non-zero) with `paint` at `opacity`.
    public func fill(_ path: Path, transform: Transform = .identity, paint: Paint, opacity: Float = 1, on surface: Surface) {
        let tolerance = 0.05 * Double(surface.factor)
        let flattened = FlattenedPath(path, transform: transform, tolerance: tolerance)
        rasterizer.begin(width: surface.width, height: surface.height)
        for contour in flattened.contours {
            let points = contour.points
            for index in points.indices {
                let next = points[(index + 1) % points.count]
                rasterizer.addEdge(Self.toGrid(points[index], surface), Self.toGrid(next, surface))
            }
        }
        blendCoverage(paint: paint, opacity: opacity, on: surface)
    }

    /// Fills a polygon given in screen pixels; allocates nothing.
    public func fillPolygon(_ points: UnsafeBufferPointer<Point>, paint: Paint, opacity: Float = 1, on surface: Surface) {
        rasterizer.begin(width: surface.width, height: surface.height)
        for index in points.indices {
            let next = points[(index + 1) % points.count]
            rasterizer.addEdge(Self.toGrid(points[index], surface), Self.toGrid(next, surface))
        }
        blendCoverage(paint: paint, opacity: opacity, on: surface)
    }

    private func blendCoverage(paint: Paint, opacity: Float, on surface: Surface) {
        let pixels = surface.pixels, width = surface.width
        rasterizer.finish { row, column, cover in
            let color = paint.color(atX: surface.screenX(column), y: surface.screenY(row)) * (cover * opacity)
            let index = row * width + column
            pixels[index] = Colors.over(color, pixels[index])
        }
    }

    /// Strokes a path with round caps and joins: a cell's coverage is its
    /// centre's distance to the nearest segment turned into a one-pixel
    /// anti-aliasing ramp. The union of capsules is the maximum of their
    /// coverages, which is exactly what round joins and caps are.
    public func stroke(_ path: Path, width lineWidth: Double, transform: Transform = .identity, paint: Paint, opacity: Float = 1, on surface: Surface) {
        let flattened = FlattenedPath(path, transform: transform, tolerance: 0.05 * Double(surface.factor))
        let count = surface.width * surface.height
        precondition(count <= coverageCapacity)
        coverage.update(repeating: 0, count: count)
        let halfWidth = Float(lineWidth * transform.maxScale / 2) / Float(surface.factor)
        for contour in flattened.contours {
            let points = contour.points.map { Self.toGrid($0, surface) }
            let segments = contour.closed ? points.count : points.count - 1
            for index in 0..<max(segments, 1) {
                let a = points[index], b = points[min((index + 1) % points.count, points.count - 1)]
                stampCapsule(a, b, halfWidth: halfWidth, surface: surface)
            }
        }
        let pixels = surface.pixels
        for row in 0..<surface.height {
            for column in 0..<surface.width {
                let cover = coverage[row * surface.width + column]
                guard cover > 0 else { continue }
                let weight = cover * opacity  // apart: Swift 6.0 took the product for a SIMD4
                let color = paint.color(atX: surface.screenX(column), y: surface.screenY(row)) * weight
                let index = row * surface.width + column
                pixels[index] = Colors.over(color, pixels[index])
            }
        }
    }

    private func stampCapsule(_ a: SIMD2<Float>, _ b: SIMD2<Float>, halfWidth: Float, surface: Surface) {
        let lo = pointwiseMin(a, b) - halfWidth - 1, hi = pointwiseMax(a, b) + halfWidth + 1
        let x0 = max(0, Int(lo.x.rounded(.down))), x1 = min(surface.width - 1, Int(hi.x.rounded(.up)))
        let y0 = max(0, Int(lo.y.rounded(.down))), y1 = min(surface.height - 1, Int(hi.y.rounded(.up)))
        guard x0 <= x1, y0 <= y1 else { return }
        let ab = b - a
        let lengthSquared = max((ab * ab).sum(), .leastNormalMagnitude)
        for y in y0...y1 {
            for x in x0...x1 {
                let p = SIMD2<Float>(Float(x) + 0.5, Float(y) + 0.5)
                let h = min(max(((p - a) * ab).sum() / lengthSquared, 0), 1)
                let d = p - (a + ab * h)
                let distance = (d * d).sum().squareRoot()
                let cover = min(max(halfWidth - distance + 0.5, 0), 1)
                let index = y * surface.width + x
                if cover > coverage[index] { coverage[index] = cover }
            }
        }
    }
}
