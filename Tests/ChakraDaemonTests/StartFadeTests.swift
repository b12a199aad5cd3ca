import ChakraConfig
import ChakraControl
import ChakraRaster
import Testing
@testable import ChakraDaemon

/// A fresh start fading in from the picture on screen (docs/seams.md,
/// Boot), on virtual time through the daemon's own `EffectRunner`.
@Suite("Fading in from the picture on screen at start")
struct StartFadeTests {
    /// A splash of the test screen's size: a colour no scene draws.
    static func splash(width: Int = 48, height: Int = 32) -> FrameBuffer {
        let picture = FrameBuffer(width: width, height: height, format: .xrgb8888)
        for y in 0..<height {
            let row = (picture.pixels.base + y * picture.pixels.stride).assumingMemoryBound(to: UInt32.self)
            for x in 0..<width { row[x] = 0xFF20_60C0 ^ UInt32(x & 1) }
        }
        return picture
    }

    static func same(_ a: FrameBuffer, _ b: FrameBuffer) -> Bool {
        (0..<a.pixels.height).allSatisfy { y in (0..<a.pixels.width).allSatisfy { x in a.pixels.rgb(x: x, y: y) == b.pixels.rgb(x: x, y: y) } }
    }

    @Test("the first frame is the picture itself, a crossfade's first step; then the scene rises and is drawn alone")
    func fadesIn() throws {
        let driver = try CoreDriver()
        let splash = Self.splash()
        #expect(driver.core.fadeInFromScreen(splash))
        driver.send(.tick(outputReady: true))
        let first = try #require(driver.plans.first)
        #expect(first.plan.content.crossfadeAmount == 0)
        #expect(Self.same(driver.frame, splash), "the first frame on screen is the splash, exactly")
        #expect(driver.notifications.first?.message == .ready, "READY=1 with that first frame")
        driver.rendering = false
        driver.run(until: 103)
        let amounts = driver.plans.compactMap(\.plan.content.crossfadeAmount)
        // The default transition: howruSmooth's spring, settled within 1.5 s.
        #expect(amounts.count >= 10 && amounts.count <= 30, "\(amounts)")
        #expect(zip(amounts, amounts.dropFirst()).allSatisfy { $1 >= $0 || $0 > 0.98 }, "rising: \(amounts)")
        #expect(amounts.contains { $0 > 0.2 && $0 < 0.8 }, "a frame half way: \(amounts)")
        let straight = driver.plans.map(\.plan).drop { $0.content.crossfadeAmount != nil }
        #expect(!straight.isEmpty && straight.allSatisfy { $0.content.scene?.name == "heart" })
        #expect(driver.plans.filter { $0.plan.content.crossfadeAmount != nil }.last!.at < 101.6)
    }

    @Test("a still scene's fade ends on the scene drawn straight, not on a last mix (nothing is drawn after it)")
    func stillSceneEndsOnTheScene() throws {
        // The pinned heart draws nothing once the fade is over: its last
        // frame stays on screen, and must be the scene exactly (a mix at
        // 0.999 was a level off in 2 % of the pixels in 70-debian-arm64).
        let driver = try CoreDriver { $0.pinnedTime = 2.5 }
        #expect(driver.core.fadeInFromScreen(Self.splash()))
        driver.rendering = false
        driver.run(until: 106)
        let last = try #require(driver.plans.last)
        #expect(last.plan.content.crossfadeAmount == nil && last.plan.content.scene?.name == "heart",
                "the last frame drawn: \(String(describing: last.plan.content.crossfadeAmount))")
        #expect(driver.plans.contains { $0.plan.content.crossfadeAmount != nil }, "it did fade")
    }

    @Test("the fade takes [scene] transition_duration as its response, as a fade from black does")
    func duration() throws {
        let driver = try CoreDriver { $0.config.scene.transitionDuration = 2 }
        #expect(driver.core.fadeInFromScreen(Self.splash()))
        driver.rendering = false
        driver.run(until: 106)
        let fading = driver.plans.filter { $0.plan.content.crossfadeAmount != nil }
        #expect(fading.last!.at > 102, "a 2 s response fades for longer than the default's 1.5 s: \(fading.last!.at)")
    }

    @Test("reduce motion: the 0.3 s linear fade every crossfade becomes")
    func reduceMotion() throws {
        let driver = try CoreDriver { $0.settings.reduceMotion = true }
        #expect(driver.core.fadeInFromScreen(Self.splash()))
        driver.rendering = false
        driver.run(until: 102)
        let fading = driver.plans.filter { $0.plan.content.crossfadeAmount != nil }
        #expect(fading.first!.plan.content.crossfadeAmount == 0)
        // The frame at 0.3 s may fall a hair short of the end: one more.
        #expect(fading.last!.at - fading.first!.at <= Crossfade.reducedMotionDuration + 0.05 + 1e-9)
        for (at, plan) in fading {
            let linear = Float(min((at - fading.first!.at) / Crossfade.reducedMotionDuration, 1))
            #expect(abs(plan.content.crossfadeAmount! - linear) < 1e-6)
        }
        #expect(driver.plans.last!.plan.content.crossfadeAmount == 1 || driver.plans.last!.plan.content.scene?.name == "heart")
    }

    @Test("no fade, and the start a cut as ever: a picture of another size, a frame already up, frames not drawn")
    func refused() throws {
        let driver = try CoreDriver()
        #expect(!driver.core.fadeInFromScreen(Self.splash(width: 32)))
        driver.run(until: 100.5)
        #expect(driver.plans.first?.plan.content.scene?.name == "heart")
        #expect(driver.plans.allSatisfy { $0.plan.content.crossfadeAmount == nil })
        #expect(!driver.core.fadeInFromScreen(Self.splash()), "chakrad's picture is up already")
        let presentOnly = try CoreDriver { $0.presentOnly = true }
        #expect(!presentOnly.core.fadeInFromScreen(Self.splash()))
    }

    @Test("the screen turned off before the first frame: the picture is let go of, and no fade from it later")
    func screenOffFirst() throws {
        let driver = try CoreDriver()
        #expect(driver.core.fadeInFromScreen(Self.splash()))
        #expect(succeeded(driver.command { .display(.off, reply: $0) }))
        driver.run(until: 101)
        #expect(driver.plans.count == 1 && driver.plans.allSatisfy { $0.plan.content.isBlack })
        #expect(!driver.core.fadeInFromScreen(Self.splash()), "the screen is off")
        #expect(succeeded(driver.command { .display(.on, reply: $0) }))
        driver.run(until: 102)
        #expect(driver.plans.first?.plan.content.isBlack == true, "one black frame as the screen went off")
        let lit = try #require(driver.plans.first { !$0.plan.content.isBlack })
        #expect(lit.plan.content.isFadeFromBlack, "the scene comes back from black, not from the splash")
    }

    @Test("a resize before the first frame drops the picture (it no longer fits)")
    func resized() throws {
        let driver = try CoreDriver()
        #expect(driver.core.fadeInFromScreen(Self.splash()))
        driver.send(.display(DisplayFacts(summary: "test 64x40", width: 64, height: 40)))
        driver.rendering = false
        driver.run(until: 101)
        #expect(driver.plans.allSatisfy { $0.plan.content.crossfadeAmount == nil })
    }
}
