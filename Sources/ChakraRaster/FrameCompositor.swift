// The fused final pass: every output pixel is written once.
//
// A frame is an opaque base surface (usually coarse: the soft full-screen
// layers) and a stack of premultiplied overlay surfaces, each on its own
// grid. Row by row the compositor upsamples the base bilinearly into a float
// row, blends each overlay's bilinear upsample over the span where that
// overlay has content, then dithers and packs the row into the output
// format. Rows are split across threads; each thread has its own scratch.
//
// Bilinear upsampling runs grid interval by grid interval: within one
// interval the colour is linear in x, so it advances by a constant step
// (forward differencing). Rows are planar (`PlanarRow`) and every loop
// handles four pixels per step: one vector add per channel advances four
// pixels. An interval's last group of four may run past its end; the next
// interval, written after it, overwrites those pixels, and the rows are
// padded for the last one. Overlays are first expanded this way into their
// own planar span, with transparent pixels around it up to whole groups of
// four, then blended group by group: blending a transparent pixel changes
// nothing, so the blend needs no edge cases.

public final class FrameCompositor: @unchecked Sendable {
    /// Per-thread scratch: the float row, an overlay's expanded span, one
    /// interpolated grid row, and a packed row for rotated outputs.
    final class Scratch {
        let row: PlanarRow
        let overlay: PlanarRow
        let overlayAlpha: UnsafeMutablePointer<Float>
        let gridRow: UnsafeMutablePointer<RGBA>
        let packed: UnsafeMutableRawPointer
        init(width: Int, gridWidth: Int) {
            row = .allocate(capacity: width)
            overlay = .allocate(capacity: width)
            let alphaLength = PlanarRow.paddedLength(width)
            overlayAlpha = UnsafeMutableRawPointer.allocate(byteCount: alphaLength * 4, alignment: 16)
                .initializeMemory(as: Float.self, repeating: 0, count: alphaLength)
            gridRow = .allocate(capacity: gridWidth + 2)
            gridRow.initialize(repeating: .zero, count: gridWidth + 2)
            packed = .allocate(byteCount: width * 4, alignment: 16)
        }
        deinit {
            row.deallocate()
            overlay.deallocate()
            overlayAlpha.deallocate()
            gridRow.deallocate()
            packed.deallocate()
        }
    }

    public let maxWidth: Int
    /// (0, 1, 2, 3), read from memory: as a literal the optimiser folds it
    /// into each product and scalarises the per-interval setup (3× the
    /// instructions).
    private let laneRamp = SIMD4<Float>(0, 1, 2, 3)
    private let scratch: [Scratch]

    /// `maxGridWidth` bounds every surface's width; `threads` the number of
    /// row bands composed at once.
    public init(maxWidth: Int, maxGridWidth: Int, threads: Int) {
        self.maxWidth = maxWidth
        scratch = (0..<max(threads, 1)).map { _ in Scratch(width: maxWidth, gridWidth: max(maxGridWidth, maxWidth)) }
    }

    public var threadCapacity: Int { scratch.count }

    /// Composes rows [rowStart, rowEnd) of the frame with scratch `slot`.
    /// `overlays[k]` is drawn with `opacities[k]` (0 skips it).
    public func compose(base: Surface, overlays: UnsafeBufferPointer<Surface>, opacities: UnsafeBufferPointer<Float>,
                        into output: PixelBuffer, rows: Range<Int>, slot: Int) {
        let s = scratch[slot]
        let width = output.width
        precondition(width <= maxWidth)
        for y in rows {
            upsampleBase(base, y: y, width: width, scratch: s)
            for k in 0..<overlays.count where opacities[k] > 0 {
                blendOverlay(overlays[k], opacity: opacities[k], y: y, width: width, scratch: s)
            }
            if output.rotation == .none {
                PixelPacker.pack(s.row, count: width, y: y, format: output.format, into: output.base + y * output.stride)
            } else {
                PixelPacker.pack(s.row, count: width, y: y, format: output.format, into: s.packed)
                scatter(s.packed, y: y, into: output)
            }
        }
    }

