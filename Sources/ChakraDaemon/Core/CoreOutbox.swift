/// What the core's parts ask the shell to do, in order, and the events of
/// the input being handled. Every part writes here; the shell drains it
/// with `DaemonCore.nextEffect()`. Made once: a frame's `.tick` → `.draw`
/// allocates nothing.
final class CoreOutbox {
    private var effects: [DaemonEffect] = []
    private var head = 0
    /// Events of this input, sent after the status that shows them.
    private var events: [DaemonEvent] = []

    init() {
        effects.reserveCapacity(16)
        events.reserveCapacity(8)
    }

    func perform(_ effect: DaemonEffect) {
        effects.append(effect)
    }

    /// Something happened; it goes out after the status that shows it, at
    /// the end of this input (`flushEvents`).
    func emit(_ event: DaemonEvent) {
        events.append(event)
    }

    /// The end of an input: its events, behind a status that shows them.
    func flushEvents() {
        guard !events.isEmpty else { return }
        perform(.publish(notify: false))
        for event in events { perform(.event(event)) }
        events.removeAll(keepingCapacity: true)
    }

    /// The next effect, oldest first; nil when none is left.
    func next() -> DaemonEffect? {
        guard head < effects.count else {
            if head > 0 {
                effects.removeAll(keepingCapacity: true)
                head = 0
            }
            return nil
        }
        defer { head += 1 }
        return effects[head]
    }
}

/// The counts since start that every part adds to (errors by kind,
/// breathing sessions), for `status` and the metrics file.
final class Tallies {
    var errors = ErrorCounts()
    var sessions = SessionCounts()
}

/// What the picture on screen was drawn from, as each part that changes it
/// without time passing counts its changes: a frame is needed when this
/// differs from the last frame's (`Pacing.needsFrame`). No part sets a
/// shared "redraw" flag; each only counts its own changes.
struct FrameDemand: Equatable {
    /// `SceneDirector.revision`: the scene, a pause.
    var scene = 0
    /// `ExerciseFollower.revision`: touches applied, the exercise's states.
    var exercise = 0
}
