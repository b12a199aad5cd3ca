import ChakraConfig
import ChakraRaster
import Testing
@testable import ChakraSpiral

/// Each exercise summed up for session records: how it ended, how far it
/// got, the touched and held seconds, the lifts; and an exercise given up
/// after `abandon_after` seconds without a finger on the light. Times are
/// virtual: every call carries its own. On the 390×844 design (u = 1).
@Suite("Spiral exercise summaries")
struct SpiralExerciseTests {
    func makeSession(abandonAfter: Double = 120) -> SpiralSession {
        var config = ChakraConfig.Spiral()
        config.abandonAfter = abandonAfter
        return SpiralSession(config: config, width: 390, height: 844)
    }

    /// Moves the finger along the path to `length`, 6 px and 0.01 s a step.
    @discardableResult
    func trace(_ s: SpiralSession, to length: Double, from time: Double) -> Double {
        var t = time, finger = s.fingerLength
        while finger < length, s.state == .inhale || s.state == .exhale {
            finger = min(finger + 6, length)
            t += 0.01
            s.touchMoved(to: s.geometry.point(atLength: finger), time: t)
        }
        return t
    }

    /// Down on the start orb at `time` and traced through Inhale: the time Hold began.
    func intoHold(_ s: SpiralSession, at time: Double = 0) -> Double {
        s.touchDown(at: s.geometry.points[0], time: time)
        trace(s, to: s.inhaleLength, from: time)
        #expect(s.state == .hold)
        return s.stateEnteredAt
    }

    func near(_ a: Double, _ b: Double) -> Bool { abs(a - b) < 1e-9 }

    /// The seconds to the microsecond (sums of steps carry rounding).
    func rounded(_ summary: SpiralExerciseSummary) -> SpiralExerciseSummary {
        func r(_ x: Double) -> Double { (x * 1e6).rounded() / 1e6 }
        var s = summary
        (s.startedAt, s.endedAt, s.onHeadSeconds, s.holdTouchedSeconds) = (r(s.startedAt), r(s.endedAt), r(s.onHeadSeconds), r(s.holdTouchedSeconds))
        (s.inhaleSeconds, s.holdSeconds, s.exhaleSeconds) = (r(s.inhaleSeconds), r(s.holdSeconds), r(s.exhaleSeconds))
        return s
    }

    @Test("completed, with a lift in each state: 8 s off the light in all")
    func completed() throws {
        let s = makeSession()
        s.touchDown(at: s.geometry.points[0], time: 0)
        var t = trace(s, to: 200, from: 0)
        s.touchUp(time: t)                                          // lift 1: 2 s
        s.touchDown(at: s.headPosition, time: t + 2)
        trace(s, to: s.inhaleLength, from: t + 2)
        let hold = s.stateEnteredAt
        s.advance(to: hold + 10)
        s.touchUp(time: hold + 10)                                  // lift 2: 5 s, the countdown paused
        s.touchDown(at: s.headPosition + Point(3, 0), time: hold + 15)
        s.advance(to: hold + 80)
        #expect(s.state == .exhale && near(s.stateEnteredAt, hold + 77))
        t = trace(s, to: s.inhaleLength + 100, from: hold + 80)
        s.touchMoved(to: s.headPosition + Point(100, 0), time: t + 0.5)   // lift 3: strayed for 1 s
        s.touchMoved(to: s.headPosition, time: t + 1.5)
        trace(s, to: s.totalLength, from: t + 1.5)
        #expect(s.state == .completed)
        let done = s.stateEnteredAt
        let summary = try #require(s.takeFinishedExercise())
        #expect(summary.pattern == "6-4-8" && summary.ending == .completed && summary.furthestState == .completed)
        #expect(summary.startedAt == 0 && summary.endedAt == done)
        #expect(summary.lifts == 3)
        #expect(near(summary.onHeadSeconds, done - 8))
        #expect(summary.holdTouchedSeconds == 72)
        #expect(near(summary.inhaleSeconds, hold) && near(summary.holdSeconds, 77) && near(summary.exhaleSeconds, done - hold - 77))
        #expect(near(summary.inhaleSeconds + summary.holdSeconds + summary.exhaleSeconds, done))
        #expect(s.takeFinishedExercise() == nil)
        // The celebration and its return to Idle record nothing more.
        s.advance(to: done + 10)
        #expect(s.state == .idle && s.takeFinishedExercise() == nil)
    }

