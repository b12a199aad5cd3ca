/// When to start the next frame, and the time it will be on screen (which
/// the scene is drawn for).
///
/// The pacer keeps the presentation time of the next frame, `target`. A
/// frame is started `lead` before its target: one refresh on displays whose
/// flips land on the first vblank after the commit, so rendering starts as
/// the previous flip completes and has one refresh to finish; nothing on
/// outputs that show a frame the moment it is handed over (headless, fbdev
/// without vsync, DRM drivers with no vblank interrupt, whose flip events
/// come back at once: bochs and virtio-gpu).
///
/// When the output reports real vblank timestamps, each one re-anchors the
/// schedule (the next target is that vblank plus the frame interval), so
/// the frame clock cannot drift from the panel's and a missed vblank shifts
/// the schedule instead of piling up. Without timestamps the target simply
/// advances by the interval: a timer.
public struct FramePacer: Sendable, Equatable {
    /// Time between presented frames.
    public let frameInterval: Double
    /// How long before its target a frame starts rendering.
    public let lead: Double
    /// Presentation time of the next frame; nil before the first.
    public private(set) var target: Double?

    /// `fpsCap` nil: the display's rate (or `defaultRate` with no display).
    /// With a known refresh, the interval is a whole number of refreshes
    /// (a cap of 25 on a 60 Hz panel gives 20 fps): frames then land on
    /// vblanks at an even cadence instead of juddering between 2 and 3.
    public init(fpsCap: Double?, refreshInterval: Double?, vblankTimed: Bool, defaultRate: Double = 60) {
        if let refresh = refreshInterval, refresh > 0 {
            let asked = fpsCap.map { 1 / $0 } ?? refresh
            // 1% slack so that a cap of 60 on a 59.94 Hz panel is one refresh.
            let refreshes = max(1, (asked / refresh - 0.01).rounded(.up))
            frameInterval = refresh * refreshes
            lead = vblankTimed ? refresh : 0
        } else {
            frameInterval = 1 / (fpsCap ?? defaultRate)
            lead = 0
        }
    }

    /// When the next frame should start rendering.
    public func renderStart(now: Double) -> Double {
        guard let target else { return now }
        return target - lead
    }

    /// Rendering starts now: returns the frame's presentation time. The first
    /// frame, and any frame more than an interval behind its schedule (after
    /// a stall, a VT switch, a pause), starts a fresh schedule rather than
    /// rushing to catch up.
    public mutating func beginFrame(now: Double) -> Double {
        if let target, now <= target + frameInterval { return target }
        let fresh = now + lead
        target = fresh
        return fresh
    }

    /// The frame is on screen: at vblank `timestamp`, or (nil) when the
    /// output gives no timestamp, on schedule.
    public mutating func presented(at timestamp: Double?) {
        guard let scheduled = target else { return }
        target = (timestamp ?? scheduled) + frameInterval
    }

    /// Forget the schedule: the next frame starts a new one (after a pause,
    /// a VT switch, a mode change).
    public mutating func reset() { target = nil }
}

/// Frames per second over the last measuring period, for STATUS= and logs.
public struct FrameRateMeter: Sendable, Equatable {
    public private(set) var totalFrames = 0
    public private(set) var rate = 0.0
    private var periodStart: Double?
    private var periodFrames = 0

    public let period: Double

    public init(period: Double = 2) { self.period = period }

    public mutating func frame() {
        totalFrames += 1
        periodFrames += 1
    }

    /// Closes the period when it is over; returns true when `rate` changed.
    /// A period with no frame reads 0 fps (a still scene).
    @discardableResult
    public mutating func update(now: Double) -> Bool {
        guard let start = periodStart else {
            // The first period starts now: frames counted before it have no
            // known time span (they would double the first reading).
            periodStart = now
            periodFrames = 0
            return false
        }
        guard now - start >= period else { return false }
        rate = Double(periodFrames) / (now - start)
        periodStart = now
        periodFrames = 0
        return true
    }
}
