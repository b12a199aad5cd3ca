/// Frames on screen as `health` and `status` need them at the moment they
/// are asked: how many, when the last one came, and the last stall. The
/// core keeps it (`DaemonCore.frameProgress`, changed by presented frames
/// only); the loop copies it into `LiveFrames` after each one, where the
/// control thread reads it.
public struct FrameProgress: Sendable, Equatable {
    public var presented = 0
    /// Monotonic time the last frame reached the screen; nil before the first.
    public var lastAt: Double?
    /// The last gap longer than health allows (`DaemonHealth.allowedGap`)
    /// between two frames while frames were due: the frame loop did not
    /// run (stopped, starved, a wedged flip) while the scene animated.
    /// Gaps by design (a still or paused picture, the screen off, the VT
    /// away, the display unplugged) are not stalls.
    public var lastStall: FrameStall?

    public init(presented: Int = 0, lastAt: Double? = nil, lastStall: FrameStall? = nil) {
        (self.presented, self.lastAt, self.lastStall) = (presented, lastAt, lastStall)
    }
}

public struct FrameStall: Sendable, Equatable {
    /// Seconds without a frame while frames were due.
    public var seconds: Double
    /// Monotonic time of the frame that ended it.
    public var endedAt: Double

    public init(seconds: Double, endedAt: Double) {
        (self.seconds, self.endedAt) = (seconds, endedAt)
    }
}
