import Testing
@testable import ChakraMotion

@Suite("KeyframeAnimation")
struct KeyframeAnimationTests {
    /// The "pulse ring": a ring grows from 0.6× to 10× while it flashes in and
    /// fades out, 2.5 s per pulse, ease-out on every segment (CSS default model).
    static let timing = AnimationTiming(duration: 2.5)
    static let scale = KeyframeAnimation(
        KeyframeTrack([Keyframe(0, 0.6), Keyframe(1, 10)], easing: .perSegment(.easeOut)), timing: timing)
    static let opacity = KeyframeAnimation(
        KeyframeTrack([Keyframe(0, 0.0), Keyframe(0.12, 0.6), Keyframe(1, 0)], easing: .perSegment(.easeOut)),
        timing: timing)

    /// t = 0.3 s ⇒ progress 0.3 / 2.5 = 0.12: exactly on the opacity keyframe,
    /// so opacity is that keyframe's 0.6 (start of segment [0.12, 1], local 0,
    /// easeOut(0) = 0). Scale is in its only segment at local 0.12:
    /// 0.6 + 9.4·easeOut(0.12), where by hand easeOut(0.12): solve
    /// 1.74s² − 0.74s³ = 0.12 ⇒ s ≈ 0.279786, y = 3s² − 2s³ ≈ 0.191037.
    @Test func pulseRingAtPointThreeSeconds() {
        #expect(Self.timing.directedProgress(at: 0.3) == 0.12)
        #expect(Self.opacity.value(at: 0.3) == 0.6)
        let scale = Self.scale.value(at: 0.3)!
        #expect(isClose(scale, 0.6 + 9.4 * TimingFunction.easeOut.value(at: 0.12), 1e-12))
        #expect(isClose(scale, 0.6 + 9.4 * 0.191037, 1e-5))
    }

    @Test func pulseRingRepeatsEveryCycle() {
        for t in [0.1, 0.3, 1.7] {
            #expect(isClose(Self.opacity.value(at: t)!, Self.opacity.value(at: t + 2.5 * 3)!, 1e-9))
        }
        #expect(Self.opacity.value(at: 0) == 0)
        #expect(Self.scale.value(at: 0) == 0.6)
    }

    @Test func noEffectFallsBackToBase() {
        let delayed = KeyframeAnimation(
            KeyframeTrack([Keyframe(0, 1.0), Keyframe(1, 2)], easing: .perSegment(.linear)),
            timing: AnimationTiming(duration: 1, delay: 1, iterations: 1))
        #expect(delayed.value(at: 0.5) == nil)
        #expect(delayed.value(at: 0.5, base: 7) == 7)
        #expect(delayed.value(at: 1.5, base: 7) == 1.5)
        #expect(delayed.value(at: 3, base: 7) == 7)
    }
}
