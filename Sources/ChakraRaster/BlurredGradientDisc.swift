import CLanes
import Glibc

/// A disc of radius 1 painted with one colour whose opacity varies linearly
/// across it, α(X) = α₀ + g·X (transparent outside), Gaussian-blurred by σ
/// (units of the radius), in closed form. A round element with
/// `linear-gradient(C, transparent)` is such a disc (premultiplied
/// interpolation keeps C's hue, so only the opacity ramps); a solid round
/// element is the case g = 0.
///
/// Blurring is linear, so the blur of α₀·disc + (g·X)·disc is the sum of
/// two radial tables:
///
///   B(Q) = α₀·b(ρ) + (g·Q)·k(ρ),   ρ = |Q|,
///
/// b the blurred uniform disc, b(ρ) = ∫₀¹ r/σ² e^{−(ρ²+r²)/2σ²} I₀(ρr/σ²) dr,
/// and k(ρ) = m(ρ)/ρ from the blurred first moment: X·disc blurs into
/// (Q/ρ)·m(ρ) with m(ρ) = ∫₀¹ r²/σ² e^{−(ρ²+r²)/2σ²} I₁(ρr/σ²) dr, since
/// ∫ cos φ e^{κ cos(φ−θ)} dφ = 2π cos θ I₁(κ). A value is two look-ups, and
/// a rotating gradient only turns g. `BlurredGradientDiscTests` checks both
/// tables against a brute-force 2-D convolution.
///
/// A class holding its tables in raw memory: as a struct of arrays, every
/// copy (a scene's per-pixel loop over its discs) retained and released
/// both arrays, atomic operations that were 40% of drift's frame time.
/// Scenes refer to their tables without counting (`PlacedDisc`). Immutable
/// after init, so any thread may read it.
public final class BlurredGradientDisc: @unchecked Sendable {
    public let sigma: Double
    /// Normalised distance beyond which the blurred disc has faded out.
    public let reach: Double
    private let solid: UnsafeMutablePointer<Float>
    private let moment: UnsafeMutablePointer<Float>
    private let count: Int
    private let positionScale: Float

    public init(sigma: Double, count: Int = 1024) {
        precondition(sigma > 0 && count >= 2)
        self.sigma = sigma
        self.count = count
        reach = 1 + 4.5 * sigma
        let step = reach / Double(count - 1)
        solid = .allocate(capacity: count)
        moment = .allocate(capacity: count)
        for k in 0..<count {
            (solid + k).initialize(to: Float(Self.blurredDisc(rho: Double(k) * step, sigma: sigma)))
            (moment + k).initialize(to: Float(Self.blurredMomentOverRho(rho: Double(k) * step, sigma: sigma)))
        }
        positionScale = Float(count - 1) / Float(reach)
    }

    deinit {
        solid.deallocate()
        moment.deallocate()
    }

    /// The blurred opacity at normalised point (x, y) (relative to the
    /// centre, in radii) of the paint α(X) = `base` + (gradientX, gradientY)·X,
    /// clamped to [0, 1]: the paint is an opacity, and the tables are good
    /// to ~10⁻⁶.
    @inline(__always)
    public func opacity(x: Float, y: Float, base: Float, gradientX: Float, gradientY: Float) -> Float {
        view.opacity(x: x, y: y, base: base, gradientX: gradientX, gradientY: gradientY)
    }

    /// The tables without a reference to count, for per-pixel loops; valid
    /// while this object lives.
    public var view: View { View(solid: solid, moment: moment, last: count - 1, positionScale: positionScale) }

    public struct View {
        @usableFromInline let solid: UnsafeMutablePointer<Float>
        @usableFromInline let moment: UnsafeMutablePointer<Float>
        @usableFromInline let last: Int
        @usableFromInline let positionScale: Float

        @usableFromInline
        init(solid: UnsafeMutablePointer<Float>, moment: UnsafeMutablePointer<Float>, last: Int, positionScale: Float) {
            (self.solid, self.moment, self.last, self.positionScale) = (solid, moment, last, positionScale)
        }

        /// See `BlurredGradientDisc.opacity`.
        @inlinable @inline(__always)
        public func opacity(x: Float, y: Float, base: Float, gradientX: Float, gradientY: Float) -> Float {
            let position = (x * x + y * y).squareRoot() * positionScale
            guard position < Float(last) else { return 0 }
            let i = Int(position), f = position - Float(i)
            let b = solid[i] + (solid[i + 1] - solid[i]) * f
            let k = moment[i] + (moment[i + 1] - moment[i]) * f
            return min(max(base * b + (gradientX * x + gradientY * y) * k, 0), 1)
        }