    /// Copies a packed frame row to its place in rotated memory, where
    /// consecutive pixels are a row apart (90°, 270°) or run backwards (180°).
    private func scatter(_ packed: UnsafeMutableRawPointer, y: Int, into output: PixelBuffer) {
        let (start, step) = output.address(x: 0, y: y)
        var target = start
        switch output.format.bytesPerPixel {
        case 4:
            let source = packed.assumingMemoryBound(to: UInt32.self)
            for x in 0..<output.width { target.storeBytes(of: source[x], as: UInt32.self); target += step }
        case 2:
            let source = packed.assumingMemoryBound(to: UInt16.self)
            for x in 0..<output.width { target.storeBytes(of: source[x], as: UInt16.self); target += step }
        default:
            let bpp = output.format.bytesPerPixel
            for x in 0..<output.width { target.copyMemory(from: packed + x * bpp, byteCount: bpp); target += step }
        }
    }

    /// Vertical interpolation of grid rows for screen row y into
    /// `gridRow[first...last]`; false when y is outside the grid.
    @inline(__always)
    private func interpolateRows(_ surface: Surface, y: Int, first: Int, last: Int, into gridRow: UnsafeMutablePointer<RGBA>) -> Bool {
        let f = surface.factor
        let relative = y - surface.originY
        guard relative >= 0 else { return false }
        let j = relative / f
        guard j < surface.height else { return false }
        let k = relative - j * f
        let row0 = surface.row(j)
        if k == 0 || j + 1 >= surface.height {
            guard k == 0 else { return false }
            for i in first...last { gridRow[i] = row0[i] }
        } else {
            let row1 = surface.row(j + 1)
            let w = Float(k) / Float(f)
            for i in first...last { gridRow[i] = row0[i] + (row1[i] - row0[i]) * w }
        }
        assert((first...last).allSatisfy { Self.inRange(gridRow[$0]) },
               "surface colour out of premultiplied range: \((first...last).map { gridRow[$0] }.first { !Self.inRange($0) }!) on a \(surface.width)×\(surface.height) grid of factor \(surface.factor)")
        return true
    }

    /// The compositor's contract with whoever draws surfaces: premultiplied
    /// colour with 0 ≤ colour ≤ alpha ≤ 1, give or take float rounding.
    /// Compositing (bilinear weights, source-over) keeps that range, so the
    /// pack needs no clamp: a value up to ~3·10⁻⁵ outside [0, 1] still
    /// packs to 0 or the maximum (the dither keeps 0.008 of a level clear of
    /// rounding up or down). Checked in debug builds, which the tests use.
    static func inRange(_ c: RGBA) -> Bool {
        let tolerance: Float = 1e-5
        return c.w >= -tolerance && c.w <= 1 + tolerance
            && c.x >= -tolerance && c.y >= -tolerance && c.z >= -tolerance
            && c.x <= c.w + tolerance && c.y <= c.w + tolerance && c.z <= c.w + tolerance
    }

    private func upsampleBase(_ base: Surface, y: Int, width: Int, scratch s: Scratch) {
        let f = base.factor
        precondition(base.originX <= 0 && base.originX + (base.width - 1) * f >= width - 1, "base must cover the screen")
        let ok = interpolateRows(base, y: y, first: 0, last: base.width - 1, into: s.gridRow)
        precondition(ok, "base must cover the screen")
        s.gridRow[base.width] = s.gridRow[base.width - 1]
        expand(s.gridRow, originX: base.originX, factor: f, from: 0, through: width - 1,
               red: s.row.red, green: s.row.green, blue: s.row.blue, alpha: nil)
    }

