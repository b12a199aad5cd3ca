import ChakraConfig
import ChakraMotion
import ChakraRaster
import ChakraScenes
import Glibc

/// The exercise's states (docs/design.md, The spiral).
public enum SpiralState: String, Sendable, CaseIterable {
    case idle, inhale, hold, exhale, completed
}

/// The session's haptic cues are the interactive scenes' (ChakraScenes).
public typealias HapticCue = ChakraScenes.HapticCue

/// What happened, with the session time it happened at.
public enum SpiralEvent: Sendable, Equatable {
    case stateChanged(from: SpiralState, to: SpiralState, time: Double)
    case haptic(HapticCue, time: Double)
    /// `completionDelay` after Completed: the celebration is over. With
    /// `returnsToIdle` the session goes to Idle at the same time; without,
    /// it stays Completed and the daemon decides (e.g. back to the
    /// previous ambient scene).
    case celebrationEnded(time: Double)
}

/// The three phases of a hold cycle and their guidance texts.
public enum HoldPhase: String, Sendable, CaseIterable {
    /// "Breathe in slowly": the orb grows 1 → 3; heartbeat haptics.
    case breatheIn
    /// "Hold your breath": the orb stays at 3.
    case holdBreath
    /// "Breathe out slowly": the orb shrinks 3 → 1.
    case breatheOut
}

/// The spiral-breathing exercise as a state machine fed by plain calls
/// with times: Idle → Inhale → Hold → Exhale → Completed (→ Idle).
///
/// - Idle: a "touch here" orb at the start; a touch within `proximity` of
///   it begins Inhale.
/// - Inhale / Exhale: the finger traces the path. The head (the orb at the
///   tip of the coloured line) leads the finger by `colorDistanceOffset`
///   of path length (grown into over the phase's first that much of
///   tracing), clamped to the phase's end. Strict proximity:
///   progress advances only while the finger is within `proximity` of the
///   head; lifting or straying stops it until a finger is back within
///   `proximity` of the head (by sliding back, or lifting and touching
///   there). Inhale ends when the finger reaches `inhaleFraction` of the
///   length, Exhale at the end (within half a line width).
/// - Hold: `holdDuration` counts down only while a finger rests within
///   `proximity` of the head; lifting (or straying) pauses it, touching
///   again resumes it. Its cycles (up / pause / down) drive the guidance
///   texts, the orb's pulse and the heartbeat cues.
/// - Completed: the celebration; after `completionDelay`, Idle (see
///   `returnsToIdle`).
///
/// Times are seconds on one clock the caller chooses (the daemon uses scene
/// time, the clock `Scene.render(time:)` gets); calls must come in time
/// order (an earlier time is taken as the last one seen). Lengths are
/// screen px (design px × u).
///
/// Ownership: made by the daemon (or `SpiralScene`) for one screen size and
/// configuration and shared with the scene, which only reads it. Not
/// thread-safe: feed it and render from one thread.
public final class SpiralSession: @unchecked Sendable {
    public let config: ChakraConfig.Spiral
    public private(set) var geometry: SpiralGeometry
    /// After the celebration: true goes back to Idle by itself; false stays
    /// in Completed (the daemon switches scenes on `celebrationEnded`).
    public var returnsToIdle = true

    public private(set) var state = SpiralState.idle
    public private(set) var stateEnteredAt: Double
    /// Length traced by the finger, screen px.
    public private(set) var fingerLength = 0.0
    public private(set) var isTouching = false
    /// A finger is on the head (within `proximity`): tracing or holding counts.
    public private(set) var isOnHead = false
    /// Where the finger is, while touching.
    public private(set) var touchPoint: Point?
    /// Events since the last `takeEvents()`, in time order.
    public private(set) var events: [SpiralEvent] = []

    private var lastTime: Double
    private var holdElapsedBase = 0.0
    private var holdingSince: Double?
    private var lastTickLength = 0.0
    private var celebrationOver = false

    public init(config: ChakraConfig.Spiral, geometry: SpiralGeometry, time: Double = 0) {
        self.config = config
        self.geometry = geometry
        stateEnteredAt = time
        lastTime = time
        events.reserveCapacity(256)
    }

    /// A session for a screen: the configured spiral where `SpiralLayout` puts it.
    public convenience init(config: ChakraConfig.Spiral, width: Int, height: Int, time: Double = 0) {
        self.init(config: config, geometry: SpiralGeometry(config: config, layout: SpiralLayout(width: width, height: height, config: config)), time: time)
    }

    // MARK: - Lengths in screen px

    var u: Double { geometry.scale }
    public var proximity: Double { config.proximity * u }
    public var totalLength: Double { geometry.totalLength }
    public var inhaleLength: Double { geometry.totalLength * config.inhaleFraction }
    var arrivalTolerance: Double { config.lineWidth / 2 * u }

    // MARK: - Status

    /// Traced part of the path, 0...1.
    public var progress: Double { fingerLength / totalLength }

