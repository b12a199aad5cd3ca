import Foundation
import Testing
@testable import ChakraRaster

@Suite("Determinism")
struct DeterminismTests {
    /// A small frame using most of the pipeline: gradients, fills, strokes,
    /// a blur on a coarse grid, an overlay, and packing.
    static func render(canvas: Canvas? = nil, format: PixelFormat = .xrgb8888) -> [UInt8] {
        let (width, height) = (48, 36)
        let canvas = canvas ?? Canvas(capacityWidth: 64, capacityHeight: 64)
        let base = Surface(capacityWidth: 20, capacityHeight: 20)
        base.place(coveringMinX: 0, minY: 0, maxX: width - 1, maxY: height - 1, factor: 4)
        base.clear(to: RGBA(0.05, 0.02, 0.1, 1))
        let stops = GradientStops([GradientStop(0, Colors.rgba(120, 40, 200)), GradientStop(1, Colors.rgba(10, 200, 160, 0.5))])
        canvas.fill(.rect(x: -4, y: -4, width: 60, height: 50), paint: .linear(.toBottomRight(boxX: 0, y: 0, width: 48, height: 36, stops: stops)), opacity: 0.6, on: base)
        GaussianBlur(maxExtent: 64).blur(base, sigma: 1.3)
        let overlay = Surface(width: width, height: height)
        overlay.clear()
        canvas.fill(.circle(center: Point(20.3, 17.9), radius: 11.2), paint: .radial(RadialGradient(center: Point(20, 18), radiusX: 12, radiusY: 9, stops: stops)), on: overlay)
        var path = Path()
        path.move(to: Point(3, 30)); path.quad(to: Point(45, 28), control: Point(22, 2))
        canvas.stroke(path, width: 2.5, paint: .solid(Colors.rgba(255, 230, 180, 0.8)), on: overlay)
        overlay.updateRowExtents()
        let compositor = FrameCompositor(maxWidth: width, maxGridWidth: 20, threads: 1)
        let frame = FrameBuffer(width: width, height: height, format: format)
        [overlay].withUnsafeBufferPointer { o in
            [Float(0.9)].withUnsafeBufferPointer { a in
                compositor.compose(base: base, overlays: o, opacities: a, into: frame.pixels, rows: 0..<height, slot: 0, frame: compositor.beginFrame())
            }
        }
        return frame.rgbBytes()
    }

    @Test("the same drawing twice gives identical bytes", arguments: [PixelFormat.xrgb8888, .rgb565])
    func sameBytes(format: PixelFormat) {
        let first = Self.render(format: format)
        #expect(Self.render(format: format) == first)
        // The frame is not trivially flat.
        #expect(Set(first).count > 20)
    }

    @Test("a reused canvas leaves nothing behind between drawings")
    func reusedCanvas() {
        let fresh = Self.render()
        let canvas = Canvas(capacityWidth: 64, capacityHeight: 64)
        // Scribble on an unrelated surface first, with shapes leaving the grid.
        let scratch = Surface(width: 30, height: 30)
        canvas.fill(.circle(center: Point(29, 5), radius: 20), paint: .solid(RGBA(1, 0, 0, 1)), on: scratch)
        canvas.stroke(.rect(x: -5, y: 3, width: 50, height: 20), width: 6, paint: .solid(RGBA(0, 1, 0, 1)), on: scratch)
        #expect(Self.render(canvas: canvas) == fresh)
        #expect(Self.render(canvas: canvas) == fresh)
    }
}
