import Foundation
import Testing
@testable import ChakraRaster

/// Bilinear interpolation of grid values g(i, j) at screen pixel (x, y) for a
/// grid of `factor` whose point (0, 0) sits on pixel (ox, oy); nil outside the grid.
private func bilinear(_ g: (Int, Int) -> SIMD3<Double>, width w: Int, height h: Int, ox: Int, oy: Int, factor f: Int, x: Int, y: Int) -> SIMD3<Double>? {
    let u = Double(x - ox) / Double(f), v = Double(y - oy) / Double(f)
    guard u >= 0, v >= 0, u <= Double(w - 1), v <= Double(h - 1) else { return nil }
    let i0 = Int(u.rounded(.down)), j0 = Int(v.rounded(.down))
    let i1 = min(i0 + 1, w - 1), j1 = min(j0 + 1, h - 1)
    let fu = u - Double(i0), fv = v - Double(j0)
    let top = g(i0, j0) * (1 - fu) + g(i1, j0) * fu
    let bottom = g(i0, j1) * (1 - fu) + g(i1, j1) * fu
    return top * (1 - fv) + bottom * fv
}

private func levelColor(_ l: SIMD3<Double>, alpha: Double = 1) -> RGBA {
    RGBA(Float(l.x / 255), Float(l.y / 255), Float(l.z / 255), Float(alpha))
}

/// The output's RGB levels; every expected value below is a whole level, so
/// the dither (threshold in [1/128, 127/128]) cannot change it.
private func outputLevels(_ frame: FrameBuffer) -> [SIMD3<Int>] {
    var out: [SIMD3<Int>] = []
    for y in 0..<frame.pixels.height {
        for x in 0..<frame.pixels.width {
            let c = frame.pixels.rgb(x: x, y: y)
            out.append(SIMD3(Int(c.x), Int(c.y), Int(c.z)))
        }
    }
    return out
}

private func compose(_ compositor: FrameCompositor, base: Surface, overlays: [Surface], opacities: [Float], into frame: FrameBuffer, rows: Range<Int>? = nil, slot: Int = 0, frame token: FrameToken? = nil) {
    let token = token ?? compositor.beginFrame()
    overlays.withUnsafeBufferPointer { o in
        opacities.withUnsafeBufferPointer { a in
            compositor.compose(base: base, overlays: o, opacities: a, into: frame.pixels, rows: rows ?? 0..<frame.pixels.height, slot: slot, frame: token)
        }
    }
}

private func wholeLevel(_ v: SIMD3<Double>) -> SIMD3<Int>? {
    let r = v.rounded(.toNearestOrEven)
    guard abs(v.x - r.x) < 1e-9, abs(v.y - r.y) < 1e-9, abs(v.z - r.z) < 1e-9 else { return nil }
    return SIMD3(Int(r.x), Int(r.y), Int(r.z))
}

@Suite("Frame compositor")
struct FrameCompositorTests {
    @Test("a factor-4 base is upsampled bilinearly at every output pixel", arguments: [(0, 0), (-2, -3), (-4, -1)])
    func baseBilinear(origin: (Int, Int)) throws {
        let (width, height, f) = (13, 9, 4)
        let (ox, oy) = origin
        // Enough grid points to reach the last pixel from the origin.
        let gw = (width - 1 - ox + f - 1) / f + 1, gh = (height - 1 - oy + f - 1) / f + 1
        let base = Surface(capacityWidth: gw, capacityHeight: gh)
        base.place(width: gw, height: gh, originX: ox, originY: oy, factor: f)
        // Levels: R = 10 + 4i, G = 20 + 8j, B = 5 + 16ij (bilinear, so reproduced exactly).
        func grid(_ i: Int, _ j: Int) -> SIMD3<Double> { SIMD3(10 + 4 * Double(i), 20 + 8 * Double(j), 5 + 16 * Double(i * j)) }
        for j in 0..<gh { for i in 0..<gw { base[i, j] = levelColor(grid(i, j)) } }
        let compositor = FrameCompositor(maxWidth: width, maxGridWidth: gw, threads: 1)
        for format in [PixelFormat.xbgr8888, .rgb888] {
            let frame = FrameBuffer(width: width, height: height, format: format)
            compose(compositor, base: base, overlays: [], opacities: [], into: frame)
            let levels = outputLevels(frame)
            for y in 0..<height {
                for x in 0..<width {
                    let v = try #require(bilinear(grid, width: gw, height: gh, ox: ox, oy: oy, factor: f, x: x, y: y))
                    let expected = try #require(wholeLevel(v))
                    // By hand: R = 10 + (x − ox), G = 20 + 2(y − oy), B = 5 + (x − ox)(y − oy).
                    #expect(expected == SIMD3(10 + x - ox, 20 + 2 * (y - oy), 5 + (x - ox) * (y - oy)))
                    #expect(levels[y * width + x] == expected, "pixel \(x), \(y), \(format)")
                }
            }
        }
    }

