import ChakraSessions
import ChakraSpiral

/// Breathing sessions: each exercise that ends becomes a record
/// (`.recordSession`: the shell's `SessionRecorder` writes it on a thread
/// of its own) and, once the disk has it, a `session_finished` event. The
/// counts since start go into `status` and the metrics file.
extension DaemonCore {
    /// SIGTERM, SIGINT or `stop`: an exercise in progress is recorded as
    /// interrupted (the shell writes what is queued before it exits), and
    /// the loop ends.
    func stop() {
        pumpInteractiveScene()
        if let session = spiralScene?.session, session.isExerciseRunning {
            session.finishExercise(time: clock.time(at: now))
            collectExercises(of: session)
        }
        running = false
    }

    /// Idle → Inhale: someone began.
    func sessionStarted() {
        sessions.started += 1
    }

    /// An exercise ended: counted, then written.
    func finishSession(_ summary: SpiralExerciseSummary) {
        let record = sessionRecord(of: summary)
        switch record.outcome {
        case .completed: sessions.completed += 1
        case .abandoned: sessions.abandoned += 1
        }
        sessions.breathedSeconds += record.breathedSeconds
        let line = "sessions: \(record.outcome.rawValue) (\(record.ending), pattern \(record.pattern), reached \(record.furthestState), "
            + "\(Self.seconds(record.duration)), on the light \(Self.seconds(record.breathedSeconds)), "
            + "held \(Self.seconds(record.holdSeconds)), \(record.lifts) lift\(record.lifts == 1 ? "" : "s"))"
        logger.info("\(line)")
        perform(.recordSession(record))
    }

    /// The shell's answer to `.recordSession`: on the disk, or why not.
    func sessionRecorded(_ record: SessionRecord, error: String?) {
        if error == nil { sessions.recorded += 1 } else { errors[.sessionRecord] += 1 }
        emit(.sessionFinished(SessionFinishedReport(record: record, startedAt: localTime(record.startedAt), error: error)))
    }

    /// The summary's session times (scene time) on the wall clock. Without
    /// a wall clock yet (the shell gives it at the first turn), the
    /// monotonic one stands in: still in order, if not in the right year.
    func sessionRecord(of summary: SpiralExerciseSummary) -> SessionRecord {
        let sceneNow = clock.time(at: now)
        let started = (wallOffset ?? 0) + now - max(0, sceneNow - summary.startedAt)
        let outcome: SessionRecord.Outcome = summary.ending == .completed ? .completed : .abandoned
        return SessionRecord(startedAt: max(0, started), duration: max(0, summary.endedAt - summary.startedAt), outcome: outcome,
                             ending: summary.ending.rawValue, pattern: summary.pattern, furthestState: summary.furthestState.rawValue,
                             breathedSeconds: max(0, summary.onHeadSeconds), holdSeconds: max(0, summary.holdTouchedSeconds),
                             lifts: summary.lifts)
    }

    /// "2026-11-26T14:05:09+01:00" in the system's zone.
    func localTime(_ utc: Double) -> String {
        timeZone.local(at: Int64(utc.rounded(.down))).iso8601
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
