import ChakraControl
import ChakraSchedule
import ChakraSpiral

/// Opening hours: the schedule is evaluated on the wall clock (local time
/// from the system's zone), never by counting monotonic seconds. The
/// shell tells the core the wall clock's offset at start and whenever the
/// clock is set; the next change is then a monotonic deadline, evaluated
/// again when it comes (a clock step in between re-evaluates at once).
extension DaemonCore {
    func wallClockChanged(offset: Double) {
        let first = wallOffset == nil
        wallOffset = offset
        if !first { logger.info("schedule: the wall clock was set; evaluating again") }
        evaluateSchedule()
    }

    /// The schedule's state now; follows it when it changed. Also after a
    /// reload (the windows may be new).
    func evaluateSchedule() {
        guard let schedule = configuration.config.schedule, let offset = wallOffset else {
            guard scheduleState != nil else { return }
            (scheduleState, scheduleNext, scheduleDeadline) = (nil, nil, nil)
            leaveLowPowerWindow()
            // A `display off|on` by hand stays: with no schedule it holds
            // until changed (a reload that drops the schedule is no change
            // of the hand's).
            logger.info("schedule: none; the screen is \(displayMode == .off ? "off by hand" : "on")")
            updatePower()
            return
        }
        let utc = Int64((now + offset).rounded(.down))
        let state = schedule.state(at: utc, in: timeZone)
        scheduleNext = schedule.nextChange(after: utc, in: timeZone)
        scheduleDeadline = scheduleNext.map { Double($0.at) - offset }
        guard state != scheduleState else { return }
        let previous = scheduleState
        scheduleState = state
        follow(state, first: previous == nil)
    }

    /// A new window (or outside them): its scene, its low power, its
    /// screen. A manual `display on|off` lasts until here.
    private func follow(_ state: ScheduleState, first: Bool) {
        if !first, displayMode != .auto {
            logger.info("display: \(displayMode.rawValue) by hand ends; following the schedule")
            displayMode = .auto
        }
        touchWakeLastContact = nil
        if state.action == .lowPower {
            if lowPowerBeforeSchedule == nil {
                lowPowerBeforeSchedule = configuration.settings.lowPower
                setLowPower(true)
            }
        } else {
            leaveLowPowerWindow()
        }
        if case .scene(let name) = state.action { showScheduledScene(name) }
        let status = scheduleStatus!
        let next = status.nextClock.map { "; next: \(status.nextAction ?? "") at \($0)" } ?? ""
        logger.info("schedule: \(status.action) (\(status.window))\(next)")
        emit(.scheduleChanged(status))
        updatePower()
    }

    private func leaveLowPowerWindow() {
        guard let before = lowPowerBeforeSchedule else { return }
        lowPowerBeforeSchedule = nil
        setLowPower(before)
    }

    private func setLowPower(_ on: Bool) {
        var settings = configuration.settings
        settings.lowPower = on
        if case .failure(let error) = apply(settings) { logger.error("schedule: low power \(on ? "on" : "off"): \(error)") }
    }

    /// The window's scene, with the configured transition. While the
    /// spiral exercise runs it goes on, and its end leads to this scene.
    private func showScheduledScene(_ name: String) {
        if spiralReturnScene != nil, spiralScene != nil {
            (spiralReturnScene, parkedScene) = (name, nil)
            return
        }
        guard name != sceneName else { return }
        if case .failure(let error) = switchScene(to: name, transition: defaultTransition) {
            logger.error("schedule: cannot show \(name): \(error)")
        }
    }

    var scheduleStatus: ScheduleStatus? {
        guard let state = scheduleState else { return nil }
        var status = ScheduleStatus(action: state.action.description, window: state.window?.description ?? "outside")
        if let next = scheduleNext {
            let local = timeZone.local(at: next.at)
            (status.nextChange, status.nextClock, status.nextAction) = (local.iso8601, local.clock, next.state.action.description)
        }
        return status
    }

    /// `chakractl schedule`: today's windows as the local clock shows them.
    func schedulePlan() -> Result<SchedulePlanReport, DaemonCommandError> {
        guard let schedule = configuration.config.schedule else {
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
                                           outside: schedule.outside.description, now: scheduleStatus, display: displayStatus))
    }
}
