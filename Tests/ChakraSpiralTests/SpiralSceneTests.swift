import ChakraConfig
import ChakraPNG
import ChakraRaster
import ChakraScenes
import ChakraText
import Foundation
import Testing
@testable import ChakraSpiral

let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
let catalogs = repository.appendingPathComponent("etc/chakra/lang").path

func makeScene(width: Int = 390, height: Int = 844, settings: RenderSettings = RenderSettings(), language: String = "en") throws -> SpiralScene {
    var text = ChakraConfig.Text()
    text.language = language
    return try SpiralScene(width: width, height: height, settings: settings, text: text, catalogDirectory: catalogs)
}

func render(_ scene: SpiralScene, time: Double) -> [UInt8] {
    let frame = FrameBuffer(width: scene.width, height: scene.height, format: .bgr888)
    scene.render(time: time, into: frame.pixels)
    if let directory = ProcessInfo.processInfo.environment["SPIRAL_PNG_DIR"] {
        let name = "\(scene.session.state)-\(scene.width)x\(scene.height)-t\(time)-rm\(scene.settings.reduceMotion)-lp\(scene.settings.lowPower).png"
        try? PNGImage.write(PNGImage.RGB(width: scene.width, height: scene.height, bytes: frame.rgbBytes()), to: directory + "/" + name)
    }
    return frame.rgbBytes()
}

@Suite("Spiral scene")
struct SpiralSceneTests {
    @Test("a font that cannot be read: the texts fall back to the default font, and the frame is the same")
    func unreadableFontFallsBack() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("chakra-broken-\(getpid()).ttf").path
        try Data("not a font at all".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        var text = ChakraConfig.Text()
        text.font = path
        let fallback = try SpiralScene(width: 390, height: 844, text: text, catalogDirectory: catalogs)
        #expect(fallback.fontProblem?.path == path)
        let normal = try makeScene()
        #expect(normal.fontProblem == nil)
        #expect(render(fallback, time: 1) == render(normal, time: 1))
    }

    @Test("layout: stacked on the design, side columns at 1920×1080, fitted where neither fits")
    func layout() {
        let config = ChakraConfig.Spiral()
        #expect(SpiralLayout.stackedHalfHeight(config: config) == 316)
        let design = SpiralLayout(width: 390, height: 844, config: config)
        #expect(design.mode == .stacked && design.scale == 1 && design.centre == Point(195, 422))
        #expect(design.guidance == Point(195, 422 - 241) && design.counter == Point(195, 422 + 296))
        let wide = SpiralLayout(width: 1920, height: 1080, config: config)
        #expect(wide.mode == .side && abs(wide.scale - 1080.0 / 390) < 1e-12)
        #expect(wide.guidance.x < 960 - 171 * wide.scale && wide.counter.x > 960 + 171 * wide.scale)
        let square = SpiralLayout(width: 1024, height: 768, config: config)
        #expect(square.mode == .stacked && square.fit < 1)
        #expect(abs(2 * 316 * square.scale - 768) < 1e-9)
    }

    @Test("every state renders, and the same session state and time give the same pixels")
    func statesAndDeterminism() throws {
        for state in SpiralState.allCases {
            let a = try makeScene(), b = try makeScene()
            let ta = SpiralScript.drive(a.session, to: state), tb = SpiralScript.drive(b.session, to: state)
            #expect(ta == tb && a.session.state == state)
            let frame = render(a, time: ta + 0.4)
            #expect(frame == render(b, time: tb + 0.4))
            #expect(frame == render(a, time: ta + 0.4))
        }
    }

