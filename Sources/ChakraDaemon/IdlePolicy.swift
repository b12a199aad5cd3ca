import ChakraConfig

/// The screen's state under the idle timers.
public enum PowerState: String, Sendable, Equatable {
    /// Full brightness, scenes animate.
    case normal
    /// The backlight at `dim_level` percent of the brightness.
    case dimmed
    /// A black frame, the backlight off, nothing drawn.
    case blanked
}

/// When low power dims and blanks the screen ([low_power] dim_after,
/// blank_after): after that many idle seconds, and only while low power is
/// on. Idle means no activity: no control command that changes something,
/// no `wake`, no finger down or moving (`DaemonCore.noteActivity`); an
/// exercise in progress holds the blank off (`ScreenPolicy`). Pure: the core
/// asks it.
public struct IdlePolicy: Sendable, Equatable {
    public var dimAfter: Double
    public var blankAfter: Double

    public init(dimAfter: Double, blankAfter: Double) {
        (self.dimAfter, self.blankAfter) = (dimAfter, blankAfter)
    }

    public init(_ lowPower: ChakraConfig.LowPower) {
        self.init(dimAfter: lowPower.dimAfter, blankAfter: lowPower.blankAfter)
    }

    /// The state after `idle` seconds without activity.
    public func state(idle: Double, lowPower: Bool) -> PowerState {
        guard lowPower else { return .normal }
        if blankAfter > 0, idle >= blankAfter { return .blanked }
        if dimAfter > 0, idle >= dimAfter, blankAfter == 0 || dimAfter < blankAfter { return .dimmed }
        return .normal
    }

    /// How long idle a screen a previous process left `display` was
    /// (dimmed: since the dim, off: since the blank), so a restart goes on
    /// from there instead of lighting a dark kiosk until the timers run out
    /// again; nil when the idle timers could not have done it (low power
    /// off, or no such timer: the schedule or the hand did, and they are
    /// followed again anyway).
    public func idleToContinue(display: PowerState, lowPower: Bool) -> Double? {
        guard lowPower else { return nil }
        switch display {
        case .normal: return nil
        case .dimmed: return state(idle: dimAfter, lowPower: true) == .dimmed && dimAfter > 0 ? dimAfter : nil
        case .blanked: return blankAfter > 0 ? blankAfter : nil
        }
    }

    /// When (monotonic) the state next changes if nothing happens, given
    /// the last activity; nil when never. Called every loop turn: no arrays.
    public func nextChange(lastActivity: Double, now: Double, lowPower: Bool) -> Double? {
        guard lowPower else { return nil }
        let current = state(idle: now - lastActivity, lowPower: true)
        var next: Double?
        func consider(_ after: Double) {
            let at = lastActivity + after
            if after > 0, at > now, state(idle: after, lowPower: true) != current, at < next ?? .infinity { next = at }
        }
        consider(dimAfter)
        consider(blankAfter)
        return next
    }
}

/// Brightness in percent against a backlight's raw range. Pure.
public enum BrightnessScale {
    /// Raw level for `percent` of `max`: never 0 for a percent above 0 (a
    /// panel at "1%" is still lit).
    public static func raw(percent: Int, max: Int) -> Int {
        guard max > 0, percent > 0 else { return 0 }
        let value = (Double(min(percent, 100)) * Double(max) / 100).rounded()
        return Swift.max(1, Int(value))
    }

    public static func percent(raw: Int, max: Int) -> Int {
        guard max > 0 else { return 0 }
        return Int((Double(Swift.min(Swift.max(raw, 0), max)) * 100 / Double(max)).rounded())
    }

    /// Percent shown while dimmed: `level` percent of `brightness`.
    public static func dimmed(_ brightness: Int, level: Int) -> Int {
        guard brightness > 0 else { return 0 }
        return Swift.max(1, Int((Double(brightness) * Double(level) / 100).rounded()))
    }
}