    @Test("cancelled in Hold after 10 s held and a lift")
    func cancelled() throws {
        let s = makeSession()
        let hold = intoHold(s)
        s.advance(to: hold + 10)
        s.touchUp(time: hold + 10)
        s.cancel(time: hold + 15)
        #expect(s.takeEvents().last == .stateChanged(from: .hold, to: .idle, time: hold + 15))
        let summary = try #require(s.takeFinishedExercise())
        #expect(rounded(summary) == rounded(SpiralExerciseSummary(pattern: "6-4-8", startedAt: 0, endedAt: hold + 15, ending: .cancelled, furthestState: .hold,
                                                                  onHeadSeconds: hold + 10, holdTouchedSeconds: 10, lifts: 1,
                                                                  inhaleSeconds: hold, holdSeconds: 15, exhaleSeconds: 0)))
    }

    @Test("restarted by start while inhaling, the finger still on the light")
    func restarted() throws {
        let s = makeSession()
        s.touchDown(at: s.geometry.points[0], time: 5)
        let t = trace(s, to: 150, from: 5)
        s.start(time: t + 3)
        #expect(s.state == .idle)
        let summary = try #require(s.takeFinishedExercise())
        #expect(summary.ending == .restarted && summary.furthestState == .inhale && summary.startedAt == 5 && summary.endedAt == t + 3)
        #expect(near(summary.onHeadSeconds, t + 3 - 5) && summary.lifts == 0 && summary.holdTouchedSeconds == 0)
        #expect(near(summary.inhaleSeconds, t + 3 - 5))
    }

    @Test("timed out: abandon_after seconds with no finger on the light, on virtual time; the deadline wakes a sleeper")
    func timedOut() throws {
        let s = makeSession()
        let hold = intoHold(s)
        s.advance(to: hold + 72)
        #expect(s.state == .exhale)
        let t = trace(s, to: s.inhaleLength + 60, from: hold + 72)
        s.touchUp(time: t)
        #expect(s.nextDeadline == t + 120 && s.abandonDeadline == t + 120)
        // Back on the light in time: the clock starts again from the next lift.
        s.touchDown(at: s.headPosition, time: t + 100)
        #expect(s.nextDeadline == nil)
        s.touchUp(time: t + 110)
        #expect(s.nextDeadline == t + 230)
        s.advance(to: t + 229.99)
        #expect(s.state == .exhale && s.takeFinishedExercise() == nil)
        _ = s.takeEvents()
        s.advance(to: t + 1000)
        #expect(s.state == .idle)
        #expect(s.takeEvents() == [.stateChanged(from: .exhale, to: .idle, time: t + 230)])
        let summary = try #require(s.takeFinishedExercise())
        #expect(summary.ending == .timedOut && summary.ending.rawValue == "timed_out")
        #expect(summary.furthestState == .exhale && summary.endedAt == t + 230 && summary.lifts == 2 && summary.holdTouchedSeconds == 72)
        #expect(near(summary.onHeadSeconds, t + 10))   // from 0 to the first lift, and the 10 s back on it
        #expect(near(summary.inhaleSeconds + summary.holdSeconds + summary.exhaleSeconds, t + 230))
        #expect(s.nextDeadline == nil)
    }

    @Test("timed out in Hold with the finger lifted, and in Inhale with the finger strayed; 0 never gives up")
    func timedOutElsewhere() throws {
        let s = makeSession(abandonAfter: 30)
        let hold = intoHold(s)
        s.advance(to: hold + 5)
        s.touchUp(time: hold + 5)
        // The hold's own deadline stops while lifted; the abandonment's takes its place.
        #expect(s.nextDeadline == hold + 35)
        s.advance(to: hold + 40)
        let inHold = try #require(s.takeFinishedExercise())
        #expect(inHold.ending == .timedOut && inHold.furthestState == .hold && inHold.holdTouchedSeconds == 5 && inHold.endedAt == hold + 35)

        s.touchDown(at: s.geometry.points[0], time: 100)
        trace(s, to: 100, from: 100)
        s.touchMoved(to: s.headPosition + Point(0, 120), time: 102)       // touching, but away from the light
        #expect(s.isTouching && s.nextDeadline == 132)
        s.advance(to: 140)
        #expect(s.state == .idle && s.takeFinishedExercise()?.endedAt == 132)

        let never = makeSession(abandonAfter: 0)
        never.touchDown(at: never.geometry.points[0], time: 0)
        never.touchUp(time: 1)
        #expect(never.nextDeadline == nil)
        never.advance(to: 1_000_000)
        #expect(never.state == .inhale && never.takeFinishedExercise() == nil)
    }

    @Test("interrupted by finishExercise (the scene went away, the screen went off)")
    func interrupted() throws {
        let s = makeSession()
        let hold = intoHold(s)
        s.finishExercise(time: hold + 20)
        #expect(s.state == .idle)
        let summary = try #require(s.takeFinishedExercise())
        #expect(summary.ending == .interrupted && summary.furthestState == .hold && summary.endedAt == hold + 20)
        #expect(near(summary.onHeadSeconds, hold + 20) && summary.holdTouchedSeconds == 20 && summary.lifts == 0)
        // Nothing runs: nothing to interrupt.
        s.finishExercise(time: hold + 30)
        #expect(s.takeFinishedExercise() == nil)
    }

    @Test("no exercise without leaving Idle; two ended between takes are both kept, up to finishedCapacity")
    func keeping() throws {
        let s = makeSession()
        s.touchDown(at: s.geometry.points[0] + Point(0, 200), time: 0)
        s.touchUp(time: 1)
        s.cancel(time: 2)
        s.start(time: 3)
        #expect(s.takeFinishedExercise() == nil)
        for round in 0..<(SpiralSession.finishedCapacity + 2) {
            let t = 10 * Double(round + 1)
            s.touchDown(at: s.geometry.points[0], time: t)
            s.touchUp(time: t + 1)
            s.start(time: t + 2)
        }
        var taken: [Double] = []
        while let summary = s.takeFinishedExercise() { taken.append(summary.startedAt) }
        // The two oldest made room.
        #expect(taken == (3...(SpiralSession.finishedCapacity + 2)).map { 10 * Double($0) })
    }
}