    /// Writes the bilinear upsample of interpolated grid row `grid` for
    /// screen pixels [xStart, xEnd] into planar channels (alpha too unless
    /// nil), scaled by `opacity`. Groups of four may spill up to three
    /// pixels past xEnd.
    @inline(__always)
    private func expand(_ grid: UnsafeMutablePointer<RGBA>, originX: Int, factor f: Int, from xStart: Int, through xEnd: Int,
                        opacity: Float = 1, red: UnsafeMutablePointer<Float>, green: UnsafeMutablePointer<Float>,
                        blue: UnsafeMutablePointer<Float>, alpha: UnsafeMutablePointer<Float>?) {
        let invF = 1 / Float(f)
        let ramp = laneRamp
        var x = xStart
        var i = (xStart - originX) / f
        var k = (xStart - originX) - i * f
        while x <= xEnd {
            let a = grid[i] * opacity, step = (grid[i + 1] * opacity - a) * invF
            let v = a + step * Float(k)
            let lanes = LaneRamps(start: v, step: step, ramp: ramp)
            var r = lanes.red, g = lanes.green, b = lanes.blue
            let n = min(f - k, xEnd - x + 1)
            var m = 0
            if let alpha {
                var w = lanes.alpha
                while m < n {
                    storeLanes(r, red + x + m); storeLanes(g, green + x + m)
                    storeLanes(b, blue + x + m); storeLanes(w, alpha + x + m)
                    r += lanes.redStep; g += lanes.greenStep; b += lanes.blueStep; w += lanes.alphaStep
                    m += 4
                }
            } else {
                while m < n {
                    storeLanes(r, red + x + m); storeLanes(g, green + x + m); storeLanes(b, blue + x + m)
                    r += lanes.redStep; g += lanes.greenStep; b += lanes.blueStep
                    m += 4
                }
            }
            x += n
            i += 1
            k = 0
        }
    }

    private func blendOverlay(_ surface: Surface, opacity: Float, y: Int, width: Int, scratch s: Scratch) {
        let f = surface.factor
        let relative = y - surface.originY
        guard relative >= 0 else { return }
        let j = relative / f
        guard j < surface.height else { return }
        let j1 = min(j + 1, surface.height - 1)
        // Grid columns with content in either source row, widened by one so
        // the interpolation fades to zero at both ends.
        let firstUsed = min(surface.rowFirst[j], surface.rowFirst[j1])
        let lastUsed = max(surface.rowLast[j], surface.rowLast[j1])
        guard firstUsed <= lastUsed else { return }
        let first = max(Int(firstUsed) - 1, 0)
        let last = min(Int(lastUsed) + 1, surface.width - 1)
        // Skip the columns strictly inside both rows' holes (shrunk by one so
        // the interpolation into the hole's edges is kept), in the vertical
        // interpolation too.
        let holeStart = Int(max(surface.holeFirst[j], surface.holeFirst[j1])) + 1
        let holeEnd = Int(min(surface.holeLast[j], surface.holeLast[j1])) - 1
        if holeStart < holeEnd {
            // The left span's last interval reads grid column holeStart + 1.
            guard interpolateRows(surface, y: y, first: first, last: holeStart + 1, into: s.gridRow),
                  interpolateRows(surface, y: y, first: holeEnd, last: last, into: s.gridRow) else { return }
            s.gridRow[last + 1] = .zero
            blendSpan(surface, opacity: opacity, first: first, last: holeStart, width: width, scratch: s)
            blendSpan(surface, opacity: opacity, first: holeEnd, last: last, width: width, scratch: s)
        } else {
            guard interpolateRows(surface, y: y, first: first, last: last, into: s.gridRow) else { return }
            s.gridRow[last + 1] = .zero
            blendSpan(surface, opacity: opacity, first: first, last: last, width: width, scratch: s)
        }
    }

