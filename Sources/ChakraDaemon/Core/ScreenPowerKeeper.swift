import ChakraConfig
import ChakraControl
import ChakraDisplay
import ChakraInput
import ChakraSchedule
import ChakraSystem

/// The screen's power: on, dimmed or really off, and why. It keeps what
/// `ScreenPolicy` decides from (the hand's `display` mode, the idle
/// timers, a touch's wake, an exercise holding the screen on), the fingers
/// on the glass that a dark screen keeps from the scene, the brightness
/// asked for and the read-backs of the display chain. What going dark or
/// coming back does to the rest (the scene, the exercise) is the core's.
final class ScreenPowerKeeper {
    /// How long a person may keep the screen on past the moment it would
    /// have gone dark by itself: a finger held on the glass after a touch's
    /// wake, an exercise in progress past closing time or the idle blank.
    /// Ten minutes is more than any exercise takes (the longest hold is
    /// minutes, an exercise left alone is given up after
    /// `spiral.abandon_after`), and short enough that a stuck contact or an
    /// exercise that can never end (`abandon_after = 0`) does not keep a
    /// kiosk lit all night.
    static let personHoldLimit = 600.0

    /// What a touch is to the scene, given the screen.
    enum TouchVerdict: Equatable {
        case toScene
        /// Kept from the scene down to its lift; `activity`: it counts as
        /// someone there (it wakes an idle or, within wake_on_touch, a
        /// scheduled blank).
        case kept(activity: Bool)
    }

    let backlight: BacklightPort?
    private let tallies: Tallies
    private let outbox: CoreOutbox
    private let logger: Logger
    /// The brightness asked for, in percent (dimming is relative to it).
    var brightness: Int?
    /// The idle timers' state.
    private(set) var idle = PowerState.normal
    private(set) var lastActivity: Double
    private(set) var screen = ScreenState.on
    private(set) var mode = DisplayPowerMode.auto
    /// A touch woke a screen the schedule keeps off: the time of the last
    /// contact since (any finger's down, move or lift), from which
    /// [display] wake_on_touch counts; nil when no wake runs.
    private(set) var touchWakeLastContact: Double?
    /// Since when an exercise in progress has kept the screen on past the
    /// moment it would have gone dark (`personHoldLimit` bounds it).
    private(set) var exerciseHoldSince: Double?
    /// The read-backs since the screen last went on or off.
    private(set) var checks: [DisplayPowerReport] = []
    /// The fingers on the glass now, whether the scene sees them or not.
    private(set) var contactsDown: [Int] = []
    /// Contacts kept from the scene down to their lift: those that touched
    /// a dark screen (to wake it or not), and those on the glass when it
    /// went dark.
    private var consumedContacts: [Int] = []

    init(backlight: BacklightPort?, start: Double, tallies: Tallies, outbox: CoreOutbox, logger: Logger) {
        (self.backlight, self.tallies, self.outbox, self.logger) = (backlight, tallies, outbox, logger)
        brightness = backlight?.percent
        lastActivity = start
        contactsDown.reserveCapacity(10)
        consumedContacts.reserveCapacity(10)
    }

    /// A restarted daemon goes on as idle as the last one was: the last
    /// activity `idle` seconds ago (docs/seams.md).
    func continueIdle(_ idle: Double, now: Double) {
        lastActivity = now - idle
    }

    /// Activity (a command, a finger down or moving): the idle timers
    /// start again.
    func noteActivity(now: Double) {
        lastActivity = now
    }

    // MARK: deciding

    /// The idle timers and the screen as they should be now. The idle
    /// state follows at once (its change emitted); the screen state is
    /// returned when it differs from the one shown, for the core to `enter`.
    func decide(now: Double, idlePolicy: IdlePolicy, lowPower: Bool, wakeOnTouch: Double,
                scheduled: ScheduleAction?, exerciseUnderWay: Bool) -> ScreenState? {
        let idleNow = idlePolicy.state(idle: now - lastActivity, lowPower: lowPower)
        if idleNow != idle {
            idle = idleNow
            logger.info("power: \(idleNow.rawValue)")
            outbox.emit(.powerChanged(idleNow))
        }
        if let end = touchWakeEnd(wakeOnTouch: wakeOnTouch), now >= end { touchWakeLastContact = nil }
        let withinBound = exerciseHoldSince.map { now < $0 + Self.personHoldLimit } ?? true
        let decided = ScreenPolicy.decide(mode: mode, scheduled: scheduled, idle: idle,
                                          touchWoken: touchWakeLastContact != nil, exercise: exerciseUnderWay && withinBound)
        exerciseHoldSince = decided.reason == .exercise ? (exerciseHoldSince ?? now) : nil
        if decided.reason == .exercise, screen.reason != .exercise {
            logger.info("display: kept on until the exercise ends (at most \(Int(Self.personHoldLimit / 60)) minutes)")
        }
        return decided == screen ? nil : decided
    }

    /// The screen is `next` from now; the state it was.
    func enter(_ next: ScreenState) -> ScreenState {
        defer { screen = next }
        return screen
    }

    /// The backlight and the display chain powered down (after the last,
    /// black frame); their read-backs start anew.
    func powerDown() {
        if backlight != nil, brightness != nil { outbox.perform(.setBacklight(0)) }
        checks.removeAll()
        outbox.perform(.displayPower(on: false))
    }

    func powerUp(dimLevel: Int) {
        checks.removeAll()
        outbox.perform(.displayPower(on: true))
        backlightFollows(dimLevel: dimLevel)
    }

