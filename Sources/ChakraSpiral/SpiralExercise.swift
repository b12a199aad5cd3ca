/// One exercise as a session record keeps it: from the first touch (Idle →
/// Inhale) until Completed, or until it was given up. `SpiralSession`
/// hands these out through `takeFinishedExercise()`.
public struct SpiralExerciseSummary: Sendable, Equatable {
    public enum Ending: String, Sendable, CaseIterable {
        /// It reached Completed.
        case completed
        /// `cancel` (`chakractl spiral cancel`).
        case cancelled
        /// `start` while it ran (`chakractl spiral start`).
        case restarted
        /// No finger on the light for `spiral.abandon_after` seconds.
        case timedOut = "timed_out"
        /// `finishExercise`: the scene went away or the screen went off.
        case interrupted
    }

    /// The breathing pattern's name.
    public var pattern: String
    /// Session time of the first touch (Idle → Inhale).
    public var startedAt: Double
    /// Session time of Completed, or of the abandonment.
    public var endedAt: Double
    public var ending: Ending
    /// inhale, hold, exhale or completed.
    public var furthestState: SpiralState
    /// Seconds with the finger on the light, tracing or holding.
    public var onHeadSeconds: Double
    /// Seconds of hold counted (the countdown only runs while touched).
    public var holdTouchedSeconds: Double
    /// Times the finger lifted or strayed off the light during Inhale, Hold
    /// or Exhale.
    public var lifts: Int
    /// Seconds spent in each state of the exercise (they add up to
    /// `endedAt - startedAt`).
    public var inhaleSeconds: Double
    public var holdSeconds: Double
    public var exhaleSeconds: Double

    public init(pattern: String, startedAt: Double, endedAt: Double, ending: Ending, furthestState: SpiralState,
                onHeadSeconds: Double, holdTouchedSeconds: Double, lifts: Int,
                inhaleSeconds: Double = 0, holdSeconds: Double = 0, exhaleSeconds: Double = 0) {
        (self.pattern, self.startedAt, self.endedAt, self.ending, self.furthestState) = (pattern, startedAt, endedAt, ending, furthestState)
        (self.onHeadSeconds, self.holdTouchedSeconds, self.lifts) = (onHeadSeconds, holdTouchedSeconds, lifts)
        (self.inhaleSeconds, self.holdSeconds, self.exhaleSeconds) = (inhaleSeconds, holdSeconds, exhaleSeconds)
    }
}

/// The running exercise's figures, kept by the session as it changes
/// state and the finger comes and goes. Plain numbers: nothing is
/// allocated while an exercise runs.
struct ExerciseLedger {
    /// The exercise so far; nil between exercises.
    private(set) var running: SpiralExerciseSummary?
    private var stateSince = 0.0
    private var state = SpiralState.idle
    private var onHeadSince: Double?

    var isRunning: Bool { running != nil }

    /// The first touch: Idle → Inhale, the finger on the light.
    mutating func begin(at time: Double, pattern: String) {
        running = SpiralExerciseSummary(pattern: pattern, startedAt: time, endedAt: time, ending: .completed, furthestState: .inhale,
                                        onHeadSeconds: 0, holdTouchedSeconds: 0, lifts: 0)
        (state, stateSince, onHeadSince) = (.inhale, time, nil)
    }

    /// Hold or Exhale.
    mutating func entered(_ next: SpiralState, at time: Double) {
        guard running != nil else { return }
        closeState(at: time)
        (state, stateSince) = (next, time)
        running!.furthestState = next
    }

    mutating func fingerOnHead(at time: Double) {
        guard running != nil, onHeadSince == nil else { return }
        onHeadSince = time
    }

    /// The finger left the light; `lifted`: by lifting or straying (not
    /// because the exercise moved on).
    mutating func fingerOffHead(at time: Double, lifted: Bool) {
        guard running != nil, let since = onHeadSince else { return }
        running!.onHeadSeconds += time - since
        onHeadSince = nil
        if lifted { running!.lifts += 1 }
    }

    /// The exercise ends: its summary, and no exercise runs any more.
    mutating func finish(_ ending: SpiralExerciseSummary.Ending, at time: Double, holdTouched: Double) -> SpiralExerciseSummary? {
        guard running != nil else { return nil }
        fingerOffHead(at: time, lifted: false)
        closeState(at: time)
        running!.endedAt = time
        running!.ending = ending
        running!.holdTouchedSeconds = holdTouched
        if ending == .completed { running!.furthestState = .completed }
        defer { running = nil }
        return running
    }

    private mutating func closeState(at time: Double) {
        let seconds = time - stateSince
        switch state {
        case .inhale: running!.inhaleSeconds += seconds
        case .hold: running!.holdSeconds += seconds
        case .exhale: running!.exhaleSeconds += seconds
        case .idle, .completed: break
        }
        stateSince = time
    }
}
