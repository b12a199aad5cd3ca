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
}
