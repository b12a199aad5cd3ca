import ChakraControl
import ChakraSchedule

/// Opening hours: the schedule evaluated on the wall clock (local time from
/// the system's zone), never by counting monotonic seconds. The shell
/// tells the core the wall clock's offset at start and whenever the clock
/// is set; the next change is then a monotonic deadline, evaluated again
/// when it comes. What a window does (its scene, low power, the screen)
/// is the core's.
final class OpeningHours {
    /// What an evaluation found.
    enum Change: Equatable {
        case none
        /// The schedule is gone (none configured any more).
        case dropped
        /// A new window (or outside them); `first`: the first state known.
        case entered(ScheduleState, first: Bool)
    }

    let timeZone: LocalTimeZone
    /// Wall minus monotonic seconds, from the shell; nil until it tells.
    private(set) var wallOffset: Double?
    /// What the schedule says now; nil without a schedule or a wall clock.
    private(set) var state: ScheduleState?
    private(set) var next: (at: Int64, state: ScheduleState)?
    /// Monotonic time of `next`.
    private(set) var deadline: Double?
    /// Low power as it was before a `low-power` window turned it on.
    private var lowPowerBefore: Bool?

    init(timeZone: LocalTimeZone) {
        self.timeZone = timeZone
    }

    /// The wall clock's offset: true the first time it is told.
    func setWallClock(offset: Double) -> Bool {
        defer { wallOffset = offset }
        return wallOffset == nil
    }

    /// The schedule's state at monotonic `now` (and its next change).
    func evaluate(_ schedule: Schedule?, now: Double) -> Change {
        guard let schedule, let offset = wallOffset else {
            guard state != nil else { return .none }
            (state, next, deadline) = (nil, nil, nil)
            return .dropped
        }
        let utc = Int64((now + offset).rounded(.down))
        let found = schedule.state(at: utc, in: timeZone)
        next = schedule.nextChange(after: utc, in: timeZone)
        deadline = next.map { Double($0.at) - offset }
        guard found != state else { return .none }
        let first = state == nil
        state = found
        return .entered(found, first: first)
    }

    /// A `low-power` window begins: true when low power is to be turned on
    /// (the setting before it is kept, to go back to).
    func enterLowPowerWindow(lowPowerNow: Bool) -> Bool {
        guard lowPowerBefore == nil else { return false }
        lowPowerBefore = lowPowerNow
        return true
    }

    /// Out of a `low-power` window: the setting to go back to, if one began.
    func leaveLowPowerWindow() -> Bool? {
        defer { lowPowerBefore = nil }
        return lowPowerBefore
    }

    var status: ScheduleStatus? {
        guard let state else { return nil }
        var status = ScheduleStatus(action: state.action.description, window: state.window?.description ?? "outside")
        if let next {
            let local = timeZone.local(at: next.at)
            (status.nextChange, status.nextClock, status.nextAction) = (local.iso8601, local.clock, next.state.action.description)
        }
        return status
    }

    /// `chakractl schedule`: today's windows as the local clock shows them.
    func plan(_ schedule: Schedule?, now: Double, display: DisplayPowerStatus) -> Result<SchedulePlanReport, DaemonCommandError> {
        guard let schedule else {
            return .failure(.notSupported("no schedule: chakra.toml has no [schedule] windows or dates; the screen is always on"))
        }
        guard let offset = wallOffset else { return .failure(.notSupported("the wall clock is not read yet")) }
        let today = timeZone.local(at: Int64((now + offset).rounded(.down))).date
        let runs = schedule.plan(on: today, in: timeZone).map { run in
            let (start, end) = (timeZone.local(at: run.start), timeZone.local(at: run.end))
            return SchedulePlanReport.Run(start: start.iso8601, end: end.iso8601, startClock: start.clock, endClock: end.clock,
                                          action: run.action.description, window: run.window.description)
        }
        return .success(SchedulePlanReport(date: today.description, weekday: today.weekday.name, runs: runs,
                                           outside: schedule.outside.description, now: status, display: display))
    }

    /// "2026-11-26T14:05:09+01:00" in the system's zone.
    func localTime(_ utc: Double) -> String {
        timeZone.local(at: Int64(utc.rounded(.down))).iso8601
    }
}
