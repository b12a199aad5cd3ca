/// CSS `animation-direction` / Web Animations `PlaybackDirection`: which way
/// each iteration runs.
public enum PlaybackDirection: Sendable, Equatable, Hashable {
    /// Every iteration runs forwards.
    case normal
    /// Every iteration runs backwards.
    case reverse
    /// Even iterations (0, 2, …) forwards, odd ones backwards.
    case alternate
    /// Even iterations backwards, odd ones forwards.
    case alternateReverse
}
