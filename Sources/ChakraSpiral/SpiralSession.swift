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

/// Where the hold's breathing is: which phase of the session's pattern
/// (its index in `pattern.phases` and its kind) and how far through it.
public struct HoldMoment: Sendable, Equatable {
    public var index: Int
    public var kind: BreathPhase.Kind
    /// 0 at the phase's start, 1 at its end.
    public var fraction: Double

    public init(index: Int, kind: BreathPhase.Kind, fraction: Double) {
        (self.index, self.kind, self.fraction) = (index, kind, fraction)
    }
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
/// - Hold: `holdDuration` (the configured one in whole cycles of the
///   pattern) counts down only while a finger rests within `proximity` of
///   the head; lifting (or straying) pauses it, touching again resumes it.
///   The cycles of the breathing pattern (in, hold-in, out, hold-out) drive
///   the guidance texts, the orb's pulse and the heartbeat cues.
/// - Completed: the celebration; after `completionDelay`, Idle (see
///   `returnsToIdle`).
/// - An exercise (Idle → Inhale until Completed) left with no finger on
///   the head for `abandonAfter` seconds goes back to Idle by itself.
///
/// Each exercise is summed up for session records when it ends
/// (`takeFinishedExercise()`).
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
    /// The pattern the configuration chooses (`spiral.pattern`): every
    /// exercise's, unless `start(time:pattern:)` picks another for one.
    public let configuredPattern: BreathingPattern
    /// The breathing pattern of the exercise under way, or of the next one
    /// while in Idle.
    public private(set) var pattern: BreathingPattern
    /// How long this exercise's Hold lasts: `config.holdDuration` in whole
    /// cycles of `pattern`.
    public private(set) var holdDuration: Double
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
    /// Where each phase of `pattern` ends within a cycle, in seconds.
    private var phaseEnds: [Double] = []
    /// Since when no finger has been on the head, during an exercise.
    private var offHeadSince: Double?
    private var ledger = ExerciseLedger()
    /// Exercises ended and not yet taken, oldest first.
    private var finished: [SpiralExerciseSummary] = []

    /// Ended exercises kept for `takeFinishedExercise()`: in practice one
    /// ends between two turns of the daemon's loop; a few more keep a
    /// caller that takes them late from losing any, and the bound keeps one
    /// that never takes them from growing without end.
    public static let finishedCapacity = 8

