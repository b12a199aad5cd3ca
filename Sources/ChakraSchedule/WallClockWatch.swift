/// The wall clock (what a schedule follows) against the monotonic clock
/// (what the daemon sleeps on): the offset between them, and when it
/// jumps. An NTP step, a date set by hand or a resume from suspend moves
/// the wall clock and not the monotonic one, so a deadline computed in
/// monotonic time from an earlier reading is wrong afterwards: the
/// schedule must be evaluated again. NTP's slewing moves the offset by
/// microseconds a second; that is followed, not a jump.
public struct WallClockWatch: Sendable, Equatable {
    /// Wall minus monotonic, seconds; nil before the first reading.
    public private(set) var offset: Double?
    /// A change of the offset beyond this is a jump (seconds).
    public let tolerance: Double

    public init(tolerance: Double = 1) { self.tolerance = tolerance }

    /// Takes a pair of readings made together; true when the wall clock
    /// jumped since the last pair (or this is the first).
    public mutating func observe(monotonic: Double, wall: Double) -> Bool {
        let now = wall - monotonic
        defer { offset = now }
        guard let offset else { return true }
        return abs(now - offset) > tolerance
    }

    /// The wall-clock time at monotonic time `monotonic`.
    public func wall(atMonotonic monotonic: Double) -> Double? { offset.map { monotonic + $0 } }

    /// The monotonic time at which the wall clock will show `wall`, if it
    /// does not jump before.
    public func monotonic(forWall wall: Double) -> Double? { offset.map { wall - $0 } }
}
