/// When a spring counts as at rest.
///
/// The oscillator's energy E = ½k·x² + ½m·v² never grows (dE/dt = −c·v² ≤ 0),
/// so the "energy radius" √(x² + (v/ω₀)²) = √(2E/k) is nonincreasing. Once it is
/// below a threshold, displacement AND velocity stay small for good, which
/// neither |x| nor |v| alone guarantees (x passes through 0 at full speed).
extension Spring {
    /// The energy radius √(x² + (v/ω₀)²) of a state, in displacement units.
    public func energyRadius(displacement x: Double, velocity v: Double) -> Double {
        let scaledVelocity = v / naturalFrequency
        return (x * x + scaledVelocity * scaledVelocity).squareRoot()
    }

    /// The default size of a motion: the larger of the initial displacement
    /// and the distance the initial velocity alone would carry at ω₀.
    public func motionScale(initialDisplacement x0: Double, initialVelocity v0: Double) -> Double {
        max(abs(x0), abs(v0) / naturalFrequency)
    }

    /// The time after which |displacement| ≤ epsilon·scale and
    /// |velocity| ≤ epsilon·scale·ω₀ hold forever (scale defaults to
    /// `motionScale`). Conservative: the energy radius bounds both, and it is
    /// monotone, so the first time it drops below the threshold is the answer.
    /// Returns .infinity for an undamped spring that is not at rest.
    public func settlingTime(initialDisplacement x0: Double, initialVelocity v0: Double,
                             epsilon: Double = 0.001, scale: Double? = nil) -> Double {
        let threshold = epsilon * (scale ?? motionScale(initialDisplacement: x0, initialVelocity: v0))
        let isSettled = { (t: Double) -> Bool in
            let s = self.state(at: t, initialDisplacement: x0, initialVelocity: v0)
            return self.energyRadius(displacement: s.displacement, velocity: s.velocity) <= threshold
        }
        if isSettled(0) { return 0 }
        if damping == 0 { return .infinity }
        return Self.firstTime(where: isSettled)
    }

    /// The first t where a monotone false→true predicate turns true: doubling
    /// to bracket it, then bisection to ~1e-9 s.
    private static func firstTime(where predicate: (Double) -> Bool) -> Double {
        var low = 0.0, high = 1.0 / 64
        while !predicate(high) {
            low = high
            high *= 2
            if high > 1e9 { return .infinity }
        }
        while high - low > 1e-9 * max(1, high) {
            let middle = (low + high) / 2
            if predicate(middle) { high = middle } else { low = middle }
        }
        return high
    }
}
