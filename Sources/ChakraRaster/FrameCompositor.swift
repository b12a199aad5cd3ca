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
// (forward differencing), one vector add per pixel.

public final class FrameCompositor: @unchecked Sendable {
    /// Per-thread scratch: the float row and one interpolated grid row.
    final class Scratch {
        let row: UnsafeMutablePointer<RGBA>
        let gridRow: UnsafeMutablePointer<RGBA>
        /// A packed row on its way to rotated memory.
        let packed: UnsafeMutableRawPointer
        init(width: Int, gridWidth: Int) {
            packed = .allocate(byteCount: width * 4, alignment: 16)
            row = .allocate(capacity: width)
            row.initialize(repeating: .zero, count: width)
            gridRow = .allocate(capacity: gridWidth + 2)
            gridRow.initialize(repeating: .zero, count: gridWidth + 2)
        }
        deinit {
            row.deallocate()
            gridRow.deallocate()
            packed.deallocate()
        }
    }

    public let maxWidth: Int
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
        return true
    }

    private func upsampleBase(_ base: Surface, y: Int, width: Int, scratch s: Scratch) {
        let f = base.factor
        precondition(base.originX <= 0 && base.originX + (base.width - 1) * f >= width - 1, "base must cover the screen")
        let ok = interpolateRows(base, y: y, first: 0, last: base.width - 1, into: s.gridRow)
        precondition(ok, "base must cover the screen")
        s.gridRow[base.width] = s.gridRow[base.width - 1]
        let grid = s.gridRow, row = s.row
        let invF = 1 / Float(f)
        var x = 0
        var i = (0 - base.originX) / f
        var k = (0 - base.originX) - i * f
        while x < width {
            let a = grid[i], step = (grid[i + 1] - a) * invF
            var v = a + step * Float(k)
            let n = min(f - k, width - x)
            for _ in 0..<n {
                row[x] = v
                v += step
                x += 1
            }
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
        guard interpolateRows(surface, y: y, first: first, last: last, into: s.gridRow) else { return }
        s.gridRow[last + 1] = .zero
        // Skip the columns strictly inside both rows' holes (shrunk by one so
        // the interpolation into the hole's edges is kept).
        let holeStart = Int(max(surface.holeFirst[j], surface.holeFirst[j1])) + 1
        let holeEnd = Int(min(surface.holeLast[j], surface.holeLast[j1])) - 1
        if holeStart < holeEnd {
            blendSpan(surface, opacity: opacity, first: first, last: holeStart, width: width, scratch: s)
            blendSpan(surface, opacity: opacity, first: holeEnd, last: last, width: width, scratch: s)
        } else {
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
        let grid = s.gridRow, row = s.row
        let invF = 1 / Float(f)
        var x = xStart
        var i = (xStart - surface.originX) / f
        var k = (xStart - surface.originX) - i * f
        while x <= xEnd {
            let a = grid[i] * opacity, step = (grid[i + 1] * opacity - a) * invF
            var v = a + step * Float(k)
            let n = min(f - k, xEnd - x + 1)
            for _ in 0..<n {
                row[x] = v + row[x] * (1 - v.w)
                v += step
                x += 1
            }
            i += 1
            k = 0
        }
    }
}
