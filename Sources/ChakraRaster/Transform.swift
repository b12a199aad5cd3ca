import Glibc

/// A 2-D affine transform, column-vector convention:
/// x' = a·x + c·y + tx, y' = b·x + d·y + ty (CSS `matrix(a, b, c, d, tx, ty)`).
/// Positive angles rotate clockwise on screen, since y points down (CSS).
public struct Transform: Sendable, Equatable {
    public var a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double

    public init(a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double) {
        (self.a, self.b, self.c, self.d, self.tx, self.ty) = (a, b, c, d, tx, ty)
    }

    public static let identity = Transform(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)

    public static func translation(_ x: Double, _ y: Double) -> Transform {
        Transform(a: 1, b: 0, c: 0, d: 1, tx: x, ty: y)
    }

    public static func scale(_ sx: Double, _ sy: Double) -> Transform {
        Transform(a: sx, b: 0, c: 0, d: sy, tx: 0, ty: 0)
    }

    public static func rotation(degrees: Double) -> Transform {
        let r = degrees * .pi / 180
        return Transform(a: cos(r), b: sin(r), c: -sin(r), d: cos(r), tx: 0, ty: 0)
    }

    /// `self` applied after `first`: the point goes through `first`, then `self`.
    public func concatenating(after first: Transform) -> Transform {
        Transform(
            a: a * first.a + c * first.b, b: b * first.a + d * first.b,
            c: a * first.c + c * first.d, d: b * first.c + d * first.d,
            tx: a * first.tx + c * first.ty + tx, ty: b * first.tx + d * first.ty + ty)
    }

    /// Then translate, then rotate, then scale: builder helpers in CSS order,
    /// where `transform: translate(..) rotate(..)` applies the rightmost first.
    public func translated(_ x: Double, _ y: Double) -> Transform { concatenating(after: .translation(x, y)) }
    public func rotated(degrees: Double) -> Transform { concatenating(after: .rotation(degrees: degrees)) }
    public func scaled(_ sx: Double, _ sy: Double) -> Transform { concatenating(after: .scale(sx, sy)) }

    /// Rotation by `degrees` about `pivot`.
    public static func rotation(degrees: Double, about pivot: Point) -> Transform {
        Transform.translation(pivot.x, pivot.y).rotated(degrees: degrees).translated(-pivot.x, -pivot.y)
    }

    public func apply(_ p: Point) -> Point {
        Point(a * p.x + c * p.y + tx, b * p.x + d * p.y + ty)
    }

    public var determinant: Double { a * d - b * c }

    public var inverted: Transform {
        let det = determinant
        precondition(det != 0, "singular transform")
        let ia = d / det, ib = -b / det, ic = -c / det, id = a / det
        return Transform(a: ia, b: ib, c: ic, d: id, tx: -(ia * tx + ic * ty), ty: -(ib * tx + id * ty))
    }

    /// How much the transform scales lengths at most (for flattening tolerance).
    public var maxScale: Double {
        max(hypot(a, b), hypot(c, d))
    }
}

public typealias Point = SIMD2<Double>