        /// Where `opacity(x:y:)` looks up the tables for (x, y): four points
        /// at once (their square roots in lanes).
        @inlinable @inline(__always)
        public func positions(x: SIMD4<Float>, y: Float) -> SIMD4<Float> { (x * x + y * y).squareRoot() * positionScale }

        /// `opacity(x:y:base: 1, gradientX: 0, gradientY: 0)` at `positions`'
        /// position, the same value: the plain blurred disc, without the
        /// moment table a gradient needs.
        @inlinable @inline(__always)
        public func discOpacity(at position: Float) -> Float {
            guard position < Float(last) else { return 0 }
            let i = Int(position), f = position - Float(i)
            return min(max(solid[i] + (solid[i + 1] - solid[i]) * f, 0), 1)
        }

        /// `discOpacity` at four pixels of a row, pixel centres `x` + 0…3 (at
        /// most `count` of them; 0 in the rest), for a disc centred at `cx`
        /// of 1/`inverse` pixels' radius, `y` the row's normalised distance
        /// from the centre: `positions` and the lookups in one C function
        /// (`chakra_disc_row_opacities`), the square roots in lanes; lanes
        /// taken apart by a run-time index in Swift went through the stack.
        @inlinable @inline(__always)
        public func discOpacities(x: Float, cx: Float, inverse: Float, y: Float, count: Int) -> SIMD4<Float> {
            chakra_disc_row_opacities(solid, Int32(last), positionScale, x, cx, inverse, y, Int32(count))
        }
    }

    /// The blurred uniform disc at distance ρ.
    public func solidValue(at rho: Double) -> Double { Self.blurredDisc(rho: rho, sigma: sigma) }

    /// k(ρ) = m(ρ)/ρ, the blurred first moment per unit of ρ.
    public func momentValue(at rho: Double) -> Double { Self.blurredMomentOverRho(rho: rho, sigma: sigma) }

    // MARK: - Quadrature

    static func blurredDisc(rho: Double, sigma: Double) -> Double {
        let s2 = sigma * sigma
        return integrate(rho: rho, sigma: sigma) { r in
            r / s2 * exp(-(rho - r) * (rho - r) / (2 * s2)) * besselI0Scaled(rho * r / s2)
        }
    }

    /// m(ρ)/ρ, written with I₁(z)/z so that ρ = 0 needs no special case:
    /// r²/σ² · e^{…} · I₁(ρr/σ²) / ρ = r³/σ⁴ · e^{…} · I₁(z)/z.
    static func blurredMomentOverRho(rho: Double, sigma: Double) -> Double {
        let s2 = sigma * sigma
        return integrate(rho: rho, sigma: sigma) { r in
            r * r * r / (s2 * s2) * exp(-(rho - r) * (rho - r) / (2 * s2)) * besselI1ScaledOverZ(rho * r / s2)
        }
    }

    /// Simpson's rule over r in [0, 1] ∩ [ρ − 7σ, ρ + 7σ], where the
    /// Gaussian factor is not negligible.
    private static func integrate(rho: Double, sigma: Double, _ integrand: (Double) -> Double) -> Double {
        let lo = max(0, rho - 7 * sigma), hi = min(1, rho + 7 * sigma)
        guard lo < hi else { return 0 }
        var n = max(16, Int(((hi - lo) / (sigma / 8)).rounded(.up)))
        n += n % 2
        let h = (hi - lo) / Double(n)
        var sum = integrand(lo) + integrand(hi)
        for k in 1..<n { sum += integrand(lo + Double(k) * h) * (k % 2 == 1 ? 4 : 2) }
        return sum * h / 3
    }
}

/// e^{−z}·I₁(z)/z for z ≥ 0 (Abramowitz & Stegun 9.8.3–9.8.4, relative
/// error < 3·10⁻⁷), finite at z = 0 where it is ½.
func besselI1ScaledOverZ(_ z: Double) -> Double {
    let x = abs(z)
    if x <= 3.75 {
        let t = (x / 3.75) * (x / 3.75)
        let i1OverX = 0.5 + t * (0.87890594 + t * (0.51498869 + t * (0.15084934 + t * (0.02658733 + t * (0.00301532 + t * 0.00032411)))))
        return i1OverX * exp(-x)
    }
    let t = 3.75 / x
    let p = 0.39894228 + t * (-0.03988024 + t * (-0.00362018 + t * (0.00163801 + t * (-0.01031555
        + t * (0.02282967 + t * (-0.02895312 + t * (0.01787654 + t * -0.00420059)))))))
    return p / (x.squareRoot() * x)
}
