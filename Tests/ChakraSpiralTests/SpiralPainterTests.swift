import ChakraRaster
import Testing
@testable import ChakraSpiral

@Suite("the spiral's track, eight pixels a step")
struct SpiralPainterTests {
    /// Every row of the track painted by the lanes (track.h) over a noisy
    /// background, against the float path it replaced: each pixel's colour
    /// (`SpiralPainter.colour`) times its coverage through `FixedRow.blend`.
    /// Fills put the cut anywhere along the path, so the runs the ramp
    /// crosses (chosen per lane) and those wholly before or after it
    /// (blended as they are) all occur, with runs of every length.
    @Test("within a unit of the float blend (two on the ramp across the cut); pixels off the track untouched",
          arguments: [(390, 844), (800, 480)])
    func sameAsFloatBlend(size: (Int, Int)) throws {
        let scene = try makeScene(width: size.0, height: size.1)
        let painter = scene.painter, track = painter.track
        let width = scene.width, height = track.height
        let total = Float(track.length.max() ?? 0)
        let row = FixedRow.allocate(capacity: width), expected = FixedRow.allocate(capacity: width)
        defer { row.deallocate(); expected.deallocate() }
        var seed: UInt32 = 12345
        var worst = 0, worstRamp = 0, rampPixels = 0, mixedRuns = 0, offTrackChanged = 0
        for fill in [-1, total * 0.37 + 0.3, total * 0.61 + 0.75, total * 0.85, total + 2] {
            painter.fillLength = fill
            for y in 0..<height {
                let runs = track.runs[Int(track.rowFirst[y])..<Int(track.rowFirst[y + 1])]
                guard !runs.isEmpty else { continue }
                for x in 0..<width {
                    for channel in [row.red, row.green, row.blue] {
                        seed = seed &* 1_664_525 &+ 1_013_904_223
                        channel[x] = Int16(Int(seed >> 8) % 16321)
                    }
                    (expected.red[x], expected.green[x], expected.blue[x]) = (row.red[x], row.green[x], row.blue[x])
                }
                var ramp = [Bool](repeating: false, count: width), onTrack = ramp
                for run in runs {
                    var mixed = false
                    for i in 0..<Int(run.count) {
                        let s = track.length[Int(run.offset) + i], x = Int(run.x) + i
                        let c = SpiralPainter.colour(along: s, fill: fill, base: painter.trackColor, lut: painter.lut, scale: painter.lutScale)
                        expected.blend(c * track.coverage[Int(run.offset) + i], at: x)
                        let w = fill - s + 0.5
                        ramp[x] = w > 0 && w < 1
                        onTrack[x] = true
                        mixed = mixed || ramp[x]
                    }
                    if mixed { mixedRuns += 1 }
                }
                painter.paintTrack(row: row, y: y)
                for x in 0..<width {
                    for (a, b) in [(row.red, expected.red), (row.green, expected.green), (row.blue, expected.blue)] {
                        let d = abs(Int(a[x]) - Int(b[x]))
                        if !onTrack[x] {
                            if d != 0 { offTrackChanged += 1 }
                        } else if ramp[x] {
                            worstRamp = max(worstRamp, d)
                        } else {
                            worst = max(worst, d)
                        }
                    }
                    if ramp[x] { rampPixels += 1 }
                }
            }
        }
        #expect(offTrackChanged == 0)
        #expect(worst <= 1)
        #expect(worstRamp <= 2)
        #expect(rampPixels > 20 && mixedRuns > 4)
    }

    /// The celebration's particles, four pixels a step, against one pixel
    /// at a time (the table's opacity and `FixedRow.blend`), with particles
    /// across each edge of the screen and wholly off it; and the spans the
    /// painter names hold every pixel it changed.
    @Test("particles: the bytes of one pixel at a time, across the screen's edges, inside the spans named")
    func particlesAsOnePixelAtATime() throws {
        let scene = try makeScene(width: 800, height: 480)
        let painter = scene.painter, width = scene.width, height = scene.height
        let color = RGBA(0.9, 0.5, 0.3, 1) * 0.8
        let places: [(Float, Float, Float)] = [(400.3, 240.6, 7.1), (2.2, 100.5, 6), (797.9, 300.2, 5.5), (-40, 200, 4),
                                               (860, 200, 4), (300, -3.4, 6.3), (500, 478.8, 3.2), (120.5, 60.25, 8)]
        for (k, p) in places.enumerated() { painter.place(particle: k, cx: p.0, cy: p.1, radius: p.2, color: color) }
        painter.particleCount = places.count
        defer { painter.particleCount = 0 }
        let table = BlurredGradientDisc(sigma: SpiralParameters.Celebration.blurFraction)
        let row = FixedRow.allocate(capacity: width), expected = FixedRow.allocate(capacity: width)
        defer { row.deallocate(); expected.deallocate() }
        let spans = UnsafeMutablePointer<Int>.allocate(capacity: 32)
        defer { spans.deallocate() }
        var changed = 0
        /// The background every row starts from (its three channels).
        func background(_ x: Int, _ y: Int) -> (Int16, Int16, Int16) {
            let v = Int16((x * 37 + y * 11) % 16000)
            return (v, 16000 - v, v / 2)
        }
        func pixel(_ r: FixedRow, _ x: Int) -> (Int16, Int16, Int16) { (r.red[x], r.green[x], r.blue[x]) }
        for y in 0..<height {
            for x in 0..<width {
                let v = background(x, y)
                (row.red[x], row.green[x], row.blue[x]) = v
                (expected.red[x], expected.green[x], expected.blue[x]) = v
            }
            for p in places {
                let extent = Float(table.reach) * p.2
                guard abs(Float(y) + 0.5 - p.1) < extent else { continue }
                for x in 0..<width {
                    let o = table.opacity(x: (Float(x) + 0.5 - p.0) / p.2, y: (Float(y) + 0.5 - p.1) / p.2, base: 1, gradientX: 0, gradientY: 0)
                    if o > 0 { expected.blend(color * o, at: x) }
                }
            }
            painter.paintParticles(row: row, y: y, width: width)
            let count = painter.spans(y: y, width: width, into: spans, capacity: 16)
            for x in 0..<width {
                let got = pixel(row, x), want = pixel(expected, x)
                if got != want { Issue.record("(\(x), \(y)): \(got) vs \(want)") }
                guard got != background(x, y) else { continue }
                changed += 1
                let inside = (0..<count).contains { k in spans[2 * k] <= x && x < spans[2 * k + 1] }
                #expect(inside, "(\(x), \(y)) changed outside the spans")
            }
        }
        #expect(changed > 500, "the particles painted \(changed) pixels")
    }
}
