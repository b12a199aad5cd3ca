import Foundation
import Testing
@testable import ChakraMotion

@Suite("Spring")
struct SpringTests {
    /// ζ = c / (2√(km)); with k = 100, m = 1: c = 20ζ.
    static let regimes: [(name: String, spring: Spring, zeta: Double)] = [
        ("under-damped ζ = 0.5", Spring(stiffness: 100, damping: 10), 0.5),
        ("critically damped ζ = 1", Spring(stiffness: 100, damping: 20), 1),
        ("over-damped ζ = 2", Spring(stiffness: 100, damping: 40), 2),
        ("heavy under-damped ζ = 0.5", Spring(mass: 2, stiffness: 50, damping: 10), 0.5),
    ]
    static let startStates: [(x0: Double, v0: Double)] = [(1, 0), (0, 3), (-2.5, 7)]
    static let times: [Double] = [0, 0.01, 0.05, 0.1, 0.25, 0.5, 0.8, 1.3, 2]

    @Test("damping ratio", arguments: regimes.indices)
    func dampingRatio(index: Int) {
        #expect(isClose(Self.regimes[index].spring.dampingRatio, Self.regimes[index].zeta, 1e-12))
    }

    @Test("matches an independent closed form", arguments: regimes.indices)
    func matchesClosedForm(index: Int) {
        let spring = Self.regimes[index].spring
        for start in Self.startStates {
            for t in Self.times {
                let state = spring.state(at: t, initialDisplacement: start.x0, initialVelocity: start.v0)
                let reference = ReferenceOscillator.closedForm(t: t, x0: start.x0, v0: start.v0, mass: spring.mass,
                                                               stiffness: spring.stiffness, damping: spring.damping)
                #expect(isClose(state.displacement, reference.x, 1e-9), "\(Self.regimes[index].name) t = \(t)")
                #expect(isClose(state.velocity, reference.v, 1e-9), "\(Self.regimes[index].name) t = \(t)")
            }
        }
    }

    @Test("matches RK4 integration of the ODE", arguments: regimes.indices)
    func matchesNumericalIntegration(index: Int) {
        let spring = Self.regimes[index].spring
        for start in Self.startStates {
            for t in Self.times {
                let state = spring.state(at: t, initialDisplacement: start.x0, initialVelocity: start.v0)
                let integrated = ReferenceOscillator.rk4(t: t, x0: start.x0, v0: start.v0, mass: spring.mass,
                                                         stiffness: spring.stiffness, damping: spring.damping)
                #expect(isClose(state.displacement, integrated.x, 1e-6), "\(Self.regimes[index].name) t = \(t)")
                #expect(isClose(state.velocity, integrated.v, 1e-6), "\(Self.regimes[index].name) t = \(t)")
            }
        }
    }

    /// Hand check of the under-damped form at t = π/ω_d, half a damped period:
    /// ω₀ = 10, ζ = 0.5 ⇒ ω_d = 10·√0.75 = 8.660254, decay ζω₀ = 5.
    /// From x0 = 1, v0 = 0: x = e^(−5π/ω_d)·cos(π) = −e^(−1.813799) = −0.163033.
    @Test func underDampedHalfPeriodByHand() {
        let spring = Spring(stiffness: 100, damping: 10)
        let halfPeriod = Double.pi / (10 * 0.75.squareRoot())
        let state = spring.state(at: halfPeriod, initialDisplacement: 1, initialVelocity: 0)
        #expect(isClose(state.displacement, -0.163033, 1e-6))
        #expect(isClose(state.velocity, 0, 1e-12))  // a turning point
    }

    /// Nearly critical springs must not blow up: the critical formula takes
    /// over within 1e-9 of ζ = 1, and just outside it both sides agree.
    @Test func continuousAcrossCriticalDamping() {
        let critical = Spring(stiffness: 100, damping: 20)
        let below = Spring(stiffness: 100, damping: 20 * (1 - 1e-7))
        let above = Spring(stiffness: 100, damping: 20 * (1 + 1e-7))
        for t in [0.05, 0.2, 0.6] {
            let c = critical.state(at: t, initialDisplacement: 1, initialVelocity: 2).displacement
            #expect(isClose(below.state(at: t, initialDisplacement: 1, initialVelocity: 2).displacement, c, 1e-6))
            #expect(isClose(above.state(at: t, initialDisplacement: 1, initialVelocity: 2).displacement, c, 1e-6))
        }
    }

