/// CSS Animations / Web Animations timing model (the `animation-*` properties).
///
/// Everything is a function of `t`, the seconds since the animation was
/// started (Web Animations' "local time" with a playback rate of 1 and a start
/// time of 0). `iteration-start` and `end-delay` are not modelled (both 0), as
/// CSS Animations do not expose them.
public struct AnimationTiming: Sendable, Equatable, Hashable {
    /// Seconds per iteration, > 0 (`animation-duration`).
    public var duration: Double
    /// Seconds before the first iteration starts; negative starts part-way
    /// into the animation (`animation-delay`).
    public var delay: Double
    /// Number of iterations; `.infinity` and fractions allowed
    /// (`animation-iteration-count`).
    public var iterations: Double
    public var direction: PlaybackDirection
    public var fill: FillMode

    public init(duration: Double, delay: Double = 0, iterations: Double = .infinity,
                direction: PlaybackDirection = .normal, fill: FillMode = .none) {
        precondition(duration >= 0 && !duration.isNaN, "duration must be >= 0")
        precondition(iterations >= 0 && !iterations.isNaN, "iterations must be >= 0")
        precondition(delay.isFinite, "delay must be finite")
        self.duration = duration
        self.delay = delay
        self.iterations = iterations
        self.direction = direction
        self.fill = fill
    }

    /// Web Animations §"Calculating the active duration": duration × iterations,
    /// but 0 whenever the duration is 0 (so 0 × ∞ is 0, not NaN).
    public var activeDuration: Double {
        duration == 0 || iterations == 0 ? 0 : duration * iterations
    }

    /// Web Animations "end time": delay + active duration, never negative.
    public var endTime: Double { max(delay + activeDuration, 0) }

    /// Web Animations §"Animation effect phases and states" for a forwards
    /// playing animation: `before` strictly before the before-active boundary,
    /// `after` at or after the active-after boundary.
    public func phase(at t: Double) -> AnimationPhase {
        let beforeActiveBoundary = max(min(delay, endTime), 0)
        let activeAfterBoundary = max(min(delay + activeDuration, endTime), 0)
        if t < beforeActiveBoundary { return .before }
        if t >= activeAfterBoundary { return .after }
        return .active
    }

    /// The directed progress in [0, 1] at time `t`, or nil when the animation
    /// has no effect (in the delay without a backwards fill; after the active
    /// interval without a forwards fill).
    ///
    /// Web Animations §"Core animation effect calculations": active time →
    /// overall progress → simple iteration progress → current iteration →
    /// directed progress.
    public func directedProgress(at t: Double) -> Double? {
        let phase = phase(at: t)
        guard let activeTime = activeTime(at: t, phase: phase) else { return nil }
        let overall = overallProgress(activeTime: activeTime, phase: phase)
        let simple = simpleIterationProgress(overall: overall, activeTime: activeTime, phase: phase)
        let iteration = currentIteration(overall: overall, simple: simple, phase: phase)
        return isForwards(iteration: iteration) ? simple : 1 - simple
    }

    /// The iteration index (0-based) at time `t`, or nil when there is no
    /// effect; `.infinity` after an infinite animation (Web Animations).
    public func currentIteration(at t: Double) -> Double? {
        let phase = phase(at: t)
        guard let activeTime = activeTime(at: t, phase: phase) else { return nil }
        let overall = overallProgress(activeTime: activeTime, phase: phase)
        let simple = simpleIterationProgress(overall: overall, activeTime: activeTime, phase: phase)
        return currentIteration(overall: overall, simple: simple, phase: phase)
    }

    // MARK: - Web Animations steps

    /// §"Calculating the active time": fills decide the before and after phases.
    private func activeTime(at t: Double, phase: AnimationPhase) -> Double? {
        switch phase {
        case .before:
            fill.fillsBackwards ? max(t - delay, 0) : nil
        case .active:
            t - delay
        case .after:
            fill.fillsForwards ? max(min(t - delay, activeDuration), 0) : nil
        }
    }

    /// §"Calculating the overall progress" (iteration start 0).
    private func overallProgress(activeTime: Double, phase: AnimationPhase) -> Double {
        if duration == 0 { return phase == .before ? 0 : iterations }
        // At the very end, activeTime / duration can miss the exact iteration
        // count by an ulp (0.30000000000000004 / 0.1 = 3.0000000000000004),
        // which would break the "end of an iteration" rule below; use the exact
        // value the division stands for.
        if activeTime == activeDuration && iterations.isFinite { return iterations }
        return activeTime / duration
    }

    /// §"Calculating the simple iteration progress", including the rule that
    /// keeps progress 1 (not 0) when the active interval ends on an iteration
    /// boundary, so a finished 2-iteration animation fills with its end state.
    private func simpleIterationProgress(overall: Double, activeTime: Double,
                                         phase: AnimationPhase) -> Double {
        let simple = overall.isInfinite ? 0 : overall.truncatingRemainder(dividingBy: 1)
        if simple == 0 && phase != .before && activeTime == activeDuration && iterations != 0 {
            return 1
        }
        return simple
    }

    /// §"Calculating the current iteration".
    private func currentIteration(overall: Double, simple: Double, phase: AnimationPhase) -> Double {
        if phase == .after && iterations.isInfinite { return .infinity }
        if simple == 1 { return overall.rounded(.down) - 1 }
        return overall.rounded(.down)
    }

    /// §"Calculating the directed progress": alternate flips odd iterations,
    /// alternate-reverse flips even ones; an infinite iteration counts as forwards.
    private func isForwards(iteration: Double) -> Bool {
        switch direction {
        case .normal: return true
        case .reverse: return false
        case .alternate, .alternateReverse:
            if iteration.isInfinite { return true }
            let d = direction == .alternateReverse ? iteration + 1 : iteration
            return d.truncatingRemainder(dividingBy: 2) == 0
        }
    }
}
