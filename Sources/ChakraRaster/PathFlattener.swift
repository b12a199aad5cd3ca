import Glibc

/// Flattens a path into polylines (one per contour) after a transform,
/// subdividing curves until the chord is within `tolerance` of the curve.
public struct FlattenedPath: Sendable {
    public struct Contour: Sendable {
        public var points: [Point]
        public var closed: Bool
    }

    public var contours: [Contour] = []

    public init(_ path: Path, transform: Transform = .identity, tolerance: Double = 0.1) {
        var current: [Point] = []
        var start = Point.zero, pen = Point.zero
        var closed = false
        func flush() {
            if current.count > 1 { contours.append(Contour(points: current, closed: closed)) }
            current = []
            closed = false
        }
        for element in path.elements {
            switch element {
            case .move(let p):
                flush()
                pen = transform.apply(p); start = pen
                current = [pen]
            case .line(let p):
                pen = transform.apply(p)
                current.append(pen)
            case .quad(let c, let p):
                // Elevate to a cubic: the same curve, one code path.
                let q0 = pen, q1 = transform.apply(c), q2 = transform.apply(p)
                Self.appendCubic(&current, q0, q0 + (q1 - q0) * (2.0 / 3), q2 + (q1 - q2) * (2.0 / 3), q2, tolerance)
                pen = q2
            case .cubic(let c1, let c2, let p):
                let p3 = transform.apply(p)
                Self.appendCubic(&current, pen, transform.apply(c1), transform.apply(c2), p3, tolerance)
                pen = p3
            case .close:
                closed = true
                flush()
                // A segment after close starts a new contour at the subpath's start (SVG).
                pen = start
                current = [start]
            }
        }
        flush()
    }

    /// Uniform subdivision with a segment count from the control polygon's
    /// second differences (the standard bound used by many rasterizers).
    static func appendCubic(_ out: inout [Point], _ p0: Point, _ p1: Point, _ p2: Point, _ p3: Point, _ tolerance: Double) {
        let dd = max(simdLength(p0 - 2 * p1 + p2), simdLength(p1 - 2 * p2 + p3))
        let n = max(1, min(512, Int(ceil(sqrt(0.75 * dd / tolerance)))))
        for step in 1...n {
            let t = Double(step) / Double(n), s = 1 - t
            out.append(s * s * s * p0 + 3 * s * s * t * p1 + 3 * s * t * t * p2 + t * t * t * p3)
        }
    }
}

@inline(__always)
func simdLength(_ v: Point) -> Double { (v * v).sum().squareRoot() }