    /// A session using the configuration's pattern (`spiral.pattern`).
    public init(config: ChakraConfig.Spiral, geometry: SpiralGeometry, time: Double = 0) {
        self.config = config
        self.geometry = geometry
        configuredPattern = Self.usable(config.selectedPattern)
        pattern = configuredPattern
        holdDuration = configuredPattern.holdSeconds(near: config.holdDuration)
        stateEnteredAt = time
        lastTime = time
        events.reserveCapacity(256)
        finished.reserveCapacity(Self.finishedCapacity)
        phaseEnds.reserveCapacity(BreathPhase.Kind.allCases.count)
        use(configuredPattern)
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
            return min(holdElapsedBase + running, holdDuration)
        case .exhale, .completed: return holdDuration
        case .idle, .inhale: return 0
        }
    }

    /// Seconds of hold still to go at `time`.
    public func holdRemaining(at time: Double) -> Double { holdDuration - holdElapsed(at: time) }

    /// Where the breathing pattern is after `elapsed` seconds of hold: the
    /// phase, and how far through it. Cycles repeat from 0; a phase ends
    /// where the next begins (box at 4 s: hold-in, fraction 0).
    public func holdPhase(elapsed: Double) -> HoldMoment {
        guard let cycle = phaseEnds.last, cycle > 0 else { return HoldMoment(index: 0, kind: .in, fraction: 0) }
        let t = max(elapsed, 0).truncatingRemainder(dividingBy: cycle)
        var start = 0.0
        for index in phaseEnds.indices {
            let end = phaseEnds[index]
            if t < end || index == phaseEnds.count - 1 {
                return HoldMoment(index: index, kind: pattern.phases[index].kind, fraction: min(max((t - start) / (end - start), 0), 1))
            }
            start = end
        }
        return HoldMoment(index: 0, kind: .in, fraction: 0)
    }

    /// The orb's pulse after `elapsed` seconds of hold: scale 1 → 3 over
    /// `in`, 3 through `hold-in`, 3 → 1 over `out`, 1 through `hold-out`,
    /// each leg eased in and out (docs/spiral-params.json).
    public func holdPulse(elapsed: Double) -> Double {
        let moment = holdPhase(elapsed: elapsed)
        let eased = TimingFunction.easeInOut.value(at: moment.fraction)
        let peak = SpiralSession.pulseMaximum
        switch moment.kind {
        case .in: return 1 + (peak - 1) * eased
        case .holdIn: return peak
        case .out: return peak - (peak - 1) * eased
        case .holdOut: return 1
        }
    }

    /// The keyframes' peak (docs/design.md, The spiral: scale 1 → 3 → 3 → 1).
    public static let pulseMaximum = 3.0

    /// The next time `advance(to:)` will change something by itself (the
    /// hold ending, the celebration ending, an exercise given up), for a
    /// caller that otherwise sleeps; nil when only a touch can.
    public var nextDeadline: Double? {
        switch state {
        case .hold: holdingSince.map { $0 + holdDuration - holdElapsedBase } ?? abandonDeadline
        case .completed: celebrationOver ? nil : stateEnteredAt + config.completionDelay
        case .inhale, .exhale: abandonDeadline
        case .idle: nil
        }
    }

    /// When an exercise with no finger on the head is given up (Inhale,
    /// Hold, Exhale; nil while a finger is on it or with `abandonAfter` 0).
    public var abandonDeadline: Double? {
        guard config.abandonAfter > 0, ledger.isRunning, !isOnHead, let since = offHeadSince else { return nil }
        return since + config.abandonAfter
    }

    /// An exercise is under way: Inhale, Hold or Exhale since the first touch.
    public var isExerciseRunning: Bool { ledger.isRunning }

    /// The oldest exercise that has ended and not been taken yet (at most
    /// `finishedCapacity` are kept; past that the oldest is dropped).
    public func takeFinishedExercise() -> SpiralExerciseSummary? {
        finished.isEmpty ? nil : finished.removeFirst()
    }

    /// The events so far, oldest first, and forgets them.
    public func takeEvents() -> [SpiralEvent] {
        // Asked every loop turn: with nothing to take, no copy (taking a
        // copy and emptying the kept array allocated a buffer each time).
        guard !events.isEmpty else { return [] }
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
    /// hold's end, the celebration's end, an exercise given up.
    public func advance(to time: Double) {
        let t = max(time, lastTime)
        switch state {
        case .hold where holdingSince != nil:
            let since = holdingSince!
            let e0 = holdElapsedBase + (lastTime - since)
            let end = since + holdDuration - holdElapsedBase
            emitBeats(from: e0, to: min(holdElapsedBase + (t - since), holdDuration), since: since)
            if t >= end {
                holdElapsedBase = holdDuration
                holdingSince = nil
                lastTime = end
                enter(.exhale, at: end)
                fingerLength = inhaleLength
                lastTickLength = fingerLength
                if isOnHead { geometry.track(fromLength: fingerLength) }
            }
        case .completed:
            let end = stateEnteredAt + config.completionDelay
            if !celebrationOver, t >= end {
                celebrationOver = true
                events.append(.celebrationEnded(time: end))
                if returnsToIdle { enter(.idle, at: end) }
            }
        case .inhale, .hold, .exhale:
            if let deadline = abandonDeadline, t >= deadline {
                lastTime = deadline
                endExercise(.timedOut, at: deadline)
                enter(.idle, at: deadline)
            }
        case .idle:
            break
        }
        lastTime = t
    }

    /// Back to Idle from any state (`chakractl spiral cancel`), with the
    /// configured pattern again.
    public func cancel(time: Double) { abandon(.cancelled, time: time) }

    /// A fresh exercise in Idle (`chakractl spiral start`): as cancel, with
    /// the finger's contact kept; `pattern` (one of
    /// `config.availablePatterns`, so that the scene has its texts) for
    /// this one exercise, the configured one again once it ends.
    public func start(time: Double, pattern chosen: BreathingPattern? = nil) {
        abandon(.restarted, time: time)
        if let chosen { use(Self.usable(chosen)) }
    }

    /// `pattern`, or the default preset if it is not a valid pattern (one
    /// made in code: a loaded configuration has only valid ones), so that
    /// a hold always has phases to breathe.
    private static func usable(_ pattern: BreathingPattern) -> BreathingPattern {
        pattern.shapeProblem == nil ? pattern : BreathingPattern.preset(named: BreathingPattern.defaultName)!
    }

    /// The exercise cannot go on (the scene goes away, the screen goes
    /// off): it ends as interrupted and the session goes back to Idle.
    public func finishExercise(time: Double) { abandon(.interrupted, time: time) }

    private func abandon(_ ending: SpiralExerciseSummary.Ending, time: Double) {
        advance(to: time)
        endExercise(ending, at: lastTime)
        if state != .idle {
            enter(.idle, at: lastTime)
        } else {
            use(configuredPattern)
        }
    }

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
                setOnHead(true, at: time)
                geometry.track(fromLength: 0)
                trace(point, time: time)
            }
        case .inhale, .exhale:
            if distance(point, headPosition) <= proximity {
                if !isOnHead {
                    setOnHead(true, at: time)
                    geometry.track(fromLength: fingerLength)
                }
                trace(point, time: time)
            } else {
                setOnHead(false, at: time)
            }
        case .hold:
            if distance(point, headPosition) <= proximity {
                if holdingSince == nil { holdingSince = time }
                setOnHead(true, at: time)
            } else {
                leaveHead(time: time)
            }
        case .completed:
            break
        }
    }

    /// The finger is off the head: tracing stops; the hold's count pauses.
    private func leaveHead(time: Double) {
        setOnHead(false, at: time)
        if state == .hold, let since = holdingSince {
            holdElapsedBase = min(holdElapsedBase + (time - since), holdDuration)
            holdingSince = nil
        }
    }

    /// The one place the finger comes onto and leaves the head: the
    /// exercise's figures and the abandonment clock follow it. `lifted`:
    /// the finger went (lifted or strayed), rather than the exercise
    /// moving on without it.
    private func setOnHead(_ on: Bool, at time: Double, lifted: Bool = true) {
        guard on != isOnHead else { return }
        isOnHead = on
        if on {
            offHeadSince = nil
            ledger.fingerOnHead(at: time)
        } else {
            offHeadSince = time
            ledger.fingerOffHead(at: time, lifted: lifted)
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
        // Summed up while the figures still stand (the hold counted, the
        // finger on the head).
        if next == .completed { endExercise(.completed, at: time) }
        state = next
        stateEnteredAt = time
        switch next {
        case .idle:
            fingerLength = 0
            lastTickLength = 0
            setOnHead(false, at: time, lifted: false)
            geometry.resetTracking()
            holdElapsedBase = 0
            holdingSince = nil
            use(configuredPattern)
        case .inhale:
            fingerLength = 0
            lastTickLength = 0
            ledger.begin(at: time, pattern: pattern.name)
        case .hold:
            holdElapsedBase = 0
            holdingSince = nil
            ledger.entered(.hold, at: time)
        case .exhale:
            ledger.entered(.exhale, at: time)
        case .completed:
            celebrationOver = false
            setOnHead(false, at: time, lifted: false)
        }
    }

    /// Ends the exercise under way, if one is, and keeps its summary.
    private func endExercise(_ ending: SpiralExerciseSummary.Ending, at time: Double) {
        guard let summary = ledger.finish(ending, at: time, holdTouched: holdElapsed(at: time)) else { return }
        if finished.count == Self.finishedCapacity { finished.removeFirst() }
        finished.append(summary)
    }

    /// `pattern` for the next exercise (only ever in Idle: an exercise
    /// keeps its pattern to the end).
    private func use(_ next: BreathingPattern) {
        pattern = next
        holdDuration = next.holdSeconds(near: config.holdDuration)
        phaseEnds.removeAll(keepingCapacity: true)
        var end = 0.0
        for phase in next.phases {
            end += phase.seconds
            phaseEnds.append(end)
        }
    }

    /// Heartbeat cues for hold time [e0, e1): every `hapticBeatInterval`
    /// from the start of each cycle's `in` phase (a pattern's first), while
    /// it lasts.
    private func emitBeats(from e0: Double, to e1: Double, since: Double) {
        let cycle = phaseEnds.last ?? 0, interval = config.hapticBeatInterval, inhale = phaseEnds.first ?? 0
        guard cycle > 0, interval > 0, e1 > e0 else { return }
        var cycleStart = (e0 / cycle).rounded(.down) * cycle
        while cycleStart < e1 {
            var m = max(0, ((e0 - cycleStart) / interval - 1e-9).rounded(.up))
            while m * interval < inhale - 1e-9 {
                let beat = cycleStart + m * interval
                if beat >= e1 { break }
                if beat >= e0 { events.append(.haptic(.beat, time: since + (beat - holdElapsedBase))) }
                m += 1
            }
            cycleStart += cycle
        }
    }
}