    /// The backlight at the level the screen's state asks (dimmed relative
    /// to the brightness asked for).
    func backlightFollows(dimLevel: Int) {
        guard backlight != nil, let brightness else { return }
        switch screen.power {
        case .on: outbox.perform(.setBacklight(brightness))
        case .dimmed: outbox.perform(.setBacklight(BrightnessScale.dimmed(brightness, level: dimLevel)))
        case .off: outbox.perform(.setBacklight(0))
        }
    }

    /// `display off|on|auto`; false when the mode was already that. A
    /// touch's wake ends; `on` and `auto` are someone there.
    func setMode(_ next: DisplayPowerMode, now: Double) -> Bool {
        let changed = next != mode
        mode = next
        touchWakeLastContact = nil
        logger.info("display: \(next.rawValue) by hand")
        if next != .off { lastActivity = now }
        return changed
    }

    /// A new schedule window: a manual `display on|off` lasts until here
    /// (not at the first evaluation), and a touch's wake ends.
    func scheduleChanged(first: Bool) {
        if !first, mode != .auto {
            logger.info("display: \(mode.rawValue) by hand ends; following the schedule")
            mode = .auto
        }
        touchWakeLastContact = nil
    }

    /// When a touch's wake runs out: [display] wake_on_touch seconds after
    /// the last contact of any finger; while a finger is on the glass, not
    /// before `personHoldLimit` more has passed (a stuck contact must not
    /// keep the kiosk lit for ever).
    func touchWakeEnd(wakeOnTouch: Double) -> Double? {
        guard let last = touchWakeLastContact else { return nil }
        let end = last + wakeOnTouch
        return contactsDown.isEmpty ? end : end + Self.personHoldLimit
    }

    /// When an exercise stops holding the screen on, whether it ended or not.
    var exerciseHoldEnd: Double? { exerciseHoldSince.map { $0 + Self.personHoldLimit } }

    // MARK: touches on a dark screen

    /// Which fingers are on the glass; any contact of any finger (down,
    /// move, lift) is the last touch a wake counts from.
    func trackContact(_ event: TouchContactEvent, now: Double) {
        switch event.phase {
        case .down: if !contactsDown.contains(event.id) { contactsDown.append(event.id) }
        case .move: break
        case .up, .cancel: contactsDown.removeAll { $0 == event.id }
        }
        if touchWakeLastContact != nil { touchWakeLastContact = now }
    }

    /// A touch on a screen that is off wakes it (the idle timers' blank;
    /// the schedule's off for [display] wake_on_touch seconds after the
    /// last touch) or not, and the whole touch, down to the lift, never
    /// reaches the scene: a wake tap must not start the exercise.
    func verdict(on event: TouchContactEvent, now: Double, wakeOnTouch: Double) -> TouchVerdict {
        if let index = consumedContacts.firstIndex(of: event.id) {
            if event.phase == .up || event.phase == .cancel { consumedContacts.remove(at: index) }
            return .kept(activity: false)
        }
        guard event.phase == .down, screen.power == .off else { return .toScene }
        logger.debug("touch: contact \(event.id) on a dark screen (\(screen.reason?.rawValue ?? "")): kept from the scene")
        consumedContacts.append(event.id)
        switch screen.reason {
        case .idle?:
            return .kept(activity: true)
        case .schedule? where wakeOnTouch > 0:
            logger.info("display: woken by a touch, until \(wakeOnTouch) s after the last touch")
            touchWakeLastContact = now
            return .kept(activity: true)
        default:
            return .kept(activity: false)
        }
    }

    /// The screen goes dark: every finger on the glass is kept from the
    /// scene until it lifts, exactly as a finger that comes down in the
    /// dark. Nothing a finger does in the dark reaches the scene.
    func keepContactsFromScene() {
        for id in contactsDown where !consumedContacts.contains(id) {
            logger.debug("touch: contact \(id) on the glass as the screen went dark: kept from the scene until it lifts")
            consumedContacts.append(id)
        }
    }

    // MARK: read-back

    /// What one part of the display chain did, read back.
    func checked(_ report: DisplayPowerReport) {
        // A late answer to an earlier request (the TV's, after the screen
        // was switched back) says nothing about now.
        guard report.on == (screen.power != .off) else { return }
        checks.removeAll { $0.part == report.part }
        checks.append(report)
        if report.check.isFailure {
            tallies.errors[.displayPower] += 1
            logger.warning("display: \(report.summary)")
        } else {
            logger.info("display: \(report.summary)")
        }
        outbox.emit(.displayChecked(report))
    }

    /// The screen for `status` and events, with when its state ends by
    /// itself on the wall clock (`wallOffset` nil: not known yet).
    func status(scheduleNextAt: Int64?, wallOffset: Double?, wakeOnTouch: Double, timeZone: LocalTimeZone) -> DisplayPowerStatus {
        var status = DisplayPowerStatus()
        status.mode = mode
        status.screen = screen
        status.checks = checks
        var ends: Double?
        switch screen.reason {
        case .schedule?, .manual?: ends = scheduleNextAt.map { Double($0) }
        // While a finger is on the glass the wake has no end yet.
        case .touch?: ends = contactsDown.isEmpty ? touchWakeEnd(wakeOnTouch: wakeOnTouch).flatMap { end in wallOffset.map { end + $0 } } : nil
        case .exercise?: ends = exerciseHoldEnd.flatMap { end in wallOffset.map { end + $0 } }
        case .idle?, nil: ends = nil
        }
        if let ends {
            let local = timeZone.local(at: Int64(ends.rounded(.up)))
            (status.until, status.untilClock) = (local.iso8601, local.clockToTheSecond)
        }
        return status
    }

    /// The brightness to put back at exit (the console must not stay
    /// dark), when the screen is not simply on.
    var brightnessToRestore: Int? {
        guard screen.power != .on, backlight != nil else { return nil }
        return brightness
    }
}
