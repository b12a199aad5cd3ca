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
    }

    let track: SpiralTrack
    private let rowFirst: UnsafeMutableBufferPointer<Int32>
    private let runs: UnsafeMutableBufferPointer<SpiralTrack.Run>
    private let coverage: UnsafeMutableBufferPointer<Float>
    private let along: UnsafeMutableBufferPointer<Float>
    /// The progress colour by length: 1024 entries over the whole path.
    private let lut: UnsafeMutableBufferPointer<RGBA>
    private let lutScale: Float
    let trackColor: RGBA

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
    var particleCount = 0
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
        runs = copy(track.runs)
        coverage = copy(track.coverage)
        along = copy(track.length)
        let stops = GradientStops(P.progressStops.map { GradientStop(Float($0.0), opaque($0.1)) })
        lut = .allocate(capacity: 1024)
        for k in 0..<1024 { lut[k] = stops.color(at: Float(k) / 1023) }
        lutScale = Float(1023 / max(totalLength, 1e-9))
        trackColor = opaque(P.Track.color) * Float(P.Track.opacity)
        barTrack = opaque(P.Bar.trackColor)
        barStops = GradientStops(P.Bar.fillStops.map { GradientStop(Float($0.0), opaque($0.1)) })
        shimmerColor = opaque(P.Bar.shimmerColor)
        particles = .allocate(capacity: max(particleCapacity, 1))
        particles.initialize(repeating: Particle())
        particleTable = BlurredGradientDisc(sigma: P.Celebration.blurFraction)
    }

    deinit {
        rowFirst.deallocate()
        runs.deallocate()
        coverage.deallocate()
        along.deallocate()
        lut.deallocate()
        particles.deallocate()
    }

    func paint(row: FixedRow, y: Int, width: Int) {
        paintTrack(row: row, y: y)
        if barShown { paintBar(row: row, y: y, width: width) }
        if particleCount > 0 { paintParticles(row: row, y: y, width: width) }
    }

    @inline(__always)
    private func blend(_ c: RGBA, _ row: FixedRow, _ x: Int) { row.blend(c, at: x) }

    private func paintTrack(row: FixedRow, y: Int) {
        guard y < track.height else { return }
        let fill = fillLength, base = trackColor, scale = lutScale
        for r in Int(rowFirst[y])..<Int(rowFirst[y + 1]) {
            let run = runs[r]
            let x0 = Int(run.x), offset = Int(run.offset)
            for i in 0..<Int(run.count) {
                let s = along[offset + i]
                // A one-pixel ramp across the cut at the coloured length.
                let w = min(max(fill - s + 0.5, 0), 1)
                var c = base
                if w > 0 { c = base + (lut[min(Int(s * scale), 1023)] - base) * w }
                blend(c * coverage[offset + i], row, x0 + i)
            }
        }
    }

    /// A pill: its coverage from the distance to its centre line, its fill
    /// from the left to `barFill`, the shimmer a raised-cosine band.
    private func paintBar(row: FixedRow, y: Int, width: Int) {
        let py = Float(y) + 0.5
        let radius = barHeight / 2, cy = barY0 + radius
        let dy = abs(py - cy)
        guard dy < radius + 1 else { return }
        let cx = barX0 + barWidth / 2, halfLine = barWidth / 2 - radius
        let first = max(0, Int((barX0 - 1).rounded(.down))), last = min(width - 1, Int((barX0 + barWidth + 1).rounded(.up)))
        guard first <= last else { return }
        for x in first...last {
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

    private func paintParticles(row: FixedRow, y: Int, width: Int) {
        let py = Float(y) + 0.5
        let reach = Float(particleTable.reach), particleTable = particleTable.view
        for k in 0..<particleCount {
            let p = particles[k]
            let extent = reach * p.radius
            let dy = py - p.cy
            guard abs(dy) < extent else { continue }
            let first = max(0, Int((p.cx - extent).rounded(.down))), last = min(width - 1, Int((p.cx + extent).rounded(.up)))
            guard first <= last else { continue }
            let inverse = 1 / p.radius
            for x in first...last {
                let opacity = particleTable.opacity(x: (Float(x) + 0.5 - p.cx) * inverse, y: dy * inverse, base: 1, gradientX: 0, gradientY: 0)
                if opacity > 0 { blend(p.color * opacity, row, x) }
            }
        }
    }
}

/// A straight 0-255 sRGB colour, opaque, as a premultiplied `RGBA`.
func opaque(_ c: (r: Double, g: Double, b: Double)) -> RGBA {
    Colors.rgba(c.r, c.g, c.b)
}
