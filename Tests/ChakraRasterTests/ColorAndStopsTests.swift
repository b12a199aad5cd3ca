import Foundation
import Testing
@testable import ChakraRaster

@Suite("Colours")
struct ColorTests {
    @Test("rgba premultiplies 0-255 channels by alpha")
    func rgbaPremultiplies() {
        let c = Colors.rgba(255, 102, 51, 0.4)
        // 102/255 = 0.4, 51/255 = 0.2, each times 0.4.
        #expect(maxAbsDifference(c, SIMD4(0.4, 0.16, 0.08, 0.4)) < 1e-6)
    }

    @Test("source-over of premultiplied colours")
    func over() {
        let source = RGBA(0.3, 0.1, 0, 0.5), destination = RGBA(0.2, 0.4, 0.6, 0.8)
        // s + d·(1 − αs) by hand: (0.3 + 0.1, 0.1 + 0.2, 0 + 0.3, 0.5 + 0.4)
        #expect(maxAbsDifference(Colors.over(source, destination), SIMD4(0.4, 0.3, 0.3, 0.9)) < 1e-6)
        // An opaque source hides the destination; a transparent one leaves it.
        #expect(Colors.over(RGBA(0.1, 0.2, 0.3, 1), destination) == RGBA(0.1, 0.2, 0.3, 1))
        #expect(Colors.over(.zero, destination) == destination)
    }

    @Test("brightness scales the straight colour and clamps it to 1")
    func brightness() {
        // Straight (0.8, 0.4, 0.2) at α = 0.5; ×1.5 → (1.2→1, 0.6, 0.3), premultiplied ×0.5.
        let c = Colors.brightness(RGBA(0.4, 0.2, 0.1, 0.5), 1.5)
        #expect(maxAbsDifference(c, SIMD4(0.5, 0.3, 0.15, 0.5)) < 1e-6)
    }

    @Test("straight8 un-premultiplies and rounds")
    func straight8() {
        #expect(Colors.straight8(RGBA(0.25, 0.125, 0, 0.5)) == SIMD4(128, 64, 0, 128))  // 0.5·255 = 127.5 → 128
        #expect(Colors.straight8(.zero) == .zero)
    }
}

@Suite("Gradient stops")
struct GradientStopsTests {
    static let red = RGBA(1, 0, 0, 1)
    static let blue = RGBA(0, 0, 1, 1)
    static let green = RGBA(0, 1, 0, 1)

    @Test("premultiplied interpolation between two stops", arguments: [0.0, 0.1, 0.25, 0.5, 0.73, 0.9, 1.0])
    func twoStops(t: Double) {
        let a = RGBA(0.6, 0.3, 0.0, 0.6), b = RGBA(0.0, 0.2, 0.4, 0.8)
        let stops = GradientStops([GradientStop(0, a), GradientStop(1, b)])
        let expected = double4(a) * (1 - t) + double4(b) * t
        #expect(maxAbsDifference(stops.color(at: Float(t)), expected) < 1e-6)
    }

    @Test("a colour fading to transparent keeps its hue (premultiplied)")
    func fadeToTransparentKeepsHue() {
        let stops = GradientStops([GradientStop(0, Colors.rgba(200, 100, 50)), GradientStop(1, Colors.transparent)])
        for t in [0.2, 0.5, 0.8] {
            let c = stops.color(at: Float(t))
            // Premultiplied: (200, 100, 50)/255 · (1 − t), alpha 1 − t.
            let opaque = SIMD4<Double>(200 / 255, 100 / 255, 50 / 255, 1)
            #expect(maxAbsDifference(c, opaque * (1 - t)) < 1e-6)
            // Un-premultiplied the hue is unchanged (interpolating straight
            // colours towards transparent black would darken it instead).
            let straight = Colors.straight8(c)
            #expect(straight.x == 200 && straight.y == 100 && straight.z == 50)
        }
    }

    @Test("three stops at several t against the piecewise-linear formula")
    func threeStops() {
        let stops = GradientStops([GradientStop(0.2, Self.red), GradientStop(0.5, Self.green), GradientStop(0.9, Self.blue)])
        let reference: [(Double, SIMD4<Double>)] = [(0.2, SIMD4(1, 0, 0, 1)), (0.5, SIMD4(0, 1, 0, 1)), (0.9, SIMD4(0, 0, 1, 1))]
        for t in stride(from: -0.5, through: 1.5, by: 0.05) {
            #expect(maxAbsDifference(stops.color(at: Float(t)), Ref.stopColor(t, reference)) < 1e-5, "t = \(t)")
        }
        // Hand values: t = 0.35 is halfway red → green, t = 0.6 a quarter green → blue.
        #expect(maxAbsDifference(stops.color(at: 0.35), SIMD4(0.5, 0.5, 0, 1)) < 1e-6)
        #expect(maxAbsDifference(stops.color(at: 0.6), SIMD4(0, 0.75, 0.25, 1)) < 1e-6)
    }

    @Test("before the first stop the first colour holds, after the last the last")
    func clamping() {
        let stops = GradientStops([GradientStop(0.3, Self.red), GradientStop(0.7, Self.blue)])
        for t: Float in [-10, -0.1, 0, 0.29, 0.3] { #expect(stops.color(at: t) == Self.red) }
        for t: Float in [0.7, 0.71, 1, 5] { #expect(stops.color(at: t) == Self.blue) }
    }

    @Test("out-of-order offsets are clamped to the largest before them (CSS)")
    func outOfOrderFixUp() {
        let stops = GradientStops([GradientStop(0, Self.red), GradientStop(0.6, Self.green), GradientStop(0.3, Self.blue), GradientStop(1, Self.red)])
        #expect(stops.stops.map(\.offset) == [0, 0.6, 0.6, 1])
        // Red → green over [0, 0.6], a hard switch to blue at 0.6, blue → red over [0.6, 1].
        #expect(maxAbsDifference(stops.color(at: 0.3), SIMD4(0.5, 0.5, 0, 1)) < 1e-6)
        #expect(maxAbsDifference(stops.color(at: 0.5999), SIMD4(0.0001 / 0.6, 0.5999 / 0.6, 0, 1)) < 1e-4)
        #expect(stops.color(at: 0.6) == Self.blue)
        #expect(maxAbsDifference(stops.color(at: 0.8), SIMD4(0.5, 0, 0.5, 1)) < 1e-6)
    }

    @Test("evenly spaced stops and scaling")
    func evenlySpacedAndScaled() {
        let stops = GradientStops(evenlySpaced: [Self.red, Self.green, Self.blue])
        #expect(stops.stops.map(\.offset) == [0, 0.5, 1])
        let half = stops.scaled(by: 0.5)
        #expect(half.stops.map(\.offset) == [0, 0.5, 1])
        #expect(maxAbsDifference(half.color(at: 0.75), SIMD4(0, 0.25, 0.25, 0.5)) < 1e-6)
        var animated = stops
        animated.setColor(Self.blue, at: 0)
        #expect(animated.color(at: 0) == Self.blue)
        #expect(stops.color(at: 0) == Self.red)  // value semantics
    }

    @Test("a single stop is a solid colour")
    func singleStop() {
        let c = RGBA(0.2, 0.3, 0.1, 0.5)
        let stops = GradientStops([GradientStop(0.4, c)])
        for t: Float in [-1, 0, 0.4, 0.5, 2] { #expect(stops.color(at: t) == c) }
    }
}
