/// A value a spring can drive: a vector space over Double with a length.
///
/// A spring acts on each component independently and linearly, so a vector
/// displacement X0 with velocity V0 evolves as X0·f(t) + V0·g(t) for two
/// scalar functions f, g of the spring (see `SpringAnimation`).
public protocol SpringValue: Interpolatable {
    static var zero: Self { get }
    static func + (lhs: Self, rhs: Self) -> Self
    static func - (lhs: Self, rhs: Self) -> Self
    static func * (lhs: Self, rhs: Double) -> Self
    /// The squared Euclidean length, used to decide when a spring has settled.
    /// (Named for its purpose so it cannot clash with other modules' vector
    /// helpers on the same SIMD types.)
    var springMagnitudeSquared: Double { get }
}

extension Double: SpringValue {
    @inlinable
    public var springMagnitudeSquared: Double { self * self }
}

extension SIMD2: SpringValue where Scalar == Double {
    @inlinable
    public var springMagnitudeSquared: Double { (self * self).sum() }
}

extension SIMD3: SpringValue where Scalar == Double {
    @inlinable
    public var springMagnitudeSquared: Double { (self * self).sum() }
}

extension SIMD4: SpringValue where Scalar == Double {
    @inlinable
    public var springMagnitudeSquared: Double { (self * self).sum() }
}
