import ChakraPNG
import ChakraRaster
import ChakraScenes
import Foundation
import Testing

@Suite("Heart frames")
struct HeartFrameTests {
    @Test("deterministic: same time, same pixels; thread count changes nothing")
    func deterministic() {
        let one = HeartScene(width: 320, height: 240, threads: 1)
        let two = HeartScene(width: 320, height: 240, threads: 2)
        let a = renderRGB(one, time: 3.21), b = renderRGB(one, time: 3.21), c = renderRGB(two, time: 3.21)
        #expect(a == b)
        #expect(a == c)
        #expect(a != renderRGB(one, time: 3.5))
    }

    @Test("any size and orientation; the heart stays centred", arguments: [(1, 1), (7, 3), (480, 800), (800, 480), (1280, 720)])
    func sizes(width: Int, height: Int) {
        let scene = HeartScene(width: width, height: height)
        let frame = renderRGB(scene, time: 5)
        guard width >= 100 else { return }
        // The brightest pixel is the heart centre, at the screen centre.
        var best = (0, 0, 0)
        for y in 0..<height {
            for x in 0..<width {
                let c = frame[x, y]
                let sum = Int(c.x) + Int(c.y) + Int(c.z)
                if sum > best.0 { best = (sum, x, y) }
            }
        }
        let u = Double(min(width, height)) / 390
        #expect(abs(Double(best.1) - Double(width) / 2) < 12 * u + 2)
        #expect(abs(Double(best.2) - Double(height) / 2) < 12 * u + 2)
    }

    @Test("the heart centre is white at its pulse peak")
    func centreAtPeak() {
        let scene = HeartScene(width: 390, height: 844)
        let frame = renderRGB(scene, time: 0.25)
        let centre = frame[195, 422]
        // White core, brightness(1.3): every channel saturates.
        #expect(centre.x == 255 && centre.y == 255 && centre.z >= 254)
    }

    @Test("no banding: the dark background is dithered")
    func noBanding() {
        let scene = HeartScene(width: 1920, height: 1080)
        let frame = FrameBuffer(width: 1920, height: 1080, format: .xrgb8888)
        scene.render(time: 10, into: frame.pixels)
        // Row 8 (dither row 0), x from 1100 to 1850: the radial background
        // darkens steadily toward the corner (the bands barely reach the
        // top row). Measure its slope from 64-px averages of the output.
        let reds = (0..<1920).map { Double(frame.pixels.rgb(x: $0, y: 8).x) }
        func average(_ x: Int) -> Double { reds[(x - 32)..<(x + 32)].reduce(0, +) / 64 }
        let slope = (average(1100) - average(1850)) / 750   // levels per pixel
        #expect(slope > 1.0 / 80, "the segment is a real gradient")
        // Rounded without dithering, each value would hold for 1/slope px.
        // With the 8×8 ordered dither, row 0's thresholds are (0.5 … 42.5)/64:
        // all 8 pixels of a tile row round the same way only while the
        // value's fraction stays below 1 − 42.5/64 ≈ 0.34 (or within 0.5/64
        // of the next level), i.e. for at most ≈ 0.35/slope px, plus one tile.
        let allowed = 0.35 / slope + 8
        #expect(allowed < 0.75 / slope, "the bound is meaningfully below the undithered run")
        var longest = 0, run = 0, previous = -1.0
        for x in 1100..<1850 {
            run = reds[x] == previous ? run + 1 : 1
            previous = reds[x]
            longest = max(longest, run)
        }
        #expect(Double(longest) <= allowed, "longest run \(longest) px, allowed \(allowed)")
    }

    @Test("reduce motion: one still frame whatever the time")
    func reduceMotion() {
        let scene = HeartScene(width: 390, height: 844, settings: RenderSettings(reduceMotion: true))
        #expect(scene.isStill)
        let a = renderRGB(scene, time: 0), b = renderRGB(scene, time: 17.3)
        #expect(a == b)
        // Still a composed heart: bright centre, dark corners.
        #expect(a[195, 422].x > 240 && a[5, 5].x < 40)
    }

    @Test("low power: close to the full frame, without particles")
    func lowPower() {
        let full = HeartScene(width: 390, height: 844), low = HeartScene(width: 390, height: 844, settings: RenderSettings(lowPower: true))
        #expect(!low.isStill)
        let a = renderRGB(full, time: 12.5), b = renderRGB(low, time: 12.5)
        let difference = ImageDifference(a, b)
        #expect(difference.meanAbsolute < 2.5)
        #expect(difference.smoothedMax > 1, "particles are gone")
    }

    @Test("every pixel format gets the same picture")
    func formats() {
        let scene = HeartScene(width: 97, height: 61)
        let reference = FrameBuffer(width: 97, height: 61, format: .xrgb8888)
        scene.render(time: 4, into: reference.pixels)
        for format in PixelFormat.allCases {
            let frame = FrameBuffer(width: 97, height: 61, format: format)
            scene.render(time: 4, into: frame.pixels)
            let tolerance = format.channelBits.x < 8 ? 12 : 0
            for (x, y) in [(0, 0), (48, 30), (96, 60), (13, 47)] {
                let a = SIMD3<Int>(truncatingIfNeeded: frame.pixels.rgb(x: x, y: y)), b = SIMD3<Int>(truncatingIfNeeded: reference.pixels.rgb(x: x, y: y))
                let worst = max(abs(a.x - b.x), abs(a.y - b.y), abs(a.z - b.z))
                #expect(worst <= tolerance, "\(format) at (\(x), \(y))")
            }
        }
    }
}
