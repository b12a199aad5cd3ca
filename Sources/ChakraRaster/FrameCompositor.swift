import CLanes
import CStreamStore
// The fused final pass: every output pixel is written once.
//
// A frame is an opaque base surface (usually coarse: the soft full-screen
// layers) and a stack of premultiplied overlay surfaces, each on its own
// grid. Row by row the compositor upsamples the base bilinearly into a float
// row, blends each overlay's bilinear upsample over the span where that
// overlay has content, then dithers and packs the row into the output
// format. Rows are split across threads; each thread has its own scratch.
//
// Rows are planar 16-bit fixed point (`FixedRow`) and every loop handles
// eight pixels per step. Bilinear upsampling runs grid interval by grid
// interval: within one interval the colour is linear in x, a + d·k/f at
// pixel k, so a group of eight is one high-half multiply and one add per
// channel (the fractions k/f in Q15 lanes advance by eight steps a group).
// An interval's last group of eight may run past its end; the next
// interval, written after it, overwrites those pixels, and the rows are
// padded for the last one. The base is expanded this way per output row.
// Overlays are expanded per grid row instead (`ExpandedRows`: the interval
// setup is then paid once per grid row, not once per output row) with
// transparent pixels around them up to whole groups of eight; an output row
// blends the vertical interpolation of two expanded rows group by group:
// blending a transparent pixel changes nothing, so the blend needs no edge
// cases.
//
// Pixel indices in the inner loops advance with &+=: they are bounded by the
// row width and cannot overflow, and the overflow check would be one more
// instruction per group.

/// Paints sharp, screen-resolution content (a stroke, text) straight into
/// the fixed-point row of the final pass, over the base and under the overlays:
/// content that would need a factor-1 overlay, whose upsampling costs an
/// interval setup per pixel, is cheaper written where it lands. Called from
/// several threads at once for different rows; it must write only pixels
/// [0, width) of the row it is given and keep it opaque (source-over).
///
/// Only the row's `spans` are composed twice (the base into the row, then
/// the row as the base of the overlays); elsewhere the base goes straight
/// to the overlays, as in a frame without sharp content.
public protocol SharpRowPainter: AnyObject {
    /// Where row y's content may land: at most `capacity` pixel ranges,
    /// start and end (exclusive) in turn from `spans[0]`, in any order,
    /// overlapping or not; returns how many. What `paint` writes outside
    /// them is not shown.
    func spans(y: Int, width: Int, into spans: UnsafeMutablePointer<Int>, capacity: Int) -> Int
    func paint(row: FixedRow, y: Int, width: Int)
}

/// How an overlay stands to the base a frame is composed on, when that base
/// has soft overlays folded into it (`Folding`).
public enum OverlayRole: Int32, Sendable {
    /// Over the base, whichever base a span takes.
    case over = 0
    /// Blended into the base at its grid points already; blended per pixel
    /// only in spans an `under` overlay covers.
    case folded = 1
    /// Below a folded overlay: where it has content the base cannot be
    /// used, and the plain base with every overlay in order takes its place.
    case under = 2
}

/// A frame's base with soft, full-screen-ish overlays blended into it at its
/// grid points (`FrameCompositor.compose(... folding:)`): each of them then
/// costs a grid cell's work, not a blend per pixel. Exact where no overlay
/// lies under them; spans where one does are composed from `plainBase` and
/// every overlay, so the stacking order holds everywhere.
public struct Folding {
    public let plainBase: Surface
    /// One per overlay. Every `under` overlay lies below every `folded` one,
    /// and every `over` overlay above them.
    public let roles: UnsafeBufferPointer<OverlayRole>
    public init(plainBase: Surface, roles: UnsafeBufferPointer<OverlayRole>) {
        (self.plainBase, self.roles) = (plainBase, roles)
    }
}

