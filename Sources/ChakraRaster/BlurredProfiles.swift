import Glibc

// Blurred primitives evaluated analytically instead of blurring pixels.
//
// A Gaussian blur of a shape whose paint depends on one coordinate (a band:
// x-ramp times y-box) or on the distance from a centre (a disc or ring with a
// radial gradient) reduces to a 1-D integral that can be tabulated once. The
// scenes' large blurs (σ of 20-140 px) then cost a table look-up per pixel
// instead of a convolution, and they are exact rather than approximated.

/// Standard normal density and distribution.
@inline(__always) func normalPDF(_ z: Double) -> Double { exp(-0.5 * z * z) / (2 * Double.pi).squareRoot() }
@inline(__always) func normalCDF(_ z: Double) -> Double { 0.5 * erfc(-z / 2.0.squareRoot()) }

/// A 1-D piecewise-linear function, zero outside its segments, and its exact
/// convolution with a Gaussian.
public struct PiecewiseLinearProfile: Sendable {
    public struct Segment: Sendable {
        public var from: Double, to: Double, valueFrom: Double, valueTo: Double
        public init(from: Double, to: Double, valueFrom: Double, valueTo: Double) {
            (self.from, self.to, self.valueFrom, self.valueTo) = (from, to, valueFrom, valueTo)
        }
    }
    public var segments: [Segment]
    public init(_ segments: [Segment]) { self.segments = segments }

    /// 1 on [a, b], 0 elsewhere.
    public static func box(_ a: Double, _ b: Double) -> PiecewiseLinearProfile {
        PiecewiseLinearProfile([Segment(from: a, to: b, valueFrom: 1, valueTo: 1)])
    }

    /// 0 at a, 1 at the midpoint, 0 at b: the alpha of a
    /// `transparent, C 50%, transparent` gradient across [a, b].
    public static func triangle(_ a: Double, _ b: Double) -> PiecewiseLinearProfile {
        let m = (a + b) / 2
        return PiecewiseLinearProfile([Segment(from: a, to: m, valueFrom: 0, valueTo: 1),
                                       Segment(from: m, to: b, valueFrom: 1, valueTo: 0)])
    }

    public func value(at x: Double) -> Double {
        for s in segments where x >= s.from && x <= s.to {
            return s.valueFrom + (s.valueTo - s.valueFrom) * (x - s.from) / max(s.to - s.from, .leastNormalMagnitude)
        }
        return 0
    }

    /// The blur of one linear segment from (p, vp) to (q, vq), zero elsewhere;
    /// `blurred(at:sigma:)` sums these. Static so per-frame callers need no
    /// segment array.
    @inline(__always)
    public static func blurredSegment(at x: Double, from p: Double, to q: Double, valueFrom vp: Double, valueTo vq: Double, sigma: Double) -> Double {
        guard q > p else { return 0 }
        let beta = (vq - vp) / (q - p)
        let alpha = vp - beta * p
        let zp = (p - x) / sigma, zq = (q - x) / sigma
        return (alpha + beta * x) * (normalCDF(zq) - normalCDF(zp)) + beta * sigma * (normalPDF(zp) - normalPDF(zq))
    }

    /// A box [a, b] of height 1 blurred by σ.
    public static func blurredBox(at x: Double, from a: Double, to b: Double, sigma: Double) -> Double {
        normalCDF((b - x) / sigma) - normalCDF((a - x) / sigma)
    }

    /// `triangle(a, b)` blurred by σ.
    public static func blurredTriangle(at x: Double, from a: Double, to b: Double, sigma: Double) -> Double {
        let m = (a + b) / 2
        return blurredSegment(at: x, from: a, to: m, valueFrom: 0, valueTo: 1, sigma: sigma)
            + blurredSegment(at: x, from: m, to: b, valueFrom: 1, valueTo: 0, sigma: sigma)
    }

    /// (f ⊛ G_σ)(x). For a segment α + β·s on [p, q]:
    /// ∫ (α + βs) φ_σ(x − s) ds = (α + βx)(Φ(z_q) − Φ(z_p)) + βσ(φ(z_p) − φ(z_q)), z = (s − x)/σ.
    public func blurred(at x: Double, sigma: Double) -> Double {
        guard sigma > 0 else { return value(at: x) }
        return segments.reduce(0) { $0 + Self.blurredSegment(at: x, from: $1.from, to: $1.to, valueFrom: $1.valueFrom, valueTo: $1.valueTo, sigma: sigma) }
    }
}

/// exp(−z)·I0(z), the exponentially scaled modified Bessel function of order
/// 0 (Abramowitz & Stegun 9.8.1–9.8.2, relative error < 2e-7).
func besselI0Scaled(_ z: Double) -> Double {
    let x = abs(z)
    if x <= 3.75 {
        let t = (x / 3.75) * (x / 3.75)
        let i0 = 1 + t * (3.5156229 + t * (3.0899424 + t * (1.2067492 + t * (0.2659732 + t * (0.0360768 + t * 0.0045813)))))
        return i0 * exp(-x)
    }
    let t = 3.75 / x
    let p = 0.39894228 + t * (0.01328592 + t * (0.00225319 + t * (-0.00157565 + t * (0.00916281
        + t * (-0.02057706 + t * (0.02635537 + t * (-0.01647633 + t * 0.00392377)))))))
    return p / x.squareRoot()
}

