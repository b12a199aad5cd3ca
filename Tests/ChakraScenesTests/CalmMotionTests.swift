import ChakraRaster
import Foundation
import Testing
@testable import ChakraScenes

/// Blob offsets worked out by hand from docs/calm-params.json: each drift
/// leg is a triangle wave (linear there and back), the breathing float an
/// eased one on y.
@Suite("Calm motion: linear drift legs and the breathing float")
struct CalmMotionTests {
    let motion = CalmMotion()

    @Test("blob 1 (apricot) at t = 0 and t = 3.5 s")
    func apricot() {
        // x: -14 → 14 over 2.8 s, no delay. y: -10 → 10 over 3 s, delay
        // -1.2 s. Breathing: 0 → -1.2 over 2.9 s, no delay.
        // t = 0: x at its start (-14); y 1.2 s in, 40% of the leg: -2; breathing 0.
        let start = motion.state(at: 0).offsets[0]
        #expect(abs(start.x + 14) < 1e-9 && abs(start.y + 2) < 1e-9)
        // t = 3.5: x on its way back, 0.7 s into the second leg: 14 - 28·0.25 = 7.
        // y: 4.7 s in, second leg (back) at 1.7/3: 10 - 20·(1.7/3).
        // Breathing: 3.5 s, second (returning) leg at 0.6/2.9: -1.2·(1 − ease(0.6/2.9)).
        let later = motion.state(at: 3.5).offsets[0]
        let y = 10 - 20 * (1.7 / 3) - 1.2 * (1 - referenceEaseInOut(0.6 / 2.9))
        #expect(abs(later.x - 7) < 1e-9)
        #expect(abs(later.y - y) < 1e-6)
    }

    @Test("blob 4 (coral) at t = 10 s: legs repeat, negative delays start part-way")
    func coral() {
        // x: 16 → -16 over 2.7 s, delay -2.3: 12.3 s in = 4 legs (10.8 s) + 1.5 s,
        // an even leg, going forwards: 16 − 32·(1.5/2.7).
        // y: -10 → 10 over 2.2 s, delay -1: 11 s in = 5 legs exactly: the end
        // of a forward leg, so the start of a backward one: 10.
        // Breathing: 0 → 1.1 over 3.1 s, delay -2.6: 12.6 s in = 4 legs + 0.2 s, forward.
        let offset = motion.state(at: 10).offsets[3]
        #expect(abs(offset.x - (16 - 32 * 1.5 / 2.7)) < 1e-9)
        #expect(abs(offset.y - (10 + 1.1 * referenceEaseInOut(0.2 / 3.1))) < 1e-6)
    }

    @Test("centres in pixels: fractions of the screen plus offsets × u")
    func placement() {
        let state = motion.state(at: 0)
        let portrait = CalmLayers(width: 390, height: 844, cellsPerSigma: 3, blobsShown: true)
        #expect(portrait.blobCentre(0, offset: state.offsets[0]) == Point(0.22 * 390 - 14, 0.20 * 844 - 2))
        let wide = CalmLayers(width: 1920, height: 1080, cellsPerSigma: 3, blobsShown: true)
        let u = 1080.0 / 390
        let centre = wide.blobCentre(0, offset: state.offsets[0])
        #expect(abs(centre.x - (0.22 * 1920 - 14 * u)) < 1e-9 && abs(centre.y - (0.20 * 1080 - 2 * u)) < 1e-9)
    }

    @Test("slow: under 12 design px/s along each axis (plus the breathing float's ~1 px/s on y)")
    func speed() {
        var previous = motion.state(at: 0).offsets
        for step in 1...600 {
            let offsets = motion.state(at: Double(step) * 0.05).offsets
            for (a, b) in zip(previous, offsets) {
                #expect(abs(b.x - a.x) / 0.05 <= 12 + 1e-9)
                #expect(abs(b.y - a.y) / 0.05 <= 13)
            }
            previous = offsets
        }
    }
}
