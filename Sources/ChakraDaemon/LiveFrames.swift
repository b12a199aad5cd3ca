import Synchronization

/// `FrameProgress` shared between threads: the loop stores it after every
/// presented frame, the control thread loads it when `status` or `health`
/// is asked, so the frame count and the last frame's age are those of that
/// moment, not of the status published up to a couple of seconds before.
/// Atomics: no lock the loop could wait on, nothing allocated per frame.
///
/// The fields are stored one by one, so a load may see the count of one
/// frame with the time of the next. What health depends on holds: the
/// stall is stored before the time of the frame that ended it (releasing)
/// and the time is loaded first (acquiring), so whoever sees that frame
/// sees its stall too.
final class LiveFrames: Sendable {
    private let presented = Atomic<Int>(0)
    /// Doubles as their bit patterns; NaN for none.
    private let lastAt = Atomic<UInt64>(LiveFrames.none)
    private let stallSeconds = Atomic<UInt64>(LiveFrames.none)
    private let stallEndedAt = Atomic<UInt64>(LiveFrames.none)

    private static let none = Double.nan.bitPattern

    /// Loop thread: after a frame reached the screen.
    func store(_ progress: FrameProgress) {
        if let stall = progress.lastStall, stall.endedAt.bitPattern != stallEndedAt.load(ordering: .relaxed) {
            stallSeconds.store(stall.seconds.bitPattern, ordering: .releasing)
            stallEndedAt.store(stall.endedAt.bitPattern, ordering: .releasing)
        }
        presented.store(progress.presented, ordering: .releasing)
        lastAt.store((progress.lastAt ?? .nan).bitPattern, ordering: .releasing)
    }

    /// Any thread.
    func load() -> FrameProgress {
        let last = Self.value(lastAt.load(ordering: .acquiring))
        let count = presented.load(ordering: .acquiring)
        var stall: FrameStall?
        if let ended = Self.value(stallEndedAt.load(ordering: .acquiring)), let seconds = Self.value(stallSeconds.load(ordering: .acquiring)) {
            stall = FrameStall(seconds: seconds, endedAt: ended)
        }
        return FrameProgress(presented: count, lastAt: last, lastStall: stall)
    }

    private static func value(_ bits: UInt64) -> Double? {
        let value = Double(bitPattern: bits)
        return value.isNaN ? nil : value
    }
}