    /// A flat base of 96 levels (40×30 output) and a factor-4 overlay whose grid
    /// points are opaque C = (224, 32, 160) or empty, in a pattern with holes,
    /// hanging off the top-left of the screen.
    struct Scene {
        static let (width, height) = (40, 30)
        static let base = SIMD3<Double>(96, 96, 96)
        static let color = SIMD3<Double>(224, 32, 160)
        static let mask: [[Int]] = [
            [], [1, 2], [1, 6], [3, 4, 5, 6, 7, 8], [3, 8], [3, 8], [3, 9], [2, 3, 4, 6, 7, 8, 9], [10], [],
        ]
        static let (ox, oy, f, gw, gh) = (-6, -5, 4, 12, 10)

        let base: Surface
        let overlay: Surface

        init() {
            base = Surface(capacityWidth: 11, capacityHeight: 9)
            base.place(width: 11, height: 9, originX: 0, originY: 0, factor: 4)
            base.clear(to: levelColor(Self.base))
            overlay = Surface(capacityWidth: Self.gw, capacityHeight: Self.gh)
            overlay.place(width: Self.gw, height: Self.gh, originX: Self.ox, originY: Self.oy, factor: Self.f)
            overlay.clear()
            for (j, columns) in Self.mask.enumerated() { for i in columns { overlay[i, j] = levelColor(Self.color) } }
            overlay.updateRowExtents()
        }

        static func maskValue(_ i: Int, _ j: Int) -> SIMD3<Double> { mask[j].contains(i) ? SIMD3(repeating: 1) : .zero }

        /// base + (C − base)·W·opacity, W the bilinear coverage of the mask.
        static func expected(x: Int, y: Int, opacity: Double) -> SIMD3<Double> {
            let w = bilinear(maskValue, width: gw, height: gh, ox: ox, oy: oy, factor: f, x: x, y: y)?.x ?? 0
            return base + (color - base) * (w * opacity)
        }
    }

    @Test("an overlay with holes, partly off screen, composited source-over", arguments: [Float(1), 0.5, 0])
    func overlayWithHoles(opacity: Float) throws {
        let scene = Scene()
        let compositor = FrameCompositor(maxWidth: Scene.width, maxGridWidth: 12, threads: 1)
        let frame = FrameBuffer(width: Scene.width, height: Scene.height, format: .xrgb8888)
        compose(compositor, base: scene.base, overlays: [scene.overlay], opacities: [opacity], into: frame)
        let levels = outputLevels(frame)
        var touched = 0
        for y in 0..<Scene.height {
            for x in 0..<Scene.width {
                let expected = try #require(wholeLevel(Scene.expected(x: x, y: y, opacity: Double(opacity))))
                if expected != SIMD3(96, 96, 96) { touched += 1 }
                #expect(levels[y * Scene.width + x] == expected, "pixel \(x), \(y)")
            }
        }
        #expect(opacity == 0 ? touched == 0 : touched > 200)
    }

    @Test("single overlay pixels at factor 1: opaque replaces, translucent is source-over, opacity ½ halves")
    func singlePixels() {
        let (width, height) = (8, 4)
        let base = Surface(width: width, height: height)
        base.clear(to: levelColor(SIMD3(100, 100, 100)))
        let overlay = Surface(width: width, height: height)
        overlay.clear()
        overlay[2, 1] = levelColor(SIMD3(200, 100, 50))                      // opaque
        overlay[5, 2] = levelColor(SIMD3(60, 0, 120), alpha: 0.5)            // premultiplied, α = ½
        overlay.updateRowExtents()
        let compositor = FrameCompositor(maxWidth: width, maxGridWidth: width, threads: 1)
        for (opacity, opaque, translucent) in [(Float(1), SIMD3(200, 100, 50), SIMD3(110, 50, 170)),
                                               // ½: (100, 50, 25, ½) + 100·½; (30, 0, 60, ¼) + 100·¾
                                               (0.5, SIMD3(150, 100, 75), SIMD3(105, 75, 135))] {
            let frame = FrameBuffer(width: width, height: height, format: .bgr888)
            compose(compositor, base: base, overlays: [overlay], opacities: [opacity], into: frame)
            let levels = outputLevels(frame)
            for y in 0..<height {
                for x in 0..<width {
                    let expected = (x, y) == (2, 1) ? opaque : (x, y) == (5, 2) ? translucent : SIMD3(100, 100, 100)
                    #expect(levels[y * width + x] == expected, "pixel \(x), \(y) at opacity \(opacity)")
                }
            }
        }
    }

