import Testing
@testable import ChakraMotion

@Suite("SpringAnimation")
struct SpringAnimationTests {
    static let spring = Spring(response: 0.5, dampingFraction: 0.6)

    @Test func followsTheSpringFromItsStartTime() {
        let animation = SpringAnimation(spring: Self.spring, from: 0.0, to: 100, startTime: 3)
        #expect(animation.value(at: 2) == 0)  // before the start: the start value
        #expect(animation.value(at: 3) == 0)
        for dt in [0.05, 0.2, 0.7] {
            let expected = Self.spring.state(at: dt, initialDisplacement: -100, initialVelocity: 0)
            #expect(isClose(animation.value(at: 3 + dt), 100 + expected.displacement, 1e-9))
            #expect(isClose(animation.velocity(at: 3 + dt), expected.velocity, 1e-9))
        }
    }

    @Test func initialVelocityIsHonoured() {
        let animation = SpringAnimation(spring: Self.spring, from: 10.0, to: 10, startTime: 0, initialVelocity: 50)
        let expected = Self.spring.state(at: 0.1, initialDisplacement: 0, initialVelocity: 50)
        #expect(isClose(animation.value(at: 0.1), 10 + expected.displacement, 1e-9))
        #expect(animation.velocity(at: 0) == 50)
    }

    @Test func velocityIsTheDerivativeOfValue() {
        let animation = SpringAnimation(spring: Self.spring, from: SIMD2<Double>(0, 0), to: SIMD2(30, -10),
                                        startTime: 0, initialVelocity: SIMD2(0, 40))
        let h = 1e-6
        for t in [0.03, 0.15, 0.4] {
            let numeric = (animation.value(at: t + h) - animation.value(at: t - h)) / (2 * h)
            let analytic = animation.velocity(at: t)
            #expect(isClose(numeric.x, analytic.x, 1e-4) && isClose(numeric.y, analytic.y, 1e-4))
        }
    }

    @Test func vectorComponentsMoveLikeScalarSprings() {
        let animation = SpringAnimation(spring: Self.spring, from: SIMD4<Double>(1, 2, 3, 4), to: SIMD4(0, 0, 0, 0),
                                        startTime: 0, initialVelocity: SIMD4(5, 0, -5, 1))
        let t = 0.27
        let value = animation.value(at: t)
        for i in 0..<4 {
            let scalar = SpringAnimation(spring: Self.spring, from: Double(i + 1), to: 0, startTime: 0,
                                         initialVelocity: [5.0, 0, -5, 1][i])
            #expect(isClose(value[i], scalar.value(at: t), 1e-12))
        }
    }

    @Test func retargetKeepsPositionAndVelocityContinuous() {
        var animation = SpringAnimation(spring: Self.spring, from: 0.0, to: 100, startTime: 0)
        let t = 0.2
        let valueBefore = animation.value(at: t)
        let velocityBefore = animation.velocity(at: t)
        let before = animation
        animation.retarget(to: -40, at: t)
        #expect(animation.target == -40)
        #expect(animation.value(at: t) == valueBefore)
        #expect(animation.velocity(at: t) == velocityBefore)
        // Just after the switch the new leg and the old one part only at second
        // order in position and first order in velocity: the spring force jumps
        // by k·|Δtarget| (acceleration by k·140/m), the state does not.
        let h = 1e-7
        let accelerationJump = Self.spring.stiffness * 140 / Self.spring.mass
        #expect(isClose(animation.value(at: t + h), before.value(at: t + h), accelerationJump * h * h + 1e-9))
        #expect(isClose(animation.velocity(at: t + h), before.velocity(at: t + h), 1.01 * accelerationJump * h))
        #expect(!isClose(animation.velocity(at: t + 0.05), before.velocity(at: t + 0.05), 1))
        // …but afterwards it heads for the new target.
        #expect(isClose(animation.value(at: t + 10), -40, 1e-6))
    }

    @Test func retargetCanSwapTheSpring() {
        var animation = SpringAnimation(spring: Self.spring, from: SIMD2<Double>(0, 0), to: SIMD2(10, 10), startTime: 1)
        let t = 1.1
        let valueBefore = animation.value(at: t), velocityBefore = animation.velocity(at: t)
        animation.retarget(to: SIMD2(0, 5), at: t, spring: .interactive())
        #expect(animation.spring == .interactive())
        #expect(animation.value(at: t) == valueBefore)
        #expect(animation.velocity(at: t) == velocityBefore)
        let later = animation.value(at: t + 0.05)
        let expectedX = Spring.interactive().state(at: 0.05, initialDisplacement: valueBefore.x,
                                                   initialVelocity: velocityBefore.x).displacement
        #expect(isClose(later.x, expectedX, 1e-9))
    }

    @Test func settles() {
        let animation = SpringAnimation(spring: Self.spring, from: 0.0, to: 100, startTime: 2)
        let settle = animation.settlingTime()
        #expect(!animation.isSettled(at: 2))
        #expect(!animation.isSettled(at: 2 + (settle - 2) * 0.97))
        #expect(animation.isSettled(at: settle))
        #expect(animation.isSettled(at: settle + 5))
        #expect(abs(animation.value(at: settle) - 100) <= 0.1)
        let resting = SpringAnimation(spring: Self.spring, from: 5.0, to: 5, startTime: 0)
        #expect(resting.isSettled(at: 0))
    }

    @Test func vectorSettlingTimeIsConservative() {
        let animation = SpringAnimation(spring: Self.spring, from: SIMD2<Double>(0, 0), to: SIMD2(10, 0),
                                        startTime: 0, initialVelocity: SIMD2(0, 80))
        let settle = animation.settlingTime()
        for step in 0...400 {
            #expect(animation.isSettled(at: settle + Double(step) * 0.01))
        }
    }
}
