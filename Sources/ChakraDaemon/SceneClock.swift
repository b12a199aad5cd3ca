/// Scene time from the monotonic clock: seconds since the scene started,
/// minus the time spent paused. Pausing (or --pin-time) freezes it; a
/// frozen scene draws identical frames, so the loop draws one and rests.
public struct SceneClock: Sendable, Equatable {
    /// Monotonic time at which scene time was 0.
    private var origin: Double
    /// Scene time while frozen.
    private var frozenAt: Double?

    public init(start: Double, pinnedAt pinned: Double? = nil) {
        origin = start
        frozenAt = pinned
    }

    public var isFrozen: Bool { frozenAt != nil }

    /// Scene time of a frame shown at monotonic time `instant`.
    public func time(at instant: Double) -> Double {
        frozenAt ?? max(0, instant - origin)
    }

    public mutating func pause(at now: Double) {
        if frozenAt == nil { frozenAt = time(at: now) }
    }

    /// Continues from where it was frozen (no jump).
    public mutating func resume(at now: Double) {
        guard let frozen = frozenAt else { return }
        origin = now - frozen
        frozenAt = nil
    }

    /// A new scene starts at time 0 (a pinned clock stays pinned).
    public mutating func restart(at now: Double) {
        origin = now
        if frozenAt != nil { frozenAt = 0 }
    }
}
