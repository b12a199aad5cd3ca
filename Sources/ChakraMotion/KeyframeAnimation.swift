/// A keyframe track played with a timing: what one CSS animation (or one
/// `CAKeyframeAnimation`) does to one property.
public struct KeyframeAnimation<Value: Interpolatable>: Sendable {
    public var timing: AnimationTiming
    public var track: KeyframeTrack<Value>

    public init(_ track: KeyframeTrack<Value>, timing: AnimationTiming) {
        self.track = track
        self.timing = timing
    }

    /// The animated value at scene time `t`, or nil when the animation has no
    /// effect then (the caller shows the property's base value).
    public func value(at t: Double) -> Value? {
        guard let progress = timing.directedProgress(at: t) else { return nil }
        return track.value(atProgress: progress)
    }

    /// The animated value at `t`, or `base` when the animation has no effect.
    public func value(at t: Double, base: Value) -> Value {
        value(at: t) ?? base
    }
}
