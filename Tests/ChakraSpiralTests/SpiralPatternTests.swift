import ChakraConfig
import ChakraRaster
import ChakraText
import Testing
@testable import ChakraSpiral

/// The hold follows the session's breathing pattern: phases and texts,
/// the orb's pulse, the heartbeats, the hold's length, and a pattern
/// chosen for one exercise. On the 390×844 design (u = 1).
@Suite("Spiral breathing patterns")
struct SpiralPatternTests {
    static let english = StringCatalog(language: "en", chosen: [:], english: [:])

    func session(_ pattern: String, configure: (inout ChakraConfig.Spiral) -> Void = { _ in }) -> SpiralSession {
        var config = ChakraConfig.Spiral()
        config.pattern = pattern
        configure(&config)
        let session = SpiralSession(config: config, width: 390, height: 844)
        #expect(session.pattern.name == pattern)
        return session
    }

    /// The phase's kind, its index, its fraction and the guidance the scene shows.
    func phase(_ s: SpiralSession, _ elapsed: Double) -> (BreathPhase.Kind, Int, Double, String) {
        let moment = s.holdPhase(elapsed: elapsed)
        return (moment.kind, moment.index, moment.fraction, Self.english.string(SpiralTexts.key(for: moment.kind)))
    }

    @Test("box: in, hold-in, out, hold-out, 4 s each, with their texts")
    func box() {
        let s = session("box")
        let expected: [(Double, BreathPhase.Kind, Int, Double, String)] = [
            (0, .in, 0, 0, "Breathe in slowly"), (3.9, .in, 0, 0.975, "Breathe in slowly"),
            (4, .holdIn, 1, 0, "Hold your breath"), (8, .out, 2, 0, "Breathe out slowly"),
            (12, .holdOut, 3, 0, "Pause before breathing in"), (15.9, .holdOut, 3, 0.975, "Pause before breathing in"),
            (16, .in, 0, 0, "Breathe in slowly"), (26, .out, 2, 0.5, "Breathe out slowly"),
        ]
        for (elapsed, kind, index, fraction, text) in expected {
            let (k, i, f, t) = phase(s, elapsed)
            #expect(k == kind && i == index && t == text, "at \(elapsed) s")
            #expect(abs(f - fraction) < 1e-9, "at \(elapsed) s")
        }
    }

