import ChakraConfig
import ChakraRaster

/// Drives a session into a state with real touches along the path, for
/// `chakrad render --scene spiral --spiral-state ...`, the benchmark and
/// tests: the state is reached through the state machine, never set.
public enum SpiralScript {
    /// Seconds between the scripted touch moves.
    public static let step = 1.0 / 120

    /// Touches `session` (fresh, in Idle) from `time` on until it is in
    /// `state`: `progress` is the traced part of the path (0...1) for Inhale
    /// and Exhale, `holdElapsed` the seconds of hold counted for Hold;
    /// `lifted` lifts the finger at the end. Returns the time reached.
    @discardableResult
    public static func drive(_ session: SpiralSession, to state: SpiralState, progress: Double? = nil, holdElapsed: Double = 0,
                             lifted: Bool = false, from time: Double = 0) -> Double {
        var t = time
        guard state != .idle else { return t }
        let total = session.totalLength, inhaleEnd = session.inhaleLength
        session.touchDown(at: session.geometry.point(atLength: 0), time: t)
        let inhaleTarget = state == .inhale ? min(max(progress ?? 0.25, 0), 1) * total : inhaleEnd
        t = trace(session, to: min(inhaleTarget, inhaleEnd), from: t)
        if state == .inhale { return finish(session, lifted: lifted, at: t) }
        // Hold: the finger rests on the head while time passes.
        let hold = state == .hold ? min(holdElapsed, session.holdDuration - step) : session.holdDuration
        t += hold
        session.touchMoved(to: session.headPosition, time: t)
        if state == .hold { return finish(session, lifted: lifted, at: t) }
        let target = state == .exhale ? min(max(progress ?? 0.75, 0), 1) * total : total
        t = trace(session, to: target, from: t)
        return finish(session, lifted: lifted, at: t)
    }

    /// Moves the finger along the path, a few px per step, until it has
    /// traced `length` (or the state changes).
    static func trace(_ session: SpiralSession, to length: Double, from time: Double) -> Double {
        var t = time
        let state = session.state
        let stride = 0.25 * session.proximity
        var finger = session.fingerLength
        while session.state == state, finger < length {
            finger = min(finger + stride, length)
            t += step
            session.touchMoved(to: session.geometry.point(atLength: finger), time: t)
        }
        return t
    }

    private static func finish(_ session: SpiralSession, lifted: Bool, at time: Double) -> Double {
        if lifted { session.touchUp(time: time) }
        return time
    }
}