    /// Blends the screen pixels of grid columns [first, last] of the
    /// interpolated grid row over the float row.
    @inline(__always)
    private func blendSpan(_ surface: Surface, opacity: Float, first: Int, last: Int, width: Int, scratch s: Scratch) {
        let f = surface.factor
        let xStart = max(surface.originX + first * f, 0)
        let xEnd = min(surface.originX + last * f, width - 1)
        guard xStart <= xEnd else { return }
        if f >= Self.fusedBlendFactor {
            blendFused(s.gridRow, originX: surface.originX, factor: f, from: xStart, through: xEnd, opacity: opacity, into: s.row)
            return
        }
        // Whole groups of four around the span; pixels of those groups
        // outside it are transparent.
        let groupStart = xStart & ~3, groupEnd = xEnd | 3
        let o = s.overlay, alpha = s.overlayAlpha, row = s.row
        expand(s.gridRow, originX: surface.originX, factor: f, from: xStart, through: xEnd, opacity: opacity,
               red: o.red, green: o.green, blue: o.blue, alpha: alpha)
        for x in groupStart..<xStart { o.red[x] = 0; o.green[x] = 0; o.blue[x] = 0; alpha[x] = 0 }
        for x in stride(from: xEnd + 1, through: groupEnd, by: 1) { o.red[x] = 0; o.green[x] = 0; o.blue[x] = 0; alpha[x] = 0 }
        let one = SIMD4<Float>(repeating: 1)
        var x = groupStart
        while x < groupEnd {
            let keep = one - loadLanes(alpha + x)
            storeLanes(loadLanes(o.red + x) + loadLanes(row.red + x) * keep, row.red + x)
            storeLanes(loadLanes(o.green + x) + loadLanes(row.green + x) * keep, row.green + x)
            storeLanes(loadLanes(o.blue + x) + loadLanes(row.blue + x) * keep, row.blue + x)
            x += 4
        }
    }

    /// From this grid factor up, overlays are upsampled and blended in one
    /// step, interval by interval, with the last group of each interval
    /// masked to transparent past its end. Below it, the per-interval setup
    /// and the partly overlapping groups cost more than the separate
    /// expansion into scratch and aligned blend.
    static let fusedBlendFactor = 16

    @inline(__always)
    private func blendFused(_ grid: UnsafeMutablePointer<RGBA>, originX: Int, factor f: Int, from xStart: Int, through xEnd: Int,
                            opacity: Float, into row: PlanarRow) {
        let invF = 1 / Float(f)
        let ramp = laneRamp
        let one = SIMD4<Float>(repeating: 1)
        var x = xStart
        var i = (xStart - originX) / f
        var k = (xStart - originX) - i * f
        while x <= xEnd {
            let a = grid[i] * opacity, step = (grid[i + 1] * opacity - a) * invF
            let v = a + step * Float(k)
            let lanes = LaneRamps(start: v, step: step, ramp: ramp)
            var r = lanes.red, g = lanes.green, b = lanes.blue, w = lanes.alpha
            let n = min(f - k, xEnd - x + 1)
            let red = row.red + x, green = row.green + x, blue = row.blue + x
            var m = 0
            while m + 4 <= n {
                let keep = one - w
                storeLanes(r + loadAnyLanes(red + m) * keep, red + m)
                storeLanes(g + loadAnyLanes(green + m) * keep, green + m)
                storeLanes(b + loadAnyLanes(blue + m) * keep, blue + m)
                r += lanes.redStep; g += lanes.greenStep; b += lanes.blueStep; w += lanes.alphaStep
                m += 4
            }
            if m < n {
                // Lanes past the interval's end blend nothing (mask 0).
                let mask = clampToRange(SIMD4(repeating: Float(n - m)) - ramp, 1)
                r *= mask; g *= mask; b *= mask; w *= mask
                let keep = one - w
                storeLanes(r + loadAnyLanes(red + m) * keep, red + m)
                storeLanes(g + loadAnyLanes(green + m) * keep, green + m)
                storeLanes(b + loadAnyLanes(blue + m) * keep, blue + m)
            }
            x += n
            i += 1
            k = 0
        }
    }
}

/// One grid interval's colour along four consecutive pixels: each channel's
/// lanes start at pixels k..k+3 and advance four pixels per step.
struct LaneRamps {
    var red, green, blue, alpha: SIMD4<Float>
    var redStep, greenStep, blueStep, alphaStep: SIMD4<Float>

    @inline(__always)
    init(start v: RGBA, step: RGBA, ramp: SIMD4<Float>) {
        let r = SIMD4(repeating: step.x), g = SIMD4(repeating: step.y), b = SIMD4(repeating: step.z), a = SIMD4(repeating: step.w)
        red = SIMD4(repeating: v.x) + r * ramp
        green = SIMD4(repeating: v.y) + g * ramp
        blue = SIMD4(repeating: v.z) + b * ramp
        alpha = SIMD4(repeating: v.w) + a * ramp
        redStep = r * 4
        greenStep = g * 4
        blueStep = b * 4
        alphaStep = a * 4
    }
}
