import ChakraControl
import ChakraSchedule

/// What an opening-hours window does (`OpeningHours` says which one is in
/// force): its scene, its low power, its screen. A clock step evaluates
/// the schedule again at once.
extension DaemonCore {
    func wallClockChanged(offset: Double) {
        if !hours.setWallClock(offset: offset) { logger.info("schedule: the wall clock was set; evaluating again") }
        evaluateSchedule()
    }

    /// The schedule's state now; follows it when it changed. Also after a
    /// reload (the windows may be new).
    func evaluateSchedule() {
        switch hours.evaluate(configuration.config.schedule, now: now) {
        case .none:
            break
        case .dropped:
            leaveLowPowerWindow()
            // A `display off|on` by hand stays: with no schedule it holds
            // until changed (a reload that drops the schedule is no change
            // of the hand's).
            logger.info("schedule: none; the screen is \(screen.mode == .off ? "off by hand" : "on")")
            updatePower()
        case .entered(let state, let first):
            follow(state, first: first)
        }
    }

    /// A new window (or outside them): its scene, its low power, its
    /// screen. A manual `display on|off` lasts until here.
    private func follow(_ state: ScheduleState, first: Bool) {
        screen.scheduleChanged(first: first)
        if state.action == .lowPower {
            if hours.enterLowPowerWindow(lowPowerNow: configuration.settings.lowPower) { setLowPower(true) }
        } else {
            leaveLowPowerWindow()
        }
        if case .scene(let name) = state.action { showScheduledScene(name) }
        let status = hours.status!
        let next = status.nextClock.map { "; next: \(status.nextAction ?? "") at \($0)" } ?? ""
        logger.info("schedule: \(status.action) (\(status.window))\(next)")
        emit(.scheduleChanged(status))
        updatePower()
    }

    private func leaveLowPowerWindow() {
        guard let before = hours.leaveLowPowerWindow() else { return }
        setLowPower(before)
    }

    private func setLowPower(_ on: Bool) {
        var settings = configuration.settings
        settings.lowPower = on
        if case .failure(let error) = apply(settings) { logger.error("schedule: low power \(on ? "on" : "off"): \(error)") }
    }

    /// The window's scene, with the configured transition. While the
    /// exercise runs it goes on, and its end leads to this scene.
    private func showScheduledScene(_ name: String) {
        if scenes.returnLater(to: name) { return }
        guard name != sceneName else { return }
        if case .failure(let error) = switchScene(to: name, transition: defaultTransition) {
            logger.error("schedule: cannot show \(name): \(error)")
        }
    }

    /// `chakractl schedule`: today's windows as the local clock shows them.
    func schedulePlan() -> Result<SchedulePlanReport, DaemonCommandError> {
        hours.plan(configuration.config.schedule, now: now, display: displayStatus)
    }
}
