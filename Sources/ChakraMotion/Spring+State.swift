import Glibc  // exp, sin, cos

/// Closed-form solution of m·x'' + c·x' + k·x = 0 with x(0) = x0, x'(0) = v0
/// (any mechanics or ODE text; e.g. Kreyszig, Advanced Engineering
/// Mathematics, §2.4). Evaluating the formula instead of integrating steps
/// makes a frame a pure function of time: no state, no drift, no dt.
extension Spring {
    /// ζ within this distance of 1 uses the critical formula: the
    /// under/over-damped forms divide by √|1 − ζ²|, which vanishes there.
    static let criticalTolerance = 1e-9

    /// Displacement (value − target) and velocity at time `t` ≥ 0 for an
    /// initial displacement `x0` and initial velocity `v0`.
    public func state(at t: Double, initialDisplacement x0: Double,
                      initialVelocity v0: Double) -> (displacement: Double, velocity: Double) {
        let zeta = dampingRatio
        let omega = naturalFrequency
        if abs(zeta - 1) <= Self.criticalTolerance {
            return Self.criticallyDamped(t, x0, v0, omega: omega)
        } else if zeta < 1 {
            return Self.underDamped(t, x0, v0, omega: omega, zeta: zeta)
        } else {
            return Self.overDamped(t, x0, v0, omega: omega, zeta: zeta)
        }
    }

    /// ζ < 1: x = e^(−ζω₀t)·(x0·cos ω_d t + B·sin ω_d t), ω_d = ω₀√(1 − ζ²),
    /// B = (v0 + ζω₀x0) / ω_d.
    private static func underDamped(_ t: Double, _ x0: Double, _ v0: Double,
                                    omega: Double, zeta: Double) -> (displacement: Double, velocity: Double) {
        let decay = zeta * omega
        let omegaD = omega * (1 - zeta * zeta).squareRoot()
        let b = (v0 + decay * x0) / omegaD
        let envelope = exp(-decay * t)
        let cosine = cos(omegaD * t), sine = sin(omegaD * t)
        let displacement = envelope * (x0 * cosine + b * sine)
        let velocity = envelope * ((b * omegaD - decay * x0) * cosine - (decay * b + omegaD * x0) * sine)
        return (displacement, velocity)
    }

    /// ζ = 1: x = e^(−ω₀t)·(x0 + (v0 + ω₀x0)·t).
    private static func criticallyDamped(_ t: Double, _ x0: Double, _ v0: Double,
                                         omega: Double) -> (displacement: Double, velocity: Double) {
        let b = v0 + omega * x0
        let envelope = exp(-omega * t)
        let displacement = envelope * (x0 + b * t)
        let velocity = envelope * (v0 - omega * b * t)
        return (displacement, velocity)
    }

    /// ζ > 1: x = C1·e^(r1 t) + C2·e^(r2 t), r1,2 = −ω₀(ζ ∓ √(ζ² − 1)),
    /// C1 = (v0 − r2·x0) / (r1 − r2), C2 = x0 − C1.
    private static func overDamped(_ t: Double, _ x0: Double, _ v0: Double,
                                   omega: Double, zeta: Double) -> (displacement: Double, velocity: Double) {
        let root = (zeta * zeta - 1).squareRoot()
        let r1 = -omega * (zeta - root)
        let r2 = -omega * (zeta + root)
        let c1 = (v0 - r2 * x0) / (r1 - r2)
        let c2 = x0 - c1
        let e1 = exp(r1 * t), e2 = exp(r2 * t)
        return (c1 * e1 + c2 * e2, c1 * r1 * e1 + c2 * r2 * e2)
    }
}