    /// Path length of the head: the orb at the tip of the coloured line.
    public var headLength: Double {
        switch state {
        case .idle: 0
        case .inhale: min(fingerLength + lead(tracedInPhase: fingerLength), inhaleLength)
        case .hold: inhaleLength
        case .exhale: min(fingerLength + lead(tracedInPhase: fingerLength - inhaleLength), totalLength)
        case .completed: totalLength
        }
    }

    /// How far the colour leads the finger: `colorDistanceOffset`, grown
    /// into over the phase's first `colorDistanceOffset` of tracing (the
    /// head starts where the finger touched, so a touch anywhere on the
    /// start orb is on the head, and pulls ahead as the finger moves).
    func lead(tracedInPhase traced: Double) -> Double { min(config.colorDistanceOffset * u, max(traced, 0)) }

    /// The coloured part of the path, 0...1 (the head's progress).
    public var colorProgress: Double { headLength / totalLength }

    /// The head orb on screen, px.
    public var headPosition: Point { geometry.point(atLength: headLength) }

    /// The path in screen px (the scene draws it; `cumulativeLengths` beside it).
    public var pathPoints: [Point] { geometry.points }

    /// The finger is away (lifted or strayed) in a state that needs it:
    /// the scene shows how to resume.
    public var needsResume: Bool {
        switch state {
        case .inhale, .exhale: !isOnHead
        case .hold: holdingSince == nil
        case .idle, .completed: false
        }
    }

    /// Seconds of hold counted by `time` (only time with a finger on the head).
    public func holdElapsed(at time: Double) -> Double {
        switch state {
        case .hold:
            let running = holdingSince.map { max(0, time - $0) } ?? 0
            return min(holdElapsedBase + running, config.holdDuration)
        case .exhale, .completed: return config.holdDuration
        case .idle, .inhale: return 0
        }
    }

    /// Seconds of hold still to go at `time`.
    public func holdRemaining(at time: Double) -> Double { config.holdDuration - holdElapsed(at: time) }

    /// Where the hold cycle is after `elapsed` seconds of hold: the phase,
    /// and how far through that phase (0...1).
    public func holdPhase(elapsed: Double) -> (phase: HoldPhase, fraction: Double) {
        let up = config.holdCycleUpDuration, pause = config.holdCyclePauseDuration, down = config.holdCycleDownDuration
        let cycle = config.holdCycleDuration
        let t = cycle > 0 ? elapsed.truncatingRemainder(dividingBy: cycle) : 0
        if t < up { return (.breatheIn, up > 0 ? t / up : 1) }
        if t < up + pause { return (.holdBreath, pause > 0 ? (t - up) / pause : 1) }
        return (.breatheOut, down > 0 ? min((t - up - pause) / down, 1) : 1)
    }

    /// The orb's pulse after `elapsed` seconds of hold: scale 1 → 3 over
    /// the up phase, 3 through the pause, 3 → 1 over the down phase, each
    /// leg eased in and out (docs/spiral-params.json).
    public func holdPulse(elapsed: Double) -> Double {
        let (phase, fraction) = holdPhase(elapsed: elapsed)
        let eased = TimingFunction.easeInOut.value(at: fraction)
        switch phase {
        case .breatheIn: return 1 + (SpiralSession.pulseMaximum - 1) * eased
        case .holdBreath: return SpiralSession.pulseMaximum
        case .breatheOut: return SpiralSession.pulseMaximum - (SpiralSession.pulseMaximum - 1) * eased
        }
    }

    /// The keyframes' peak (docs/design.md, The spiral: scale 1 → 3 → 3 → 1).
    public static let pulseMaximum = 3.0

    /// The next time `advance(to:)` will change something by itself (the
    /// hold ending, the celebration ending), for a caller that otherwise
    /// sleeps; nil when only a touch can.
    public var nextDeadline: Double? {
        switch state {
        case .hold: holdingSince.map { $0 + config.holdDuration - holdElapsedBase }
        case .completed: celebrationOver ? nil : stateEnteredAt + config.completionDelay
        case .idle, .inhale, .exhale: nil
        }
    }

    /// The events so far, oldest first, and forgets them.
    public func takeEvents() -> [SpiralEvent] {
        let taken = events
        events.removeAll(keepingCapacity: true)
        return taken
    }

    // MARK: - Input

    public func touchDown(at point: Point, time: Double) {
        advance(to: time)
        isTouching = true
        touchPoint = point
        follow(point, time: lastTime)
    }

    public func touchMoved(to point: Point, time: Double) {
        advance(to: time)
        isTouching = true
        touchPoint = point
        follow(point, time: lastTime)
    }

    public func touchUp(time: Double) {
        advance(to: time)
        isTouching = false
        touchPoint = nil
        leaveHead(time: lastTime)
    }

