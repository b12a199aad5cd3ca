import ChakraContinuity
import ChakraControl

/// When the continuation record (docs/seams.md) is saved again. The core
/// builds the record from its parts; this decides whether the next process
/// would read anything new in it, so a save is asked for on a change and
/// not per frame:
/// - the scene, a pause, the settings changed at run time, the display
///   mode, the screen's power, the exercise's state: saved at once;
/// - the exercise's progress along the path alone: at most every
///   `progressInterval` seconds;
/// - scene time running on its clock: never (the record holds the time at
///   `takenAt`, and the next process adds the gap: `sceneTime(continuingAt:)`).
/// Pure: no clock, no I/O; the save is the shell's (`.saveContinuation`).
final class ContinuityKeeper {
    /// Saving is asked for only where the shell keeps the record (under
    /// systemd, with the store); off, the core asks nothing.
    var enabled = false
    /// What `chakractl set` changed (nil: the configuration's value).
    var runtime = ContinuationRecord.RuntimeSettings()
    /// What the configuration (files and command line) says of those
    /// settings: set at start and on every reload. The record keeps it for
    /// the ones changed, so the next process can tell a file changed since.
    var configured = ContinuationRecord.Configured()
    /// How this process started (fresh, or restarted with or without the
    /// picture), for `status`.
    var start = StartReport.fresh
    private(set) var lastSaved: ContinuationRecord?
    private var lastSavedAt = -Double.infinity
    /// The next tick at which to look (other inputs are looked at always).
    private var nextTickLook = -Double.infinity

    /// Progress along the spiral's path is saved at most this often (2/s).
    static let progressInterval = 0.5
    /// Ticks (frames) are looked at this often: what a tick changes by
    /// itself (an exercise's state, a schedule's scene) is saved within it,
    /// and a frame builds no record.
    static let tickInterval = 0.25
    /// Two records' scene clocks that differ by less than this are the same
    /// clock (the time at `takenAt` is computed from it, with rounding).
    static let clockTolerance = 1e-6

    /// Whether a tick at `now` should look at the record.
    func tickLookDue(now: Double) -> Bool {
        guard now >= nextTickLook else { return false }
        nextTickLook = now + Self.tickInterval
        return true
    }

    /// Whether `record`, taken at `now`, is worth saving.
    func wantsSave(_ record: ContinuationRecord, now: Double) -> Bool {
        guard let last = lastSaved else { return true }
        if Self.sameBeyondProgress(last, record) {
            if Self.sameProgress(last.spiral, record.spiral) { return false }
            return now - lastSavedAt >= Self.progressInterval
        }
        return true
    }

    func saved(_ record: ContinuationRecord, at now: Double) {
        (lastSaved, lastSavedAt) = (record, now)
    }

    /// Everything but the clock's reading and the exercise's progress is
    /// the same, and the scene clock is the same clock.
    static func sameBeyondProgress(_ a: ContinuationRecord, _ b: ContinuationRecord) -> Bool {
        guard a.scene == b.scene, a.paused == b.paused, a.settings == b.settings else { return false }
        guard a.displayMode == b.displayMode, a.display == b.display else { return false }
        guard a.spiral?.state == b.spiral?.state, a.spiral?.pattern == b.spiral?.pattern else { return false }
        return sameClock(a, b)
    }

    /// A paused clock stands at its time; a running one is known by the
    /// monotonic time its scene time was 0.
    static func sameClock(_ a: ContinuationRecord, _ b: ContinuationRecord) -> Bool {
        if a.paused { return abs(a.sceneTime - b.sceneTime) < clockTolerance }
        let originA = a.takenAt - a.sceneTime
        let originB = b.takenAt - b.sceneTime
        return abs(originA - originB) < clockTolerance
    }

    static func sameProgress(_ a: ContinuationRecord.SpiralProgress?, _ b: ContinuationRecord.SpiralProgress?) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        return a.progress == b.progress && a.holdElapsed == b.holdElapsed
    }
}
