import Testing
@testable import ChakraMotion

@Suite("TimingFunction")
struct TimingFunctionTests {
    @Test func linearIsIdentityEvenOutsideUnitInterval() {
        for x in [-0.5, 0, 0.123, 0.5, 1, 1.7] {
            #expect(TimingFunction.linear.value(at: x) == x)
        }
    }

    @Test func cssNamedCurvesHaveSpecControlPoints() {
        #expect(TimingFunction.ease == .cubicBezier(CubicBezier(0.25, 0.1, 0.25, 1)))
        #expect(TimingFunction.easeIn == .cubicBezier(CubicBezier(0.42, 0, 1, 1)))
        #expect(TimingFunction.easeOut == .cubicBezier(CubicBezier(0, 0, 0.58, 1)))
        #expect(TimingFunction.easeInOut == .cubicBezier(CubicBezier(0.42, 0, 0.58, 1)))
    }

    @Test func coreAnimationNamesMatchTheirCurves() {
        #expect(TimingFunction.caLinear == .linear)
        #expect(TimingFunction.caEaseIn == .cubicBezier(CubicBezier(0.42, 0, 1, 1)))
        #expect(TimingFunction.caEaseOut == .cubicBezier(CubicBezier(0, 0, 0.58, 1)))
        #expect(TimingFunction.caEaseInEaseOut == .cubicBezier(CubicBezier(0.42, 0, 0.58, 1)))
        #expect(TimingFunction.caDefault == .cubicBezier(CubicBezier(0.25, 0.1, 0.25, 1)))
    }

    // CSS Easing Level 1 step examples, worked from the algorithm:
    // output = clamp(floor(x·n) [+1 for jump-start/both]) / jumps.

    @Test func stepsJumpEnd() {
        let f = TimingFunction.steps(4, .jumpEnd)
        let expected: [(Double, Double)] = [(0, 0), (0.24, 0), (0.25, 0.25), (0.5, 0.5), (0.99, 0.75), (1, 1)]
        for (x, y) in expected { #expect(f.value(at: x) == y, "x = \(x)") }
    }

    @Test func stepsJumpStart() {
        let f = TimingFunction.steps(4, .jumpStart)
        let expected: [(Double, Double)] = [(0, 0.25), (0.24, 0.25), (0.25, 0.5), (0.99, 1), (1, 1)]
        for (x, y) in expected { #expect(f.value(at: x) == y, "x = \(x)") }
    }

    @Test func stepsJumpNone() {
        // 5 steps, 4 jumps: outputs 0, 0.25, 0.5, 0.75, 1.
        let f = TimingFunction.steps(5, .jumpNone)
        let expected: [(Double, Double)] = [(0, 0), (0.19, 0), (0.2, 0.25), (0.79, 0.75), (0.8, 1), (1, 1)]
        for (x, y) in expected { #expect(f.value(at: x) == y, "x = \(x)") }
    }

    @Test func stepsJumpBoth() {
        // 3 steps, 4 jumps: outputs 0.25, 0.5, 0.75 inside, 1 at the end.
        let f = TimingFunction.steps(3, .jumpBoth)
        let expected: [(Double, Double)] = [(0, 0.25), (0.3, 0.25), (0.34, 0.5), (0.99, 0.75), (1, 1)]
        for (x, y) in expected { #expect(f.value(at: x) == y, "x = \(x)") }
    }

    /// The CSS step algorithm only clamps inputs inside [0, 1]; outside, the
    /// staircase continues: steps(4, jump-start) at −0.5 is (floor(−2) + 1)/4,
    /// steps(4, jump-end) at 1.5 is floor(6)/4.
    @Test func stepsContinueOutsideUnitInterval() {
        #expect(TimingFunction.steps(4, .jumpStart).value(at: -0.5) == -0.25)
        #expect(TimingFunction.steps(4, .jumpEnd).value(at: 1.5) == 1.5)
        #expect(TimingFunction.steps(4, .jumpStart).value(at: -0.1) == 0)
    }

    @Test func stepStartAndStepEnd() {
        #expect(TimingFunction.stepStart.value(at: 0) == 1)
        #expect(TimingFunction.stepEnd.value(at: 0.999) == 0)
        #expect(TimingFunction.stepEnd.value(at: 1) == 1)
    }

    @Test func parsesCSSKeywords() {
        #expect(TimingFunction(cssName: "linear") == .linear)
        #expect(TimingFunction(cssName: "ease") == .ease)
        #expect(TimingFunction(cssName: "ease-in") == .easeIn)
        #expect(TimingFunction(cssName: " Ease-Out ") == .easeOut)
        #expect(TimingFunction(cssName: "ease-in-out") == .easeInOut)
        #expect(TimingFunction(cssName: "step-start") == .steps(1, .jumpStart))
        #expect(TimingFunction(cssName: "step-end") == .steps(1, .jumpEnd))
    }

    @Test func parsesCSSFunctions() {
        #expect(TimingFunction(cssName: "cubic-bezier(0.1, 0.7, 1.0, 0.1)") == .cubicBezier(CubicBezier(0.1, 0.7, 1, 0.1)))
        #expect(TimingFunction(cssName: "cubic-bezier(.68,-.55,.265,1.55)") == .cubicBezier(CubicBezier(0.68, -0.55, 0.265, 1.55)))
        #expect(TimingFunction(cssName: "steps(4, end)") == .steps(4, .jumpEnd))
        #expect(TimingFunction(cssName: "steps(4)") == .steps(4, .jumpEnd))
        #expect(TimingFunction(cssName: "steps(2, start)") == .steps(2, .jumpStart))
        #expect(TimingFunction(cssName: "steps(3, jump-both)") == .steps(3, .jumpBoth))
        #expect(TimingFunction(cssName: "steps(2, jump-none)") == .steps(2, .jumpNone))
    }

    @Test func rejectsWhatCSSRejects() {
        let invalid = ["", "bounce", "cubic-bezier(1.1, 0, 0.5, 1)", "cubic-bezier(0.5, 0, -0.1, 1)",
                       "cubic-bezier(0.5, 0, 0.5)", "steps(0)", "steps(1, jump-none)", "steps(2, middle)",
                       "steps(2.5)", "ease-in-out-back", "cubic-bezier 0.1, 0.2, 0.3, 0.4",
                       "steps (4)", "cubic-bezier(0.1, 0.2, 0.3, 0.4) x"]
        for text in invalid {
            #expect(TimingFunction(cssName: text) == nil, "\(text)")
        }
    }
}
