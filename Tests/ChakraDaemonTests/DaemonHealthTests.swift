import ChakraDisplay
import Testing
@testable import ChakraDaemon

extension DaemonStatus {
    func with(_ change: (inout DaemonStatus) -> Void) -> DaemonStatus {
        var copy = self
        change(&copy)
        return copy
    }
}

@Suite("Health: what `chakractl health` answers")
struct DaemonHealthTests {
    func status(_ change: (inout DaemonStatus) -> Void = { _ in }) -> DaemonStatus {
        var status = DaemonStatus()
        status.fpsTarget = 60
        status.frames.lastAt = 100
        status.framesDueSince = 50
        change(&status)
        return status
    }

    @Test("an animating scene: healthy while frames come, not after a gap of 30 frames or 5 s")
    func frames() {
        #expect(DaemonHealth.evaluate(status(), now: 100.5).healthy)
        #expect(DaemonHealth.evaluate(status(), now: 104.9).healthy)
        let stalled = DaemonHealth.evaluate(status(), now: 106)
        #expect(!stalled.healthy && stalled.reason.hasPrefix("no frame for 6 s") && stalled.lastFrameAge == 6)
        #expect(DaemonHealth.evaluate(status { $0.fpsTarget = 2 }, now: 114).healthy, "2 fps: 15 s allowed")
        #expect(!DaemonHealth.evaluate(status { $0.fpsTarget = 2 }, now: 116).healthy)
    }

    @Test("no frame yet past the allowed gap after start, or the display unplugged: unhealthy")
    func notYet() {
        let late = DaemonHealth.evaluate(status { $0.frames.lastAt = nil }, now: 100)
        #expect(!late.healthy && late.reason == "no frame has reached the screen yet" && late.lastFrameAge == nil)
        #expect(!DaemonHealth.evaluate(status { $0.waitingForDisplay = true }, now: 100.1).healthy)
    }

    @Test("right after start: no frame yet is healthy ('starting') for the allowed gap, then not")
    func starting() {
        let started = status {
            $0.frames.lastAt = nil
            $0.framesDueSince = 100
        }
        let early = DaemonHealth.evaluate(started, now: 103.8)
        #expect(early.healthy && early.reason == "starting: no frame yet, 3.8 s after start (5 s allowed)" && early.lastFrameAge == nil, "\(early)")
        #expect(DaemonHealth.evaluate(started, now: 105).healthy)
        let late = DaemonHealth.evaluate(started, now: 105.1)
        #expect(!late.healthy && late.reason == "no frame has reached the screen yet")
        #expect(!DaemonHealth.evaluate(status { $0.frames.lastAt = nil; $0.framesDueSince = nil }, now: 100).healthy,
                "nothing due (the VT away before the first frame): no grace")
    }

    @Test("after the screen powered up, the wait is counted from then, not from the frame before it went off")
    func afterPowerUp() {
        // Last frame at 100 (the black one), powered up at 200.
        let up = status { $0.framesDueSince = 200 }
        let asked = DaemonHealth.evaluate(up, now: 200.1)
        #expect(asked.healthy && asked.reason == "frames are due again since 0.1 s (5 s allowed)", "\(asked)")
        #expect(abs((asked.lastFrameAge ?? 0) - 100.1) < 1e-9, "the age is still the last frame's")
        #expect(DaemonHealth.evaluate(up, now: 204.9).healthy)
        let none = DaemonHealth.evaluate(up, now: 206)
        #expect(!none.healthy && none.reason.hasPrefix("no frame for 6 s"), "no frame since the power-up is still a stall: \(none)")
    }

    @Test("a stall that ended is unhealthy for the allowed gap after: the answer does not depend on which thread ran first")
    func recentStall() {
        // Frozen from 102 to 108: the frame at 108 ended a 6 s stall.
        let thawed = status {
            $0.frames.lastAt = 108
            $0.frames.lastStall = FrameStall(seconds: 6, endedAt: 108)
        }
        let asked = DaemonHealth.evaluate(thawed, now: 108.1)
        #expect(!asked.healthy && asked.reason == "frames stalled for 6.0 s, resumed 0.1 s ago (5 s allowed)", "\(asked)")
        #expect(!DaemonHealth.evaluate(thawed, now: 112.9).healthy)
        #expect(DaemonHealth.evaluate(thawed.with { $0.frames.lastAt = 113 }, now: 113.1).healthy,
                "healthy again once frames flowed for the allowed gap")
        // Asked before the loop drew again, the same verdict from the age.
        let frozen = DaemonHealth.evaluate(status { $0.frames.lastAt = 102 }, now: 108.05)
        #expect(!frozen.healthy && frozen.reason.hasPrefix("no frame for 6 s"))
        // Paused right after: still reported; dark on purpose: not.
        #expect(!DaemonHealth.evaluate(thawed.with { $0.paused = true }, now: 109).healthy)
        #expect(DaemonHealth.evaluate(thawed.with { $0.display.screen = ScreenState(.off, .manual) }, now: 109).healthy)
    }

    @Test("a still or paused picture, the VT away: healthy without new frames")
    func stillPictures() {
        #expect(DaemonHealth.evaluate(status { $0.still = true }, now: 1000).healthy)
        #expect(DaemonHealth.evaluate(status { $0.paused = true }, now: 1000).healthy)
        #expect(DaemonHealth.evaluate(status { $0.vtActive = false }, now: 1000).healthy)
    }

    @Test("dark on purpose is healthy unless the read-back failed; a failed power-up is not")
    func dark() {
        let off = status {
            $0.display.screen = ScreenState(.off, .schedule)
            $0.display.untilClock = "07:30"
            $0.display.checks = [DisplayPowerReport(part: "drm", on: false, method: "atomic ACTIVE", check: .confirmed("crtc 38 ACTIVE=0"))]
        }
        let healthy = DaemonHealth.evaluate(off, now: 10_000)
        #expect(healthy.healthy && healthy.reason == "dark on purpose: off by schedule until 07:30")
        var lit = off
        lit.display.checks = [DisplayPowerReport(part: "cec", on: false, method: "CEC Standby", check: .failed("the TV did not acknowledge Standby"))]
        let failed = DaemonHealth.evaluate(lit, now: 10_000)
        #expect(!failed.healthy && failed.reason.contains("the TV did not acknowledge Standby"))
        let up = status { $0.display.checks = [DisplayPowerReport(part: "drm", on: true, method: "atomic ACTIVE", check: .failed("not DRM master"))] }
        #expect(!DaemonHealth.evaluate(up, now: 100.1).healthy)
    }
}