    /// Runs the clock to `time`: the hold's countdown, heartbeat cues, the
    /// hold's end, the celebration's end.
    public func advance(to time: Double) {
        let t = max(time, lastTime)
        switch state {
        case .hold:
            if let since = holdingSince {
                let e0 = holdElapsedBase + (lastTime - since)
                let end = since + config.holdDuration - holdElapsedBase
                emitBeats(from: e0, to: min(holdElapsedBase + (t - since), config.holdDuration), since: since)
                if t >= end {
                    holdElapsedBase = config.holdDuration
                    holdingSince = nil
                    lastTime = end
                    enter(.exhale, at: end)
                    fingerLength = inhaleLength
                    lastTickLength = fingerLength
                    if isOnHead { geometry.track(fromLength: fingerLength) }
                }
            }
        case .completed:
            let end = stateEnteredAt + config.completionDelay
            if !celebrationOver, t >= end {
                celebrationOver = true
                events.append(.celebrationEnded(time: end))
                if returnsToIdle { enter(.idle, at: end) }
            }
        case .idle, .inhale, .exhale:
            break
        }
        lastTime = t
    }

    /// Back to Idle from any state (`chakractl spiral cancel`).
    public func cancel(time: Double) {
        advance(to: time)
        if state != .idle { enter(.idle, at: lastTime) }
    }

    /// A fresh exercise in Idle (`chakractl spiral start`): the same as
    /// cancel, with the finger's contact kept.
    public func start(time: Double) { cancel(time: time) }

    // MARK: - Mechanics

    private func distance(_ a: Point, _ b: Point) -> Double {
        let d = a - b
        return (d.x * d.x + d.y * d.y).squareRoot()
    }

    private func follow(_ point: Point, time: Double) {
        switch state {
        case .idle:
            if distance(point, geometry.point(atLength: 0)) <= proximity {
                enter(.inhale, at: time)
                isOnHead = true
                geometry.track(fromLength: 0)
                trace(point, time: time)
            }
        case .inhale, .exhale:
            if distance(point, headPosition) <= proximity {
                if !isOnHead {
                    isOnHead = true
                    geometry.track(fromLength: fingerLength)
                }
                trace(point, time: time)
            } else {
                isOnHead = false
            }
        case .hold:
            if distance(point, headPosition) <= proximity {
                if holdingSince == nil { holdingSince = time }
                isOnHead = true
            } else {
                leaveHead(time: time)
            }
        case .completed:
            break
        }
    }

    /// The finger is off the head: tracing stops; the hold's count pauses.
    private func leaveHead(time: Double) {
        isOnHead = false
        if state == .hold, let since = holdingSince {
            holdElapsedBase = min(holdElapsedBase + (time - since), config.holdDuration)
            holdingSince = nil
        }
    }

    /// Moves the finger's progress forward to the path point nearest the
    /// touch (never back, never past the phase's end).
    private func trace(_ point: Point, time: Double) {
        let match = geometry.closestProgress(to: point)
        guard match.distance <= proximity else { return }
        let end = state == .inhale ? inhaleLength : totalLength
        let length = min(match.length, end)
        if length > fingerLength {
            fingerLength = length
            // (A hair of slack: lengths from projections carry rounding.)
            if fingerLength - lastTickLength >= config.hapticFeedbackDistance * u - 1e-6 {
                events.append(.haptic(.tick, time: time))
                lastTickLength = fingerLength
            }
        }
        guard fingerLength >= end - arrivalTolerance else { return }
        fingerLength = end
        if state == .inhale {
            enter(.hold, at: time)
            holdingSince = isOnHead ? time : nil
        } else {
            enter(.completed, at: time)
        }
    }

    private func enter(_ next: SpiralState, at time: Double) {
        events.append(.stateChanged(from: state, to: next, time: time))
        state = next
        stateEnteredAt = time
        switch next {
        case .idle:
            fingerLength = 0
            lastTickLength = 0
            isOnHead = false
            geometry.resetTracking()
            holdElapsedBase = 0
            holdingSince = nil
        case .inhale:
            fingerLength = 0
            lastTickLength = 0
        case .hold:
            holdElapsedBase = 0
            holdingSince = nil
        case .exhale:
            break
        case .completed:
            celebrationOver = false
            isOnHead = false
        }
    }

    /// Heartbeat cues for hold time [e0, e1): every `hapticBeatInterval`
    /// from the start of each cycle's up phase, while it lasts.
    private func emitBeats(from e0: Double, to e1: Double, since: Double) {
        let cycle = config.holdCycleDuration, interval = config.hapticBeatInterval, up = config.holdCycleUpDuration
        guard cycle > 0, interval > 0, e1 > e0 else { return }
        var cycleStart = (e0 / cycle).rounded(.down) * cycle
        while cycleStart < e1 {
            var m = max(0, ((e0 - cycleStart) / interval - 1e-9).rounded(.up))
            while m * interval < up - 1e-9 {
                let beat = cycleStart + m * interval
                if beat >= e1 { break }
                if beat >= e0 { events.append(.haptic(.beat, time: since + (beat - holdElapsedBase))) }
                m += 1
            }
            cycleStart += cycle
        }
    }
}
