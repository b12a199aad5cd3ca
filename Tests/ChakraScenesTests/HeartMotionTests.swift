import ChakraMotion
import ChakraScenes
import Foundation
import Testing

/// CSS ease-out, cubic-bezier(0, 0, 0.58, 1), solved here by bisection on
/// the curve parameter: independent of ChakraMotion's solver.
func referenceBezier(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, _ x: Double) -> Double {
    func bezier(_ p1: Double, _ p2: Double, _ s: Double) -> Double { 3 * (1 - s) * (1 - s) * s * p1 + 3 * (1 - s) * s * s * p2 + s * s * s }
    var lo = 0.0, hi = 1.0
    for _ in 0..<80 {
        let mid = (lo + hi) / 2
        if bezier(x1, x2, mid) < x { lo = mid } else { hi = mid }
    }
    return bezier(y1, y2, (lo + hi) / 2)
}

func referenceEaseOut(_ x: Double) -> Double { referenceBezier(0, 0, 0.58, 1, x) }
func referenceEaseInOut(_ x: Double) -> Double { referenceBezier(0.42, 0, 0.58, 1, x) }

@Suite("Heart motion follows the keyframes (heart-params.json)")
struct HeartMotionTests {
    let motion = HeartMotion()

    @Test("pulse ring at t = 0.3 s: opacity at its 12% keyframe, scale eased over the whole cycle")
    func pulseRing() {
        let state = motion.state(at: 0.3)
        // 0.3 s of 2.5 s is progress 0.12, exactly the opacity keyframe 0.6.
        #expect(abs(state.ringOpacity - 0.6) < 1e-9)
        // Scale has keyframes at 0 and 1 only: one ease-out segment.
        #expect(abs(state.ringScale - (0.6 + 9.4 * referenceEaseOut(0.12))) < 1e-6)
        // Half-way through the fade segment (progress 0.56): 0.6 × (1 − easeOut(0.5)).
        let later = motion.state(at: 0.56 * 2.5)
        #expect(abs(later.ringOpacity - 0.6 * (1 - referenceEaseOut(0.5))) < 1e-6)
        // Next cycle repeats.
        #expect(abs(motion.state(at: 2.5 + 0.3).ringOpacity - 0.6) < 1e-9)
    }

    @Test("glow and centre peak at their 10% keyframe")
    func heartPulsePeak() {
        let peak = motion.state(at: 0.25)
        #expect(abs(peak.glowBlur - 24) < 1e-9 && abs(peak.glowBrightness - 1.2) < 1e-9 && abs(peak.glowOpacity - 0.75) < 1e-9)
        #expect(abs(peak.centerScale - 1.08) < 1e-9 && abs(peak.centerBlur - 6) < 1e-9 && abs(peak.centerBrightness - 1.3) < 1e-9)
        // Half-way down (progress 0.55 = half of the 0.1 → 1 segment).
        let falling = motion.state(at: 0.55 * 2.5)
        #expect(abs(falling.centerScale - (1.08 - 0.08 * referenceEaseOut(0.5))) < 1e-6)
    }

    @Test("band drift: backwards fill during the delay, keyframes reached on time")
    func bandDrift() {
        // Band 1: delay 2 s, fill backwards: the 0% keyframe (-0.06, 0) before it starts.
        #expect(motion.state(at: 0).bands[0].translate == SIMD2(-0.06, 0))
        #expect(motion.state(at: 1.9).bands[0].translate == SIMD2(-0.06, 0))
        // 2 s + 25% of 48 s: the 25% keyframe (0, -0.18).
        let quarter = motion.state(at: 2 + 12).bands[0].translate
        #expect(abs(quarter.x) < 1e-9 && abs(quarter.y + 0.18) < 1e-9)
        // Between keyframes the segment is eased (ease-in-out at its midpoint is 0.5).
        let eighth = motion.state(at: 2 + 6).bands[0].translate
        #expect(abs(eighth.x + 0.03) < 1e-9 && abs(eighth.y + 0.09) < 1e-9)
    }

    @Test("band colours cycle through the palette")
    func bandColours() {
        // Band 2 starts rose and reaches amber at 25% of 144 s; alpha stays 0.28.
        let rose = motion.state(at: 0).bands[1].color
        #expect(abs(rose.x - 255.0 / 255 * 0.28) < 1e-9 && abs(rose.y - 100.0 / 255 * 0.28) < 1e-9 && abs(rose.w - 0.28) < 1e-12)
        let amber = motion.state(at: 36).bands[1].color
        #expect(abs(amber.y - 200.0 / 255 * 0.28) < 1e-9 && abs(amber.z - 120.0 / 255 * 0.28) < 1e-9)
    }

    @Test("mist: linear rotation, alternating opacity")
    func mist() {
        #expect(abs(motion.state(at: 11.25).mistRotationDegrees - 90) < 1e-9)
        #expect(abs(motion.state(at: 0).mistOpacity - 0.25) < 1e-12)
        #expect(abs(motion.state(at: 28).mistOpacity - 0.35) < 1e-9)
        #expect(abs(motion.state(at: 42).mistOpacity - 0.30) < 1e-9)   // ease-in-out mid-point, going back
        #expect(abs(motion.state(at: 56).mistOpacity - 0.25) < 1e-9)
    }

    @Test("particles: fade × twinkle, backwards fill before their delays")
    func particles() {
        // Particle 2: delay 3 s (fade 0.2 before it), twinkle delay 1 s (0.3 at its start).
        let p = motion.state(at: 1).particles[1]
        #expect(abs(p.opacity - 0.2 * 0.3) < 1e-9)
        #expect(p.drift == .zero)
        // Particle 1 at 3.6 s: 30% of its 12 s fade cycle is the 0.8 keyframe;
        // its twinkle is 80% through 4.5 s, 0.6 into the 0.9 → 0.3 segment.
        let q = motion.state(at: 3.6).particles[0]
        #expect(abs(q.opacity - 0.8 * (0.9 - 0.6 * referenceEaseInOut(0.6))) < 1e-6)
    }

    @Test("the reduce-motion state is the resting composition")
    func resting() {
        let state = motion.restingState()
        #expect(state.ringOpacity == 0)
        #expect(state.particles.allSatisfy { !$0.visible })
        #expect(state.glowOpacity == 0.6 && state.centerScale == 1)
    }
}
