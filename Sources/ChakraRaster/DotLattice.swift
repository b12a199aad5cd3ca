/// A repeating pattern of small anti-aliased round dots (CSS's dotted-grid
/// backgrounds) as overlay surfaces for the final pass.
///
/// The dots are sharp, so unlike the soft layers they live at factor 1,
/// one small surface per dot: the compositor then touches only the dots'
/// own pixels. (One screen-wide strip per row of dots was tried first: the
/// compositor expands a strip's whole width at factor 1, a quarter of a
/// 1080p drift frame; per-dot surfaces cost a bounds check per dot and row
/// instead, a third of that.) Each dot's pixels hold its exact area
/// coverage, computed once; per frame a scene may give each dot its own
/// colour (`tint`), which rewrites only those pixels.
///
/// Ownership: created for one screen size; owns its surfaces and coverage
/// for its lifetime. `tint` must not run during a final pass that reads
/// the surfaces.
public final class DotLattice: @unchecked Sendable {
    /// One dot: its centre in screen pixels; `surfaces[i]` is dot i's.
    public struct Dot: Sendable {
        public var centre: Point
        /// Where its coverage starts in `coverage` (its surface's pixels in order).
        var offset: Int
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
        var surfaces: [Surface] = [], dots: [Dot] = [], coverage: [Float] = []
        for j in 0..<rows {
            let cy = firstCentre.y + Double(j) * pitch
            let top = max(0, Int((cy - radius).rounded(.down))), bottom = min(height - 1, Int((cy + radius).rounded(.up)) - 1)
            guard top <= bottom else { continue }
            for i in 0..<columns {
                let cx = firstCentre.x + Double(i) * pitch
                let left = max(0, Int((cx - radius).rounded(.down))), right = min(width - 1, Int((cx + radius).rounded(.up)) - 1)
                guard left <= right else { continue }
                let surface = Surface(capacityWidth: right - left + 1, capacityHeight: bottom - top + 1)
                surface.place(width: right - left + 1, height: bottom - top + 1, originX: left, originY: top, factor: 1)
                dots.append(Dot(centre: Point(cx, cy), offset: coverage.count))
                for y in top...bottom {
                    for x in left...right {
                        let c = Float(Self.circleCoverage(centre: Point(cx, cy), radius: radius, pixelX: x, pixelY: y))
                        coverage.append(c)
                        surface[x - left, y - top] = RGBA(repeating: c)
                    }
                }
                // Extents from the coverage: they hold for any opaque tint.
                surface.updateRowExtents(threshold: 0)
                surfaces.append(surface)
            }
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
            for (dot, surface) in zip(dots, surfaces) {
                let c = color(dot) * opacity
                let pixels = surface.pixels
                for index in 0..<(surface.width * surface.height) { pixels[index] = c * cover[dot.offset + index] }
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
