/// A repeating pattern of small anti-aliased round dots (CSS's dotted-grid
/// backgrounds) as overlay surfaces for the final pass.
///
/// The dots are sharp, so unlike the soft layers they live at factor 1,
/// one surface per column of dots: a few pixels wide and as tall as the
/// column. The compositor visits every overlay on every output row, but
/// skips a row without content after a bounds check, and blends only the
/// column's few pixels on a dot's rows. (Screen-wide strips, one per row of
/// dots, were tried first: the compositor expands a strip's whole width at
/// factor 1, a quarter of a 1080p drift frame. One surface per dot was
/// next: a bounds check per dot and row, a sixth of the frame.) Each dot's
/// pixels hold its exact area coverage, computed once; per frame a scene
/// may give each dot its own colour (`tint`), which rewrites only those
/// pixels.
///
/// Ownership: created for one screen size; owns its surfaces and coverage
/// for its lifetime. `tint` must not run during a final pass that reads
/// the surfaces.
public final class DotLattice: @unchecked Sendable {
    /// One dot: its centre in screen pixels, and where its pixels are.
    public struct Dot: Sendable {
        public var centre: Point
        /// Index into `surfaces` (its column), its first and last grid row
        /// there, and where its coverage starts in `coverage`.
        var surface: Int, firstRow: Int, lastRow: Int, offset: Int
    }

    public let surfaces: [Surface]
    public let dots: [Dot]
    private let coverage: [Float]

    /// Dots of `diameter` px centred at `firstCentre` + (i, j)·`pitch` for
    /// every i, j ≥ 0 that reaches the width × height screen (tiles start at
    /// its top-left corner, as CSS background tiles do).
    public init(width: Int, height: Int, pitch: Double, diameter: Double, firstCentre: Point) {
        // Footprints of neighbouring dots must not share a pixel.
        precondition(width > 0 && height > 0 && diameter > 0 && pitch >= diameter + 2)
        let radius = diameter / 2
        let columns = Self.count(first: firstCentre.x, pitch: pitch, radius: radius, limit: width)
        let rows = Self.count(first: firstCentre.y, pitch: pitch, radius: radius, limit: height)
        func span(_ centre: Double, limit: Int) -> ClosedRange<Int>? {
            let low = max(0, Int((centre - radius).rounded(.down))), high = min(limit - 1, Int((centre + radius).rounded(.up)) - 1)
            return low <= high ? low...high : nil
        }
        // Each row of dots: its pixel rows and its centre's y.
        var rowSpans: [(rows: ClosedRange<Int>, y: Double)] = []
        for j in 0..<rows {
            let cy = firstCentre.y + Double(j) * pitch
            if let ys = span(cy, limit: height) { rowSpans.append((ys, cy)) }
        }
        var surfaces: [Surface] = [], dots: [Dot] = [], coverage: [Float] = []
        for i in 0..<columns {
            let cx = firstCentre.x + Double(i) * pitch
            guard let xs = span(cx, limit: width), let first = rowSpans.first, let last = rowSpans.last else { continue }
            let top = first.rows.lowerBound, bottom = last.rows.upperBound
            let surface = Surface(capacityWidth: xs.count, capacityHeight: bottom - top + 1)
            surface.place(width: xs.count, height: bottom - top + 1, originX: xs.lowerBound, originY: top, factor: 1)
            surface.clear()
            for (ys, cy) in rowSpans {
                dots.append(Dot(centre: Point(cx, cy), surface: surfaces.count, firstRow: ys.lowerBound - top, lastRow: ys.upperBound - top,
                                offset: coverage.count))
                for y in ys {
                    for x in xs {
                        let c = Float(Self.circleCoverage(centre: Point(cx, cy), radius: radius, pixelX: x, pixelY: y))
                        coverage.append(c)
                        surface[x - xs.lowerBound, y - top] = RGBA(repeating: c)
                    }
                }
            }
            // Extents from the coverage: they hold for any opaque tint, and
            // rows between dots are empty.
            surface.updateRowExtents(threshold: 0)
            surfaces.append(surface)
        }
        self.surfaces = surfaces
        self.dots = dots
        self.coverage = coverage
    }

    /// Lattice points whose dot reaches [0, limit).
    private static func count(first: Double, pitch: Double, radius: Double, limit: Int) -> Int {
        guard first - radius < Double(limit) else { return 0 }
        return Int(((Double(limit) - first + radius) / pitch).rounded(.up))
    }

    /// Paints every dot: its pixels become coverage × `opacity` × the
    /// colour `color(dot)` returns (premultiplied; opaque colours keep the
    /// row extents exact). Allocates nothing.
    public func tint(opacity: Float, _ color: (Dot) -> RGBA) {
        coverage.withUnsafeBufferPointer { cover in
            for dot in dots {
                let c = color(dot) * opacity
                let surface = surfaces[dot.surface]
                let pixels = surface.row(dot.firstRow)
                for index in 0..<((dot.lastRow - dot.firstRow + 1) * surface.width) { pixels[index] = c * cover[dot.offset + index] }
            }
        }
    }

    /// The area of the unit pixel [x, x+1]×[y, y+1] inside the circle:
    /// ∫ of the covered height over the pixel's width, by Simpson's rule on
    /// each side of the circle's centre column (the integrand's only kinks
    /// are where the chord meets the pixel's top and bottom, and at the
    /// circle's tangents; 256 panels keep the error under 10⁻⁴).
    public static func circleCoverage(centre: Point, radius: Double, pixelX: Int, pixelY: Int) -> Double {
        let x0 = max(Double(pixelX), centre.x - radius), x1 = min(Double(pixelX + 1), centre.x + radius)
        guard x0 < x1 else { return 0 }
        let y0 = Double(pixelY), y1 = Double(pixelY + 1)
        func coveredHeight(_ x: Double) -> Double {
            let dx = x - centre.x
            let h = max(radius * radius - dx * dx, 0).squareRoot()
            return max(0, min(y1, centre.y + h) - max(y0, centre.y - h))
        }
        let panels = 256
        let step = (x1 - x0) / Double(panels)
        var sum = coveredHeight(x0) + coveredHeight(x1)
        for k in 1..<panels { sum += coveredHeight(x0 + Double(k) * step) * (k % 2 == 1 ? 4 : 2) }
        return min(sum * step / 3, 1)
    }
}
