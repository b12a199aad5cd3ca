import Testing
@testable import ChakraDisplay

/// Plays a display against the pacer: frames are started when the pacer
/// says, take `render` seconds, and are shown per the display's rule.
private struct Simulation {
    enum Display {
        /// Flips land on the first vblank (k·refresh + phase) after the commit, with timestamps.
        case vblank(refresh: Double, phase: Double)
        /// Flips complete at once, no timestamp (bochs, virtio-gpu, headless).
        case immediate
    }

    var pacer: FramePacer
    let display: Display
    let render: Double
    var shown: [(time: Double, target: Double)] = []

    mutating func run(until end: Double, start: Double = 100) {
        var now = start
        while now < end {
            now = max(now, pacer.renderStart(now: now))
            let target = pacer.beginFrame(now: now)
            let committed = now + render
            switch display {
            case .vblank(let refresh, let phase):
                let vblank = ((committed - phase) / refresh).rounded(.up) * refresh + phase
                pacer.presented(at: vblank)
                shown.append((vblank, target))
                now = vblank + 0.0001   // the event wakes the loop
            case .immediate:
                pacer.presented(at: nil)
                shown.append((committed, target))
                now = committed
            }
        }
    }

    var intervals: [Double] { zip(shown.dropFirst(), shown).map { $0.time - $1.time } }
}

@Suite("Frame pacing")
struct FramePacerTests {
    let hz60 = 1.0 / 60

    @Test func vblankDisplayShowsEveryRefresh() {
        var sim = Simulation(pacer: FramePacer(fpsCap: nil, refreshInterval: hz60, vblankTimed: true), display: .vblank(refresh: hz60, phase: 0.003), render: 0.006)
        sim.run(until: 102)
        #expect(sim.intervals.count > 100)
        #expect(sim.intervals.allSatisfy { abs($0 - hz60) < 1e-6 })   // no missed vblank
        // After the first, each frame is drawn for the vblank it lands on.
        #expect(sim.shown.dropFirst().allSatisfy { abs($0.time - $0.target) < 1e-6 })
    }

    @Test func slowFramesShiftTheScheduleInsteadOfPilingUp() {
        var sim = Simulation(pacer: FramePacer(fpsCap: nil, refreshInterval: hz60, vblankTimed: true), display: .vblank(refresh: hz60, phase: 0), render: 0.020)
        sim.run(until: 101)
        // 20 ms frames on 60 Hz: every other vblank, evenly.
        #expect(sim.intervals.dropFirst().allSatisfy { abs($0 - 2 * hz60) < 1e-6 })
    }

    @Test func capOnVBlankDisplayIsAWholeNumberOfRefreshes() {
        #expect(abs(FramePacer(fpsCap: 20, refreshInterval: hz60, vblankTimed: true).frameInterval - 3 * hz60) < 1e-12)
        #expect(abs(FramePacer(fpsCap: 25, refreshInterval: hz60, vblankTimed: true).frameInterval - 3 * hz60) < 1e-12)
        #expect(abs(FramePacer(fpsCap: 30, refreshInterval: hz60, vblankTimed: true).frameInterval - 2 * hz60) < 1e-12)
        // A cap of 60 on a 59.94 Hz panel is every refresh, not every other.
        #expect(abs(FramePacer(fpsCap: 60, refreshInterval: 1 / 59.94, vblankTimed: true).frameInterval - 1 / 59.94) < 1e-12)
        // A cap above the refresh changes nothing.
        #expect(abs(FramePacer(fpsCap: 144, refreshInterval: hz60, vblankTimed: true).frameInterval - hz60) < 1e-12)

        var sim = Simulation(pacer: FramePacer(fpsCap: 20, refreshInterval: hz60, vblankTimed: true), display: .vblank(refresh: hz60, phase: 0.001), render: 0.006)
        sim.run(until: 103)
        #expect(sim.intervals.allSatisfy { abs($0 - 0.05) < 1e-6 })
    }

    @Test func immediateFlipsArePacedByTheFrameClock() {
        // bochs: flip events at once, no vblank. Without the timer this would
        // render as fast as the CPU allows.
        var sim = Simulation(pacer: FramePacer(fpsCap: nil, refreshInterval: hz60, vblankTimed: false), display: .immediate, render: 0.004)
        sim.run(until: 110)
        let rate = Double(sim.shown.count - 1) / (sim.shown.last!.time - sim.shown.first!.time)
        #expect(abs(rate - 60) < 0.01)
    }

    @Test func headlessTimerWithCap() {
        let pacer = FramePacer(fpsCap: 20, refreshInterval: nil, vblankTimed: false)
        #expect(pacer.lead == 0)
        var sim = Simulation(pacer: pacer, display: .immediate, render: 0.010)
        sim.run(until: 110)
        let rate = Double(sim.shown.count - 1) / (sim.shown.last!.time - sim.shown.first!.time)
        #expect(abs(rate - 20) < 0.01)
        #expect(abs(FramePacer(fpsCap: nil, refreshInterval: nil, vblankTimed: false).frameInterval - hz60) < 1e-12)
    }

    @Test func renderSlowerThanTheCapRunsFlatOut() {
        var sim = Simulation(pacer: FramePacer(fpsCap: 60, refreshInterval: nil, vblankTimed: false), display: .immediate, render: 0.050)
        sim.run(until: 105)
        #expect(sim.intervals.allSatisfy { abs($0 - 0.050) < 1e-9 })
    }

    @Test func aStallStartsAFreshSchedule() {
        var pacer = FramePacer(fpsCap: nil, refreshInterval: hz60, vblankTimed: true)
        var target = pacer.beginFrame(now: 10)
        #expect(target == 10 + hz60)       // first frame: one refresh ahead
        pacer.presented(at: 10 + hz60)
        #expect(abs(pacer.renderStart(now: 10.02) - (10 + hz60)) < 1e-12)
        // Back after a VT switch five seconds later: no burst of catch-up frames.
        target = pacer.beginFrame(now: 15)
        #expect(target == 15 + hz60)
        pacer.reset()
        #expect(pacer.target == nil)
        #expect(pacer.renderStart(now: 20) == 20)
    }

    @Test func rateMeter() {
        var meter = FrameRateMeter(period: 2)
        var changed = meter.update(now: 0)
        #expect(!changed)
        for _ in 0..<120 { meter.frame() }
        changed = meter.update(now: 1.5)
        #expect(!changed)
        changed = meter.update(now: 2)
        #expect(changed)
        #expect(meter.rate == 60)
        changed = meter.update(now: 4)
        #expect(changed)
        #expect(meter.rate == 0)                 // a still scene
        #expect(meter.totalFrames == 120)
    }

    @Test func frameRateMeterIgnoresFramesBeforeItsFirstPeriod() {
        // The loop's first look comes a period after the first frame, with
        // that period's frames already counted.
        var meter = FrameRateMeter(period: 2)
        for _ in 0..<120 { meter.frame() }
        let first = meter.update(now: 2)
        #expect(!first)
        for _ in 0..<120 { meter.frame() }
        let second = meter.update(now: 4)
        #expect(second)
        #expect(meter.rate == 60)
        #expect(meter.totalFrames == 240)
    }
}
