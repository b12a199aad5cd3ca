import ChakraConfig
import ChakraRaster
import Foundation
import Testing
@testable import ChakraSpiral

/// The state machine through every transition, on the 390×844 design
/// (u = 1: screen px are design px).
@Suite("Spiral session")
struct SpiralSessionTests {
    let config = ChakraConfig.Spiral()

    func makeSession(time: Double = 0) -> SpiralSession {
        let session = SpiralSession(config: config, width: 390, height: 844, time: time)
        #expect(session.geometry.scale == 1)
        return session
    }

    func stateChanges(_ events: [SpiralEvent]) -> [SpiralState] {
        events.compactMap { if case .stateChanged(_, let to, _) = $0 { to } else { nil } }
    }

    func ticks(_ events: [SpiralEvent]) -> Int { events.filter { if case .haptic(.tick, _) = $0 { true } else { false } }.count }
    func beats(_ events: [SpiralEvent]) -> [Double] { events.compactMap { if case .haptic(.beat, let t) = $0 { t } else { nil } } }

    /// Moves the finger along the path to `length` in small steps from `time`.
    @discardableResult
    func trace(_ s: SpiralSession, to length: Double, from time: Double, offset: Point = .zero) -> Double {
        var t = time, finger = s.fingerLength
        while finger < length, s.state == .inhale || s.state == .exhale {
            finger = min(finger + 6, length)
            t += 0.01
            s.touchMoved(to: s.geometry.point(atLength: finger) + offset, time: t)
        }
        return t
    }

    @Test("Idle: a touch away from the start does nothing; on the start orb it begins Inhale")
    func idleToInhale() {
        let s = makeSession()
        #expect(s.state == .idle && s.headPosition == s.geometry.points[0])
        s.touchDown(at: s.geometry.points[0] + Point(0, 60), time: 1)
        #expect(s.state == .idle)
        // Sliding onto the orb starts it too.
        s.touchMoved(to: s.geometry.points[0] + Point(10, 5), time: 1.5)
        #expect(s.state == .inhale)
        #expect(s.takeEvents() == [.stateChanged(from: .idle, to: .inhale, time: 1.5)])
        #expect(s.isOnHead && !s.needsResume)
    }

    @Test("Inhale: progress by traced length, the colour leads by colorDistanceOffset, ticks every hapticFeedbackDistance")
    func inhaleTracing() {
        let s = makeSession()
        s.touchDown(at: s.geometry.points[0], time: 0)
        #expect(s.state == .inhale && s.headLength == 0)
        trace(s, to: 300, from: 0)
        #expect(abs(s.fingerLength - 300) < 1)
        #expect(abs(s.progress - s.fingerLength / s.totalLength) < 1e-12)
        #expect(abs(s.headLength - (s.fingerLength + config.colorDistanceOffset)) < 1e-9)
        #expect(abs(s.colorProgress - s.headLength / s.totalLength) < 1e-12)
        let head = s.geometry.point(atLength: s.headLength)
        #expect(s.headPosition == head)
        // 6 px steps, a tick once 12 px have been traced since the last.
        let count = ticks(s.takeEvents())
        #expect(count == 25)
        // Moving backwards never takes progress back.
        let before = s.fingerLength
        s.touchMoved(to: s.geometry.point(atLength: before - 10), time: 10)
        #expect(s.fingerLength == before)
    }

    @Test("straying from the head or lifting stops progress; coming back or touching the head resumes")
    func strayAndResume() {
        let s = makeSession()
        s.touchDown(at: s.geometry.points[0], time: 0)
        var t = trace(s, to: 200, from: 0)
        let stopped = s.fingerLength
        // Off the head by more than the proximity: tracing stops.
        s.touchMoved(to: s.headPosition + Point(config.proximity + 5, 0), time: t + 0.1)
        #expect(!s.isOnHead && s.needsResume)
        // Moving along the path but far from the head (a turn further out) counts for nothing.
        s.touchMoved(to: s.geometry.point(atLength: s.fingerLength + 600), time: t + 0.2)
        #expect(s.fingerLength == stopped)
        // Back onto the head: it resumes from where it was.
        s.touchMoved(to: s.headPosition, time: t + 0.3)
        #expect(s.isOnHead)
        t = trace(s, to: stopped + 100, from: t + 0.3)
        #expect(s.fingerLength > stopped + 90)
        // Lifting: needs resume; a touch far away does nothing; one on the head resumes.
        s.touchUp(time: t + 1)
        #expect(s.needsResume && !s.isTouching)
        let lifted = s.fingerLength
        s.touchDown(at: s.geometry.point(atLength: lifted + 500), time: t + 2)
        #expect(s.needsResume && s.fingerLength == lifted)
        s.touchUp(time: t + 2.5)
        s.touchDown(at: s.headPosition, time: t + 3)
        #expect(!s.needsResume)
        trace(s, to: lifted + 50, from: t + 3)
        #expect(s.fingerLength > lifted + 40)
        #expect(s.state == .inhale)
    }

