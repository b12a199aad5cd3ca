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
// padded for the last one. The base is expanded this way per output row.
// Overlays are expanded per grid row instead (`ExpandedRows`: the interval
// setup is then paid once per grid row, not once per output row) with
// transparent pixels around them up to whole groups of four; an output row
// blends the vertical interpolation of two expanded rows group by group:
// blending a transparent pixel changes nothing, so the blend needs no edge
// cases.
//
// Pixel indices in the inner loops advance with &+=: they are bounded by the
// row width and cannot overflow, and the overflow check would be one more
// instruction per group of four.

/// Paints sharp, screen-resolution content (a stroke, text) straight into
/// the float row of the final pass, over the base and under the overlays:
/// content that would need a factor-1 overlay, whose upsampling costs an
/// interval setup per pixel, is cheaper written where it lands. Called from
/// several threads at once for different rows; it must write only pixels
/// [0, width) of the row it is given and keep it opaque (source-over).
public protocol SharpRowPainter: AnyObject {
    func paint(row: PlanarRow, y: Int, width: Int)
}

public final class FrameCompositor: @unchecked Sendable {
    /// Per-thread scratch: the float row, one grid row, a packed row for
    /// rotated outputs, and the overlays' expanded rows.
    final class Scratch {
        let row: PlanarRow
        let gridRow: UnsafeMutablePointer<RGBA>
        let packed: UnsafeMutableRawPointer
        /// Per overlay index, its last two grid rows at screen resolution.
        let expanded: [ExpandedRows]
        init(width: Int, gridWidth: Int, overlays: Int) {
            expanded = (0..<overlays).map { _ in ExpandedRows(width: width) }
            row = .allocate(capacity: width)
            gridRow = .allocate(capacity: gridWidth + 2)
            gridRow.initialize(repeating: .zero, count: gridWidth + 2)
            packed = .allocate(byteCount: width * 4, alignment: 16)
        }
        deinit {
            row.deallocate()
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
    /// row bands composed at once; `maxOverlays` the overlays per frame.
    public init(maxWidth: Int, maxGridWidth: Int, threads: Int, maxOverlays: Int = 8) {
        self.maxWidth = maxWidth
        scratch = (0..<max(threads, 1)).map { _ in Scratch(width: maxWidth, gridWidth: max(maxGridWidth, maxWidth), overlays: maxOverlays) }
    }

    public var threadCapacity: Int { scratch.count }

    private var frames = 0

    /// Call once per frame, after the surfaces are drawn and before any
    /// `compose` of that frame: rows expanded from earlier contents are
    /// stale from here on.
    public func beginFrame() -> FrameToken {
        frames += 1
        return FrameToken(value: frames)
    }

    /// Composes rows [rowStart, rowEnd) of the frame with scratch `slot`.
    /// `overlays[k]` is drawn with `opacities[k]` (0 skips it). `frame`
    /// comes from this frame's `beginFrame()`. `sharp`, if any, paints each
    /// row's sharp content between the base and the overlays.
    public func compose(base: Surface, overlays: UnsafeBufferPointer<Surface>, opacities: UnsafeBufferPointer<Float>,
                        into output: PixelBuffer, rows: Range<Int>, slot: Int, frame: FrameToken, sharp: SharpRowPainter? = nil) {
        let s = scratch[slot]
        let width = output.width
        precondition(width <= maxWidth && overlays.count <= s.expanded.count)
        for y in rows {
            upsampleBase(base, y: y, width: width, scratch: s)
            sharp?.paint(row: s.row, y: y, width: width)
            for k in 0..<overlays.count where opacities[k] > 0 {
                blendOverlay(k, overlays[k], opacity: opacities[k], y: y, frame: frame, width: width, scratch: s)
            }
            if output.rotation == .none {
                PixelPacker.pack(s.row, count: width, y: y, format: output.format, into: output.base + y * output.stride, streaming: true)
            } else {
                PixelPacker.pack(s.row, count: width, y: y, format: output.format, into: s.packed)
                output.scatter(packedRow: s.packed, y: y)
            }
        }
        // This thread's streamed rows are in memory before the frame is shown.
        PixelPacker.finishStreaming()
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
    /// nil). Groups of four may spill up to three pixels past xEnd.
    @inline(__always)
    private func expand(_ grid: UnsafeMutablePointer<RGBA>, originX: Int, factor f: Int, from xStart: Int, through xEnd: Int,
                        red: UnsafeMutablePointer<Float>, green: UnsafeMutablePointer<Float>,
                        blue: UnsafeMutablePointer<Float>, alpha: UnsafeMutablePointer<Float>?) {
        let invF = 1 / Float(f)
        let ramp = laneRamp
        var x = xStart
        var i = (xStart - originX) / f
        var k = (xStart - originX) - i * f
        while x <= xEnd {
            let lanes = LaneRamps(from: grid[i], to: grid[i + 1], invF: invF, offsets: ramp + Float(k))
            var r = lanes.red, g = lanes.green, b = lanes.blue
            let n = min(f - k, xEnd - x + 1)
            var m = 0
            if let alpha {
                var w = lanes.alpha
                while m < n {
                    storeLanes(r, red + x + m); storeLanes(g, green + x + m)
                    storeLanes(b, blue + x + m); storeLanes(w, alpha + x + m)
                    r += lanes.redStep; g += lanes.greenStep; b += lanes.blueStep; w += lanes.alphaStep
                    m &+= 4
                }
            } else {
                while m < n {
                    storeLanes(r, red + x + m); storeLanes(g, green + x + m); storeLanes(b, blue + x + m)
                    r += lanes.redStep; g += lanes.greenStep; b += lanes.blueStep
                    m &+= 4
                }
            }
            x &+= n
            i += 1
            k = 0
        }
    }

    /// Blends overlay `k` at screen row y: the vertical interpolation of
    /// its two grid rows around y, each already expanded to screen pixels
    /// (`ExpandedRows`), over the float row.
    private func blendOverlay(_ k: Int, _ surface: Surface, opacity: Float, y: Int, frame: FrameToken, width: Int, scratch s: Scratch) {
        let f = surface.factor
        let relative = y - surface.originY
        guard relative >= 0 else { return }
        let j = relative / f
        guard j < surface.height else { return }
        let w = Float(relative - j * f) / Float(f)
        let rows = s.expanded[k]
        let a = rows.slot(for: j, keeping: j + 1, frame: frame) { expandRow(surface, j, width: width, into: $0, scratch: s) }
        if w == 0 {
            blend(a, weight: opacity, nil, weight: 0, into: s.row)
        } else {
            let b = rows.slot(for: j + 1, keeping: j, frame: frame) { expandRow(surface, j + 1, width: width, into: $0, scratch: s) }
            blend(a, weight: opacity * (1 - w), b, weight: opacity * w, into: s.row)
        }
    }

    /// Expands grid row j of `surface` (transparent outside the grid) to
    /// screen pixels. Only the row's content extent is written, minus the
    /// inside of its hole (shrunk by one column, so the interpolation into
    /// the hole's edges is kept); everything else in `row` stays zero.
    private func expandRow(_ surface: Surface, _ j: Int, width: Int, into row: ExpandedRow, scratch s: Scratch) {
        guard j < surface.height, surface.rowFirst[j] <= surface.rowLast[j] else { return row.prepare(0..<0, 0..<0) }
        let f = surface.factor, originX = surface.originX
        // Widened by one column so the interpolation fades to zero at both ends.
        let first = max(Int(surface.rowFirst[j]) - 1, 0)
        let last = min(Int(surface.rowLast[j]) + 1, surface.width - 1)
        let xStart = max(originX + first * f, 0)
        let xEnd = min(originX + last * f, width - 1)
        guard xStart <= xEnd else { return row.prepare(0..<0, 0..<0) }
        let source = surface.row(j)
        for i in first...last { s.gridRow[i] = source[i] }
        s.gridRow[last + 1] = .zero
        assert((first...last).allSatisfy { Self.inRange(s.gridRow[$0]) },
               "surface colour out of premultiplied range in row \(j) of a \(surface.width)×\(surface.height) grid of factor \(f)")
        // Two parts around the hole, or one.
        var left = xStart..<(xEnd + 1), right = (xEnd + 1)..<(xEnd + 1)
        let holeStart = Int(surface.holeFirst[j]) + 1, holeEnd = Int(surface.holeLast[j]) - 1
        if holeStart < holeEnd {
            // The left part's last interval reads grid column holeStart + 1.
            let leftEnd = min(originX + holeStart * f, xEnd), rightStart = max(originX + holeEnd * f, xStart)
            left = xStart..<max(leftEnd + 1, xStart)
            right = min(rightStart, xEnd + 1)..<(xEnd + 1)
        }
        row.prepare(left, right)
        if !left.isEmpty {
            expand(s.gridRow, originX: originX, factor: f, from: left.lowerBound, through: left.upperBound - 1,
                   red: row.red, green: row.green, blue: row.blue, alpha: row.alpha)
            row.clearSpill(after: left.upperBound - 1, before: right.isEmpty ? .max : right.lowerBound)
        }
        if !right.isEmpty {
            expand(s.gridRow, originX: originX, factor: f, from: right.lowerBound, through: right.upperBound - 1,
                   red: row.red, green: row.green, blue: row.blue, alpha: row.alpha)
            row.clearSpill(after: right.upperBound - 1, before: .max)
        }
    }

    /// Source-over of `wa`·a + `wb`·b (premultiplied) on the float row, in
    /// whole groups of four over the union of the rows' extents, skipping
    /// groups inside both holes (zero there).
    @inline(__always)
    private func blend(_ a: ExpandedRow, weight wa: Float, _ b: ExpandedRow?, weight wb: Float, into row: PlanarRow) {
        var lo = a.start, hi = a.end
        var skipLo = a.holeStart, skipHi = a.holeEnd
        if let b, b.start < b.end {
            if lo < hi {
                lo = min(lo, b.start); hi = max(hi, b.end)
                skipLo = max(skipLo, b.holeStart); skipHi = min(skipHi, b.holeEnd)
            } else {
                (lo, hi, skipLo, skipHi) = (b.start, b.end, b.holeStart, b.holeEnd)
            }
        }
        guard lo < hi else { return }
        if skipLo >= skipHi || skipLo >= hi || skipHi <= lo {
            blendGroups(a, wa, b, wb, from: lo, to: hi, into: row)
        } else {
            blendGroups(a, wa, b, wb, from: lo, to: max(skipLo, lo), into: row)
            blendGroups(a, wa, b, wb, from: min(skipHi, hi), to: hi, into: row)
        }
    }

    @inline(__always)
    private func blendGroups(_ a: ExpandedRow, _ wa: Float, _ b: ExpandedRow?, _ wb: Float, from lo: Int, to hi: Int, into row: PlanarRow) {
        let one = SIMD4<Float>(repeating: 1)
        var x = lo
        if let b {
            while x < hi {
                let alpha = loadLanes(a.alpha + x) * wa + loadLanes(b.alpha + x) * wb
                let keep = one - alpha
                storeLanes(loadLanes(a.red + x) * wa + loadLanes(b.red + x) * wb + loadLanes(row.red + x) * keep, row.red + x)
                storeLanes(loadLanes(a.green + x) * wa + loadLanes(b.green + x) * wb + loadLanes(row.green + x) * keep, row.green + x)
                storeLanes(loadLanes(a.blue + x) * wa + loadLanes(b.blue + x) * wb + loadLanes(row.blue + x) * keep, row.blue + x)
                x &+= 4
            }
        } else {
            while x < hi {
                let keep = one - loadLanes(a.alpha + x) * wa
                storeLanes(loadLanes(a.red + x) * wa + loadLanes(row.red + x) * keep, row.red + x)
                storeLanes(loadLanes(a.green + x) * wa + loadLanes(row.green + x) * keep, row.green + x)
                storeLanes(loadLanes(a.blue + x) * wa + loadLanes(row.blue + x) * keep, row.blue + x)
                x &+= 4
            }
        }
    }
}

/// One grid interval's colour along four consecutive pixels: each channel's
/// lanes start at pixels k..k+3 of the interval and advance four pixels per
/// step.
struct LaneRamps {
    var red, green, blue, alpha: SIMD4<Float>
    var redStep, greenStep, blueStep, alphaStep: SIMD4<Float>

    /// From grid value `a` to `b` over 1/invF pixels; `offsets` = k + (0, 1, 2, 3).
    /// Each channel is spread over the lanes first and the arithmetic done
    /// on the spread vectors: computed on the RGBA vector and spread after,
    /// the optimiser scalarises it (one instruction per channel and lane).
    @inline(__always)
    init(from a: RGBA, to b: RGBA, invF: Float, offsets: SIMD4<Float>) {
        let r = SIMD4(repeating: a.x), g = SIMD4(repeating: a.y), bl = SIMD4(repeating: a.z), w = SIMD4(repeating: a.w)
        let dr = (SIMD4(repeating: b.x) - r) * invF, dg = (SIMD4(repeating: b.y) - g) * invF
        let db = (SIMD4(repeating: b.z) - bl) * invF, dw = (SIMD4(repeating: b.w) - w) * invF
        red = r + dr * offsets
        green = g + dg * offsets
        blue = bl + db * offsets
        alpha = w + dw * offsets
        redStep = dr * 4
        greenStep = dg * 4
        blueStep = db * 4
        alphaStep = dw * 4
    }
}
