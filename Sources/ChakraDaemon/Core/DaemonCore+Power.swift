import ChakraControl
import ChakraDisplay
import ChakraInput
import ChakraSpiral

/// The screen: on, dimmed or really off (`ScreenPolicy` decides from the
/// hand, the schedule, the idle timers and a waking touch). Off is off:
/// one black frame, then the display powered down (the shell's
/// `.displayPower`: CRTC, framebuffer, backlight, TV), no frames and no
/// CPU; back on, the mode is set again and the scene fades in from black.
/// The idle timers dim and blank while low power is on; the backlight
/// follows where there is one.
extension DaemonCore {
    var idlePolicy: IdlePolicy { IdlePolicy(configuration.config.lowPower) }

    /// Activity (a command, a finger down): the timers start again.
    func noteActivity() {
        lastActivity = now
        updatePower()
    }

    /// Runs every turn, and after anything that moves the timers, the
    /// schedule or the hand.
    func updatePower() {
        let idle = idlePolicy.state(idle: now - lastActivity, lowPower: configuration.settings.lowPower)
        if idle != power {
            power = idle
            logger.info("power: \(idle.rawValue)")
            emit(.powerChanged(idle))
        }
        if let until = touchWakeUntil, now >= until { touchWakeUntil = nil }
        let decided = ScreenPolicy.decide(mode: displayMode, scheduled: scheduleState?.action, idle: power,
                                          touchWoken: touchWakeUntil != nil)
        if decided != screen { show(decided) }
    }

    private func show(_ next: ScreenState) {
        let previous = screen
        screen = next
        if next.power == .off, previous.power != .off {
            powerDown()
        } else if next.power != .off, previous.power == .off {
            powerUp()
        } else if backlight != nil, let brightness {
            perform(.setBacklight(backlightLevel(brightness)))
        }
        logger.info("display: \(displayStatus.summary)")
        emit(.displayPower(displayStatus))
    }

    private func powerDown() {
        // An exercise cannot go on in the dark: back to its ambient scene
        // (a cut: the screen is off), or to Idle; either way it ends as
        // interrupted, not cancelled.
        if spiralReturnScene != nil {
            returnFromSpiral(because: "the display is off")
        } else if let session = spiralScene?.session, session.state != .idle {
            session.finishExercise(time: clock.time(at: now))
        }
        cancelCrossfade()
        // One black frame first: a display that cannot power down (a
        // framebuffer without blanking), or a TV slow to, is dark anyway.
        // Off from the start, it is the first frame (systemd hears READY).
        if vtActive, outputReady {
            lastPlanDrew = false
            perform(.draw(FramePlan(content: .black, shownAt: now, rotation: configuration.rotation)))
        }
        if backlight != nil, brightness != nil { perform(.setBacklight(0)) }
        displayChecks.removeAll()
        perform(.displayPower(on: false))
    }

    private func powerUp() {
        displayChecks.removeAll()
        perform(.displayPower(on: true))
        if backlight != nil, let brightness { perform(.setBacklight(backlightLevel(brightness))) }
        fadeInFromBlack()
        redraw = true
        pacer.reset()
    }

    /// The scene comes back from black as a crossfade from a black still
    /// picture (the frames are made now and freed when it ends).
    private func fadeInFromBlack() {
        guard firstFrameShown, !configuration.presentOnly else { return }
        let frames = sceneChange?.frames ?? TransitionFrames(width: scene.width, height: scene.height)
        FramePlan.clear(frames.from.pixels)
        let transition = defaultTransition
        let fade = Crossfade(at: now, duration: transition.duration > 0 ? transition.duration : nil,
                             reduceMotion: configuration.settings.reduceMotion)
        sceneChange = SceneChange(outgoing: nil, name: sceneName, clock: clock, fade: fade, frames: frames)
    }

    private func backlightLevel(_ brightness: Int) -> Int {
        switch screen.power {
        case .on: brightness
        case .dimmed: BrightnessScale.dimmed(brightness, level: configuration.config.lowPower.dimLevel)
        case .off: 0
        }
    }

    /// The brightness to put back at exit (the console must not stay
    /// dark), when the screen is not simply on.
    public var brightnessToRestore: Int? {
        guard screen.power != .on, backlight != nil else { return nil }
        return brightness
    }

    /// True when the display is powered down and must be powered up at
    /// exit (the console comes back lit).
    public var displayPoweredDown: Bool { screen.power == .off }

    // MARK: by hand

    /// `display off|on|auto`. `on` and `off` hold until the schedule's next
    /// change (or until told otherwise, with no schedule); `auto` follows
    /// the schedule again at once.
    func setDisplayMode(_ mode: DisplayPowerMode) {
        let changed = mode != displayMode
        displayMode = mode
        touchWakeUntil = nil
        logger.info("display: \(mode.rawValue) by hand")
        let before = screen
        // Someone is there: the idle timers start again too.
        if mode != .off { lastActivity = now }
        updatePower()
        if changed, screen == before { emit(.displayPower(displayStatus)) }
    }

    // MARK: touches on a dark screen

    /// A touch on a screen that is off wakes it (the idle timers' blank;
    /// the schedule's off for [display] wake_on_touch seconds) or not, and
    /// the whole touch, down to the lift, never reaches the scene: a wake
    /// tap must not start the spiral.
    func consumesTouch(_ event: TouchContactEvent) -> Bool {
        if let index = consumedContacts.firstIndex(of: event.id) {
            if event.phase == .up || event.phase == .cancel { consumedContacts.remove(at: index) }
            return true
        }
        guard event.phase == .down, screen.power == .off else { return false }
        logger.debug("touch: contact \(event.id) on a dark screen (\(screen.reason?.rawValue ?? "")): kept from the scene")
        consumedContacts.append(event.id)
        let wakeFor = configuration.config.display.wakeOnTouch
        switch screen.reason {
        case .idle?:
            noteActivity()
        case .schedule? where wakeFor > 0:
            logger.info("display: woken by a touch for \(wakeFor) s")
            touchWakeUntil = now + wakeFor
            noteActivity()
        default:
            break
        }
        return true
    }

    /// A finger down while a touch keeps the screen awake: the wake runs
    /// for its whole time from now.
    func extendTouchWake() {
        if touchWakeUntil != nil { touchWakeUntil = now + configuration.config.display.wakeOnTouch }
    }

    // MARK: read-back

    func displayChecked(_ report: DisplayPowerReport) {
        // A late answer to an earlier request (the TV's, after the screen
        // was switched back) says nothing about now.
        guard report.on == (screen.power != .off) else { return }
        displayChecks.removeAll { $0.part == report.part }
        displayChecks.append(report)
        if report.check.isFailure {
            errors[.displayPower] += 1
            logger.warning("display: \(report.summary)")
        } else {
            logger.info("display: \(report.summary)")
        }
        emit(.displayChecked(report))
    }

    var displayStatus: DisplayPowerStatus {
        var status = DisplayPowerStatus()
        status.mode = displayMode
        status.screen = screen
        status.checks = displayChecks
        var ends: Double?
        switch screen.reason {
        case .schedule?, .manual?: ends = scheduleNext.map { Double($0.at) }
        case .touch?: ends = touchWakeUntil.flatMap { until in wallOffset.map { until + $0 } }
        case .idle?, nil: ends = nil
        }
        if let ends {
            let local = timeZone.local(at: Int64(ends.rounded(.up)))
            (status.until, status.untilClock) = (local.iso8601, local.clock)
        }
        return status
    }
}
