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

    /// How long a person may keep the screen on past the moment it would
    /// have gone dark by itself: a finger held on the glass after a touch's
    /// wake, an exercise in progress past closing time or the idle blank.
    /// Ten minutes is more than any exercise takes (the longest hold is
    /// minutes, an exercise left alone is given up after
    /// `spiral.abandon_after`), and short enough that a stuck contact or an
    /// exercise that can never end (`abandon_after = 0`) does not keep a
    /// kiosk lit all night.
    static let personHoldLimit = 600.0

    /// Activity (a command, a finger down or moving): the timers start again.
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
        if let end = touchWakeEnd, now >= end { touchWakeLastContact = nil }
        let exercise = exerciseInProgress
        let withinBound = exerciseHoldSince.map { now < $0 + Self.personHoldLimit } ?? true
        let decided = ScreenPolicy.decide(mode: displayMode, scheduled: scheduleState?.action, idle: power,
                                          touchWoken: touchWakeLastContact != nil, exercise: exercise && withinBound)
        exerciseHoldSince = decided.reason == .exercise ? (exerciseHoldSince ?? now) : nil
        if decided.reason == .exercise, screen.reason != .exercise {
            logger.info("display: kept on until the exercise ends (at most \(Int(Self.personHoldLimit / 60)) minutes)")
        }
        if decided != screen { show(decided) }
    }

    /// A breathing exercise is under way on screen (from the first touch on
    /// the light through the celebration): the person breathing is not cut
    /// off by the screen going dark by itself.
    var exerciseInProgress: Bool {
        guard let session = spiralScene?.session else { return false }
        return session.state != .idle
    }

    /// When a touch's wake runs out: [display] wake_on_touch seconds after
    /// the last contact of any finger; while a finger is on the glass, not
    /// before `personHoldLimit` more has passed (a stuck contact must not
    /// keep the kiosk lit for ever).
    var touchWakeEnd: Double? {
        guard let last = touchWakeLastContact else { return nil }
        let end = last + configuration.config.display.wakeOnTouch
        return contactsDown.isEmpty ? end : end + Self.personHoldLimit
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
        releaseContacts()
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
        touchWakeLastContact = nil
        logger.info("display: \(mode.rawValue) by hand")
        let before = screen
        // Someone is there: the idle timers start again too.
        if mode != .off { lastActivity = now }
        updatePower()
        if changed, screen == before { emit(.displayPower(displayStatus)) }
    }

    // MARK: touches on a dark screen

    /// Which fingers are on the glass; any contact of any finger (down,
    /// move, lift) is the last touch a wake counts from.
    func trackContact(_ event: TouchContactEvent) {
        switch event.phase {
        case .down: if !contactsDown.contains(event.id) { contactsDown.append(event.id) }
        case .move: break
        case .up, .cancel: contactsDown.removeAll { $0 == event.id }
        }
        if touchWakeLastContact != nil { touchWakeLastContact = now }
    }

    /// The screen goes dark: every finger on the glass is let go of (the
    /// scene sees it lift) and kept from the scene until it lifts, exactly
    /// as a finger that comes down in the dark. Nothing a finger does in
    /// the dark reaches the scene, so nothing is drawn, begun or recorded.
    private func releaseContacts() {
        if followedContact != nil, let interactive = interactiveScene {
            interactive.touchUp(time: clock.time(at: now))
            pumpInteractiveScene()
        }
        followedContact = nil
        for id in contactsDown where !consumedContacts.contains(id) {
            logger.debug("touch: contact \(id) on the glass as the screen went dark: kept from the scene until it lifts")
            consumedContacts.append(id)
        }
    }

    /// A touch on a screen that is off wakes it (the idle timers' blank;
    /// the schedule's off for [display] wake_on_touch seconds after the
    /// last touch) or not, and the whole touch, down to the lift, never
    /// reaches the scene: a wake tap must not start the spiral.
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
            logger.info("display: woken by a touch, until \(wakeFor) s after the last touch")
            touchWakeLastContact = now
            noteActivity()
        default:
            break
        }
        return true
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
        // While a finger is on the glass the wake has no end yet.
        case .touch?: ends = contactsDown.isEmpty ? touchWakeEnd.flatMap { end in wallOffset.map { end + $0 } } : nil
        case .exercise?: ends = exerciseHoldSince.flatMap { since in wallOffset.map { since + Self.personHoldLimit + $0 } }
        case .idle?, nil: ends = nil
        }
        if let ends {
            let local = timeZone.local(at: Int64(ends.rounded(.up)))
            (status.until, status.untilClock) = (local.iso8601, local.clockToTheSecond)
        }
        return status
    }
}