/// Health as the control thread sees it, on virtual time: the status the
/// core last published with the frames laid over it as the shell keeps
/// them live (`core.frameProgress`, stored after every presented frame).
@Suite("Health on virtual time: frames due, stalls, the first seconds and power-up")
struct DaemonHealthCoreTests {
    /// What `chakractl health` answers at `now`.
    func asked(_ driver: CoreDriver, at now: Double) -> DaemonHealth {
        var status = driver.published.last ?? DaemonStatus(starting: driver.core.configuration, at: 100)
        status.frames = driver.core.frameProgress
        return DaemonHealth.evaluate(status, now: now)
    }

    @Test("right after start: healthy ('starting') before the first frame, as published before the core runs")
    func rightAfterStart() throws {
        let driver = try CoreDriver()
        let starting = asked(driver, at: 103.8)
        #expect(starting.healthy && starting.reason.hasPrefix("starting: no frame yet, 3.8 s after start"), "\(starting)")
        #expect(!asked(driver, at: 105.2).healthy, "past the allowed gap with no frame")
        driver.run(until: 100.5)
        #expect(driver.core.frameProgress.presented == 11 && abs((driver.core.frameProgress.lastAt ?? 0) - 100.5) < 1e-9)
        #expect(driver.published.last?.frames.presented == 1, "published at the first frame, not since")
        let running = asked(driver, at: 100.5)
        #expect(running.healthy && (running.lastFrameAge ?? 1) < 1e-9, "\(running)")
        #expect(driver.core.frameProgress.lastStall == nil)
    }

    @Test("frozen 3.5 s: healthy; frozen 6 s: unhealthy, asked before or after the loop's next frame")
    func freezes() throws {
        let driver = try CoreDriver()
        driver.rendering = false
        driver.run(until: 102)
        #expect(abs((driver.core.frameProgress.lastAt ?? 0) - 102) < 1e-9)
        // The loop stops 3.5 s; health is asked as it thaws, before its frame…
        #expect(asked(driver, at: 105.5).healthy)
        driver.send(.tick(outputReady: true), at: 105.5)
        // …or after it.
        #expect(driver.core.frameProgress.lastAt == 105.5 && driver.core.frameProgress.lastStall == nil)
        #expect(asked(driver, at: 105.55).healthy)

        driver.run(until: 106)
        let lastBefore = try #require(driver.core.frameProgress.lastAt)
        let before = asked(driver, at: 112)
        #expect(!before.healthy && before.reason.hasPrefix("no frame for 6 s"), "\(before)")
        driver.send(.tick(outputReady: true), at: 112)
        let stall = try #require(driver.core.frameProgress.lastStall)
        #expect(stall.endedAt == 112 && abs(stall.seconds - (112 - lastBefore)) < 1e-9 && abs(stall.seconds - 6) < 0.06, "\(stall)")
        let after = asked(driver, at: 112.1)
        #expect(!after.healthy && after.reason == "frames stalled for 6.0 s, resumed 0.1 s ago (5 s allowed)", "\(after)")
        driver.run(until: 116.9)
        #expect(!asked(driver, at: 116.9).healthy)
        driver.run(until: 117.1)
        #expect(asked(driver, at: 117.1).healthy, "frames flowed for the allowed gap since")
    }

