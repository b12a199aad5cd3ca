import ChakraControl
import ChakraDisplay

/// The screen as `status` and the `display_power` event tell it: what it
/// is, why, until when, and whether powering it was read back as done.
/// "off by schedule until 07:30" must not look like a failure; a TV that
/// stayed lit must.
public struct DisplayPowerStatus: Sendable, Equatable {
    public var mode = DisplayPowerMode.auto
    public var screen = ScreenState.on
    /// When this ends by itself, in local time (ISO 8601): the schedule's
    /// next change, or a touch's wake running out; nil when nothing ends it.
    public var until: String?
    /// "07:30" of `until`.
    public var untilClock: String?
    /// The read-backs since the screen last changed between on and off,
    /// one per part.
    public var checks: [DisplayPowerReport] = []

    public init() {}

    /// "failed" if any part failed, else "confirmed" if any confirmed, else
    /// "unchecked"; "" before any check.
    public var check: String {
        if checks.isEmpty { return "" }
        if checks.contains(where: { $0.check.isFailure }) { return "failed" }
        if checks.contains(where: { $0.check.kind == "confirmed" }) { return "confirmed" }
        return "unchecked"
    }

    /// Each part's summary: "drm: atomic ACTIVE=0 confirmed (crtc 38 ACTIVE=0); cec: …".
    public var checkDetail: String { checks.map(\.summary).joined(separator: "; ") }

    /// "off by schedule until 07:30", "on by hand until 08:00", "on after
    /// a touch until 20:00:19", "on until the exercise ends", "dimmed while
    /// idle", "on".
    public var summary: String {
        var text = screen.power.rawValue
        switch screen.reason {
        case .manual?: text += " by hand"
        case .schedule?: text += " by schedule"
        case .idle?: text += " while idle"
        case .touch?: text += " after a touch"
        case .exercise?: return text + " until the exercise ends"
        case nil: break
        }
        if let untilClock, screen.reason == .schedule || screen.reason == .touch || screen.reason == .manual { text += " until \(untilClock)" }
        return text
    }
}

/// The schedule as `status` tells it.
public struct ScheduleStatus: Sendable, Equatable {
    /// "heart", "off", "dim", "low-power".
    public var action: String
    /// "window 2", "date 1" (from 1, in file order), or "outside".
    public var window: String
    /// The next change in local time (ISO 8601) and what comes then; nil
    /// when nothing changes within eight days.
    public var nextChange: String?
    public var nextClock: String?
    public var nextAction: String?

    public init(action: String, window: String, nextChange: String? = nil, nextClock: String? = nil, nextAction: String? = nil) {
        (self.action, self.window, self.nextChange, self.nextClock, self.nextAction) = (action, window, nextChange, nextClock, nextAction)
    }
}

/// `chakractl schedule`: today's windows in local time, what is outside
/// them, and the state and next change now.
public struct SchedulePlanReport: Sendable, Equatable {
    public struct Run: Sendable, Equatable {
        /// Local ISO 8601.
        public var start: String, end: String
        /// "07:30".
        public var startClock: String, endClock: String
        public var action: String
        public var window: String
    }
    /// Local date, "2026-11-26".
    public var date: String
    public var weekday: String
    public var runs: [Run]
    public var outside: String
    /// nil: no wall clock yet (the loop has not started).
    public var now: ScheduleStatus?
    public var display: DisplayPowerStatus
}
