/// How easing applies to a multi-keyframe track. The two web/Apple models
/// differ, and a scene ported from one must keep its model to look the same.
public enum KeyframeEasing: Sendable, Equatable, Hashable {
    /// CSS Animations: the timing function applies to EACH segment between
    /// consecutive keyframes; the segment's local progress is eased and the
    /// values are then interpolated linearly. A keyframe's own `easing`
    /// replaces this function for the segment starting at that keyframe.
    case perSegment(TimingFunction)
    /// Core Animation (`CAKeyframeAnimation.timingFunction`) and the Web
    /// Animations effect-level `easing`: ONE curve over the whole cycle; the
    /// progress is eased first, then the segment is found and interpolated.
    /// Segments are linear unless a keyframe has its own `easing`, which then
    /// shapes that segment too (as `CAKeyframeAnimation.timingFunctions` and
    /// Web Animations keyframe easing compose with the whole-cycle curve).
    case wholeCycle(TimingFunction)
}