    @Test("overlays stack in order")
    func stacking() {
        let base = Surface(width: 4, height: 1)
        base.clear(to: levelColor(SIMD3(96, 96, 96)))
        let first = Surface(width: 4, height: 1), second = Surface(width: 4, height: 1)
        first.clear(to: levelColor(SIMD3(40, 0, 0), alpha: 0.5))
        second.clear(to: levelColor(SIMD3(0, 60, 0), alpha: 0.25))
        first.updateRowExtents(); second.updateRowExtents()
        let compositor = FrameCompositor(maxWidth: 4, maxGridWidth: 4, threads: 1)
        let frame = FrameBuffer(width: 4, height: 1, format: .xrgb8888)
        compose(compositor, base: base, overlays: [first, second], opacities: [1, 1], into: frame)
        // first over base: (40 + 48, 48, 48); second over that: (0, 60, 0) + ¾·(88, 48, 48).
        // (The other order would give (76, 66, 36).)
        for x in 0..<4 { #expect(frame.pixels.rgb(x: x, y: 0) == SIMD3(66, 96, 36)) }
    }

    @Test("a new frame token re-expands rows: changed or moved overlay content shows")
    func staleRows() {
        let scene = Scene()
        let compositor = FrameCompositor(maxWidth: Scene.width, maxGridWidth: 12, threads: 1)
        let first = FrameBuffer(width: Scene.width, height: Scene.height, format: .xrgb8888)
        compose(compositor, base: scene.base, overlays: [scene.overlay], opacities: [0.7], into: first)
        // Next frame: the overlay moves by one grid step and changes colour.
        scene.overlay.place(width: Scene.gw, height: Scene.gh, originX: Scene.ox + Scene.f, originY: Scene.oy, factor: Scene.f)
        for j in 0..<Scene.gh { for i in 0..<Scene.gw where scene.overlay[i, j].w > 0 { scene.overlay[i, j] = levelColor(SIMD3(16, 200, 40)) } }
        scene.overlay.updateRowExtents()
        // The bottom rows first: the compositor still holds the grid rows
        // they need, expanded from the first frame's contents.
        let reused = FrameBuffer(width: Scene.width, height: Scene.height, format: .xrgb8888)
        let second = compositor.beginFrame()
        for rows in [26..<Scene.height, 0..<26] {
            compose(compositor, base: scene.base, overlays: [scene.overlay], opacities: [0.7], into: reused, rows: rows, frame: second)
        }
        let fresh = FrameBuffer(width: Scene.width, height: Scene.height, format: .xrgb8888)
        compose(FrameCompositor(maxWidth: Scene.width, maxGridWidth: 12, threads: 1), base: scene.base, overlays: [scene.overlay],
                opacities: [0.7], into: fresh)
        #expect(reused.rgbBytes() == fresh.rgbBytes(), "rows expanded for the first frame were reused")
        #expect(reused.rgbBytes() != first.rgbBytes())
    }

    @Test("rows split across compose calls and threads equal one call")
    func rowSplits() {
        let scene = Scene()
        let compositor = FrameCompositor(maxWidth: Scene.width, maxGridWidth: 12, threads: 3)
        let whole = FrameBuffer(width: Scene.width, height: Scene.height, format: .rgb565)
        compose(compositor, base: scene.base, overlays: [scene.overlay], opacities: [0.7], into: whole)
        let split = FrameBuffer(width: Scene.width, height: Scene.height, format: .rgb565)
        // One frame token for all the pieces: a slot's cached rows from one
        // call must serve (or be replaced in) a later, distant call.
        let splitFrame = compositor.beginFrame()
        for (rows, slot) in [(0..<7, 1), (7..<8, 0), (8..<23, 2), (23..<30, 1), (1..<3, 1)] {
            compose(compositor, base: scene.base, overlays: [scene.overlay], opacities: [0.7], into: split, rows: rows, slot: slot, frame: splitFrame)
        }
        #expect(split.rgbBytes() == whole.rgbBytes())

        final class ComposeJob: PartitionedJob, @unchecked Sendable {
            let run: (Int, Int) -> Void
            init(_ run: @escaping (Int, Int) -> Void) { self.run = run }
            func run(part: Int, of parts: Int) { run(part, parts) }
        }
        let threaded = FrameBuffer(width: Scene.width, height: Scene.height, format: .rgb565)
        let threadedFrame = compositor.beginFrame()
        let job = ComposeJob { part, parts in
            let band = (Scene.height + parts - 1) / parts
            let rows = min(part * band, Scene.height)..<min((part + 1) * band, Scene.height)
            compose(compositor, base: scene.base, overlays: [scene.overlay], opacities: [0.7], into: threaded, rows: rows, slot: part, frame: threadedFrame)
        }
        SharedPools.three.run(job)
        #expect(threaded.rgbBytes() == whole.rgbBytes())
    }

    @Test("a row stride larger than the row leaves the padding alone")
    func stride() {
        let (width, height, stride) = (5, 3, 5 * 4 + 12)
        var memory = [UInt8](repeating: 0x5A, count: stride * height)
        let base = Surface(width: width, height: height)
        base.clear(to: levelColor(SIMD3(1, 2, 3)))
        let compositor = FrameCompositor(maxWidth: width, maxGridWidth: width, threads: 1)
        memory.withUnsafeMutableBytes { raw in
            let buffer = PixelBuffer(base: raw.baseAddress!, width: width, height: height, stride: stride, format: .argb8888)
            compositor.compose(base: base, overlays: UnsafeBufferPointer(start: nil, count: 0), opacities: UnsafeBufferPointer(start: nil, count: 0),
                               into: buffer, rows: 0..<height, slot: 0, frame: compositor.beginFrame())
        }
        for y in 0..<height {
            #expect(Array(memory[y * stride ..< y * stride + 4]) == [3, 2, 1, 0xFF])
            #expect(memory[(y * stride + width * 4) ..< (y + 1) * stride].allSatisfy { $0 == 0x5A })
        }
    }

    @Test("a rotated buffer holds the same frame turned clockwise", arguments: Rotation.allCases, [PixelFormat.xrgb8888, .rgb888, .rgb565])
    func rotation(_ rotation: Rotation, format: PixelFormat) {
        let (width, height) = (7, 4)
        let base = Surface(width: width, height: height)
        // Every pixel a different whole level, so a misplaced pixel shows.
        for y in 0..<height {
            for x in 0..<width { base.pixels[y * width + x] = levelColor(SIMD3(Double(8 * x), Double(40 * y), Double(8 * (x + y)))) }
        }
        let compositor = FrameCompositor(maxWidth: max(width, height), maxGridWidth: width, threads: 1)
        let bpp = format.bytesPerPixel
        // Memory shaped like the panel: turned by 90° or 270° it is 4 wide and 7 tall.
        let (memoryWidth, memoryHeight) = rotation.swapsAxes ? (height, width) : (width, height)
        let stride = memoryWidth * bpp + 8
        var memory = [UInt8](repeating: 0, count: stride * memoryHeight)
        memory.withUnsafeMutableBytes { raw in
            let panel = PixelBuffer(base: raw.baseAddress!, width: memoryWidth, height: memoryHeight, stride: stride, format: format)
            let view = panel.rotated(rotation)
            #expect(view.width == width && view.height == height)
            compositor.compose(base: base, overlays: UnsafeBufferPointer(start: nil, count: 0), opacities: UnsafeBufferPointer(start: nil, count: 0),
                               into: view, rows: 0..<height, slot: 0, frame: compositor.beginFrame())
            for y in 0..<height {
                for x in 0..<width {
                    // Where a clockwise turn puts frame pixel (x, y) on the panel.
                    let (px, py) = switch rotation {
                    case .none: (x, y)
                    case .clockwise90: (height - 1 - y, x)
                    case .upsideDown: (width - 1 - x, height - 1 - y)
                    case .clockwise270: (y, width - 1 - x)
                    }
                    let expected = panel.format.decode(UnsafeRawPointer(raw.baseAddress! + py * stride + px * bpp))
                    #expect(view.rgb(x: x, y: y) == expected)
                    if format == .xrgb8888 {
                        #expect(expected == SIMD3(UInt8(8 * x), UInt8(40 * y), UInt8(8 * (x + y))), "frame pixel (\(x), \(y)) at panel (\(px), \(py))")
                    }
                }
            }
        }
    }
}