    @Test("what each state shows: the head orb where the session says, texts, the bar in Hold")
    func content() throws {
        let scene = try makeScene()
        let t = SpiralScript.drive(scene.session, to: .hold, holdElapsed: 6)
        let frame = render(scene, time: t)
        func pixel(_ p: Point) -> SIMD3<Int> {
            let i = (Int(p.y) * scene.width + Int(p.x)) * 3
            return SIMD3(Int(frame[i]), Int(frame[i + 1]), Int(frame[i + 2]))
        }
        // The orb sits on the head.
        let (area, centre) = orbArea(scene)
        #expect(area > 0 && abs(centre.x - scene.session.headPosition.x) < 1 && abs(centre.y - scene.session.headPosition.y) < 1)
        // Guidance text (dark cocoa) somewhere on the guidance line.
        let y = Int(scene.layout.guidance.y)
        let dark = (0..<scene.width).contains { x in pixel(Point(Double(x), Double(y))).x < 150 }
        #expect(dark)
        // The bar's fill (apricot) at its left end, its track at its right end.
        let bar = scene.layout.bar, w = scene.layout.barWidth
        let left = pixel(Point(bar.x - w / 2 + 6, bar.y)), right = pixel(Point(bar.x + w / 2 - 6, bar.y))
        #expect(left.x > 235 && left.z < 150)
        #expect(right.z > 180)
        // The travelled part is coloured, the rest is the dimmed track.
        let travelled = pixel(scene.session.geometry.point(atLength: 100))
        let ahead = pixel(scene.session.geometry.point(atLength: scene.session.totalLength - 30))
        #expect(travelled.z < 150)
        #expect(ahead.z > 160)
    }

    /// The orb's core: its area (cells of alpha over ½, × factor²) and centre.
    func orbArea(_ scene: SpiralScene) -> (area: Double, centre: Point) {
        let surface = scene.orb.surface
        var count = 0, sx = 0.0, sy = 0.0
        for j in 0..<surface.height {
            for i in 0..<surface.width where surface[i, j].w > 0.5 {
                count += 1
                sx += Double(surface.screenX(i))
                sy += Double(surface.screenY(j))
            }
        }
        let f = Double(surface.factor)
        return (Double(count) * f * f, count > 0 ? Point(sx / Double(count), sy / Double(count)) : .zero)
    }

    @Test("the hold pulse grows the orb 3×; under reduce motion it keeps its size and only its glow changes")
    func holdPulse() throws {
        func orb(_ settings: RenderSettings, elapsed: Double) throws -> (area: Double, centre: Point, head: Point, frame: [UInt8]) {
            let scene = try makeScene(settings: settings)
            let t = SpiralScript.drive(scene.session, to: .hold, holdElapsed: elapsed)
            let frame = render(scene, time: t)
            let (area, centre) = orbArea(scene)
            return (area, centre, scene.session.headPosition, frame)
        }
        let small = try orb(RenderSettings(), elapsed: 0.01), large = try orb(RenderSettings(), elapsed: 7)
        // Scale 3: nine times the area (π·14² ≈ 616 px² → ≈ 5540 px²).
        #expect(abs(small.area - .pi * 14 * 14) < 0.08 * .pi * 14 * 14)
        #expect(abs(large.area / small.area - 9) < 0.6)
        #expect(abs(large.centre.x - large.head.x) < 1 && abs(large.centre.y - large.head.y) < 1)
        let reduce = RenderSettings(reduceMotion: true)
        let still0 = try orb(reduce, elapsed: 0.01), still7 = try orb(reduce, elapsed: 7)
        #expect(still0.area == small.area && still7.area == small.area)
        #expect(still0.frame != still7.frame)
    }

    @Test("reduce motion: a still Idle (isStill, identical frames); no burst; texts stay")
    func reduceMotion() throws {
        let still = try makeScene(settings: RenderSettings(reduceMotion: true))
        #expect(still.isStill)
        #expect(render(still, time: 0) == render(still, time: 1.3))
        let moving = try makeScene()
        #expect(!moving.isStill)
        #expect(render(moving, time: 0) != render(moving, time: 1.3))

        let reduced = try makeScene(settings: RenderSettings(reduceMotion: true))
        let t = SpiralScript.drive(reduced.session, to: .completed)
        #expect(reduced.isStill)
        #expect(render(reduced, time: t + 0.3) == render(reduced, time: t + 1.0))
        let full = try makeScene()
        let tf = SpiralScript.drive(full.session, to: .completed)
        #expect(render(full, time: tf + 0.3) != render(full, time: tf + 1.0))
        // A running hold is not still (its countdown and glow change), a paused one is.
        let hold = try makeScene(settings: RenderSettings(reduceMotion: true))
        let th = SpiralScript.drive(hold.session, to: .hold, holdElapsed: 3)
        #expect(!hold.isStill)
        hold.session.touchUp(time: th)
        #expect(hold.isStill)
    }

