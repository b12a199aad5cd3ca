import ChakraDaemon
import Foundation
import Testing

@Suite("Crossfade timeline")
struct CrossfadeTests {
    /// The underdamped spring from 0 to 1 at rest, in closed form
    /// (x = 1 − e^(−ζω₀t)(cos ω_d t + ζω₀/ω_d · sin ω_d t)), ω₀ = 2π/response.
    static func closedForm(_ t: Double, response: Double, zeta: Double = 0.8) -> Double {
        let omega = 2 * Double.pi / response
        let omegaD = omega * (1 - zeta * zeta).squareRoot()
        return 1 - exp(-zeta * omega * t) * (cos(omegaD * t) + zeta * omega / omegaD * sin(omegaD * t))
    }

    @Test("howruSmooth by default: response 0.5 s, damping 0.8, clamped to [0, 1]")
    func defaultSpring() {
        let fade = Crossfade(at: 10)
        #expect(fade.amount(at: 10) == 0)
        #expect(fade.amount(at: 9) == 0)
        var overshot = false
        for step in 1...200 {
            let t = Double(step) * 0.01
            let expected = Self.closedForm(t, response: 0.5)
            overshot = overshot || expected > 1
            #expect(abs(fade.amount(at: 10 + t) - min(expected, 1)) < 1e-9, "t = \(t)")
            #expect(fade.amount(at: 10 + t) <= 1)
        }
        #expect(overshot, "damping 0.8 overshoots: the clamp is exercised")
        #expect(!fade.isFinished(at: 10.3))
        #expect(fade.isFinished(at: 12))
    }

    @Test("a duration is the spring's response")
    func duration() {
        let fade = Crossfade(at: 0, duration: 1.2)
        for t in [0.1, 0.4, 0.9, 1.5] { #expect(abs(fade.amount(at: t) - min(Self.closedForm(t, response: 1.2), 1)) < 1e-9) }
    }

    @Test("reduce motion: a linear fade of 0.3 s")
    func reducedMotion() {
        let fade = Crossfade(at: 5, duration: 2, reduceMotion: true)
        #expect(abs(fade.amount(at: 5.15) - 0.5) < 1e-12)
        #expect(abs(fade.amount(at: 5.075) - 0.25) < 1e-12)
        #expect(!fade.isFinished(at: 5.29))
        #expect(fade.isFinished(at: 5.3) && abs(fade.amount(at: 5.3) - 1) < 1e-9)
    }

    @Test("switching back mid-fade: the other side's share, continuing with no jump", arguments: [false, true])
    func swapped(reduceMotion: Bool) {
        let fade = Crossfade(at: 0, reduceMotion: reduceMotion)
        let before = fade.amount(at: 0.1)
        #expect(before > 0.05 && before < 0.95)
        let back = fade.swapped(at: 0.1)
        // The scene being left now has the share the incoming one had lost.
        #expect(abs(back.amount(at: 0.1) - (1 - before)) < 1e-12)
        if !reduceMotion {
            // Still moving the old way for a moment (velocity kept): the
            // share of the scene switched back to first shrinks a little.
            #expect(back.amount(at: 0.11) < back.amount(at: 0.1))
        }
        #expect(back.amount(at: 5) > 0.999)
        #expect(back.isFinished(at: 5))
        #expect(!back.isFinished(at: 0.12))
    }
}
