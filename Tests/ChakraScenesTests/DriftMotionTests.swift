import ChakraRaster
import ChakraScenes
import Foundation
import Testing
@testable import ChakraScenes

/// Keyframe values worked out by hand from drift-params.json: CSS
/// ease-in-out on each segment (0.5 at a segment's middle), delays with
/// fill none, reverse as 1 − progress.
@Suite("Drift motion follows the keyframes (drift-params.json)")
struct DriftMotionTests {
    let motion = DriftMotion()

    @Test("float 1 (8 s, no delay) reaches its keyframes on time and is eased between them")
    func floatOne() {
        // 25% of 8 s: translate(10, -20); 50%: (-10, -10); 12.5%: half-way to 25%.
        #expect(motion.state(at: 2).floats[0].translate == SIMD2(10, -20))
        #expect(motion.state(at: 4).floats[0].translate == SIMD2(-10, -10))
        let eighth = motion.state(at: 1).floats[0].translate
        #expect(abs(eighth.x - 5) < 1e-9 && abs(eighth.y + 10) < 1e-9)
        // A fifth of the first segment: ease-in-out(0.2) of the way.
        let early = motion.state(at: 0.4).floats[0].translate
        #expect(abs(early.x - 10 * referenceEaseInOut(0.2)) < 1e-6 && abs(early.y + 20 * referenceEaseInOut(0.2)) < 1e-6)
        #expect(motion.state(at: 8 + 2).floats[0].translate == SIMD2(10, -20), "repeats every 8 s")
    }

    @Test("delayed floats rest until their delay, then start from 0%")
    func delays() {
        // Float 2: 10 s after a 1 s delay; float 3: 12 s after 2 s.
        #expect(motion.state(at: 0.9).floats[1].translate == .zero)
        #expect(motion.state(at: 1 + 2.5).floats[1].translate == SIMD2(10, -20))
        #expect(motion.state(at: 1.9).floats[2].translate == .zero)
        #expect(motion.state(at: 2 + 9).floats[2].translate == SIMD2(5, -15))
    }

    @Test("float 4 (float-slow, 15 s after 0.5 s): half-way it is at (-20, -30), scale 1.1")
    func floatSlow() {
        let peak = motion.state(at: 0.5 + 7.5).floats[3]
        #expect(peak.translate == SIMD2(-20, -30) && abs(peak.scale - 1.1) < 1e-12)
        let quarter = motion.state(at: 0.5 + 3.75).floats[3]
        #expect(abs(quarter.translate.x + 10) < 1e-9 && abs(quarter.scale - 1.05) < 1e-9)
        #expect(motion.state(at: 0.2).floats[3].scale == 1)
    }

    @Test("pulse-glow: 0.3 → 0.5 → 0.3 over 3 s on every float, from t = 0")
    func pulseGlow() {
        for index in 0..<4 {
            #expect(abs(motion.state(at: 1.5).floats[index].opacity - 0.5) < 1e-12)
            #expect(abs(motion.state(at: 0.75).floats[index].opacity - 0.4) < 1e-9)
        }
        #expect(abs(motion.state(at: 0.3).floats[0].opacity - (0.3 + 0.2 * referenceEaseInOut(0.2))) < 1e-6)
        #expect(abs(motion.state(at: 3).floats[0].opacity - 0.3) < 1e-12)
    }

    @Test("rotate-move: circle 1 forwards over 30 s, circle 2 reversed over 25 s")
    func rotateMove() {
        let one = motion.state(at: 7.5).decos[0]
        #expect(abs(one.rotationDegrees - 90) < 1e-9 && abs(one.translate.x + 0.3) < 1e-9 && abs(one.translate.y + 0.7) < 1e-9)
        let two = motion.state(at: 6.25).decos[1]   // progress 0.25 reversed: the 75% keyframe
        #expect(abs(two.rotationDegrees - 270) < 1e-9 && abs(two.translate.x + 0.7) < 1e-9 && abs(two.translate.y + 0.3) < 1e-9)
        // Reversed, t = 0 is progress 1: a full turn, translate (-50%, -50%).
        #expect(motion.state(at: 0).decos[1].rotationDegrees == 360)
        // Circle 2 at a tenth of its cycle: progress 0.9, in the 75% → 100% segment at 0.6.
        let late = motion.state(at: 2.5).decos[1]
        #expect(abs(late.rotationDegrees - (270 + 90 * referenceEaseInOut(0.6))) < 1e-6)
    }

    @Test("placement in pixels: anchors from the screen's edges, translation × u, rotate-move about the centre")
    func placement() {
        // 390×844 (u = 1). Float 1 (top 80, left 40, 128 px) centred at
        // (104, 144); at t = 2 moved by (10, -20).
        let layers = DriftLayers(width: 390, height: 844, cellsPerSigma: 3)
        let state = motion.state(at: 2)
        #expect(layers.floatPlacement(0, state.floats[0]).centre == Point(114, 124))
        // Float 4 (bottom 80, right 128, 144 px): (390 − 128 − 72, 844 − 80 − 72) = (190, 692).
        #expect(layers.floatPlacement(3, motion.state(at: 0).floats[3]).centre == Point(190, 692))
        // 1920×1080 (u = 1080/390): float 2 (top 160, right 80, 96 px) at t = 3.5 (25% of its cycle).
        let wide = DriftLayers(width: 1920, height: 1080, cellsPerSigma: 3)
        let u = 1080.0 / 390
        let two = wide.floatPlacement(1, motion.state(at: 3.5).floats[1])
        #expect(abs(two.centre.x - (1920 - 128 * u + 10 * u)) < 1e-9 && abs(two.centre.y - (208 * u - 20 * u)) < 1e-9)
        #expect(abs(two.radius - 48 * u) < 1e-9)
        // Circle 1 (500 px, top 0 right 0, centre (140, 250)) at t = 7.5:
        // rotate(90°) translate(-30%, -70%) moves the centre by R(90°)·(-150, -350) = (350, -150).
        let deco = layers.decoPlacement(0, motion.state(at: 7.5).decos[0])
        #expect(abs(deco.centre.x - 490) < 1e-9 && abs(deco.centre.y - 100) < 1e-9)
        // At t = 0 circle 1 is at (W − 500u, 0), as drift-params.json notes.
        let start = layers.decoPlacement(0, motion.state(at: 0).decos[0])
        #expect(abs(start.centre.x + 110) < 1e-9 && abs(start.centre.y) < 1e-9)
        // Circle 2 (400 px, bottom 0 left 0, centre (200, 644)) runs reversed:
        // t = 0 is the 100% keyframe, rotate(360°) translate(-50%, -50%), so
        // its centre is at (0, H − 400u). (The JSON's note says (400u, H),
        // which its own keyframes, composition and direction rules do not
        // give; the rules are followed.)
        let other = layers.decoPlacement(1, motion.state(at: 0).decos[1])
        #expect(abs(other.centre.x) < 1e-9 && abs(other.centre.y - 444) < 1e-9)
    }

    @Test("reduce motion rests: floats at their anchors with their static opacities, circles untransformed")
    func resting() {
        let rest = motion.restingState()
        #expect(rest.floats.map(\.opacity) == [0.3, 0.4, 0.35, 0.3])
        #expect(rest.floats.allSatisfy { $0.translate == .zero && $0.scale == 1 })
        #expect(rest.decos.allSatisfy { $0.rotationDegrees == 0 && $0.translate == .zero })
    }
}