public final class FrameCompositor: @unchecked Sendable {
    /// Per-thread scratch: the fixed-point row, one grid row, a packed row
    /// for rotated outputs, and the overlays' expanded rows.
    final class Scratch {
        let row: FixedRow
        let gridRow: UnsafeMutablePointer<RGBA>
        let packed: UnsafeMutableRawPointer
        /// Per overlay index, its last two grid rows at screen resolution.
        let expanded: UnsafeMutablePointer<ExpandedRows>
        /// The base's last two grid rows at screen resolution (8.6 fixed
        /// point, as the row itself; alpha unused).
        let baseRows: UnsafeMutablePointer<ExpandedRows>
        /// The step per output row from the base's grid row `row` to `row`
        /// + 1, expanded (`chakra_base_step`).
        let baseStep: UnsafeMutablePointer<ExpandedRow>
        /// The same for the plain base of a folded frame (`Folding`).
        let plainRows: UnsafeMutablePointer<ExpandedRows>
        let plainStep: UnsafeMutablePointer<ExpandedRow>
        /// The grid interval of the base (and the plain base) the last row
        /// was in, as the final pass takes it: the rows after it in the
        /// same interval only change k.
        var baseInterval = BaseInterval(), plainInterval = BaseInterval()
        let overlayCapacity: Int
        /// This call's overlays as views (no reference counting per row).
        let views: UnsafeMutablePointer<SurfaceView>
        /// One output row's overlays as the fused loop takes them, and its
        /// scratch (span edges, the overlays of a span).
        let overlayRows: UnsafeMutablePointer<chakra_overlay_row>
        let edges: UnsafeMutablePointer<Int>
        let active: UnsafeMutablePointer<UnsafePointer<chakra_overlay_row>?>
        /// A band's overlays that may have content on its rows, in order.
        let candidates: UnsafeMutablePointer<Int>
        /// A row's sharp content's spans (start and end in turn), and the
        /// most a painter may give.
        let sharpSpans: UnsafeMutablePointer<Int>
        static let sharpCapacity = 16
        /// One overlay grid row in expanded-row units, planar, for
        /// `chakra_expand_cells`.
        let cells: ExpandedRow
        init(width: Int, gridWidth: Int, overlays: Int) {
            overlayCapacity = overlays
            expanded = .allocate(capacity: overlays)
            for k in 0..<overlays { (expanded + k).initialize(to: ExpandedRows(width: width)) }
            views = .allocate(capacity: overlays)
            overlayRows = .allocate(capacity: overlays)
            edges = .allocate(capacity: 4 * overlays + 2 + 2 * Self.sharpCapacity)
            sharpSpans = .allocate(capacity: 2 * Self.sharpCapacity)
            active = .allocate(capacity: overlays)
            candidates = .allocate(capacity: overlays)
            cells = ExpandedRow(width: gridWidth + 16)
            baseRows = .allocate(capacity: 1)
            baseRows.initialize(to: ExpandedRows(width: width))
            baseStep = .allocate(capacity: 1)
            baseStep.initialize(to: ExpandedRow(width: width))
            plainRows = .allocate(capacity: 1)
            plainRows.initialize(to: ExpandedRows(width: width))
            plainStep = .allocate(capacity: 1)
            plainStep.initialize(to: ExpandedRow(width: width))
            row = FixedRow.allocate(capacity: width)
            gridRow = .allocate(capacity: gridWidth + 8)
            gridRow.initialize(repeating: .zero, count: gridWidth + 8)
            packed = .allocate(byteCount: width * 4, alignment: 16)
        }
        deinit {
            for k in 0..<overlayCapacity { expanded[k].deallocate() }
            expanded.deallocate()
            cells.deallocate()
            baseRows.pointee.deallocate()
            baseRows.deallocate()
            baseStep.pointee.deallocate()
            baseStep.deallocate()
            plainRows.pointee.deallocate()
            plainRows.deallocate()
            plainStep.pointee.deallocate()
            plainStep.deallocate()
            views.deallocate()
            overlayRows.deallocate()
            edges.deallocate()
            sharpSpans.deallocate()
            active.deallocate()
            candidates.deallocate()
            row.deallocate()
            gridRow.deallocate()
            packed.deallocate()
        }
    }

    public let maxWidth: Int
    /// (0, 1, ..., 7), read from memory: as a literal the optimiser folds
    /// it into each product and scalarises the per-interval setup.
    private let laneRamp = SIMD8<Int16>(0, 1, 2, 3, 4, 5, 6, 7)
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

    /// Rows of the final pass a thread takes at a time.
    public static let band = 16

    /// The final pass of a frame run by one of a pool's threads: bands of
    /// `band` rows taken from `counter` (reset for this pass) as the thread
    /// comes free, until every row of `output` is composed. The scenes'
    /// overlays crowd the middle of the screen, so fixed shares of rows
    /// would leave a thread idle. `slot`: the thread's scratch (its part).
    public func composeBands(base: Surface, overlays: UnsafeBufferPointer<Surface>, opacities: UnsafeBufferPointer<Float>,
                             into output: PixelBuffer, taking counter: WorkCounter, slot: Int, frame: FrameToken,
                             sharp: SharpRowPainter? = nil, folding: Folding? = nil) {
        composeBands(base: base, still: nil, overlays: overlays, opacities: opacities, into: output, taking: counter, slot: slot,
                     frame: frame, sharp: sharp, folding: folding)
    }

    /// `composeBands` on a base that never changes (`still(_:width:)`).
    public func composeBands(base: StillBase, overlays: UnsafeBufferPointer<Surface>, opacities: UnsafeBufferPointer<Float>,
                             into output: PixelBuffer, taking counter: WorkCounter, slot: Int, frame: FrameToken,
                             sharp: SharpRowPainter? = nil) {
        composeBands(base: base.surface, still: base, overlays: overlays, opacities: opacities, into: output, taking: counter,
                     slot: slot, frame: frame, sharp: sharp, folding: nil)
    }

