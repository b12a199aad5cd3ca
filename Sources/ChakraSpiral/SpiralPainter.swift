import CLanes
import ChakraRaster
import Glibc

/// The spiral scene's sharp content, painted straight into each row of the
/// compositor's final pass (`SharpRowPainter`): the track with its coloured
/// part, the hold's progress bar with its shimmer, and the celebration's
/// particles (small, so cheaper evaluated where they land than upsampled
/// from an overlay of the whole burst).
///
/// The scene sets the per-frame fields before composing; `paint` only reads
/// them, from several threads at once.
///
/// Ownership: owned by the scene; owns its look-up table and particle list.
final class SpiralPainter: SharpRowPainter, @unchecked Sendable {
    struct Particle {
        var cx: Float = 0, cy: Float = 0, radius: Float = 1
        /// Premultiplied colour × opacity.
        var color: RGBA = .zero
        /// How far it reaches from its centre, and the pixels of a row it
        /// may cover (`place`).
        var extent: Float = 0
        var columns = 0..<0
        /// The rows it may reach (a row outside is passed over with two
        /// integer compares; inside, the exact test decides).
        var firstRow = 0, lastRow = -1
    }

    let track: SpiralTrack
    private let rowFirst: UnsafeMutableBufferPointer<Int32>
    /// Per row y, the pixel spans its track runs cover (start and end in
    /// turn, close ones merged): spans[spanFirst[y] ..< spanFirst[y + 1]].
    private let spanFirst: UnsafeMutableBufferPointer<Int32>
    private let trackSpans: UnsafeMutableBufferPointer<Int32>
    /// At most this many track spans a row, leaving room for the bar's and
    /// the particles' (`spans`).
    static let trackSpanLimit = 12
    /// The track as `chakra_paint_track` (CLanes' track.h) takes it: its
    /// runs with their shortest and longest path length, and per pixel in
    /// run order its length and its unfilled and filled colours as
    /// source-over terms (`FixedRow.overTerms`).
    private let trackLanes: UnsafeMutablePointer<chakra_track>
    private let lanesRuns: UnsafeMutableBufferPointer<chakra_track_run>
    private let lanes: UnsafeMutableBufferPointer<Int16>
    private let along: UnsafeMutableBufferPointer<Float>
    let trackColor: RGBA
    /// The progress colour by length: 1024 entries over the whole path.
    let lut: [RGBA]
    let lutScale: Float

    // Per frame: the coloured length (screen px; negative: none).
    var fillLength: Float = -1

    // Per frame: the bar (hidden when barShown is false).
    var barShown = false
    var barX0: Float = 0, barY0: Float = 0, barWidth: Float = 1, barHeight: Float = 1
    var barFill: Float = 0
    var shimmerCentre: Float = 0, shimmerHalfWidth: Float = 1, shimmerOpacity: Float = 0
    let barTrack: RGBA
    let barStops: GradientStops
    let shimmerColor: RGBA

    // Per frame: the particles, the first `particleCount` of the list.
    let particles: UnsafeMutableBufferPointer<Particle>
    var particleCount = 0 {
        didSet {
            (particleFirstRow, particleLastRow) = (Int.max, Int.min)
            for k in 0..<particleCount {
                particleFirstRow = min(particleFirstRow, particles[k].firstRow)
                particleLastRow = max(particleLastRow, particles[k].lastRow)
            }
        }
    }
    /// The rows any of this frame's particles may reach (none when first >
    /// last): the rows outside, most of the screen, skip the walk over
    /// every particle.
    private(set) var particleFirstRow = Int.max, particleLastRow = Int.min
    @inline(__always)
    private func particlesMayReach(_ y: Int) -> Bool { y >= particleFirstRow && y <= particleLastRow }
    let particleTable: BlurredGradientDisc

