import ChakraDisplay

/// Idle timers: dim, then blank, while low power is on; back to normal on
/// activity. The backlight follows where there is one; blanking also
/// shows one black frame and stops drawing, so a blank screen costs no CPU.
extension FrameLoop {
    var idlePolicy: IdlePolicy { IdlePolicy(configuration.config.lowPower) }

    /// Activity (a command; touches later): the timers start again.
    func noteActivity(now: Double) {
        lastActivity = now
        updatePower(now: now)
    }

    /// Runs every loop turn, and after anything that moves the timers.
    func updatePower(now: Double) {
        let state = idlePolicy.state(idle: now - lastActivity, lowPower: configuration.settings.lowPower)
        if state != power { enter(state) }
        if output.isWaitingForDisplay != waitingForDisplay {
            waitingForDisplay.toggle()
            displayChanged(waitingForDisplay ? "disconnected" : "connected")
        }
    }

    private func enter(_ state: PowerState) {
        let previous = power
        power = state
        if let backlight, let brightness {
            let level = switch state {
            case .normal: brightness
            case .dimmed: BrightnessScale.dimmed(brightness, level: configuration.config.lowPower.dimLevel)
            case .blanked: 0
            }
            do {
                try backlight.set(percent: level)
            } catch {
                logger.warning("\(error)")
            }
        }
        if state == .blanked || previous == .blanked {
            redraw = true   // the black frame, or the scene back
            pacer.reset()
        }
        logger.info("power: \(state.rawValue)")
        emit(.powerChanged(state))
    }

    /// The brightness the user asked for, put back (at exit: the console
    /// must not stay dark).
    func restoreBacklight() {
        guard power != .normal, let backlight, let brightness else { return }
        try? backlight.set(percent: brightness)
    }
}