    private func composeBands(base: Surface, still: StillBase?, overlays: UnsafeBufferPointer<Surface>, opacities: UnsafeBufferPointer<Float>,
                              into output: PixelBuffer, taking counter: WorkCounter, slot: Int, frame: FrameToken,
                              sharp: SharpRowPainter?, folding: Folding?) {
        let height = output.height
        while true {
            let start = counter.take() * Self.band
            guard start < height else { return }
            compose(base: base, still: still, overlays: overlays, opacities: opacities, into: output,
                    rows: start..<min(start + Self.band, height), slot: slot, frame: frame, sharp: sharp, folding: folding)
        }
    }

    /// Composes rows [rowStart, rowEnd) of the frame with scratch `slot`.
    /// `overlays[k]` is drawn with `opacities[k]` (0 skips it). `frame`
    /// comes from this frame's `beginFrame()`. `sharp`, if any, paints each
    /// row's sharp content between the base and the overlays. `folding`:
    /// `base` holds the overlays it marks folded (see `Folding`).
    public func compose(base: Surface, overlays: UnsafeBufferPointer<Surface>, opacities: UnsafeBufferPointer<Float>,
                        into output: PixelBuffer, rows: Range<Int>, slot: Int, frame: FrameToken, sharp: SharpRowPainter? = nil,
                        folding: Folding? = nil) {
        compose(base: base, still: nil, overlays: overlays, opacities: opacities, into: output, rows: rows, slot: slot, frame: frame,
                sharp: sharp, folding: folding)
    }

    /// `compose` on a base that never changes (`still(_:width:)`).
    public func compose(base: StillBase, overlays: UnsafeBufferPointer<Surface>, opacities: UnsafeBufferPointer<Float>,
                        into output: PixelBuffer, rows: Range<Int>, slot: Int, frame: FrameToken, sharp: SharpRowPainter? = nil) {
        compose(base: base.surface, still: base, overlays: overlays, opacities: opacities, into: output, rows: rows, slot: slot,
                frame: frame, sharp: sharp, folding: nil)
    }

    /// `base`'s expanded rows from `still` where given (made from `base`).
    private func compose(base: Surface, still: StillBase?, overlays: UnsafeBufferPointer<Surface>, opacities: UnsafeBufferPointer<Float>,
                         into output: PixelBuffer, rows: Range<Int>, slot: Int, frame: FrameToken, sharp: SharpRowPainter?,
                         folding: Folding?) {
        let s = scratch[slot]
        let width = output.width
        precondition(width <= maxWidth && overlays.count <= s.overlayCapacity)
        precondition(still == nil || still!.width == width, "the still base was made for another width")
        precondition(folding == nil || (sharp == nil && folding!.roles.count == overlays.count), "folding: one role per overlay, no sharp painter")
        for k in 0..<overlays.count { s.views[k] = overlays[k].view }
        let baseView = base.view
        let plainView = folding?.plainBase.view
        let roles = folding?.roles
        let packsWords = output.format == .xrgb8888 || output.format == .argb8888 || output.format == .xbgr8888
        let streams = chakra_stream_available() != 0
        // The overlays shown whose grid reaches these rows: most lie in a
        // few bands of the screen, and asking each for each row cost the
        // heart a call per overlay and row.
        var candidateCount = 0
        for k in 0..<overlays.count where opacities[k] > 0 {
            let view = s.views[k]
            let top = view.originY, bottom = view.originY + view.height * view.factor
            if top < rows.upperBound && bottom > rows.lowerBound {
                s.candidates[candidateCount] = k
                candidateCount += 1
            }
        }
        for y in rows {
            var baseRow = still?.row(at: y)
                ?? baseRowAt(baseView, y: y, width: width, frame: frame, rows: s.baseRows, step: s.baseStep, interval: &s.baseInterval,
                             scratch: s)
            var sharpRow = chakra_sharp_spans(row: nil, spans: s.sharpSpans, count: 0)
            if let sharp {
                sharpRow.count = Int32(Self.groupSpans(sharp.spans(y: y, width: width, into: s.sharpSpans, capacity: Scratch.sharpCapacity),
                                                       s.sharpSpans, width: width))
            }
            if let sharp, sharpRow.count > 0 {
                // Where the sharp content lands, the base into the row and
                // the content over it; the row is then those spans' base.
                var toRow = rowOutput(s.row, dither: PixelPacker.dither(y))
                chakra_compose_base_spans(&baseRow, s.sharpSpans, sharpRow.count, &toRow)
                sharp.paint(row: s.row, y: y, width: width)
            }
            var count: Int32 = 0
            // A folded overlay is needed only where an under overlay is: all
            // of those come before it.
            var underAny = false
            if let roles {
                for c in 0..<candidateCount {
                    let k = s.candidates[c]
                    let role = roles[k]
                    if role == .folded && !underAny { continue }
                    if overlayRow(k, s.views[k], opacity: opacities[k], y: y, frame: frame, width: width, scratch: s,
                                  into: &s.overlayRows[Int(count)]) {
                        s.overlayRows[Int(count)].role = role.rawValue
                        underAny = underAny || role == .under
                        count += 1
                    }
                }
            } else {
                for c in 0..<candidateCount {
                    let k = s.candidates[c]
                    if overlayRow(k, s.views[k], opacity: opacities[k], y: y, frame: frame, width: width, scratch: s,
                                  into: &s.overlayRows[Int(count)]) {
                        count += 1
                    }
                }
            }
            var plainRow = baseRow
            if underAny, let plainView {
                plainRow = baseRowAt(plainView, y: y, width: width, frame: frame, rows: s.plainRows, step: s.plainStep,
                                     interval: &s.plainInterval, scratch: s)
            }
            let dither = PixelPacker.dither(y)
            if packsWords {
                let target = output.rotation == .none ? output.base + y * output.stride : s.packed
                let stream = output.rotation == .none && streams && Int(bitPattern: target) & 15 == 0
                var out = chakra_row_output(pixels: target, red: nil, green: nil, blue: nil, dither: dither,
                                            redFirst: output.format == .xbgr8888 ? 1 : 0, stream: stream ? 1 : 0)
                composeRow(&baseRow, underAny ? plainRow : nil, count, &out, width: width, scratch: s, sharp: &sharpRow)
                if output.rotation != .none { output.scatter(packedRow: s.packed, y: y) }
            } else {
                var out = rowOutput(s.row, dither: dither)
                composeRow(&baseRow, underAny ? plainRow : nil, count, &out, width: width, scratch: s, sharp: &sharpRow)
                if output.rotation == .none {
                    PixelPacker.pack(s.row, count: width, y: y, format: output.format, into: output.base + y * output.stride)
                } else {
                    PixelPacker.pack(s.row, count: width, y: y, format: output.format, into: s.packed)
                    output.scatter(packedRow: s.packed, y: y)
                }
            }
        }
        // This thread's streamed rows are in memory before the frame is shown.
        PixelPacker.finishStreaming()
    }

