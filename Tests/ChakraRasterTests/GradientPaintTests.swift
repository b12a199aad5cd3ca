import Foundation
import Testing
@testable import ChakraRaster

/// Stops that make the red channel read t directly: 0 → transparent, `span` → opaque white.
private func identityStops(span: Float = 1) -> GradientStops {
    GradientStops([GradientStop(0, .zero), GradientStop(span, RGBA(1, 1, 1, 1))])
}

@Suite("Linear gradients")
struct LinearGradientTests {
    @Test("horizontal gradient: surface pixels against the formula")
    func horizontalPixels() {
        let stops = GradientStops([GradientStop(0, Colors.rgba(255, 0, 0)), GradientStop(0.5, Colors.rgba(0, 255, 0, 0.5)), GradientStop(1, Colors.rgba(0, 0, 255))])
        let reference: [(Double, SIMD4<Double>)] = [(0, SIMD4(1, 0, 0, 1)), (0.5, SIMD4(0, 0.5, 0, 0.5)), (1, SIMD4(0, 0, 1, 1))]
        let gradient = LinearGradient(start: Point(10, 0), end: Point(110, 0), stops: stops)
        let (w, h) = (128, 6)
        let surface = Surface(width: w, height: h)
        let canvas = Canvas(capacityWidth: w, capacityHeight: h)
        // A rect overhanging the surface covers every cell fully (coverage 1).
        canvas.fill(.rect(x: -2, y: -2, width: Double(w) + 4, height: Double(h) + 4), paint: .linear(gradient), on: surface)
        for j in 0..<h {
            for i in 0..<w {
                let t = (Double(i) + 0.5 - 10) / 100
                #expect(maxAbsDifference(surface[i, j], Ref.stopColor(t, reference)) < 1e-5, "pixel \(i), \(j)")
            }
        }
    }

    @Test("angled gradient between two points: t is the projection on start→end")
    func angledPixels() {
        let (start, end) = (Point(5, 7), Point(45, 37))
        let gradient = LinearGradient(start: start, end: end, stops: identityStops())
        let (w, h) = (50, 44)
        let surface = Surface(width: w, height: h)
        let canvas = Canvas(capacityWidth: w, capacityHeight: h)
        canvas.fill(.rect(x: -1, y: -1, width: Double(w) + 2, height: Double(h) + 2), paint: .linear(gradient), on: surface)
        for j in 0..<h {
            for i in 0..<w {
                // t = ((p − start)·(40, 30)) / 2500, clamped to [0, 1] by the end stops.
                let x = Double(i) + 0.5, y = Double(j) + 0.5
                let t = min(max(((x - 5) * 40 + (y - 7) * 30) / 2500, 0), 1)
                #expect(abs(Double(surface[i, j].x) - t) < 1e-5, "pixel \(i), \(j)")
            }
        }
    }