    @Test func swiftUIResponseMapping() {
        let spring = Spring(response: 0.5, dampingFraction: 0.825)
        #expect(spring.mass == 1)
        #expect(isClose(spring.stiffness, 157.9137, 1e-4))  // (2π / 0.5)² = 16π²
        #expect(isClose(spring.damping, 20.7345, 1e-4))     // 4π · 0.825 / 0.5 = 6.6π
        #expect(isClose(spring.dampingRatio, 0.825, 1e-12))
        #expect(isClose(spring.response, 0.5, 1e-12))
    }

    /// Apple's `Spring` documentation: Spring(duration: 0.5, bounce: 0.3) has
    /// mass 1, stiffness 157.9, damping 17.6; Spring(mass: 1, stiffness: 100,
    /// damping: 10) has duration 0.63 and bounce 0.5.
    @Test func swiftUIDurationBounceMapping() {
        let spring = Spring(duration: 0.5, bounce: 0.3)
        #expect(isClose(spring.stiffness, 157.9, 0.05))
        #expect(isClose(spring.damping, 17.6, 0.05))
        let framer = Spring.framerMotionDefault
        #expect(isClose(framer.response, 0.63, 0.005))
        #expect(isClose(1 - framer.dampingRatio, 0.5, 1e-12))
        #expect(isClose(Spring(duration: 0.5, bounce: -0.5).dampingRatio, 2, 1e-12))
        #expect(isClose(Spring.smooth.dampingRatio, 1, 1e-12))
    }

    @Test func interactiveSpring() {
        let spring = Spring.interactive()
        #expect(isClose(spring.stiffness, pow(2 * .pi / 0.15, 2), 1e-9))
        #expect(isClose(spring.dampingRatio, 0.86, 1e-12))
    }

    @Test("settling time is tight and final", arguments: regimes.indices)
    func settlingTime(index: Int) {
        let spring = Self.regimes[index].spring
        let omega = spring.naturalFrequency
        let epsilon = 0.001
        for start in Self.startStates {
            let settle = spring.settlingTime(initialDisplacement: start.x0, initialVelocity: start.v0, epsilon: epsilon)
            let scale = max(abs(start.x0), abs(start.v0) / omega)
            #expect(settle > 0 && settle < 10)
            // After: displacement and velocity stay small at every sampled time.
            for step in 0...2000 {
                let t = settle + Double(step) * 0.005
                let s = spring.state(at: t, initialDisplacement: start.x0, initialVelocity: start.v0)
                #expect(abs(s.displacement) <= epsilon * scale * (1 + 1e-9))
                #expect(abs(s.velocity) <= epsilon * scale * omega * (1 + 1e-9))
            }
            // Before: 2% earlier, the motion is not yet within the bound.
            let early = spring.state(at: settle * 0.98, initialDisplacement: start.x0, initialVelocity: start.v0)
            #expect(spring.energyRadius(displacement: early.displacement, velocity: early.velocity) > epsilon * scale)
        }
    }

    @Test func settlingEdgeCases() {
        let spring = Spring(stiffness: 100, damping: 10)
        #expect(spring.settlingTime(initialDisplacement: 0, initialVelocity: 0) == 0)
        #expect(Spring(stiffness: 100, damping: 0).settlingTime(initialDisplacement: 1, initialVelocity: 0) == .infinity)
        // A bigger reference scale settles sooner.
        let own = spring.settlingTime(initialDisplacement: 1, initialVelocity: 0)
        let coarse = spring.settlingTime(initialDisplacement: 1, initialVelocity: 0, scale: 100)
        #expect(coarse < own)
    }
}