    @Test("gaps by design are no stalls: paused, still, off, VT away, unplugged; after each, the wait counts from its end")
    func gapsByDesign() throws {
        let driver = try CoreDriver()
        driver.rendering = false
        driver.run(until: 101)
        _ = driver.command { .playback(paused: true, reply: $0) }
        driver.run(until: 111)
        #expect(asked(driver, at: 111).healthy)
        _ = driver.command { .playback(paused: false, reply: $0) }
        driver.run(until: 112)

        _ = driver.command { .display(.off, reply: $0) }
        driver.run(until: 130)
        #expect(asked(driver, at: 130).healthy)
        _ = driver.command { .display(.on, reply: $0) }
        // Asked right after `display on`, before a frame: the last one is
        // the black frame of 18 s ago, and that is not late.
        let up = asked(driver, at: 130)
        #expect(up.healthy && up.reason == "frames are due again since 0.0 s (5 s allowed)" && up.lastFrameAge == 18, "\(up)")
        driver.run(until: 131)

        driver.send(.terminal(inFront: false), at: 131)
        driver.run(until: 140)
        driver.send(.terminal(inFront: true), at: 140)
        #expect(asked(driver, at: 140).healthy)
        driver.run(until: 141)

        // Unplugged: the output presents nothing until it is back.
        let facts = DisplayFacts(summary: "test 48x32", width: 48, height: 32)
        var unplugged = facts
        unplugged.waitingForDisplay = true
        driver.send(.display(unplugged), at: 141)
        driver.send(.display(facts), at: 150)
        #expect(asked(driver, at: 150).healthy)
        driver.run(until: 151)

        _ = driver.command { .change(.reduceMotion(true), reply: $0) }
        driver.run(until: 170)
        #expect(asked(driver, at: 170).healthy)
        _ = driver.command { .change(.reduceMotion(false), reply: $0) }
        driver.run(until: 171)

        #expect(driver.core.frameProgress.lastStall == nil)
        let now = asked(driver, at: 171)
        #expect(now.healthy && now.reason.hasPrefix("frames reach the screen"), "\(now)")
    }

    @Test("powered up and no frame comes: unhealthy once the allowed gap has passed since")
    func poweredUpWithoutFrames() throws {
        let driver = try CoreDriver()
        driver.rendering = false
        driver.run(until: 101)
        _ = driver.command { .display(.off, reply: $0) }
        driver.run(until: 120)
        _ = driver.command { .display(.on, reply: $0) }
        // The flip never completes: no tick with the output ready.
        #expect(asked(driver, at: 124.9).healthy)
        let stuck = asked(driver, at: 126)
        #expect(!stuck.healthy && stuck.reason.hasPrefix("no frame for 6 s"), "\(stuck)")
        driver.send(.tick(outputReady: true), at: 126)
        #expect(driver.core.frameProgress.lastStall == FrameStall(seconds: 6, endedAt: 126), "a stall, counted from the power-up")
    }

    @Test("the control thread's status: the frames as last stored and the uptime at the moment asked")
    func liveOverlay() throws {
        let control = try DaemonControl()
        var published = DaemonStatus()
        published.frames = FrameProgress(presented: 1, lastAt: 100)
        published.framesDueSince = 99.5
        (published.uptime, published.publishedAt) = (0.5, 100)
        control.publish(published)
        #expect(control.status(at: 100).frames == published.frames, "nothing stored yet: as published")
        control.frames.store(FrameProgress(presented: 115, lastAt: 103.8))
        let now = control.status(at: 103.9)
        #expect(now.frames == FrameProgress(presented: 115, lastAt: 103.8))
        #expect(abs(now.uptime - 4.4) < 1e-9)
        #expect(abs((DaemonHealth.evaluate(now, now: 103.9).lastFrameAge ?? -1) - 0.1) < 1e-9)
        #expect(control.status.frames.presented == 1, "the published copy itself is left alone")
        // A stall travels with the frame that ended it.
        let thawed = FrameProgress(presented: 116, lastAt: 110, lastStall: FrameStall(seconds: 6.2, endedAt: 110))
        control.frames.store(thawed)
        #expect(control.status(at: 110.1).frames == thawed)
        control.frames.store(FrameProgress(presented: 117, lastAt: 110.05, lastStall: thawed.lastStall))
        #expect(control.status(at: 110.1).frames.lastStall == thawed.lastStall)
    }
}