    /// One row through the fused loop, with the plain base where a folded
    /// frame has one.
    @inline(__always)
    private func composeRow(_ base: inout chakra_base_row, _ plain: chakra_base_row?, _ count: Int32, _ out: inout chakra_row_output,
                            width: Int, scratch s: Scratch, sharp: inout chakra_sharp_spans) {
        guard sharp.count == 0 else {
            // The sharp spans' base: the row they were painted into, whole
            // (a zero step). Composing into that same row reads each group
            // before it writes it.
            var painted = chakra_base_row(red: s.row.red, green: s.row.green, blue: s.row.blue,
                                          stepRed: s.row.red, stepGreen: s.row.green, stepBlue: s.row.blue, k: 0)
            return withUnsafePointer(to: &painted) { painted in
                sharp.row = painted
                chakra_compose_row_sharp(&base, s.overlayRows, count, &out, width, s.edges, s.active, &sharp)
            }
        }
        if var plain {
            chakra_compose_row(&base, &plain, s.overlayRows, count, &out, width, s.edges, s.active)
        } else {
            chakra_compose_row(&base, nil, s.overlayRows, count, &out, width, s.edges, s.active)
        }
    }

    /// A painter's spans as `chakra_compose_row` takes them, in place: cut
    /// to the row, widened to whole groups of eight, sorted, and merged
    /// where they overlap or lie closer than `sharpMergeGap` (a span's own
    /// setup costs more than composing a few groups twice). Returns the
    /// count.
    static func groupSpans(_ count: Int, _ spans: UnsafeMutablePointer<Int>, width: Int) -> Int {
        let groups = (width + 7) & ~7
        var n = 0
        for i in 0..<min(count, Scratch.sharpCapacity) {
            let start = max(spans[2 * i], 0) & ~7, end = (min(spans[2 * i + 1], width) + 7) & ~7
            guard start < min(end, groups) else { continue }
            // Insertion by start.
            var j = n
            while j > 0 && spans[2 * (j - 1)] > start {
                (spans[2 * j], spans[2 * j + 1]) = (spans[2 * (j - 1)], spans[2 * (j - 1) + 1])
                j -= 1
            }
            (spans[2 * j], spans[2 * j + 1]) = (start, min(end, groups))
            n += 1
        }
        guard n > 0 else { return 0 }
        var kept = 0
        for i in 1..<n {
            if spans[2 * i] <= spans[2 * kept + 1] + sharpMergeGap {
                spans[2 * kept + 1] = max(spans[2 * kept + 1], spans[2 * i + 1])
            } else {
                kept += 1
                (spans[2 * kept], spans[2 * kept + 1]) = (spans[2 * i], spans[2 * i + 1])
            }
        }
        return kept + 1
    }