    init(track: SpiralTrack, totalLength: Double, particleCapacity: Int) {
        typealias P = SpiralParameters
        self.track = track
        func copy<T>(_ array: [T]) -> UnsafeMutableBufferPointer<T> {
            let buffer = UnsafeMutableBufferPointer<T>.allocate(capacity: max(array.count, 1))
            _ = buffer.initialize(from: array)
            return buffer
        }
        rowFirst = copy(track.rowFirst)
        let (first, spans) = SpiralPainter.runSpans(track)
        (spanFirst, trackSpans) = (copy(first), copy(spans))
        let stops = GradientStops(P.progressStops.map { GradientStop(Float($0.0), opaque($0.1)) })
        let lut = (0..<1024).map { stops.color(at: Float($0) / 1023) }
        let lutScale = Float(1023 / max(totalLength, 1e-9))
        let base = opaque(P.Track.color) * Float(P.Track.opacity)
        (self.lut, self.lutScale, trackColor) = (lut, lutScale, base)
        // Per pixel, eight planar arrays (unfilled red, green, blue, −alpha,
        // then filled), each with eight lanes past the last pixel.
        let count = track.pixelCount, stride = count + 8
        lanes = .allocate(capacity: 8 * stride)
        lanes.initialize(repeating: 0)
        along = .allocate(capacity: stride)
        along.initialize(repeating: 0)
        for i in 0..<count {
            let s = track.length[i], cover = track.coverage[i]
            along[i] = s
            let unfilled = SpiralPainter.colour(along: s, fill: -.infinity, base: base, lut: lut, scale: lutScale)
            let filled = SpiralPainter.colour(along: s, fill: .infinity, base: base, lut: lut, scale: lutScale)
            let u = FixedRow.overTerms(unfilled * cover), f = FixedRow.overTerms(filled * cover)
            for channel in 0..<4 {
                lanes[channel * stride + i] = u[channel]
                lanes[(4 + channel) * stride + i] = f[channel]
            }
        }
        lanesRuns = .allocate(capacity: max(track.runs.count, 1))
        for (k, run) in track.runs.enumerated() {
            let lengths = track.length[Int(run.offset)..<Int(run.offset + run.count)]
            lanesRuns[k] = chakra_track_run(x: run.x, count: run.count, offset: run.offset,
                                            shortest: lengths.min() ?? 0, longest: lengths.max() ?? 0)
        }
        let planes = UnsafePointer(lanes.baseAddress!)
        func colours(_ first: Int) -> chakra_track_colours {
            chakra_track_colours(red: planes + first * stride, green: planes + (first + 1) * stride,
                                 blue: planes + (first + 2) * stride, negAlpha: planes + (first + 3) * stride)
        }
        trackLanes = .allocate(capacity: 1)
        trackLanes.initialize(to: chakra_track(runs: UnsafePointer(lanesRuns.baseAddress!), unfilled: colours(0), filled: colours(4),
                                               along: UnsafePointer(along.baseAddress!)))
        barTrack = opaque(P.Bar.trackColor)
        barStops = GradientStops(P.Bar.fillStops.map { GradientStop(Float($0.0), opaque($0.1)) })
        shimmerColor = opaque(P.Bar.shimmerColor)
        particles = .allocate(capacity: max(particleCapacity, 1))
        particles.initialize(repeating: Particle())
        particleTable = BlurredGradientDisc(sigma: P.Celebration.blurFraction)
    }

    deinit {
        rowFirst.deallocate()
        spanFirst.deallocate()
        trackSpans.deallocate()
        trackLanes.deallocate()
        lanesRuns.deallocate()
        lanes.deallocate()
        along.deallocate()
        particles.deallocate()
    }

    /// Particle `index` this frame, with what every row it crosses needs.
    func place(particle index: Int, cx: Float, cy: Float, radius: Float, color: RGBA) {
        let extent = Float(particleTable.reach) * radius
        let first = max(0, Int((cx - extent).rounded(.down))), last = min(track.width - 1, Int((cx + extent).rounded(.up)))
        particles[index] = Particle(cx: cx, cy: cy, radius: radius, color: color, extent: extent,
                                    columns: first..<max(first, last + 1),
                                    firstRow: Int((cy - extent - 0.5).rounded(.down)) - 1, lastRow: Int((cy + extent - 0.5).rounded(.up)) + 1)
    }

    /// The track's runs of each row as spans of whole groups of eight,
    /// merged where they lie closer than the compositor would keep apart,
    /// and past `trackSpanLimit` into the last.
    static func runSpans(_ track: SpiralTrack) -> (first: [Int32], spans: [Int32]) {
        var first = [Int32](), spans = [Int32]()
        for y in 0..<track.height {
            first.append(Int32(spans.count))
            var count = 0
            for run in track.runs[Int(track.rowFirst[y])..<Int(track.rowFirst[y + 1])] {
                let start = run.x & ~7, end = (run.x + run.count + 7) & ~7
                if count > 0 && (start <= spans[spans.count - 1] + Int32(FrameCompositor.sharpMergeGap) || count == trackSpanLimit) {
                    spans[spans.count - 1] = max(spans[spans.count - 1], end)
                } else {
                    spans += [start, end]
                    count += 1
                }
            }
        }
        first.append(Int32(spans.count))
        return (first, spans)
    }

    func spans(y: Int, width: Int, into spans: UnsafeMutablePointer<Int>, capacity: Int) -> Int {
        var n = 0
        if y < track.height {
            for i in stride(from: Int(spanFirst[y]), to: Int(spanFirst[y + 1]), by: 2) where n < capacity {
                (spans[2 * n], spans[2 * n + 1]) = (Int(trackSpans[i]), Int(trackSpans[i + 1]))
                n += 1
            }
        }
        if barShown, n < capacity, let columns = barColumns(y: y, width: width) {
            (spans[2 * n], spans[2 * n + 1]) = (columns.lowerBound, columns.upperBound + 1)
            n += 1
        }
        if particleCount > 0, n < capacity, particlesMayReach(y) {
            // One span over every particle on the row: a burst is small.
            var lo = Int.max, hi = Int.min
            for k in 0..<particleCount {
                if let columns = particleColumns(particles[k], y: y) {
                    (lo, hi) = (min(lo, columns.lowerBound), max(hi, columns.upperBound + 1))
                }
            }
            if lo < hi {
                (spans[2 * n], spans[2 * n + 1]) = (lo, hi)
                n += 1
            }
        }
        return n
    }