    @Test("low power drops the burst")
    func lowPower() throws {
        let scene = try makeScene(settings: RenderSettings(lowPower: true))
        let t = SpiralScript.drive(scene.session, to: .completed)
        #expect(render(scene, time: t + 0.3) == render(scene, time: t + 1.0))
    }

    @Test("a pattern's own texts are drawn when the scene is made and shown in their phases; hold-out keeps the orb small")
    func patternTexts() throws {
        var spiral = ChakraConfig.Spiral()
        let calm = BreathingPattern(name: "calm", phases: [BreathPhase(.in, 4), BreathPhase(.holdIn, 4, text: "Hold gently"),
                                                           BreathPhase(.out, 4), BreathPhase(.holdOut, 4, text: "Rest")])
        spiral.customPatterns = [calm]
        let own = try SpiralScene(width: 390, height: 844, spiral: spiral, catalogDirectory: catalogs)
        #expect(Set(own.texts.phaseImages.keys) == ["Hold gently", "Rest"])
        #expect(own.texts.image(for: calm.phases[1]) === own.texts.phaseImages["Hold gently"])
        #expect(own.texts.image(for: calm.phases[0]) === own.texts.image(.breatheIn))
        // The same moment of box (the same timings, the catalog's texts): only the words differ.
        for elapsed in [2.0, 6, 10, 14] {
            let a = try SpiralScene(width: 390, height: 844, spiral: spiral, catalogDirectory: catalogs)
            let b = try SpiralScene(width: 390, height: 844, spiral: spiral, catalogDirectory: catalogs)
            a.session.start(time: 0, pattern: calm)
            b.session.start(time: 0, pattern: try spiral.pattern(named: "box").get())
            let ta = SpiralScript.drive(a.session, to: .hold, holdElapsed: elapsed, from: 1)
            let tb = SpiralScript.drive(b.session, to: .hold, holdElapsed: elapsed, from: 1)
            let differ = render(a, time: ta) != render(b, time: tb)
            let kind = a.session.holdPhase(elapsed: elapsed).kind
            #expect(differ == (kind == .holdIn || kind == .holdOut), "at \(elapsed) s (\(kind))")
        }
        // Box's hold-out: the orb back at its resting size, 1/9 of the hold-in's area.
        let rest = try SpiralScene(width: 390, height: 844, spiral: spiral, catalogDirectory: catalogs)
        rest.session.start(time: 0, pattern: try spiral.pattern(named: "box").get())
        let tr = SpiralScript.drive(rest.session, to: .hold, holdElapsed: 14, from: 1)
        _ = render(rest, time: tr)
        #expect(abs(orbArea(rest).area - .pi * 14 * 14) < 0.08 * .pi * 14 * 14)
    }

    @Test("German texts render (a different frame from English)")
    func german() throws {
        let en = try makeScene(), de = try makeScene(language: "de")
        #expect(de.texts.catalog.missingKeys.isEmpty)
        #expect(render(en, time: 0.5) != render(de, time: 0.5))
    }

    @Test("every state at 390×844 and 1920×1080 renders within the screen's colours", arguments: [(390, 844), (1920, 1080)])
    func sizes(width: Int, height: Int) throws {
        for state in SpiralState.allCases {
            let scene = try makeScene(width: width, height: height)
            let t = SpiralScript.drive(scene.session, to: state, lifted: state == .exhale)
            let frame = render(scene, time: t + 0.4)
            #expect(frame.count == width * height * 3)
        }
    }
}