    @Test("Inhale ends at inhaleFraction of the length; Hold counts only while touching")
    func holdCountdown() {
        let s = makeSession()
        s.touchDown(at: s.geometry.points[0], time: 0)
        let t = trace(s, to: s.inhaleLength, from: 0)
        #expect(s.state == .hold)
        #expect(s.fingerLength == s.inhaleLength && s.headLength == s.inhaleLength)
        #expect(stateChanges(s.takeEvents()) == [.inhale, .hold])
        #expect(s.stateEnteredAt == t)
        #expect(s.holdRemaining(at: t) == 72)
        s.advance(to: t + 10)
        #expect(abs(s.holdRemaining(at: t + 10) - 62) < 1e-9)
        // Lift: the countdown pauses.
        s.touchUp(time: t + 10)
        #expect(s.needsResume)
        s.advance(to: t + 30)
        #expect(abs(s.holdRemaining(at: t + 30) - 62) < 1e-9)
        // A touch away from the head does not resume it.
        s.touchDown(at: s.headPosition + Point(100, 0), time: t + 31)
        s.advance(to: t + 32)
        #expect(abs(s.holdRemaining(at: t + 32) - 62) < 1e-9)
        // On the head: it resumes.
        s.touchMoved(to: s.headPosition + Point(3, -2), time: t + 33)
        s.advance(to: t + 38)
        #expect(abs(s.holdRemaining(at: t + 38) - 57) < 1e-9)
        // Straying pauses it as lifting does.
        s.touchMoved(to: s.headPosition + Point(0, 80), time: t + 40)
        s.advance(to: t + 50)
        #expect(abs(s.holdRemaining(at: t + 50) - 55) < 1e-9)
        #expect(s.state == .hold)
        // The hold's end, while touching, at its exact time: Exhale.
        s.touchMoved(to: s.headPosition, time: t + 50)
        #expect(s.nextDeadline == t + 105)
        s.advance(to: t + 200)
        #expect(s.state == .exhale)
        let events = s.takeEvents()
        #expect(events.last == .stateChanged(from: .hold, to: .exhale, time: t + 105))
        #expect(s.stateEnteredAt == t + 105)
        #expect(s.holdRemaining(at: t + 200) == 0)
        #expect(s.isOnHead && s.fingerLength == s.inhaleLength)
    }

