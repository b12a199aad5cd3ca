/// A damped harmonic oscillator, m·x'' + c·x' + k·x = 0, where x is the
/// displacement of the animated value from its target.
///
/// Three parametrisations meet here: the physical one (mass, stiffness,
/// damping; Framer Motion, CASpringAnimation), SwiftUI's response and damping
/// fraction, and SwiftUI's perceptual duration and bounce.
public struct Spring: Sendable, Equatable, Hashable {
    public var mass: Double
    public var stiffness: Double
    public var damping: Double

    /// The physical parametrisation, as Framer Motion and `CASpringAnimation`
    /// take it (Framer Motion's defaults: stiffness 100, damping 10, mass 1).
    public init(mass: Double = 1, stiffness: Double, damping: Double) {
        precondition(mass > 0 && mass.isFinite, "spring mass must be > 0")
        precondition(stiffness > 0 && stiffness.isFinite, "spring stiffness must be > 0")
        precondition(damping >= 0 && damping.isFinite, "spring damping must be >= 0")
        self.mass = mass
        self.stiffness = stiffness
        self.damping = damping
    }

    /// SwiftUI `spring(response:dampingFraction:)`: mass 1,
    /// stiffness (2π / response)², damping 4π · dampingFraction / response.
    /// `response` is the period of the undamped oscillation in seconds.
    public init(response: Double, dampingFraction: Double) {
        precondition(response > 0, "spring response must be > 0")
        let angularFrequency = 2 * Double.pi / response
        self.init(mass: 1, stiffness: angularFrequency * angularFrequency,
                  damping: 4 * Double.pi * dampingFraction / response)
    }

    /// SwiftUI `Spring(duration:bounce:)` (iOS 17): `duration` acts as the
    /// response; bounce 0 is critically damped, bounce b > 0 gives damping
    /// fraction 1 − b, and b < 0 (over-damped) gives 1 / (1 + b). Apple's own
    /// example: duration 0.5, bounce 0.3 ⇒ stiffness 157.9, damping 17.6.
    public init(duration: Double = 0.5, bounce: Double = 0) {
        precondition(bounce > -1 && bounce <= 1, "bounce must be in (-1, 1]")
        let fraction = bounce >= 0 ? 1 - bounce : 1 / (1 + bounce)
        self.init(response: duration, dampingFraction: fraction)
    }

    /// SwiftUI `.interactiveSpring()`: response 0.15, damping fraction 0.86.
    /// SwiftUI's third parameter, blendDuration 0.25, blends a replaced
    /// animation into the new one; it is not part of the spring itself and is
    /// ignored here (retargeting in `SpringAnimation` keeps velocity instead).
    public static func interactive(response: Double = 0.15, dampingFraction: Double = 0.86) -> Spring {
        Spring(response: response, dampingFraction: dampingFraction)
    }

    /// SwiftUI `Spring.smooth`: duration 0.5, bounce 0 (critically damped).
    public static let smooth = Spring(duration: 0.5, bounce: 0)
    /// SwiftUI `Spring.snappy`: duration 0.5, bounce 0.15.
    public static let snappy = Spring(duration: 0.5, bounce: 0.15)
    /// SwiftUI `Spring.bouncy`: duration 0.5, bounce 0.3.
    public static let bouncy = Spring(duration: 0.5, bounce: 0.3)
    /// Framer Motion's default spring: stiffness 100, damping 10, mass 1.
    public static let framerMotionDefault = Spring(mass: 1, stiffness: 100, damping: 10)

    /// ζ = c / (2√(k·m)): < 1 oscillates, 1 is critical, > 1 creeps.
    public var dampingRatio: Double { damping / (2 * (stiffness * mass).squareRoot()) }

    /// ω₀ = √(k / m), the undamped angular frequency (rad/s).
    public var naturalFrequency: Double { (stiffness / mass).squareRoot() }

    /// 2π / ω₀: SwiftUI's `response`, the undamped period in seconds.
    public var response: Double { 2 * Double.pi / naturalFrequency }
}