    @Test("CSS angle on a box: corners at 0 and 1, centre at ½, formula inside", arguments: [30.0, 90.0, 135.0, 180.0, 250.0])
    func cssAngle(angle: Double) {
        let (bx, by, bw, bh) = (10.0, 20.0, 200.0, 100.0)
        let g = LinearGradient(cssAngleDegrees: angle, boxX: bx, y: by, width: bw, height: bh, stops: identityStops(span: 4))
        let r = angle * .pi / 180
        let direction = SIMD2(sin(r), -cos(r))      // 0deg up, 90deg right
        let length = abs(bw * sin(r)) + abs(bh * cos(r))  // CSS Images 3 §3.1
        let centre = SIMD2(bx + bw / 2, by + bh / 2)
        func t(_ x: Double, _ y: Double) -> Double { 0.5 + ((SIMD2(x, y) - centre) * direction).sum() / length }
        func measured(_ x: Double, _ y: Double) -> Double { Double(g.color(atX: Float(x), y: Float(y)).x) * 4 }
        let corners = [(bx, by), (bx + bw, by), (bx, by + bh), (bx + bw, by + bh)]
        let ts = corners.map { t($0.0, $0.1) }
        // The corner the gradient points to is at 1, the opposite one at 0.
        #expect(abs(ts.max()! - 1) < 1e-9 && abs(ts.min()!) < 1e-9)
        for (x, y) in corners { #expect(abs(measured(x, y) - t(x, y)) < 1e-4) }
        #expect(abs(measured(centre.x, centre.y) - 0.5) < 1e-4)
        for (x, y) in [(37.0, 41.0), (150.5, 99.25), (200.0, 30.0), (12.0, 115.0)] {
            #expect(abs(measured(x, y) - t(x, y)) < 1e-4, "at \(x), \(y)")
        }
    }

    @Test("to bottom right: t = (x/w + y/h)/2 in box coordinates")
    func toBottomRight() {
        let (bx, by, bw, bh) = (30.0, 40.0, 120.0, 50.0)
        let g = LinearGradient.toBottomRight(boxX: bx, y: by, width: bw, height: bh, stops: identityStops(span: 2))
        let points: [(Double, Double)] = [(0, 0), (bw, 0), (0, bh), (bw, bh), (bw / 2, bh / 2), (10, 5), (90, 12.5), (33.3, 44.4), (119, 1)]
        for (u, v) in points {
            let expected = (u / bw + v / bh) / 2
            let measured = Double(g.color(atX: Float(bx + u), y: Float(by + v)).x) * 2
            #expect(abs(measured - expected) < 1e-5, "at box point \(u), \(v)")
        }
    }

    @Test("to bottom right under a rotation about the box centre follows the box")
    func toBottomRightRotated() {
        let (bx, by, bw, bh) = (30.0, 40.0, 120.0, 50.0)
        let centre = Point(bx + bw / 2, by + bh / 2)
        let g = LinearGradient.toBottomRight(boxX: bx, y: by, width: bw, height: bh, stops: identityStops(span: 2),
                                             transform: .rotation(degrees: 40, about: centre))
        let (c, s) = (cos(40 * Double.pi / 180), sin(40 * Double.pi / 180))
        for (u, v) in [(0.0, 0.0), (bw, bh), (bw, 0.0), (20.0, 35.0), (100.0, 10.0)] {
            // Box point → screen by hand: rotate (clockwise on screen) about the centre.
            let dx = bx + u - centre.x, dy = by + v - centre.y
            let x = centre.x + dx * c - dy * s, y = centre.y + dx * s + dy * c
            let measured = Double(g.color(atX: Float(x), y: Float(y)).x) * 2
            #expect(abs(measured - (u / bw + v / bh) / 2) < 1e-5, "at box point \(u), \(v)")
        }
    }

    @Test("to bottom right keeps CSS geometry under a non-uniform scale")
    func toBottomRightNonUniformScale() {
        // Box 100×100 drawn through scale(2, 1): box point (u, v) is screen (2u, v).
        let g = LinearGradient.toBottomRight(boxX: 0, y: 0, width: 100, height: 100, stops: identityStops(span: 2), transform: .scale(2, 1))
        for (u, v) in [(100.0, 0.0), (0.0, 100.0), (50.0, 50.0), (20.0, 70.0)] {
            let measured = Double(g.color(atX: Float(2 * u), y: Float(v)).x) * 2
            #expect(abs(measured - (u / 100 + v / 100) / 2) < 1e-5, "at box point \(u), \(v)")
        }
    }
}

@Suite("Radial gradients")
struct RadialGradientTests {
    @Test("elliptical t = √((dx/rx)² + (dy/ry)²)")
    func elliptical() {
        let g = RadialGradient(center: Point(50, 40), radiusX: 30, radiusY: 15, stops: identityStops(span: 4))
        for (x, y) in [(50.0, 40.0), (80.0, 40.0), (50.0, 55.0), (20.0, 25.0), (61.5, 33.0), (95.0, 70.0), (12.25, 47.5)] {
            let t = (pow((x - 50) / 30, 2) + pow((y - 40) / 15, 2)).squareRoot()
            let measured = Double(Paint.radial(g).color(atX: Float(x), y: Float(y)).x) * 4
            #expect(abs(measured - min(t, 4)) < 1e-5, "at \(x), \(y)")
        }
    }

    @Test("elliptical gradient seen through a translation and rotation")
    func rotated() {
        let (cx, cy, rx, ry) = (5.0, -3.0, 24.0, 10.0)
        let transform = Transform.translation(100, 80).rotated(degrees: 30)
        let g = RadialGradient(center: Point(cx, cy), radiusX: rx, radiusY: ry, stops: identityStops(span: 4), transform: transform)
        let (c, s) = (cos(Double.pi / 6), sin(Double.pi / 6))
        // Screen → local by hand: undo the translation, rotate by −30°.
        for (x, y) in [(100.0, 80.0), (120.0, 95.0), (90.0, 60.0), (131.0, 70.5), (75.0, 99.0)] {
            let (px, py) = (x - 100, y - 80)
            let (lx, ly) = (px * c + py * s, -px * s + py * c)
            let t = (pow((lx - cx) / rx, 2) + pow((ly - cy) / ry, 2)).squareRoot()
            let measured = Double(g.color(atX: Float(x), y: Float(y)).x) * 4
            #expect(abs(measured - t) < 1e-5, "at \(x), \(y)")
        }
        // Forward: the local ellipse of scale k maps to t = k.
        for (k, phi) in [(0.5, 0.3), (1.0, 2.0), (1.7, 4.4)] {
            let lx = cx + rx * k * cos(phi), ly = cy + ry * k * sin(phi)
            let x = 100 + lx * c - ly * s, y = 80 + lx * s + ly * c
            let measured = Double(g.color(atX: Float(x), y: Float(y)).x) * 4
            #expect(abs(measured - k) < 1e-5)
        }
    }
}