    @Test("hold cycles (the default pattern): phases 6/4/8 s, the pulse 1 → 3 → 3 → 1, heartbeats only while breathing in")
    func holdCycles() {
        let s = makeSession()
        #expect(s.pattern.name == "6-4-8" && s.holdDuration == 72)
        #expect(s.holdPhase(elapsed: 0).kind == .in)
        #expect(s.holdPhase(elapsed: 5.9).kind == .in)
        #expect(s.holdPhase(elapsed: 6).kind == .holdIn)
        #expect(s.holdPhase(elapsed: 9.9).kind == .holdIn)
        #expect(s.holdPhase(elapsed: 10).kind == .out)
        #expect(s.holdPhase(elapsed: 17.9).kind == .out)
        #expect(s.holdPhase(elapsed: 18).kind == .in)
        #expect(abs(s.holdPhase(elapsed: 21).fraction - 0.5) < 1e-12)
        #expect(s.holdPulse(elapsed: 0) == 1)
        #expect(abs(s.holdPulse(elapsed: 3) - 2) < 1e-9)          // ease-in-out is symmetric about its middle
        #expect(s.holdPulse(elapsed: 6) == 3 && s.holdPulse(elapsed: 8) == 3)
        #expect(abs(s.holdPulse(elapsed: 14) - 2) < 1e-9)
        #expect(abs(s.holdPulse(elapsed: 17.999999) - 1) < 1e-6)
        #expect(s.holdPulse(elapsed: 1) < 1.5)                     // eased: slow at first

        s.touchDown(at: s.geometry.points[0], time: 0)
        let t = trace(s, to: s.inhaleLength, from: 0)
        _ = s.takeEvents()
        // Advanced in uneven steps over one whole cycle: 24 beats, 0.25 s apart, all in the first 6 s.
        var now = t
        while now < t + 18 {
            now = min(now + 0.37, t + 18)
            s.advance(to: now)
        }
        let times = beats(s.takeEvents())
        #expect(times.count == 24)
        for (k, beat) in times.enumerated() { #expect(abs(beat - (t + 0.25 * Double(k))) < 1e-9) }
        // A lift in the middle of the next up phase shifts the rest by the time away.
        s.advance(to: t + 19)
        s.touchUp(time: t + 19)
        s.advance(to: t + 25)
        s.touchDown(at: s.headPosition, time: t + 25)
        s.advance(to: t + 36)
        let next = beats(s.takeEvents())
        #expect(next.count == 24)
        // The beat due at 19 s of hold comes when the hold resumes.
        #expect(abs(next[3] - (t + 18.75)) < 1e-9)
        #expect(abs(next[4] - (t + 25)) < 1e-9)
        #expect(abs(next[5] - (t + 25.25)) < 1e-9)
        #expect(abs(next[23] - (t + 25 + 4.75)) < 1e-9)
    }

    @Test("Exhale traces the rest; Completed; after completionDelay back to Idle")
    func exhaleCompleteIdle() {
        let s = makeSession()
        var t = SpiralScript.drive(s, to: .exhale, progress: 0.5)
        #expect(s.state == .exhale)
        _ = s.takeEvents()
        // The colour leads again, grown into from the hold's spot.
        #expect(s.headLength == s.inhaleLength)
        t = trace(s, to: s.inhaleLength + 100, from: t)
        #expect(abs(s.headLength - (s.fingerLength + config.colorDistanceOffset)) < 1e-9)
        t = trace(s, to: s.totalLength, from: t)
        #expect(s.state == .completed)
        #expect(s.progress == 1 && s.colorProgress == 1)
        let entered = s.stateEnteredAt
        #expect(stateChanges(s.takeEvents()) == [.completed])
        #expect(s.nextDeadline == entered + config.completionDelay)
        s.advance(to: entered + config.completionDelay - 0.01)
        #expect(s.state == .completed)
        s.advance(to: entered + 10)
        #expect(s.takeEvents() == [.celebrationEnded(time: entered + 3), .stateChanged(from: .completed, to: .idle, time: entered + 3)])
        #expect(s.state == .idle && s.progress == 0 && s.holdRemaining(at: entered + 10) == 72)
        // A new round starts from the start orb.
        s.touchUp(time: entered + 11)
        s.touchDown(at: s.geometry.points[0], time: entered + 12)
        #expect(s.state == .inhale)
    }

    @Test("with returnsToIdle off, Completed stays and the daemon hears celebrationEnded")
    func staysCompleted() {
        let s = makeSession()
        s.returnsToIdle = false
        SpiralScript.drive(s, to: .completed)
        let entered = s.stateEnteredAt
        _ = s.takeEvents()
        s.advance(to: entered + 5)
        #expect(s.takeEvents() == [.celebrationEnded(time: entered + 3)])
        #expect(s.state == .completed && s.nextDeadline == nil)
        s.advance(to: entered + 9)
        #expect(s.takeEvents().isEmpty)
        s.cancel(time: entered + 9)
        #expect(s.state == .idle)
    }

    @Test("cancel goes back to Idle from every state; events carry the transitions")
    func cancelFromEveryState() {
        for state in [SpiralState.inhale, .hold, .exhale, .completed] {
            let s = makeSession()
            let t = SpiralScript.drive(s, to: state)
            #expect(s.state == state)
            _ = s.takeEvents()
            s.cancel(time: t + 1)
            #expect(s.state == .idle && s.progress == 0 && s.headLength == 0)
            #expect(s.takeEvents().last == .stateChanged(from: state, to: .idle, time: t + 1))
        }
        let idle = makeSession()
        idle.cancel(time: 1)
        #expect(idle.takeEvents().isEmpty)
    }

    @Test("times never run backwards; the transitions in order")
    func everyTransition() {
        let s = makeSession()
        SpiralScript.drive(s, to: .completed)
        s.advance(to: s.stateEnteredAt + 5)
        #expect(stateChanges(s.takeEvents()) == [.inhale, .hold, .exhale, .completed, .idle])
        let t = s.stateEnteredAt + 2   // the last time seen
        s.advance(to: t - 100)
        s.touchDown(at: s.geometry.points[0], time: t - 50)
        #expect(s.takeEvents() == [.stateChanged(from: .idle, to: .inhale, time: t)])
    }
}
