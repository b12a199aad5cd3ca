import Glibc

/// What fills a shape: a solid colour or a gradient. Gradients are defined in
/// their own space and carry the transform from screen pixels into it.
public enum Paint: Sendable {
    case solid(RGBA)
    case linear(LinearGradient)
    case radial(RadialGradient)

    /// The premultiplied colour at a screen point.
    @inlinable
    public func color(atX x: Float, y: Float) -> RGBA {
        switch self {
        case .solid(let c): return c
        case .linear(let g): return g.color(atX: x, y: y)
        case .radial(let g): return g.color(atX: x, y: y)
        }
    }
}

/// t = projection of the point on the gradient line from `start` (t = 0) to `end` (t = 1).
public struct LinearGradient: Sendable {
    public var stops: GradientStops
    @usableFromInline let origin: SIMD2<Float>
    @usableFromInline let direction: SIMD2<Float>   // (end - start) / |end - start|²

    public init(start: Point, end: Point, stops: GradientStops) {
        self.stops = stops
        origin = SIMD2<Float>(start)
        let v = end - start
        let lengthSquared = (v * v).sum()
        direction = lengthSquared > 0 ? SIMD2<Float>(v / lengthSquared) : .zero
    }

    /// CSS `linear-gradient(<angle>, ...)` on a box: 0deg points up, 90deg
    /// right; the gradient line passes through the box centre and is long
    /// enough that the corners' perpendiculars hit its ends (CSS Images 3 §3.1).
    /// `to bottom right` is the angle whose 50% line joins the other two corners.
    public init(cssAngleDegrees angle: Double, boxX x: Double, y: Double, width w: Double, height h: Double, stops: GradientStops, transform: Transform = .identity) {
        let r = angle * .pi / 180
        let dir = Point(sin(r), -cos(r))
        let half = abs(w * sin(r)) / 2 + abs(h * cos(r)) / 2
        let centre = Point(x + w / 2, y + h / 2)
        self.init(start: centre - dir * half, end: centre + dir * half, stops: stops, transform: transform)
    }

    /// The gradient line given in the space `transform` maps to the screen:
    /// t is measured there (through the inverse), so a non-uniform scale or
    /// skew keeps CSS's geometry instead of bending the gradient.
    public init(start: Point, end: Point, stops: GradientStops, transform: Transform) {
        let v = end - start
        let lengthSquared = (v * v).sum()
        let d = lengthSquared > 0 ? v / lengthSquared : .zero
        // t(p) = (inverse(p) − start)·d is affine in the screen point p.
        let m = transform.inverted
        let gx = m.a * d.x + m.b * d.y, gy = m.c * d.x + m.d * d.y
        let offset = (m.tx - start.x) * d.x + (m.ty - start.y) * d.y
        self.stops = stops
        // Express as origin/direction in screen space: t = (p − origin)·direction.
        direction = SIMD2<Float>(Float(gx), Float(gy))
        let g2 = gx * gx + gy * gy
        origin = g2 > 0 ? SIMD2<Float>(Float(-offset * gx / g2), Float(-offset * gy / g2)) : .zero
    }

    /// CSS `to bottom right`: t = (x/w + y/h) / 2 in box coordinates.
    public static func toBottomRight(boxX x: Double, y: Double, width w: Double, height h: Double, stops: GradientStops, transform: Transform = .identity) -> LinearGradient {
        // The gradient line is perpendicular to the bottom-left → top-right
        // diagonal (w, -h): direction (h, w), i.e. bearing atan2(h, -w).
        let bearing = atan2(h, -w) * 180 / .pi
        return LinearGradient(cssAngleDegrees: bearing, boxX: x, y: y, width: w, height: h, stops: stops, transform: transform)
    }

    @inlinable
    public func color(atX x: Float, y: Float) -> RGBA {
        let t = ((SIMD2(x, y) - origin) * direction).sum()
        return stops.color(at: t)
    }
}

/// A radial gradient: t = |inverse(transform)·p − centre| / radius, so an
/// ellipse is a circle seen through a scale (and any rotation).
public struct RadialGradient: Sendable {
    public var stops: GradientStops
    @usableFromInline let toUnit: (a: Float, b: Float, c: Float, d: Float, tx: Float, ty: Float)

    /// An elliptical gradient centred at `center` with radii (rx, ry) in the
    /// space that `transform` maps to the screen.
    public init(center: Point, radiusX: Double, radiusY: Double, stops: GradientStops, transform: Transform = .identity) {
        self.stops = stops
        // screen → local → unit circle
        let unit = Transform.scale(1 / radiusX, 1 / radiusY).translated(-center.x, -center.y)
        let m = unit.concatenating(after: transform.inverted)
        toUnit = (Float(m.a), Float(m.b), Float(m.c), Float(m.d), Float(m.tx), Float(m.ty))
    }

    @inlinable
    public func color(atX x: Float, y: Float) -> RGBA {
        let ux = toUnit.a * x + toUnit.c * y + toUnit.tx
        let uy = toUnit.b * x + toUnit.d * y + toUnit.ty
        return stops.color(at: (ux * ux + uy * uy).squareRoot())
    }
}
