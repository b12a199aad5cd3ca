import ChakraControl
import ChakraDisplay
import ChakraInput

/// The screen: on, dimmed or really off (`ScreenPowerKeeper` decides from
/// the hand, the schedule, the idle timers, a waking touch and an exercise
/// under way). Off is off: one black frame, then the display powered down
/// (the shell's `.displayPower`: CRTC, framebuffer, backlight, TV), no
/// frames and no CPU; back on, the mode is set again and the scene fades in
/// from black. What that does to the scene and the exercise is here.
extension DaemonCore {
    var idlePolicy: IdlePolicy { IdlePolicy(configuration.config.lowPower) }

    /// See `ScreenPowerKeeper.personHoldLimit`.
    static var personHoldLimit: Double { ScreenPowerKeeper.personHoldLimit }

    /// Activity (a command, a finger down or moving): the timers start again.
    func noteActivity() {
        screen.noteActivity(now: now)
        updatePower()
    }

    /// Runs every turn, and after anything that moves the timers, the
    /// schedule or the hand.
    func updatePower() {
        if let next = screen.decide(now: now, idlePolicy: idlePolicy, lowPower: configuration.settings.lowPower,
                                    wakeOnTouch: configuration.config.display.wakeOnTouch, scheduled: hours.state?.action,
                                    exerciseUnderWay: exerciseInProgress) {
            show(next)
        }
    }

    /// A breathing exercise is under way on screen (from the first touch on
    /// the light through the celebration): the person breathing is not cut
    /// off by the screen going dark by itself.
    var exerciseInProgress: Bool { scenes.exercise?.isExerciseUnderWay ?? false }

    private func show(_ next: ScreenState) {
        let previous = screen.enter(next)
        if next.power == .off, previous.power != .off {
            powerDown()
        } else if next.power != .off, previous.power == .off {
            powerUp()
        } else {
            screen.backlightFollows(dimLevel: configuration.config.lowPower.dimLevel)
        }
        let status = displayStatus
        logger.info("display: \(status.summary)")
        emit(.displayPower(status))
    }

    private func powerDown() {
        // An exercise cannot go on in the dark: back to its ambient scene
        // (a cut: the screen is off), or to Idle; either way it ends as
        // interrupted, not cancelled.
        if scenes.returnScene != nil {
            returnFromExercise(because: "the display is off")
        } else if let running = scenes.exercise, running.isExerciseUnderWay {
            running.interruptExercise(time: scenes.time(at: now))
        }
        releaseContacts()
        scenes.cancelCrossfade()
        // One black frame first: a display that cannot power down (a
        // framebuffer without blanking), or a TV slow to, is dark anyway.
        // Off from the start, it is the first frame (systemd hears READY).
        if vtActive, pacing.outputReady {
            pacing.blackFrame()
            perform(.draw(FramePlan(content: .black, shownAt: now, rotation: configuration.rotation)))
        }
        screen.powerDown()
    }

    private func powerUp() {
        screen.powerUp(dimLevel: configuration.config.lowPower.dimLevel)
        if pacing.firstFrameShown, !configuration.presentOnly {
            scenes.fadeInFromBlack(now: now, transition: defaultTransition, reduceMotion: configuration.settings.reduceMotion)
        }
        pacing.outputLost()
    }

    /// The brightness to put back at exit (the console must not stay
    /// dark), when the screen is not simply on.
    public var brightnessToRestore: Int? { screen.brightnessToRestore }

    /// True when the display is powered down and must be powered up at
    /// exit (the console comes back lit).
    public var displayPoweredDown: Bool { screen.screen.power == .off }

    /// `display off|on|auto`. `on` and `off` hold until the schedule's next
    /// change (or until told otherwise, with no schedule); `auto` follows
    /// the schedule again at once.
    func setDisplayMode(_ mode: DisplayPowerMode) {
        let before = screen.screen
        let changed = screen.setMode(mode, now: now)
        updatePower()
        if changed, screen.screen == before { emit(.displayPower(displayStatus)) }
    }

    var displayStatus: DisplayPowerStatus {
        screen.status(scheduleNextAt: hours.next?.at, wallOffset: hours.wallOffset,
                      wakeOnTouch: configuration.config.display.wakeOnTouch, timeZone: hours.timeZone)
    }

    // MARK: touches

    func handleTouch(_ event: TouchContactEvent) {
        screen.trackContact(event, now: now)
        switch screen.verdict(on: event, now: now, wakeOnTouch: configuration.config.display.wakeOnTouch) {
        case .kept(let activity):
            if activity { noteActivity() }
            return
        case .toScene:
            break
        }
        switch event.phase {
        case .down:
            logger.debug("touch: contact \(event.id) down at \(event.x), \(event.y)")
            noteActivity()
        case .move:
            // A finger tracing is someone there: the idle timers must not
            // dim the light under it.
            noteActivity()
        case .up, .cancel:
            break
        }
        guard let interactive = scenes.interactive else { return }
        // At the core's time: the touch's own (the shell hands it in at
        // its kernel time), unless something later was handled already. A
        // lift read late then cannot undo touched time the status showed.
        guard exercise.apply(event, to: interactive, sceneTime: scenes.time(at: now), now: now) else { return }
        // Its state changes go out now, not at the next turn: a session
        // begun by this touch is counted even if chakrad stops before then.
        pumpInteractiveScene()
    }

    /// The screen goes dark: every finger on the glass is let go of (the
    /// scene sees it lift) and kept from the scene until it lifts, exactly
    /// as a finger that comes down in the dark. Nothing a finger does in
    /// the dark reaches the scene, so nothing is drawn, begun or recorded.
    private func releaseContacts() {
        if exercise.letGo(of: scenes.interactive, sceneTime: scenes.time(at: now)) { pumpInteractiveScene() }
        screen.keepContactsFromScene()
    }
}
