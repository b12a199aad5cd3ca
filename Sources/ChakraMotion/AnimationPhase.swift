/// Web Animations §"Animation effect phases and states": where a time falls
/// relative to the active interval.
public enum AnimationPhase: Sendable, Equatable, Hashable {
    /// Before the active interval (still in the delay).
    case before
    /// Inside the active interval.
    case active
    /// After the active interval (all iterations done).
    case after
}