    @Test("the other presets' phases at their boundaries", arguments: [
        ("6-4-8", [(0.0, BreathPhase.Kind.in), (5.9, .in), (6, .holdIn), (9.9, .holdIn), (10, .out), (17.9, .out), (18, .in)]),
        ("4-7-8", [(0.0, BreathPhase.Kind.in), (3.9, .in), (4, .holdIn), (10.9, .holdIn), (11, .out), (18.9, .out), (19, .in)]),
        ("coherent", [(0.0, BreathPhase.Kind.in), (5.4, .in), (5.5, .out), (10.9, .out), (11, .in), (16.5, .out)]),
    ])
    func presetPhases(name: String, moments: [(Double, BreathPhase.Kind)]) {
        let s = session(name)
        for (elapsed, kind) in moments { #expect(s.holdPhase(elapsed: elapsed).kind == kind, "\(name) at \(elapsed) s") }
    }

    @Test("the orb: 1 at in's start, 3 at its end and through hold-in, 1 at out's end and through hold-out", arguments: BreathingPattern.presets.map(\.name))
    func pulseAtBoundaries(name: String) {
        let s = session(name)
        let phases = s.pattern.phases
        var start = 0.0
        for cycle in 0..<2 {
            for phase in phases {
                let end = start + phase.seconds
                let (atStart, nearEnd, middle) = (s.holdPulse(elapsed: start), s.holdPulse(elapsed: end - 1e-9), s.holdPulse(elapsed: (start + end) / 2))
                switch phase.kind {
                case .in:
                    #expect(atStart == 1 && abs(nearEnd - 3) < 1e-6 && abs(middle - 2) < 1e-9, "\(name) cycle \(cycle)")
                    #expect(s.holdPulse(elapsed: start + phase.seconds / 6) < 1.5)    // eased: slow at first
                case .holdIn:
                    #expect(atStart == 3 && nearEnd == 3 && middle == 3, "\(name)")
                case .out:
                    #expect(atStart == 3 && abs(nearEnd - 1) < 1e-6 && abs(middle - 2) < 1e-9, "\(name)")
                case .holdOut:
                    #expect(atStart == 1 && nearEnd == 1 && middle == 1, "\(name)")
                }
                start = end
            }
        }
    }

    /// Into Hold with the finger resting on the head; returns when it began.
    func holdStarted(_ s: SpiralSession) -> Double {
        SpiralScript.drive(s, to: .inhale, progress: 1)
        #expect(s.state == .hold)
        _ = s.takeEvents()
        return s.stateEnteredAt
    }

    @Test("the hold lasts hold_duration in whole cycles, ends at a cycle's end, and beats only in the in phases", arguments: [
        ("6-4-8", 72.0, 4 * 24), ("box", 80.0, 5 * 16), ("4-7-8", 76.0, 4 * 16), ("coherent", 77.0, 7 * 22),
    ])
    func wholeHold(name: String, duration: Double, beatCount: Int) {
        let s = session(name)
        #expect(s.holdDuration == duration)
        let t0 = holdStarted(s)
        #expect(s.holdRemaining(at: t0) == duration && s.nextDeadline == t0 + duration)
        var now = t0
        while s.state == .hold {
            now += 0.37
            s.advance(to: now)
        }
        let events = s.takeEvents()
        #expect(events.last == .stateChanged(from: .hold, to: .exhale, time: t0 + duration))
        // (Relative times to the microsecond: t0 + x - t0 is not always x.)
        let beats = events.compactMap { if case .haptic(.beat, let t) = $0 { ((t - t0) * 1e6).rounded() / 1e6 } else { nil } }
        #expect(beats.count == beatCount)
        let inhale = s.pattern.phases[0].seconds, cycle = s.pattern.cycleSeconds
        #expect(beats.allSatisfy { $0.truncatingRemainder(dividingBy: cycle) < inhale - 1e-9 })
        #expect(beats.allSatisfy { s.holdPhase(elapsed: $0).kind == .in })
        // The end is a cycle's end: the next moment would start an in phase.
        #expect(s.holdPhase(elapsed: duration).kind == .in && s.holdPhase(elapsed: duration).fraction == 0)
    }

    @Test("a short hold_duration still runs one whole cycle")
    func atLeastOneCycle() {
        let s = session("box") { $0.holdDuration = 5 }
        #expect(s.holdDuration == 16)
    }

    @Test("a pattern for one exercise (spiral start --pattern), then the configured one again")
    func patternForOneExercise() throws {
        let s = session("6-4-8")
        let box = try s.config.pattern(named: "box").get()
        s.start(time: 1, pattern: box)
        #expect(s.state == .idle && s.pattern.name == "box" && s.holdDuration == 80)
        // It holds through the exercise, and its summary names it.
        let t = SpiralScript.drive(s, to: .completed, from: 2)
        #expect(s.pattern.name == "box")
        #expect(s.takeFinishedExercise()?.pattern == "box")
        s.advance(to: t + 10)
        #expect(s.state == .idle && s.pattern.name == "6-4-8" && s.holdDuration == 72)

        // Cancelled mid-hold: the configured pattern again.
        s.start(time: t + 20, pattern: box)
        let held = SpiralScript.drive(s, to: .hold, holdElapsed: 5, from: t + 21)
        #expect(s.pattern.name == "box")
        s.cancel(time: held + 1)
        #expect(s.pattern.name == "6-4-8")
        // Chosen and never used: cancel (or a plain start) gives it back too.
        s.start(time: held + 2, pattern: box)
        s.cancel(time: held + 3)
        #expect(s.pattern.name == "6-4-8")
        s.start(time: held + 4, pattern: box)
        s.start(time: held + 5)
        #expect(s.pattern.name == "6-4-8")
        // A restart with another pattern mid-exercise: the new exercise has it.
        s.start(time: held + 6, pattern: box)
        let inhaling = SpiralScript.drive(s, to: .inhale, from: held + 7)
        let coherent = try s.config.pattern(named: "coherent").get()
        s.start(time: inhaling + 1, pattern: coherent)
        #expect(s.state == .idle && s.pattern.name == "coherent")
        let ended = [s.takeFinishedExercise(), s.takeFinishedExercise(), s.takeFinishedExercise()].map { $0.map { "\($0.pattern) \($0.ending)" } }
        #expect(ended == ["box cancelled", "box restarted", nil])
    }

    @Test("a custom pattern from a configuration text drives the hold, with its own text")
    func customFromConfig() throws {
        let loaded = try ConfigParser.parse("""
            [spiral]
            pattern = "calm"
            hold_duration = 30
            [spiral.patterns.calm]
            phases = [
                { kind = "in", seconds = 4 },
                { kind = "hold-in", seconds = 2, text = "Hold gently" },
                { kind = "out", seconds = 6 },
                { kind = "hold-out", seconds = 3 },
            ]
            """)
        let s = SpiralSession(config: loaded.config.spiral, width: 390, height: 844)
        #expect(s.pattern.name == "calm" && s.pattern.cycleSeconds == 15 && s.holdDuration == 30)
        #expect(s.holdPhase(elapsed: 4.5).kind == .holdIn && s.pattern.phases[1].text == "Hold gently")
        #expect(s.holdPhase(elapsed: 13).kind == .holdOut && s.holdPulse(elapsed: 13) == 1)
        #expect(s.holdPhase(elapsed: 19.5) == HoldMoment(index: 1, kind: .holdIn, fraction: 0.25))
    }

    /// The hold cycle as the release before patterns breathed it
    /// (SpiralSession.holdPhase at 2055082^), copied here as the reference.
    static func oldHoldPhase(up: Double, pause: Double, down: Double, elapsed: Double) -> (kind: BreathPhase.Kind, fraction: Double) {
        let cycle = up + pause + down
        let t = cycle > 0 ? elapsed.truncatingRemainder(dividingBy: cycle) : 0
        if t < up { return (.in, up > 0 ? t / up : 1) }
        if t < up + pause { return (.holdIn, pause > 0 ? (t - up) / pause : 1) }
        return (.out, down > 0 ? min((t - up - pause) / down, 1) : 1)
    }

    @Test("the old hold cycle's keys breathe as their release did: the same phases, texts and fractions at every moment",
          arguments: [(3.0, 2.0, 5.0), (6.0, 4.0, 8.0), (4.0, 0.0, 6.5), (5.5, 3.25, 9.0)])
    func oldHoldCycleKeys(_ cycle: (up: Double, pause: Double, down: Double)) throws {
        let loaded = try ConfigParser.parse("""
            [spiral]
            hold_duration = 72.0
            hold_cycle_up_duration = \(cycle.up)
            hold_cycle_pause_duration = \(cycle.pause)
            hold_cycle_down_duration = \(cycle.down)
            """)
        let s = SpiralSession(config: loaded.config.spiral, width: 390, height: 844)
        #expect(s.pattern.cycleSeconds == cycle.up + cycle.pause + cycle.down)
        let oldTexts: [BreathPhase.Kind: String] = [.in: "Breathe in slowly", .holdIn: "Hold your breath", .out: "Breathe out slowly"]
        for step in 0..<(72 * 8) {
            let elapsed = Double(step) / 8
            let old = Self.oldHoldPhase(up: cycle.up, pause: cycle.pause, down: cycle.down, elapsed: elapsed)
            let (kind, _, fraction, text) = phase(s, elapsed)
            #expect(kind == old.kind, "at \(elapsed) s")
            #expect(abs(fraction - old.fraction) < 1e-9, "at \(elapsed) s")
            #expect(text == oldTexts[old.kind], "at \(elapsed) s")
        }
    }
}
