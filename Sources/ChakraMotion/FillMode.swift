/// CSS `animation-fill-mode` / Web Animations `FillMode`: whether the animation
/// still applies outside its active interval.
public enum FillMode: Sendable, Equatable, Hashable {
    /// No effect before the delay ends or after the last iteration.
    case none
    /// After the active interval, hold the final progress.
    case forwards
    /// During the delay, hold the starting progress.
    case backwards
    /// Both `forwards` and `backwards`.
    case both

    var fillsBackwards: Bool { self == .backwards || self == .both }
    var fillsForwards: Bool { self == .forwards || self == .both }
}
