/// One keyframe of a property: a value at an offset of the iteration
/// (CSS `@keyframes` selector percentages; `CAKeyframeAnimation.keyTimes`).
public struct Keyframe<Value: Interpolatable>: Sendable {
    /// Position in the iteration, 0...1 (CSS `0%`…`100%`).
    public var offset: Double
    public var value: Value
    /// Easing for the segment that STARTS at this keyframe, overriding the
    /// track's easing (CSS `animation-timing-function` inside a keyframe block;
    /// `CAKeyframeAnimation.timingFunctions`). Nil uses the track's easing.
    public var easing: TimingFunction?

    public init(_ offset: Double, _ value: Value, easing: TimingFunction? = nil) {
        self.offset = offset
        self.value = value
        self.easing = easing
    }
}

extension Keyframe: Equatable where Value: Equatable {}
