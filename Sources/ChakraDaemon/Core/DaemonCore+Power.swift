import ChakraDisplay

/// Idle timers: dim, then blank, while low power is on; back to normal on
/// activity. The backlight follows where there is one; blanking also
/// shows one black frame and stops drawing, so a blank screen costs no CPU.
extension DaemonCore {
    var idlePolicy: IdlePolicy { IdlePolicy(configuration.config.lowPower) }

    /// Activity (a command, a finger down): the timers start again.
    func noteActivity() {
        lastActivity = now
        updatePower()
    }

    /// Runs every turn, and after anything that moves the timers.
    func updatePower() {
        let state = idlePolicy.state(idle: now - lastActivity, lowPower: configuration.settings.lowPower)
        if state != power { enter(state) }
    }

    private func enter(_ state: PowerState) {
        let previous = power
        power = state
        if backlight != nil, let brightness {
            perform(.setBacklight(backlightLevel(brightness)))
        }
        if state == .blanked || previous == .blanked {
            redraw = true   // the black frame, or the scene back
            pacer.reset()
        }
        logger.info("power: \(state.rawValue)")
        emit(.powerChanged(state))
    }

    private func backlightLevel(_ brightness: Int) -> Int {
        switch power {
        case .normal: brightness
        case .dimmed: BrightnessScale.dimmed(brightness, level: configuration.config.lowPower.dimLevel)
        case .blanked: 0
        }
    }

    /// The brightness to put back at exit (the console must not stay
    /// dark), when the idle timers changed it.
    public var brightnessToRestore: Int? {
        guard power != .normal, backlight != nil else { return nil }
        return brightness
    }
}
