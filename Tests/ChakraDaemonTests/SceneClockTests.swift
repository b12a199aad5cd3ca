import ChakraScenes
import Testing
@testable import ChakraDaemon

@Suite("Scene clock, frame-rate cap, status")
struct SceneClockTests {
    @Test func runsFromStart() {
        let clock = SceneClock(start: 100)
        #expect(clock.time(at: 112.5) == 12.5)
        #expect(clock.time(at: 99) == 0)   // a frame scheduled before start
        #expect(!clock.isFrozen)
    }

    @Test func pauseFreezesAndResumeContinuesWithoutAJump() {
        var clock = SceneClock(start: 100)
        clock.pause(at: 110)
        #expect(clock.isFrozen)
        #expect(clock.time(at: 150) == 10)
        clock.pause(at: 160)                 // pausing twice keeps the first time
        #expect(clock.time(at: 170) == 10)
        clock.resume(at: 200)
        #expect(clock.time(at: 200) == 10)
        #expect(clock.time(at: 201.5) == 11.5)
    }

    @Test func pinnedTime() {
        var clock = SceneClock(start: 100, pinnedAt: 7.25)
        #expect(clock.isFrozen)
        #expect(clock.time(at: 100) == 7.25)
        #expect(clock.time(at: 1000) == 7.25)
        clock.restart(at: 500)
        #expect(clock.time(at: 600) == 0)    // a new scene starts at 0, still frozen
        var running = SceneClock(start: 100)
        running.restart(at: 500)
        #expect(running.time(at: 503) == 3)
    }

    @Test func lowPowerCapsTheFrameRate() {
        var c = DaemonConfiguration()
        #expect(c.effectiveFPSCap == nil)
        c.fps = 30
        #expect(c.effectiveFPSCap == 30)
        c.settings = RenderSettings(reduceMotion: false, lowPower: true)
        #expect(c.effectiveFPSCap == 20)
        c.fps = 10
        #expect(c.effectiveFPSCap == 10)
        c.fps = nil
        c.lowPowerFPS = 15
        #expect(c.effectiveFPSCap == 15)
    }

    @Test func statusLine() {
        var status = DaemonStatus()
        status.scene = "heart"
        status.output = "drm /dev/dri/card0 Virtual-1 1024x768@60 XRGB8888 atomic"
        status.fps = 59.96
        status.frames.presented = 600
        #expect(status.line == "heart, 60.0 fps — drm /dev/dri/card0 Virtual-1 1024x768@60 XRGB8888 atomic")
        status.fps = 0
        status.still = true
        status.settings = RenderSettings(reduceMotion: true, lowPower: false)
        #expect(status.line.hasPrefix("heart (reduce-motion), still — "))
        status.paused = true
        #expect(status.line.hasPrefix("heart (reduce-motion), paused — "))
        #expect(status.keyValues.contains("frames=600\n"))
        #expect(status.keyValues.contains("reduce_motion=true\n"))
    }
}
