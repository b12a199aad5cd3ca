/// A spring-driven value that can be retargeted mid-flight keeping its
/// velocity, as SwiftUI and Framer Motion do when an animated value changes
/// again before it has settled.
///
/// Pure: it stores where the current leg started (time, value, velocity), the
/// target and the spring, and evaluates the closed form. No clock is read;
/// retargeting is the only mutation and it starts a new leg.
public struct SpringAnimation<Value: SpringValue>: Sendable {
    public private(set) var spring: Spring
    public private(set) var startTime: Double
    public private(set) var startValue: Value
    public private(set) var startVelocity: Value
    public private(set) var target: Value
    /// The size of the current leg, the reference for `epsilon` in `isSettled`.
    public private(set) var motionScale: Double

    public init(spring: Spring, from value: Value, to target: Value, startTime: Double,
                initialVelocity: Value = .zero) {
        self.spring = spring
        self.startTime = startTime
        self.startValue = value
        self.startVelocity = initialVelocity
        self.target = target
        self.motionScale = Self.scale(spring, value - target, initialVelocity)
    }

    /// The value at scene time `t`; before `startTime` it is the start value.
    public func value(at t: Double) -> Value {
        guard t > startTime else { return startValue }
        let basis = responses(at: t - startTime)
        return target + (startValue - target) * basis.x.fromDisplacement + startVelocity * basis.x.fromVelocity
    }

    /// The velocity (units per second) at scene time `t`.
    public func velocity(at t: Double) -> Value {
        guard t > startTime else { return startVelocity }
        let basis = responses(at: t - startTime)
        return (startValue - target) * basis.v.fromDisplacement + startVelocity * basis.v.fromVelocity
    }

    /// True once displacement and velocity are within `epsilon` of this leg's
    /// size and will stay there (see `Spring+Settling`: the energy radius
    /// √(|x|² + |v|²/ω₀²) never grows, so one check at `t` is enough).
    public func isSettled(at t: Double, epsilon: Double = 0.001) -> Bool {
        let displacement = (value(at: t) - target).springMagnitudeSquared
        let speed = velocity(at: t).springMagnitudeSquared
        let omega = spring.naturalFrequency
        let radiusSquared = displacement + speed / (omega * omega)
        let threshold = epsilon * motionScale
        return radiusSquared <= threshold * threshold
    }

    /// When this leg settles, in scene time (`startTime` + the spring's
    /// settling time for the leg).
    public func settlingTime(epsilon: Double = 0.001) -> Double {
        // The leg moves as X0·f(t) + V0·g(t). Its squared energy radius is a
        // convex combination (weighted by the cosine of the angle between X0
        // and V0) of those of two scalar legs, (|X0|, +|V0|) and (|X0|, −|V0|),
        // so once both of those have settled, the vector leg has too.
        let x0 = (startValue - target).springMagnitudeSquared.squareRoot()
        let v0 = startVelocity.springMagnitudeSquared.squareRoot()
        let alignedWorstCase = max(
            spring.settlingTime(initialDisplacement: x0, initialVelocity: v0, epsilon: epsilon, scale: motionScale),
            spring.settlingTime(initialDisplacement: x0, initialVelocity: -v0, epsilon: epsilon, scale: motionScale))
        return startTime + alignedWorstCase
    }

    /// Retarget at time `t`: a new leg starts from `value(at: t)` with
    /// `velocity(at: t)` toward `newTarget`, optionally with a new spring.
    /// Position and velocity are continuous across the switch.
    public mutating func retarget(to newTarget: Value, at t: Double, spring newSpring: Spring? = nil) {
        let currentValue = value(at: t)
        let currentVelocity = velocity(at: t)
        spring = newSpring ?? spring
        startTime = t
        startValue = currentValue
        startVelocity = currentVelocity
        target = newTarget
        motionScale = Self.scale(spring, currentValue - newTarget, currentVelocity)
    }

    // MARK: - Linear response

    /// The scalar responses of the spring at elapsed time `dt`: how the
    /// displacement and velocity depend on a unit initial displacement and on
    /// a unit initial velocity. Any vector start state is a combination of
    /// these, which keeps evaluation at two scalar solves, whatever the type.
    private func responses(at dt: Double)
        -> (x: (fromDisplacement: Double, fromVelocity: Double),
            v: (fromDisplacement: Double, fromVelocity: Double)) {
        let unitDisplacement = spring.state(at: dt, initialDisplacement: 1, initialVelocity: 0)
        let unitVelocity = spring.state(at: dt, initialDisplacement: 0, initialVelocity: 1)
        return ((unitDisplacement.displacement, unitVelocity.displacement),
                (unitDisplacement.velocity, unitVelocity.velocity))
    }

    private static func scale(_ spring: Spring, _ displacement: Value, _ velocity: Value) -> Double {
        spring.motionScale(initialDisplacement: displacement.springMagnitudeSquared.squareRoot(),
                           initialVelocity: velocity.springMagnitudeSquared.squareRoot())
    }
}