    func paint(row: FixedRow, y: Int, width: Int) {
        paintTrack(row: row, y: y)
        if barShown { paintBar(row: row, y: y, width: width) }
        if particleCount > 0, particlesMayReach(y) { paintParticles(row: row, y: y, width: width) }
    }

    @inline(__always)
    private func blend(_ c: RGBA, _ row: FixedRow, _ x: Int) { row.blend(c, at: x) }

    /// The track's colour (before coverage) at path length s with the
    /// coloured length `fill`: a one-pixel ramp across the cut from `base`
    /// to the progress colour. The lanes hold it at fill = ∓∞ (w = 0 and
    /// w = 1) and mix the two across the ramp.
    static func colour(along s: Float, fill: Float, base: RGBA, lut: [RGBA], scale: Float) -> RGBA {
        let w = min(max(fill - s + 0.5, 0), 1)
        guard w > 0 else { return base }
        return base + (lut[min(Int(s * scale), 1023)] - base) * w
    }

    /// Eight pixels a step in C (track.h): per run, the unfilled or filled
    /// colours blended as they are, or, where the run may reach the cut,
    /// chosen per lane with the one-pixel ramp across it mixed.
    func paintTrack(row: FixedRow, y: Int) {
        guard y < track.height else { return }
        chakra_paint_track(trackLanes, Int(rowFirst[y]), Int(rowFirst[y + 1]), fillLength, row.red, row.green, row.blue)
    }

    /// A pill: its coverage from the distance to its centre line, its fill
    /// from the left to `barFill`, the shimmer a raised-cosine band.
    /// The pixels of row y the bar may cover; nil where it covers none.
    private func barColumns(y: Int, width: Int) -> ClosedRange<Int>? {
        let radius = barHeight / 2, cy = barY0 + radius
        guard abs(Float(y) + 0.5 - cy) < radius + 1 else { return nil }
        let first = max(0, Int((barX0 - 1).rounded(.down))), last = min(width - 1, Int((barX0 + barWidth + 1).rounded(.up)))
        return first <= last ? first...last : nil
    }

    private func paintBar(row: FixedRow, y: Int, width: Int) {
        guard let columns = barColumns(y: y, width: width) else { return }
        let py = Float(y) + 0.5
        let radius = barHeight / 2, cy = barY0 + radius
        let dy = abs(py - cy)
        let cx = barX0 + barWidth / 2, halfLine = barWidth / 2 - radius
        for x in columns {
            let px = Float(x) + 0.5
            let dx = max(abs(px - cx) - halfLine, 0)
            let cover = min(max(radius - (dx * dx + dy * dy).squareRoot() + 0.5, 0), 1)
            guard cover > 0 else { continue }
            var c = barTrack
            let inFill = min(max(barFill - px + 0.5, 0), 1)
            if inFill > 0 {
                var f = barStops.color(at: (px - barX0) / barWidth)
                let d = abs(px - shimmerCentre) / shimmerHalfWidth
                if shimmerOpacity > 0, d < 1 {
                    let band = 0.5 * (1 + cos(Float.pi * d))
                    f = Colors.over(shimmerColor * (shimmerOpacity * band), f)
                }
                c = c + (f - c) * inFill
            }
            blend(c * cover, row, x)
        }
    }

    func paintParticles(row: FixedRow, y: Int, width: Int) {
        let py = Float(y) + 0.5
        let particleTable = particleTable.view
        for k in 0..<particleCount {
            let p = particles[k]
            guard let columns = particleColumns(p, y: y) else { continue }
            let dy = py - p.cy
            let inverse = 1 / p.radius
            // Four pixels a step: lanes past the last pixel are at opacity
            // 0, and blending them changes nothing.
            var x = columns.lowerBound
            while x <= columns.upperBound {
                let opacity = particleTable.discOpacities(x: Float(x) + 0.5, cx: p.cx, inverse: inverse, y: dy * inverse,
                                                          count: min(4, columns.upperBound - x + 1))
                if chakra_any_positive(opacity) != 0 { row.blend(p.color, opacities: opacity, at: x) }
                x += 4
            }
        }
    }
}

extension SpiralPainter {
    /// The pixels of row y a particle may cover; nil where it covers none.
    @inline(__always)
    func particleColumns(_ p: Particle, y: Int) -> ClosedRange<Int>? {
        guard y >= p.firstRow, y <= p.lastRow, abs(Float(y) + 0.5 - p.cy) < p.extent, !p.columns.isEmpty else { return nil }
        return p.columns.lowerBound...(p.columns.upperBound - 1)
    }
}

/// A straight 0-255 sRGB colour, opaque, as a premultiplied `RGBA`.
func opaque(_ c: (r: Double, g: Double, b: Double)) -> RGBA {
    Colors.rgba(c.r, c.g, c.b)
}
