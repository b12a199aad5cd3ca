import Glibc

/// A vector path: contours of lines and Bézier curves, in any coordinate
/// space; the rasterizer flattens it (after a transform) into polygons.
public struct Path: Sendable, Equatable {
    public enum Element: Sendable, Equatable {
        case move(Point)
        case line(Point)
        case quad(Point, Point)
        case cubic(Point, Point, Point)
        case close
    }

    public private(set) var elements: [Element] = []

    public init() {}

    public mutating func move(to p: Point) { elements.append(.move(p)) }
    public mutating func line(to p: Point) { elements.append(.line(p)) }
    public mutating func quad(to p: Point, control: Point) { elements.append(.quad(control, p)) }
    public mutating func cubic(to p: Point, control1: Point, control2: Point) {
        elements.append(.cubic(control1, control2, p))
    }
    public mutating func close() { elements.append(.close) }

    public var isEmpty: Bool { elements.isEmpty }

    /// Control-point bounding box (contains the path).
    public var bounds: (min: Point, max: Point)? {
        var lo = Point(repeating: .infinity), hi = Point(repeating: -.infinity)
        func add(_ p: Point) { lo = pointwiseMin(lo, p); hi = pointwiseMax(hi, p) }
        for element in elements {
            switch element {
            case .move(let p), .line(let p): add(p)
            case .quad(let c, let p): add(c); add(p)
            case .cubic(let c1, let c2, let p): add(c1); add(c2); add(p)
            case .close: break
            }
        }
        return lo.x <= hi.x ? (lo, hi) : nil
    }
}

// MARK: - Shapes

extension Path {
    /// The cubic-Bézier circle constant: control points at 0.5523 of the radius.
    static let kappa = 4 * (sqrt(2.0) - 1) / 3

    public static func rect(x: Double, y: Double, width: Double, height: Double) -> Path {
        var path = Path()
        path.move(to: Point(x, y))
        path.line(to: Point(x + width, y))
        path.line(to: Point(x + width, y + height))
        path.line(to: Point(x, y + height))
        path.close()
        return path
    }

    public static func ellipse(center: Point, radiusX rx: Double, radiusY ry: Double) -> Path {
        var path = Path()
        let k = kappa
        let cx = center.x, cy = center.y
        path.move(to: Point(cx + rx, cy))
        path.cubic(to: Point(cx, cy + ry), control1: Point(cx + rx, cy + k * ry), control2: Point(cx + k * rx, cy + ry))
        path.cubic(to: Point(cx - rx, cy), control1: Point(cx - k * rx, cy + ry), control2: Point(cx - rx, cy + k * ry))
        path.cubic(to: Point(cx, cy - ry), control1: Point(cx - rx, cy - k * ry), control2: Point(cx - k * rx, cy - ry))
        path.cubic(to: Point(cx + rx, cy), control1: Point(cx + k * rx, cy - ry), control2: Point(cx + rx, cy - k * ry))
        path.close()
        return path
    }

    public static func circle(center: Point, radius: Double) -> Path {
        ellipse(center: center, radiusX: radius, radiusY: radius)
    }

    /// Corner radii of a rounded rectangle, clockwise from the top left.
    public struct CornerRadii: Sendable, Equatable {
        public var topLeft, topRight, bottomRight, bottomLeft: Double
        public init(topLeft: Double, topRight: Double, bottomRight: Double, bottomLeft: Double) {
            (self.topLeft, self.topRight, self.bottomRight, self.bottomLeft) = (topLeft, topRight, bottomRight, bottomLeft)
        }
        public init(all r: Double) { self.init(topLeft: r, topRight: r, bottomRight: r, bottomLeft: r) }
    }

    /// A rounded rectangle with circular corners. Radii that do not fit are
    /// scaled down together, as CSS `border-radius` does (CSS Backgrounds 3 §5.5).
    public static func roundedRect(x: Double, y: Double, width w: Double, height h: Double, radii: CornerRadii) -> Path {
        var r = radii
        let sums = [(r.topLeft + r.topRight, w), (r.bottomLeft + r.bottomRight, w),
                    (r.topLeft + r.bottomLeft, h), (r.topRight + r.bottomRight, h)]
        let f = sums.reduce(1.0) { $1.0 > 0 ? min($0, $1.1 / $1.0) : $0 }
        if f < 1 { r = CornerRadii(topLeft: r.topLeft * f, topRight: r.topRight * f, bottomRight: r.bottomRight * f, bottomLeft: r.bottomLeft * f) }
        let k = kappa
        var path = Path()
        path.move(to: Point(x + r.topLeft, y))
        path.line(to: Point(x + w - r.topRight, y))
        if r.topRight > 0 {
            path.cubic(to: Point(x + w, y + r.topRight), control1: Point(x + w - r.topRight * (1 - k), y), control2: Point(x + w, y + r.topRight * (1 - k)))
        }
        path.line(to: Point(x + w, y + h - r.bottomRight))
        if r.bottomRight > 0 {
            path.cubic(to: Point(x + w - r.bottomRight, y + h), control1: Point(x + w, y + h - r.bottomRight * (1 - k)), control2: Point(x + w - r.bottomRight * (1 - k), y + h))
        }
        path.line(to: Point(x + r.bottomLeft, y + h))
        if r.bottomLeft > 0 {
            path.cubic(to: Point(x, y + h - r.bottomLeft), control1: Point(x + r.bottomLeft * (1 - k), y + h), control2: Point(x, y + h - r.bottomLeft * (1 - k)))
        }
        path.line(to: Point(x, y + r.topLeft))
        if r.topLeft > 0 {
            path.cubic(to: Point(x + r.topLeft, y), control1: Point(x, y + r.topLeft * (1 - k)), control2: Point(x + r.topLeft * (1 - k), y))
        }
        path.close()
        return path
    }
}