    /// Pixels between two sharp spans below which they are composed as one.
    public static let sharpMergeGap = 96

    /// The fused loop's output into a fixed-point row.
    private func rowOutput(_ row: FixedRow, dither: SIMD8<Int16>) -> chakra_row_output {
        chakra_row_output(pixels: nil, red: row.red, green: row.green, blue: row.blue, dither: dither, redFirst: 0, stream: 0)
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

    /// The base at screen row y as the fused loop takes it: the vertical
    /// interpolation of its two grid rows around y, each expanded to screen
    /// pixels once (`baseRows`), and row k of the interval the nearer grid
    /// row plus (or minus) multiples of the rounded step per row, kept per
    /// pair of grid rows (`baseStep`, `steppedBaseRow`): per group of eight
    /// a multiply-add per channel, where expanding every screen row
    /// horizontally paid a grid interval's setup every f pixels.
    private func baseRowAt(_ base: SurfaceView, y: Int, width: Int, frame: FrameToken, rows: UnsafeMutablePointer<ExpandedRows>,
                           step: UnsafeMutablePointer<ExpandedRow>, interval: inout BaseInterval, scratch s: Scratch) -> chakra_base_row {
        let f = base.factor
        if interval.frame == frame {
            let relative = y - base.originY
            let j = relative / f, k = relative - j * f
            if k != 0 && j == interval.row {
                var row = 2 * k <= f ? interval.fromUpper : interval.fromLower
                row.k = Int16(truncatingIfNeeded: 2 * k <= f ? k : k - f)
                return row
            }
        }
        precondition(base.originX <= 0 && base.originX + (base.width - 1) * f >= width - 1, "base must cover the screen")
        let relative = y - base.originY
        let j = relative / f, k = relative - j * f
        precondition(relative >= 0 && j < base.height && (k == 0 || j + 1 < base.height), "base must cover the screen")
        let a = rows.pointee.slot(for: j, keeping: j + 1, frame: frame) { expandBaseRow(base, &$0, j, width: width, scratch: s) }
        if k == 0 {
            // A grid row: its values, times a zero step.
            return chakra_base_row(red: a.red, green: a.green, blue: a.blue, stepRed: a.red, stepGreen: a.green, stepBlue: a.blue, k: 0)
        }
        let b = rows.pointee.slot(for: j + 1, keeping: j, frame: frame) { expandBaseRow(base, &$0, j + 1, width: width, scratch: s) }
        if step.pointee.row != j || step.pointee.frame != frame {
            chakra_base_step(a.red, b.red, step.pointee.red, width, Int32(f))
            chakra_base_step(a.green, b.green, step.pointee.green, width, Int32(f))
            chakra_base_step(a.blue, b.blue, step.pointee.blue, width, Int32(f))
            (step.pointee.row, step.pointee.frame) = (j, frame)
        }
        let d = step.pointee
        let (upper, lower, steps) = ((a.red, a.green, a.blue), (b.red, b.green, b.blue), (d.red, d.green, d.blue))
        interval = BaseInterval(row: j, frame: frame,
                                fromUpper: steppedBaseRow(upper: upper, lower: lower, step: steps, k: 1, factor: f),
                                fromLower: steppedBaseRow(upper: upper, lower: lower, step: steps, k: f - 1, factor: f))
        return steppedBaseRow(upper: upper, lower: lower, step: steps, k: k, factor: f)
    }

    /// `base`, which must not change from here on, expanded once for
    /// outputs `width` pixels wide.
    public func still(_ base: Surface, width: Int) -> StillBase {
        precondition(width <= maxWidth)
        let view = base.view, s = scratch[0]
        return StillBase(surface: base, width: width) { j, row in self.expandBaseRow(view, &row, j, width: width, scratch: s) }
    }

    /// Grid row j of the base expanded over screen pixels [0, width).
    private func expandBaseRow(_ base: SurfaceView, _ row: inout ExpandedRow, _ j: Int, width: Int, scratch s: Scratch) {
        let source = base.row(j)
        for i in 0..<base.width { s.gridRow[i] = source[i] }
        s.gridRow[base.width] = s.gridRow[base.width - 1]
        assert((0..<base.width).allSatisfy { Self.inRange(s.gridRow[$0]) },
               "base colour out of range in row \(j) of a \(base.width)×\(base.height) grid of factor \(base.factor)")
        row.prepare(0..<width, 0..<0)
        let target = FixedRow(red: row.red, green: row.green, blue: row.blue, capacity: width)
        let f = base.factor
        guard f > 1 && f <= 8 else {
            return expandBase(s.gridRow, originX: base.originX, factor: f, through: width - 1, into: target)
        }
        // Small factors (a folded base): cell-major, as `expandCells`; the
        // part left of the first cell boundary on screen the general way.
        let firstCell = (f - 1 - base.originX) / f
        let boundary = base.originX + firstCell * f
        if boundary > 0 {
            expandBase(s.gridRow, originX: base.originX, factor: f, through: min(boundary - 1, width - 1), into: target)
        }
        guard boundary < width else { return }
        let lastCell = (width - 1 - base.originX) / f + 1
        let scale = SIMD4<Float>(repeating: FixedRow.one)
        var i = firstCell
        while i <= lastCell {
            let p0 = roundedLanes(s.gridRow[i] * scale), p1 = roundedLanes(s.gridRow[i &+ 1] * scale)
            let p2 = roundedLanes(s.gridRow[i &+ 2] * scale), p3 = roundedLanes(s.gridRow[i &+ 3] * scale)
            storeQuad(SIMD4(p0.x, p1.x, p2.x, p3.x), s.cells.red + i)
            storeQuad(SIMD4(p0.y, p1.y, p2.y, p3.y), s.cells.green + i)
            storeQuad(SIMD4(p0.z, p1.z, p2.z, p3.z), s.cells.blue + i)
            i &+= 4
        }
        let groups = (width - 1 - boundary + 8) / 8
        chakra_expand_base_cells(s.cells.red + firstCell, row.red + boundary, groups, Int32(f))
        chakra_expand_base_cells(s.cells.green + firstCell, row.green + boundary, groups, Int32(f))
        chakra_expand_base_cells(s.cells.blue + firstCell, row.blue + boundary, groups, Int32(f))
    }

    /// 1/f in Q15 (32768 wraps for f = 1: there every lane past the first
    /// is spill), spread over the lanes.
    @inline(__always)
    private func fractionSteps(factor f: Int) -> SIMD8<Int16> {
        SIMD8(repeating: Int16(truncatingIfNeeded: (32768 + f / 2) / f))
    }

    /// The fractions k/f, (k + 1)/f, ... (k + 7)/f of a grid interval in Q15
    /// lanes. Lanes at or past the interval's end wrap around; they are
    /// spill, overwritten after.
    @inline(__always)
    private func fractions(_ steps: SIMD8<Int16>, from k: Int) -> SIMD8<Int16> {
        (laneRamp &+ SIMD8(repeating: Int16(truncatingIfNeeded: k))) &* steps
    }

    /// Four 32-bit lanes narrowed to 16 bits at `pointer` (8 bytes).
    @inline(__always)
    private func storeQuad(_ lanes: SIMD4<Int32>, _ pointer: UnsafeMutablePointer<Int16>) {
        UnsafeMutableRawPointer(pointer).storeBytes(of: SIMD4<Int16>(truncatingIfNeeded: lanes), as: SIMD4<Int16>.self)
    }

    /// The opaque base's interpolated grid row `grid` upsampled over screen
    /// pixels [0, xEnd] into the row (8.6 fixed point: a + (2d·k/f) >> 1, the
    /// difference doubled so the product keeps every bit). Groups of eight
    /// may spill up to seven pixels past xEnd.
    @inline(__always)
    private func expandBase(_ grid: UnsafeMutablePointer<RGBA>, originX: Int, factor f: Int, through xEnd: Int, into row: FixedRow) {
        let scale = SIMD4<Float>(repeating: FixedRow.one)
        let steps = fractionSteps(factor: f), advance = steps &<< 3
        var x = 0
        var i = -originX / f
        var k = -originX - i * f
        while x <= xEnd {
            let a = roundedLanes(grid[i] * scale)
            let start = chakra_spread(a), step = chakra_spread(chakra_doubling4(roundedLanes(grid[i + 1] * scale) &- a))
            let (ar, ag, ab) = (start.x, start.y, start.z)
            let (dr, dg, db) = (step.x, step.y, step.z)
            var q = fractions(steps, from: k)
            let n = min(f - k, xEnd - x + 1)
            var m = 0
            while m < n {
                storeLanes(ar &+ mulhiDoubling(dr, q), row.red + x + m)
                storeLanes(ag &+ mulhiDoubling(dg, q), row.green + x + m)
                storeLanes(ab &+ mulhiDoubling(db, q), row.blue + x + m)
                q &+= advance
                m &+= 8
            }
            x &+= n
            i += 1
            k = 0
        }
    }

    /// Overlay grid row `grid` upsampled over screen pixels [xStart, xEnd]
    /// into an expanded row: colour at twice `FixedRow.one`, alpha in Q15,
    /// a + (d·k/f >> 1) << 1 (d fits 16 bits only undoubled). Groups of
    /// eight may spill up to seven pixels past xEnd. Factors up to 8 go
    /// cell-major (`expandCells`), larger ones interval by interval.
    @inline(__always)
    private func expandOverlay(_ grid: UnsafeMutablePointer<RGBA>, originX: Int, factor f: Int, from xStart: Int, through xEnd: Int,
                               into row: ExpandedRow, cells: ExpandedRow) {
        if f == 1 {
            // Every pixel a grid point: its value, four pixels a step.
            convertCells(grid, from: xStart - originX, through: xEnd - originX, into: row, at: xStart)
        } else if f <= 8 {
            expandCells(grid, originX: originX, factor: f, from: xStart, through: xEnd, into: row, cells: cells)
        } else {
            expandIntervals(grid, originX: originX, factor: f, from: xStart, through: xEnd, into: row)
        }
    }

    static let overlayScale = SIMD4<Float>(2 * FixedRow.one, 2 * FixedRow.one, 2 * FixedRow.one, 32767)

    /// Grid cells [first, last] (and up to three more) in expanded-row units
    /// into `row`'s channels from index `at`, four cells a step. No eight-lane
    /// stores overlapping each other, which stall the loads that follow.
    @inline(__always)
    private func convertCells(_ grid: UnsafeMutablePointer<RGBA>, from first: Int, through last: Int, into row: ExpandedRow, at start: Int) {
        let scale = Self.overlayScale
        var i = first, x = start
        while i <= last {
            let p0 = roundedLanes(grid[i] * scale), p1 = roundedLanes(grid[i &+ 1] * scale)
            let p2 = roundedLanes(grid[i &+ 2] * scale), p3 = roundedLanes(grid[i &+ 3] * scale)
            storeQuad(SIMD4(p0.x, p1.x, p2.x, p3.x), row.red + x)
            storeQuad(SIMD4(p0.y, p1.y, p2.y, p3.y), row.green + x)
            storeQuad(SIMD4(p0.z, p1.z, p2.z, p3.z), row.blue + x)
            storeQuad(SIMD4(p0.w, p1.w, p2.w, p3.w), row.alpha + x)
            x &+= 4
            i &+= 4
        }
    }

    /// Small factors: the row's cells converted to planar lanes once, then
    /// each channel expanded by `chakra_expand_cells` from the first cell
    /// boundary on; a part clipped at the screen's left edge starts mid-cell,
    /// and that first partial interval goes the general way.
    @inline(__always)
    func expandCells(_ grid: UnsafeMutablePointer<RGBA>, originX: Int, factor f: Int, from xStart: Int, through xEnd: Int,
                             into row: ExpandedRow, cells: ExpandedRow) {
        let firstCell = (xStart - originX + f - 1) / f
        let boundary = originX + firstCell * f
        if boundary > xStart {
            expandIntervals(grid, originX: originX, factor: f, from: xStart, through: min(boundary - 1, xEnd), into: row)
        }
        guard boundary <= xEnd else { return }
        // The last pixel's cell and the one after it, which it interpolates towards.
        let lastCell = (xEnd - originX) / f + 1
        convertCells(grid, from: firstCell, through: lastCell, into: cells, at: firstCell)
        let groups = (xEnd - boundary + 8) / 8
        chakra_expand_cells(cells.red + firstCell, row.red + boundary, groups, Int32(f))
        chakra_expand_cells(cells.green + firstCell, row.green + boundary, groups, Int32(f))
        chakra_expand_cells(cells.blue + firstCell, row.blue + boundary, groups, Int32(f))
        chakra_expand_cells(cells.alpha + firstCell, row.alpha + boundary, groups, Int32(f))
    }

    /// The general path: interval by interval, each interval's start and
    /// step spread over lanes once.
    @inline(__always)
    func expandIntervals(_ grid: UnsafeMutablePointer<RGBA>, originX: Int, factor f: Int, from xStart: Int, through xEnd: Int,
                                 into row: ExpandedRow) {
        let scale = Self.overlayScale
        let steps = fractionSteps(factor: f), advance = steps &<< 3
        var x = xStart
        var i = (xStart - originX) / f
        var k = (xStart - originX) - i * f
        while x <= xEnd {
            let a = roundedLanes(grid[i] * scale)
            let start = chakra_spread(a), step = chakra_spread(roundedLanes(grid[i + 1] * scale) &- a)
            let (ar, ag, ab, aa) = (start.x, start.y, start.z, start.w)
            let (dr, dg, db, da) = (step.x, step.y, step.z, step.w)
            var q = fractions(steps, from: k)
            let n = min(f - k, xEnd - x + 1)
            var m = 0
            while m < n {
                storeLanes(ar &+ mulhiEven(dr, q), row.red + x + m)
                storeLanes(ag &+ mulhiEven(dg, q), row.green + x + m)
                storeLanes(ab &+ mulhiEven(db, q), row.blue + x + m)
                storeLanes(aa &+ mulhiEven(da, q), row.alpha + x + m)
                q &+= advance
                m &+= 8
            }
            x &+= n
            i += 1
            k = 0
        }
    }

    /// Overlay `k` at screen row y as the fused loop blends it: the
    /// vertical interpolation of its two grid rows around y, each already
    /// expanded to screen pixels (`ExpandedRows`). False where the overlay
    /// has nothing on this row.
    private func overlayRow(_ k: Int, _ surface: SurfaceView, opacity: Float, y: Int, frame: FrameToken, width: Int, scratch s: Scratch,
                            into target: inout chakra_overlay_row) -> Bool {
        let f = surface.factor
        let relative = y - surface.originY
        guard relative >= 0 else { return false }
        let j = relative / f
        guard j < surface.height else { return false }
        let w = Float(relative - j * f) / Float(f)
        let rows = s.expanded + k
        let a = rows.pointee.slot(for: j, keeping: j + 1, frame: frame) { expandRow(surface, j, width: width, into: &$0, scratch: s) }
        var lo = a.start, hi = a.end
        var skipLo = a.holeStart, skipHi = a.holeEnd
        var b = a
        let mode: Int32
        let weights: (Int16, Int16)
        if w == 0 {
            mode = opacity >= 1 ? Int32(CHAKRA_OVER_FULL) : Int32(CHAKRA_OVER_WEIGHTED)
            weights = (q15(opacity), 0)
        } else {
            b = rows.pointee.slot(for: j + 1, keeping: j, frame: frame) { expandRow(surface, j + 1, width: width, into: &$0, scratch: s) }
            mode = Int32(CHAKRA_OVER_TWO_ROWS)
            weights = (q15(opacity * (1 - w)), q15(opacity * w))
            if b.start < b.end {
                if lo < hi {
                    lo = min(lo, b.start); hi = max(hi, b.end)
                    skipLo = max(skipLo, b.holeStart); skipHi = min(skipHi, b.holeEnd)
                } else {
                    (lo, hi, skipLo, skipHi) = (b.start, b.end, b.holeStart, b.holeEnd)
                }
            }
        }
        guard lo < hi else { return false }
        if skipLo >= skipHi || skipLo >= hi || skipHi <= lo { (skipLo, skipHi) = (0, 0) }
        target = chakra_overlay_row(red: a.red, green: a.green, blue: a.blue, alpha: a.alpha,
                                    nextRed: b.red, nextGreen: b.green, nextBlue: b.blue, nextAlpha: b.alpha,
                                    weight: weights.0, nextWeight: weights.1, mode: mode, role: 0,
                                    start: lo, end: hi, holeStart: skipLo, holeEnd: skipHi)
        return true
    }

    /// Expands grid row j of `surface` (transparent outside the grid) to
    /// screen pixels. Only the row's content extent is written, minus the
    /// inside of its hole (shrunk by one column, so the interpolation into
    /// the hole's edges is kept); everything else in `row` stays zero.
    private func expandRow(_ surface: SurfaceView, _ j: Int, width: Int, into row: inout ExpandedRow, scratch s: Scratch) {
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
            expandOverlay(s.gridRow, originX: originX, factor: f, from: left.lowerBound, through: left.upperBound - 1, into: row, cells: s.cells)
            row.clearSpill(after: left.upperBound - 1, before: right.isEmpty ? .max : right.lowerBound)
        }
        if !right.isEmpty {
            expandOverlay(s.gridRow, originX: originX, factor: f, from: right.lowerBound, through: right.upperBound - 1, into: row, cells: s.cells)
            row.clearSpill(after: right.upperBound - 1, before: .max)
        }
    }
}

