/// A property's keyframes and how to ease between them.
///
/// The keyframes are validated and completed once, at construction; evaluation
/// then only reads the stored array (no allocation per frame).
public struct KeyframeTrack<Value: Interpolatable>: Sendable {
    /// The keyframes, sorted, always starting at offset 0 and ending at 1.
    public let keyframes: [Keyframe<Value>]
    public let easing: KeyframeEasing
    /// More than one keyframe at offset 0 / offset 1 (precomputed for the
    /// Web Animations overshoot rule, so evaluation does not scan for it).
    private let hasStackedStart: Bool
    private let hasStackedEnd: Bool

    /// Validates `keyframes` (at least one; offsets finite, within 0...1 and
    /// nondecreasing) and precondition-fails otherwise.
    ///
    /// CSS Animations §"Keyframes": when no keyframe sits at 0% or 100%, an
    /// implicit one is made from the property's underlying value, `base`.
    /// Without a `base`, the implicit keyframe holds the nearest keyframe's
    /// value (the property just stays put before the first / after the last).
    public init(_ keyframes: [Keyframe<Value>], easing: KeyframeEasing, base: Value? = nil) {
        Self.validate(keyframes)
        var completed = keyframes
        if let first = keyframes.first, first.offset != 0 {
            completed.insert(Keyframe(0, base ?? first.value), at: 0)
        }
        if let last = keyframes.last, last.offset != 1 {
            completed.append(Keyframe(1, base ?? last.value))
        }
        self.keyframes = completed
        self.easing = easing
        hasStackedStart = completed.filter { $0.offset == 0 }.count > 1
        hasStackedEnd = completed.filter { $0.offset == 1 }.count > 1
    }

    /// The value at directed progress `p` (clamped to [0, 1]).
    public func value(atProgress p: Double) -> Value {
        let progress = p.isNaN ? 0 : min(max(p, 0), 1)
        switch easing {
        case .perSegment(let function):
            return interpolate(at: progress, defaultSegmentEasing: function)
        case .wholeCycle(let function):
            return interpolate(at: function.value(at: progress), defaultSegmentEasing: .linear)
        }
    }

    /// Web Animations §"The effect value of a keyframe effect": find the
    /// interval endpoints, ease the local progress by the start keyframe's
    /// easing, blend. `progress` may lie outside [0, 1] after a whole-cycle
    /// overshoot; the first or last interval then extrapolates.
    private func interpolate(at progress: Double, defaultSegmentEasing: TimingFunction) -> Value {
        // Several keyframes stacked at 0 (or 1) pin the overshoot to the
        // outermost one instead of extrapolating (same section, step 14).
        if progress < 0 && hasStackedStart { return keyframes[0].value }
        if progress >= 1 && hasStackedEnd { return keyframes[keyframes.count - 1].value }
        let startIndex = intervalStartIndex(for: progress)
        let start = keyframes[startIndex]
        let end = keyframes[startIndex + 1]
        let length = end.offset - start.offset
        if length == 0 { return end.value }
        let local = (progress - start.offset) / length
        let eased = (start.easing ?? defaultSegmentEasing).value(at: local)
        return Value.interpolate(start.value, end.value, eased)
    }

    /// The start keyframe of the interval, as Web Animations chooses it: the
    /// last keyframe with offset ≤ progress and < 1 (so equal offsets make a
    /// jump, the later keyframe winning); below 0, the last keyframe at 0.
    private func intervalStartIndex(for progress: Double) -> Int {
        var index = keyframes.count - 2
        while index > 0 {
            let offset = keyframes[index].offset
            if offset <= progress && offset < 1 { return index }
            index -= 1
        }
        return 0  // keyframes[0] is at offset 0: the fallback for progress < 0 too.
    }

    private static func validate(_ keyframes: [Keyframe<Value>]) {
        precondition(!keyframes.isEmpty, "a keyframe track needs at least one keyframe")
        var previous = 0.0
        for keyframe in keyframes {
            precondition((0...1).contains(keyframe.offset),
                         "keyframe offset \(keyframe.offset) is outside 0...1")
            precondition(keyframe.offset >= previous, "keyframe offsets must be nondecreasing")
            previous = keyframe.offset
        }
    }
}