/// A radially symmetric premultiplied paint f(r), r in units of a radius
/// (e.g. a disc of radius 1 filled with a radial gradient), blurred by a
/// Gaussian of σ (same units), tabulated over the distance from the centre.
///
/// The 2-D convolution of a radial function f is again radial:
/// B(ρ) = ∫ f(r) · r/σ² · exp(−(ρ−r)²/2σ²) · e^{−ρr/σ²} I0(ρr/σ²) dr,
/// integrated with Simpson's rule between the profile's kinks (`breaks`).
public struct BlurredRadialTable: Sendable {
    public let sigma: Double
    /// Distances covered: 0...maxRadius, where the blurred paint has faded out.
    public let maxRadius: Double
    public let entries: [RGBA]
    @usableFromInline var scale: Float { Float(entries.count - 1) / Float(maxRadius) }

    /// A disc of radius 1 painted with `stops` over t = r, transparent
    /// beyond. `maxRadius` defaults to where the blurred disc has faded out;
    /// tables that are mixed together must share it.
    public init(stops: GradientStops, sigma: Double, maxRadius: Double? = nil, count: Int = 512) {
        // Two statements: Swift 6.0 (the arm64 build's) gives up on one.
        let inner = stops.stops.map { Double($0.offset) }.filter { $0 > 0 && $0 < 1 }
        let breaks = [0.0] + inner + [1.0]
        self.init(sigma: sigma, maxRadius: maxRadius ?? (1 + 4.5 * sigma), count: count, breaks: breaks) { r in
            r <= 1 ? SIMD4<Double>(stops.color(at: Float(r))) : .zero
        }
    }

    /// Any radial paint `profile(r)`, zero beyond the last break; smooth
    /// between consecutive `breaks` (ascending, starting at 0).
    public init(sigma: Double, maxRadius: Double, count: Int = 512, breaks: [Double], profile: (Double) -> SIMD4<Double>) {
        self.sigma = sigma
        self.maxRadius = maxRadius
        var table = [RGBA](repeating: .zero, count: count)
        for index in 0..<count {
            let rho = maxRadius * Double(index) / Double(count - 1)
            // The quadrature is good to ~10⁻⁵; keep the result a valid
            // premultiplied colour (0 ≤ colour ≤ alpha ≤ 1), which the
            // compositor relies on.
            let c = Self.integrate(rho: rho, sigma: sigma, breaks: breaks, profile: profile)
            let alpha = min(max(c.w, 0), 1)
            table[index] = RGBA(SIMD4(min(max(c.x, 0), alpha), min(max(c.y, 0), alpha), min(max(c.z, 0), alpha), alpha))
        }
        entries = table
    }

    static func integrate(rho: Double, sigma: Double, breaks: [Double], profile: (Double) -> SIMD4<Double>) -> SIMD4<Double> {
        let support = breaks.last ?? 0
        if sigma <= 0 { return rho <= support ? profile(rho) : .zero }
        let lo = max(0, rho - 7 * sigma), hi = min(support, rho + 7 * sigma)
        guard lo < hi else { return .zero }
        var total = SIMD4<Double>.zero
        let s2 = sigma * sigma
        func integrand(_ r: Double) -> SIMD4<Double> {
            profile(r) * (r / s2 * exp(-(rho - r) * (rho - r) / (2 * s2)) * besselI0Scaled(rho * r / s2))
        }
        for (a, b) in zip(breaks, breaks.dropFirst()) {
            let from = max(a, lo), to = min(b, hi)
            guard from < to else { continue }
            var n = max(8, Int(((to - from) / (sigma / 6)).rounded(.up)))
            n += n % 2
            let h = (to - from) / Double(n)
            // Evaluate just inside each end so a jump at a break (a disc's
            // edge) is taken from the correct side.
            let inset = h * 1e-9
            var sum = integrand(from + inset) + integrand(to - inset)
            for k in 1..<n { sum += integrand(from + Double(k) * h) * (k % 2 == 1 ? 4 : 2) }
            total += sum * (h / 3)
        }
        return total
    }

    /// The blurred colour at distance `r` (units of the radius).
    @inlinable @inline(__always)
    public func value(at r: Float) -> RGBA {
        entries.withUnsafeBufferPointer { Self.lookup($0, r * scale) }
    }

    @inlinable @inline(__always)
    static func lookup(_ table: UnsafeBufferPointer<RGBA>, _ position: Float) -> RGBA {
        let last = table.count - 1
        if position >= Float(last) { return table[last] }
        let i = Int(position)
        let f = position - Float(i)
        return table[i] + (table[i + 1] - table[i]) * f
    }

    /// A table whose entries lie `t` of the way from `a` to `b` (same size).
    public static func mix(_ a: BlurredRadialTable, _ b: BlurredRadialTable, _ t: Float, into out: UnsafeMutableBufferPointer<RGBA>) {
        precondition(a.entries.count == out.count && b.entries.count == out.count && a.maxRadius == b.maxRadius)
        for index in 0..<out.count { out[index] = a.entries[index] + (b.entries[index] - a.entries[index]) * t }
    }
}
