import Foundation

/// A repeating pattern of small anti-aliased round dots (CSS's dotted-grid
/// backgrounds) as overlay surfaces for the final pass.
///
/// The dots are sharp, so unlike the soft layers they live at factor 1:
/// one surface per row of dots, a few pixels tall and as wide as the
/// screen; the compositor skips every screen row between them. Each dot's
/// pixels hold its exact area coverage, computed once; per frame a scene
/// may give each dot its own colour (`tint`), which rewrites only the dots'
/// pixels.
///
/// Ownership: created for one screen size; owns its strips and coverage
/// for its lifetime. `tint` must not run during a final pass that reads
/// the strips.
public final class DotLattice: @unchecked Sendable {
    /// One dot: its centre in screen pixels and where its pixels are.
    public struct Dot: Sendable {
        public var centre: Point
        /// Index into `strips`.
        public var strip: Int
        /// Its footprint: columns in its strip (it spans the strip's rows),
        /// and where its coverage starts in `coverage`.
        var column: Int, footprintWidth: Int, offset: Int
    }

    public let strips: [Surface]
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
        var strips: [Surface] = [], dots: [Dot] = [], coverage: [Float] = []
        for j in 0..<rows {
            let cy = firstCentre.y + Double(j) * pitch
            let top = max(0, Int((cy - radius).rounded(.down))), bottom = min(height - 1, Int((cy + radius).rounded(.up)) - 1)
            guard top <= bottom else { continue }
            let strip = Surface(capacityWidth: width, capacityHeight: bottom - top + 1)
            strip.place(width: width, height: bottom - top + 1, originX: 0, originY: top, factor: 1)
            strip.clear()
            for i in 0..<columns {
                let cx = firstCentre.x + Double(i) * pitch
                let left = max(0, Int((cx - radius).rounded(.down))), right = min(width - 1, Int((cx + radius).rounded(.up)) - 1)
                guard left <= right else { continue }
                let dot = Dot(centre: Point(cx, cy), strip: strips.count, column: left, footprintWidth: right - left + 1, offset: coverage.count)
                for y in top...bottom {
                    for x in left...right {
                        let c = Self.circleCoverage(centre: Point(cx, cy), radius: radius, pixelX: x, pixelY: y)
                        coverage.append(Float(c))
                        strip[x, y - top] = RGBA(repeating: Float(c))
                    }
                }
                dots.append(dot)
            }
            // Extents from the coverage: they hold for any opaque tint.
            strip.updateRowExtents(threshold: 0)
            strips.append(strip)
        }
        self.strips = strips
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
                let strip = strips[dot.strip]
                var index = dot.offset
                for y in 0..<strip.height {
                    let row = strip.row(y)
                    for x in dot.column..<(dot.column + dot.footprintWidth) {
                        row[x] = c * cover[index]
                        index += 1
                    }
                }
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
