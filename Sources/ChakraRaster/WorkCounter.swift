import Synchronization

/// Hands out work items 0, 1, 2, … to whichever thread asks first, so
/// threads that finish early take more (dynamic load balancing without
/// locks or allocation). Reset it before each parallel phase.
public final class WorkCounter: Sendable {
    private let next = Atomic<Int>(0)

    public init() {}

    /// Starts handing out from 0 again. Call while no thread is taking.
    public func reset() { next.store(0, ordering: .relaxed) }

    /// The next item; items run past any bound, so callers stop at theirs.
    @inline(__always)
    public func take() -> Int { next.add(1, ordering: .relaxed).oldValue }
}