/// A base's grid interval as the final pass takes it (`FrameCompositor`'s
/// `baseRowAt`): from the upper grid row and from the lower one, k to be
/// set.
struct BaseInterval {
    var row = -1
    var frame = FrameToken.none
    var fromUpper = chakra_base_row()
    var fromLower = chakra_base_row()
}

/// Three 16-bit planes: a base row's red, green and blue.
typealias BasePlanes = (UnsafeMutablePointer<Int16>, UnsafeMutablePointer<Int16>, UnsafeMutablePointer<Int16>)

/// Row k (0 < k < f) of a base's grid interval, between the expanded grid
/// rows `upper` and `lower` with the rounded step per row between them
/// (`chakra_base_step`): from the nearer of the two, so the step's
/// rounding is multiplied by at most f/2. Shared by a surface base
/// (`FrameCompositor`) and a still one (`StillBase`).
@inline(__always)
func steppedBaseRow(upper: BasePlanes, lower: BasePlanes, step: BasePlanes, k: Int, factor f: Int) -> chakra_base_row {
    if 2 * k <= f {
        return chakra_base_row(red: upper.0, green: upper.1, blue: upper.2, stepRed: step.0, stepGreen: step.1, stepBlue: step.2,
                               k: Int16(truncatingIfNeeded: k))
    }
    return chakra_base_row(red: lower.0, green: lower.1, blue: lower.2, stepRed: step.0, stepGreen: step.1, stepBlue: step.2,
                           k: Int16(truncatingIfNeeded: k - f))
}
