import ChakraControl
import ChakraInput
import ChakraRaster
import ChakraScenes
import ChakraSessions
import ChakraSpiral
import ChakraSystem

/// Touches on an interactive scene and the exercise they drive: the scene
/// follows one finger, the first down; its own changes (states, haptic
/// cues, the end) are pumped out every turn; progress goes to subscribers
/// at most five times a second; each exercise that ends becomes a session
/// record; and the time from a touch to the frame that shows it is
/// measured. Times given to the scene are scene times, so a paused scene
/// pauses the exercise too.
final class ExerciseTracker {
    private let tallies: Tallies
    private let outbox: CoreOutbox
    private let logger: Logger
    /// The contact the scene follows (the first finger down).
    private(set) var followed: Int?
    /// The earliest touch applied since the last frame drawn, and that of
    /// the frame drawn since: touch-to-screen latency.
    private var unshownTouchTime: Double?
    private var drawnTouchTime: Double?
    private(set) var touchLatencies = FrameTimes()
    private var lastProgressEvent = (time: -Double.infinity, progress: -1.0)
    /// The touchscreens in use, for `status`.
    var inputDevices: [String] = []
    /// Counts changes the scene shows that time did not make (a touch, a
    /// state change, a command): the exercise's share of `FrameDemand`.
    private(set) var revision = 0

    init(tallies: Tallies, outbox: CoreOutbox, logger: Logger) {
        (self.tallies, self.outbox, self.logger) = (tallies, outbox, logger)
    }

    /// Something the scene shows changed without time passing.
    func changed() {
        revision += 1
    }

    // MARK: touches

    /// `event` for `scene` at scene time `t`, if it is the followed finger's
    /// (a first finger down becomes it); true when the scene got it.
    func apply(_ event: TouchContactEvent, to scene: InteractiveScene, sceneTime t: Double, now: Double) -> Bool {
        if event.phase == .down, followed == nil { followed = event.id }
        guard event.id == followed else { return false }
        let point = Point(event.x, event.y)
        switch event.phase {
        case .down: scene.touchDown(at: point, time: t)
        case .move: scene.touchMoved(to: point, time: t)
        case .up, .cancel:
            scene.touchUp(time: t)
            followed = nil
        }
        if unshownTouchTime == nil { unshownTouchTime = now }
        changed()
        return true
    }

    /// The followed finger counts as lifted (the screen went dark); true
    /// when there was one.
    func letGo(of scene: InteractiveScene?, sceneTime t: Double) -> Bool {
        defer { followed = nil }
        guard followed != nil, let scene else { return false }
        scene.touchUp(time: t)
        return true
    }

    /// The finger the old scene followed is not the new one's: its lift may
    /// come while no interactive scene listens, and a contact followed for
    /// good would shut out every later touch.
    func sceneReplaced() {
        followed = nil
    }

    /// A frame is being drawn: it shows the touches applied so far.
    func touchesDrawn() {
        if unshownTouchTime != nil { (drawnTouchTime, unshownTouchTime) = (unshownTouchTime, nil) }
    }

    /// That frame is on screen at `time`: its touches took this long.
    func touchesShown(at time: Double) {
        guard let touched = drawnTouchTime else { return }
        touchLatencies.record((time - touched) * 1000)
        drawnTouchTime = nil
    }

    // MARK: the scene's own changes

    /// The scene caught up with scene time `t`: its state changes go to
    /// subscribers, its haptic cues to the shell. True when it says the
    /// exercise is over (the core goes back to the ambient scene).
    func pump(_ scene: InteractiveScene, sceneTime t: Double) -> Bool {
        scene.advance(to: t)
        var finished = false
        for event in scene.takeEvents() {
            switch event {
            case .stateChanged(let from, let to):
                logger.info("spiral: \(from) → \(to)")
                // Idle → Inhale: someone began.
                if from == SpiralState.idle.rawValue, to == SpiralState.inhale.rawValue { tallies.sessions.started += 1 }
                outbox.emit(.spiralState(from: from, to: to))
                changed()
            case .haptic(let cue):
                outbox.perform(.haptic(cue))
            case .finished:
                finished = true
            }
        }
        return finished
    }

    /// Progress for subscribers: when it moved by a thousandth, at most
    /// every 0.2 s.
    func progressDue(_ report: SpiralReport, now: Double) -> Bool {
        guard abs(report.progress - lastProgressEvent.progress) >= 0.001, now - lastProgressEvent.time >= 0.2 else { return false }
        lastProgressEvent = (now, report.progress)
        return true
    }

    // MARK: sessions

    /// The exercises of `exercise` that ended since the last look: each
    /// counted and handed to the shell to record.
    func collect(_ exercise: ExerciseScene, now: Double, sceneNow: Double, wallOffset: Double?) {
        while let summary = exercise.takeFinishedExercise() {
            finish(Self.record(of: summary, now: now, sceneNow: sceneNow, wallOffset: wallOffset))
        }
    }

    private func finish(_ record: SessionRecord) {
        switch record.outcome {
        case .completed: tallies.sessions.completed += 1
        case .abandoned: tallies.sessions.abandoned += 1
        }
        tallies.sessions.breathedSeconds += record.breathedSeconds
        let line = "sessions: \(record.outcome.rawValue) (\(record.ending), pattern \(record.pattern), reached \(record.furthestState), "
            + "\(Self.seconds(record.duration)), on the light \(Self.seconds(record.breathedSeconds)), "
            + "held \(Self.seconds(record.holdSeconds)), \(record.lifts) lift\(record.lifts == 1 ? "" : "s"))"
        logger.info("\(line)")
        outbox.perform(.recordSession(record))
    }

    /// The shell's answer to `.recordSession`: on the disk, or why not.
    func recorded(_ record: SessionRecord, error: String?, startedAt: String) {
        if error == nil { tallies.sessions.recorded += 1 } else { tallies.errors[.sessionRecord] += 1 }
        outbox.emit(.sessionFinished(SessionFinishedReport(record: record, startedAt: startedAt, error: error)))
    }

    /// The summary's session times (scene time) on the wall clock. Without
    /// a wall clock yet (the shell gives it at the first turn), the
    /// monotonic one stands in: still in order, if not in the right year.
    static func record(of summary: SpiralExerciseSummary, now: Double, sceneNow: Double, wallOffset: Double?) -> SessionRecord {
        let started = (wallOffset ?? 0) + now - max(0, sceneNow - summary.startedAt)
        let outcome: SessionRecord.Outcome = summary.ending == .completed ? .completed : .abandoned
        return SessionRecord(startedAt: max(0, started), duration: max(0, summary.endedAt - summary.startedAt), outcome: outcome,
                             ending: summary.ending.rawValue, pattern: summary.pattern, furthestState: summary.furthestState.rawValue,
                             breathedSeconds: max(0, summary.onHeadSeconds), holdSeconds: max(0, summary.holdTouchedSeconds),
                             lifts: summary.lifts)
    }

    static func seconds(_ value: Double) -> String { String(Int(value.rounded())) + " s" }
}

/// A `session_finished` event: the record, and whether it is on the disk.
public struct SessionFinishedReport: Sendable, Equatable {
    public var record: SessionRecord
    /// The start in local time, ISO 8601.
    public var startedAt: String
    /// Why the record is not on the disk; nil once it is.
    public var error: String?

    public var recorded: Bool { error == nil }
}
