import ChakraDisplay
import Testing
@testable import ChakraDaemon

@Suite("Health: what `chakractl health` answers")
struct DaemonHealthTests {
    func status(_ change: (inout DaemonStatus) -> Void = { _ in }) -> DaemonStatus {
        var status = DaemonStatus()
        status.fpsTarget = 60
        status.lastFrameAt = 100
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

    @Test("no frame yet, or the display unplugged: unhealthy")
    func notYet() {
        let starting = DaemonHealth.evaluate(status { $0.lastFrameAt = nil }, now: 100)
        #expect(!starting.healthy && starting.reason == "no frame has reached the screen yet" && starting.lastFrameAge == nil)
        #expect(!DaemonHealth.evaluate(status { $0.waitingForDisplay = true }, now: 100.1).healthy)
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
