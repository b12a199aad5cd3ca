import ChakraControl
import ChakraSchedule

/// What the screen is.
public enum ScreenPower: String, Sendable, Equatable {
    case on
    /// The backlight at the dim level (needs a backlight).
    case dimmed
    /// Really off: no frames, the CRTC inactive, the backlight and the TV
    /// powered down where there are ones.
    case off
}

/// Why the screen is not simply on, or why it is on against the schedule.
public enum ScreenReason: String, Sendable, Equatable {
    /// `chakractl display off` or `on`.
    case manual
    /// An opening-hours window (or `outside` them).
    case schedule
    /// The idle timers of low power.
    case idle
    /// A touch woke a screen the schedule keeps off ([display] wake_on_touch).
    case touch
    /// A breathing exercise in progress keeps the screen on past the moment
    /// it would have gone dark (the schedule's off, a touch's wake running
    /// out, the idle blank), until it ends.
    case exercise
}

/// The screen and its reason.
public struct ScreenState: Sendable, Equatable {
    public var power: ScreenPower
    /// nil: on, as normal.
    public var reason: ScreenReason?

    public init(_ power: ScreenPower, _ reason: ScreenReason? = nil) {
        (self.power, self.reason) = (power, reason)
    }

    public static let on = ScreenState(.on)
}

/// Who decides the screen, in order: the hand (`display off|on`), a
/// person breathing (an exercise in progress keeps the screen from going
/// dark by itself), the schedule's off (unless a touch woke it), the idle
/// timers' blank, the schedule's dim, the idle timers' dim. A manual `on`
/// overrides the schedule only: the idle timers still dim and blank, as
/// the operator configured them; a manual `off` is obeyed at once, even
/// mid-exercise (the operator is there and means it). Pure.
public enum ScreenPolicy {
    /// - Parameters:
    ///   - scheduled: the schedule's action now; nil without a schedule.
    ///   - touchWoken: a touch woke the screen and its time has not run out.
    ///   - exercise: a breathing exercise is in progress (and has not held
    ///     the screen on for longer than its bound).
    public static func decide(mode: DisplayPowerMode, scheduled: ScheduleAction?, idle: PowerState, touchWoken: Bool,
                              exercise: Bool = false) -> ScreenState {
        if mode == .off { return ScreenState(.off, .manual) }
        let followed = mode == .auto ? scheduled : nil
        let scheduledOff = followed == .off && !touchWoken
        if exercise, scheduledOff || idle == .blanked { return ScreenState(.on, .exercise) }
        if scheduledOff { return ScreenState(.off, .schedule) }
        if idle == .blanked { return ScreenState(.off, .idle) }
        if followed == .dim { return ScreenState(.dimmed, .schedule) }
        if idle == .dimmed { return ScreenState(.dimmed, .idle) }
        if followed == .off { return ScreenState(.on, .touch) }
        if mode == .on, scheduled == .off || scheduled == .dim { return ScreenState(.on, .manual) }
        return .on
    }
}
