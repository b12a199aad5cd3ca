import ChakraRaster

/// One blurred round element as placed for the current frame: a
/// `BlurredGradientDisc` (its blur already relative to its radius) at a
/// screen centre and radius, in one colour whose opacity is
/// `base` + gradient·X across the unit disc (a solid element has no
/// gradient), times the element's opacity.
///
/// The table is held as a view, not counted: copies of a placed disc are
/// made per pixel, and the scenes' tables are static, alive as long as the
/// program.
struct PlacedDisc {
    var table: BlurredGradientDisc.View
    var centreX: Float = 0, centreY: Float = 0
    var inverseRadius: Float = 1
    /// Premultiplied colour × the element's opacity.
    var color: RGBA = .zero
    var base: Float = 1
    var gradientX: Float = 0, gradientY: Float = 0
    /// False leaves the element out of this frame.
    var shown = true

    init(table: BlurredGradientDisc) { self.table = table.view }

    /// Places the element: `gradient` is in the disc's unit coordinates on
    /// screen axes (already turned by any rotation).
    mutating func place(centre: Point, radius: Double, color: RGBA, opacity: Double, base: Double = 1, gradient: SIMD2<Double> = .zero) {
        centreX = Float(centre.x)
        centreY = Float(centre.y)
        inverseRadius = Float(1 / radius)
        self.color = color * Float(opacity)
        self.base = Float(base)
        gradientX = Float(gradient.x)
        gradientY = Float(gradient.y)
    }

    /// The element's premultiplied colour at screen point (x, y).
    @inline(__always)
    func color(atX x: Float, y: Float) -> RGBA {
        guard shown else { return .zero }
        let nx = (x - centreX) * inverseRadius, ny = (y - centreY) * inverseRadius
        return color * table.opacity(x: nx, y: ny, base: base, gradientX: gradientX, gradientY: gradientY)
    }
}

extension UnsafeBufferPointer where Element == PlacedDisc {
    /// The elements, bottom to top, composited source-over `destination`
    /// at screen point (x, y).
    /// By index, not `for disc in self`: the iterator hands out copies,
    /// and copying a disc retains and releases its table's arrays (atomic
    /// operations, 40% of drift's frame time at 800x480).
    @inline(__always)
    func composite(atX x: Float, y: Float, over destination: RGBA) -> RGBA {
        var pixel = destination
        var k = 0
        while k < count {
            pixel = Colors.over(self[k].color(atX: x, y: y), pixel)
            k &+= 1
        }
        return pixel
    }
}

/// A straight 0-255 sRGB colour, opaque, as a premultiplied `RGBA`.
func opaque(_ c: (r: Double, g: Double, b: Double)) -> RGBA {
    Colors.rgba(c.r, c.g, c.b)
}
