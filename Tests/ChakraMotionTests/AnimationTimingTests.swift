import Testing
@testable import ChakraMotion

/// Expected values follow by hand from Web Animations §"Core animation effect
/// calculations": active time = t − delay, overall = active / duration,
/// simple = overall mod 1 (1 at the very end of a whole iteration count),
/// iteration = floor(overall), reversed iterations give 1 − simple.
@Suite("AnimationTiming")
struct AnimationTimingTests {
    @Test func delayWithFillNoneHasNoEffectBeforeDelay() {
        let timing = AnimationTiming(duration: 1, delay: 1, iterations: 1)
        #expect(timing.directedProgress(at: 0) == nil)
        #expect(timing.directedProgress(at: 0.999) == nil)
        #expect(timing.directedProgress(at: 1) == 0)
        #expect(timing.directedProgress(at: 1.5) == 0.5)
        #expect(timing.directedProgress(at: 2) == nil)  // ended, no forwards fill
    }

    @Test func delayWithFillBackwardsHoldsTheStart() {
        let forwards = AnimationTiming(duration: 1, delay: 1, iterations: 1, fill: .backwards)
        #expect(forwards.directedProgress(at: 0.5) == 0)
        let reversed = AnimationTiming(duration: 1, delay: 1, iterations: 1, direction: .reverse, fill: .backwards)
        #expect(reversed.directedProgress(at: 0.5) == 1)
        let alternateReverse = AnimationTiming(duration: 1, delay: 1, iterations: 3,
                                               direction: .alternateReverse, fill: .both)
        #expect(alternateReverse.directedProgress(at: 0) == 1)
        // fill forwards alone does not fill the delay.
        let fillForwards = AnimationTiming(duration: 1, delay: 1, iterations: 1, fill: .forwards)
        #expect(fillForwards.directedProgress(at: 0.5) == nil)
    }

    @Test func fractionalIterationsEndPartWay() {
        let timing = AnimationTiming(duration: 1, iterations: 2.5, fill: .forwards)
        #expect(timing.directedProgress(at: 2.25) == 0.25)
        #expect(timing.directedProgress(at: 2.5) == 0.5)
        #expect(timing.directedProgress(at: 100) == 0.5)
        #expect(AnimationTiming(duration: 1, iterations: 2.5).directedProgress(at: 2.5) == nil)
    }

    @Test func wholeIterationCountEndsAtProgressOne() {
        // The "end of an iteration" rule: 2 iterations done ⇒ progress 1, not 0.
        let normal = AnimationTiming(duration: 1, iterations: 2, fill: .forwards)
        #expect(normal.directedProgress(at: 2) == 1)
        #expect(normal.directedProgress(at: 5) == 1)
        #expect(normal.currentIteration(at: 5) == 1)
        // …and the direction of that LAST iteration (index 1) applies.
        let alternate = AnimationTiming(duration: 1, iterations: 2, direction: .alternate, fill: .forwards)
        #expect(alternate.directedProgress(at: 3) == 0)
        let alternateReverse = AnimationTiming(duration: 1, iterations: 2, direction: .alternateReverse, fill: .forwards)
        #expect(alternateReverse.directedProgress(at: 3) == 1)
    }

    @Test func endOfIterationSurvivesRoundingOfTheDivision() {
        // 3 × 0.1 = 0.30000000000000004 and that / 0.1 is not exactly 3.
        let timing = AnimationTiming(duration: 0.1, iterations: 3, fill: .forwards)
        #expect(timing.directedProgress(at: 1) == 1)
    }

    @Test("directions over several iterations",
          arguments: [
            (PlaybackDirection.normal, [0.25, 0.25, 0.25, 0.25]),
            (.reverse, [0.75, 0.75, 0.75, 0.75]),
            (.alternate, [0.25, 0.75, 0.25, 0.75]),
            (.alternateReverse, [0.75, 0.25, 0.75, 0.25]),
          ])
    func directions(direction: PlaybackDirection, expected: [Double]) {
        let timing = AnimationTiming(duration: 2, direction: direction)
        for (iteration, value) in expected.enumerated() {
            let t = Double(iteration) * 2 + 0.5
            #expect(timing.directedProgress(at: t) == value, "iteration \(iteration)")
        }
    }

    @Test func infiniteIterationsNeverEnd() {
        let timing = AnimationTiming(duration: 2)
        #expect(timing.directedProgress(at: 1_000_000.5) == 0.25)
        #expect(timing.phase(at: 1e12) == .active)
    }

    @Test func negativeDelayStartsPartWay() {
        let timing = AnimationTiming(duration: 1, delay: -0.5, iterations: 1)
        #expect(timing.directedProgress(at: 0) == 0.5)
        #expect(timing.directedProgress(at: 0.25) == 0.75)
        #expect(timing.directedProgress(at: 0.5) == nil)
        let filled = AnimationTiming(duration: 1, delay: -0.5, iterations: 1, fill: .forwards)
        #expect(filled.directedProgress(at: 0.5) == 1)
        // A negative delay larger than the whole animation: finished at once.
        let gone = AnimationTiming(duration: 1, delay: -5, iterations: 2, fill: .forwards)
        #expect(gone.phase(at: 0) == .after)
        #expect(gone.directedProgress(at: 0) == 1)
    }

    @Test func phasesAndBoundaries() {
        let timing = AnimationTiming(duration: 1, delay: 0.5, iterations: 2)
        #expect(timing.activeDuration == 2)
        #expect(timing.endTime == 2.5)
        #expect(timing.phase(at: 0.49) == .before)
        #expect(timing.phase(at: 0.5) == .active)
        #expect(timing.phase(at: 2.49) == .active)
        #expect(timing.phase(at: 2.5) == .after)
    }

    @Test func zeroDurationJumpsToTheEnd() {
        let timing = AnimationTiming(duration: 0, iterations: 1, fill: .both)
        #expect(timing.directedProgress(at: 0) == 1)
        #expect(timing.directedProgress(at: -1) == 0)
    }
}
