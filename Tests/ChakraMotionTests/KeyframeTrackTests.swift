import Testing
@testable import ChakraMotion

@Suite("KeyframeTrack")
struct KeyframeTrackTests {
    static let spike: [Keyframe<Double>] = [Keyframe(0, 0), Keyframe(0.1, 1), Keyframe(1, 0)]

    /// Hand values for ease-out, x(s) = 1.74s² − 0.74s³, y(s) = 3s² − 2s³:
    ///   easeOut(0.5)  = 0.684643 (derivation in CubicBezierTests)
    ///   easeOut(0.05): 1.74s² − 0.74s³ = 0.05 ⇒ s ≈ 0.176250
    ///                  (s² = 0.031064, s³ = 0.005475: 0.054051 − 0.004052 = 0.049999)
    ///                  y = 3·0.031064 − 2·0.005475 = 0.082242
    @Test func perSegmentEasesEachSegment() {
        let track = KeyframeTrack(Self.spike, easing: .perSegment(.easeOut))
        // p = 0.05 is halfway through segment [0, 0.1]: local progress 0.5.
        #expect(isClose(track.value(atProgress: 0.05), 0.684643, 1e-6))
        // p = 0.55 is halfway through [0.1, 1]: 1 → 0 by easeOut(0.5).
        #expect(isClose(track.value(atProgress: 0.55), 1 - 0.684643, 1e-6))
    }

    @Test func wholeCycleEasesProgressFirst() {
        let track = KeyframeTrack(Self.spike, easing: .wholeCycle(.easeOut))
        // easeOut(0.05) = 0.082242 lies in segment [0, 0.1] at local 0.82242,
        // and that segment is linear: value 0.82242.
        #expect(isClose(track.value(atProgress: 0.05), 0.82242, 1e-5))
        // easeOut(0.5) = 0.684643 lies in [0.1, 1] at local (0.684643 − 0.1)/0.9.
        #expect(isClose(track.value(atProgress: 0.5), 1 - (0.684643 - 0.1) / 0.9, 1e-6))
    }

    @Test func theTwoModelsDiffer() {
        let perSegment = KeyframeTrack(Self.spike, easing: .perSegment(.easeOut))
        let wholeCycle = KeyframeTrack(Self.spike, easing: .wholeCycle(.easeOut))
        #expect(abs(perSegment.value(atProgress: 0.05) - wholeCycle.value(atProgress: 0.05)) > 0.1)
        // Both still pass through the keyframes at the ends.
        #expect(perSegment.value(atProgress: 0) == 0 && wholeCycle.value(atProgress: 0) == 0)
        #expect(perSegment.value(atProgress: 1) == 0 && wholeCycle.value(atProgress: 1) == 0)
        #expect(perSegment.value(atProgress: 0.1) == 1)
    }

    @Test func perKeyframeEasingOverridesItsSegment() {
        let track = KeyframeTrack([Keyframe(0, 0.0, easing: .linear), Keyframe(0.5, 10), Keyframe(1, 0)],
                                  easing: .perSegment(.easeIn))
        #expect(isClose(track.value(atProgress: 0.25), 5, 1e-12))  // linear override
        // Second segment keeps ease-in: 10 → 0 by easeIn(0.5) = 1 − easeOut(0.5).
        #expect(isClose(track.value(atProgress: 0.75), 10 - 10 * (1 - 0.684643), 1e-5))
    }

    @Test func keyframeEasingAlsoShapesItsSegmentInWholeCycleMode() {
        let track = KeyframeTrack([Keyframe(0, 0.0, easing: .stepEnd), Keyframe(1, 10)],
                                  easing: .wholeCycle(.linear))
        #expect(track.value(atProgress: 0.9) == 0)
        #expect(track.value(atProgress: 1) == 10)
    }

    @Test func implicitEndKeyframesTakeTheBaseValue() {
        let track = KeyframeTrack([Keyframe(0.5, 10.0)], easing: .perSegment(.linear), base: 2)
        #expect(track.keyframes.count == 3)
        #expect(track.value(atProgress: 0) == 2)
        #expect(track.value(atProgress: 0.25) == 6)
        #expect(track.value(atProgress: 0.5) == 10)
        #expect(track.value(atProgress: 0.75) == 6)
        #expect(track.value(atProgress: 1) == 2)
    }

    @Test func implicitEndKeyframesWithoutBaseHoldTheNearestValue() {
        let track = KeyframeTrack([Keyframe(0.25, 4.0), Keyframe(0.75, 8)], easing: .perSegment(.linear))
        #expect(track.value(atProgress: 0.1) == 4)
        #expect(track.value(atProgress: 0.5) == 6)
        #expect(track.value(atProgress: 0.9) == 8)
    }

    @Test func singleKeyframe() {
        let held = KeyframeTrack([Keyframe(1, 5.0)], easing: .perSegment(.ease))
        for p in [0.0, 0.3, 1] { #expect(held.value(atProgress: p) == 5) }
        let fromBase = KeyframeTrack([Keyframe(1, 5.0)], easing: .perSegment(.linear), base: 1)
        #expect(fromBase.value(atProgress: 0.5) == 3)
    }

    @Test func progressIsClamped() {
        let track = KeyframeTrack([Keyframe(0, 1.0), Keyframe(1, 3)], easing: .perSegment(.linear))
        #expect(track.value(atProgress: -1) == 1)
        #expect(track.value(atProgress: 2) == 3)
    }

    @Test func equalOffsetsMakeAJumpTheLaterKeyframeWinning() {
        let track = KeyframeTrack([Keyframe(0, 0.0), Keyframe(0.5, 1), Keyframe(0.5, 3), Keyframe(1, 3)],
                                  easing: .perSegment(.linear))
        #expect(isClose(track.value(atProgress: 0.25), 0.5, 1e-12))
        #expect(track.value(atProgress: 0.5) == 3)
    }

    @Test func wholeCycleOvershootExtrapolatesTheLastSegment() {
        // cubic-bezier(0.68, -0.55, 0.265, 1.55) rises above 1 near the end.
        let back = TimingFunction.cubicBezier(CubicBezier(0.68, -0.55, 0.265, 1.55))
        let track = KeyframeTrack([Keyframe(0, 0.0), Keyframe(0.5, 4), Keyframe(1, 10)], easing: .wholeCycle(back))
        let p = 0.8
        let q = back.value(at: p)
        #expect(q > 1)
        #expect(isClose(track.value(atProgress: p), 4 + 6 * (q - 0.5) / 0.5, 1e-12))
    }

    @Test func interpolatesVectors() {
        let track = KeyframeTrack([Keyframe(0, SIMD2<Double>(0, 10)), Keyframe(1, SIMD2(4, 2))],
                                  easing: .perSegment(.linear))
        #expect(track.value(atProgress: 0.25) == SIMD2(1, 8))
        let colour = KeyframeTrack([Keyframe(0, SIMD4<Double>(0, 0, 0, 1)), Keyframe(1, SIMD4(1, 0.5, 0, 0))],
                                   easing: .perSegment(.linear))
        #expect(colour.value(atProgress: 0.5) == SIMD4(0.5, 0.25, 0, 0.5))
        let single = KeyframeTrack([Keyframe(0, Float(0)), Keyframe(1, Float(2))], easing: .perSegment(.linear))
        #expect(single.value(atProgress: 0.5) == Float(1))
    }
}
