/// A value a keyframe track can blend between.
///
/// `interpolate(a, b, t)` is the plain linear blend `a + (b - a)·t`. `t` is NOT
/// clamped: an overshooting easing curve (a cubic-bezier with y outside [0, 1])
/// must be able to push the value past either end, as CSS Animations do.
public protocol Interpolatable: Sendable {
    static func interpolate(_ a: Self, _ b: Self, _ t: Double) -> Self
}

extension Double: Interpolatable {
    @inlinable
    public static func interpolate(_ a: Double, _ b: Double, _ t: Double) -> Double {
        a + (b - a) * t
    }
}

extension Float: Interpolatable {
    @inlinable
    public static func interpolate(_ a: Float, _ b: Float, _ t: Double) -> Float {
        a + (b - a) * Float(t)
    }
}

extension SIMD2: Interpolatable where Scalar == Double {
    @inlinable
    public static func interpolate(_ a: Self, _ b: Self, _ t: Double) -> Self {
        a + (b - a) * t
    }
}

extension SIMD3: Interpolatable where Scalar == Double {
    @inlinable
    public static func interpolate(_ a: Self, _ b: Self, _ t: Double) -> Self {
        a + (b - a) * t
    }
}

extension SIMD4: Interpolatable where Scalar == Double {
    @inlinable
    public static func interpolate(_ a: Self, _ b: Self, _ t: Double) -> Self {
        a + (b - a) * t
    }
}
