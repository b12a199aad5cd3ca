import ChakraPNG
import ChakraRaster
import ChakraScenes
import Foundation
import Testing

@Suite("Drift frames")
struct DriftFrameTests {
    /// Pixels where the frame must agree with the independent model: float
    /// centres and edges, the circles, plain background, dots.
    static let portraitPixels = [(104, 144), (114, 124), (60, 200), (262, 208), (120, 676), (190, 692), (150, 560),
                                 (20, 20), (350, 60), (195, 422), (370, 830), (0, 0), (50, 50), (300, 400), (250, 750)]

    @Test("390×844 frames equal the design computed independently from the JSON", arguments: [0.0, 2.0, 7.5, 13.1])
    func matchesModel(time: Double) throws {
        let model = try DriftDesignModel()
        let frame = renderRGB(DriftScene(width: 390, height: 844), time: time)
        for (x, y) in Self.portraitPixels {
            let expected = model.color(x: x, y: y, at: time, width: 390, height: 844)
            let got = frame[x, y]
            let worst = max(abs(Double(got.x) - expected.x), abs(Double(got.y) - expected.y), abs(Double(got.z) - expected.z))
            // The output is dithered: each channel is v·255 rounded up or down.
            #expect(worst < 1.3, "(\(x), \(y)) at t = \(time): model \(expected), frame \(got)")
        }
    }

    @Test("the model comparison can fail: the model at another time differs")
    func modelComparisonCanFail() throws {
        let model = try DriftDesignModel()
        let frame = renderRGB(DriftScene(width: 390, height: 844), time: 0)
        // By t = 7.5 circle 1 has turned a quarter and moved off the top left.
        let worst = Self.portraitPixels.map { x, y in
            let expected = model.color(x: x, y: y, at: 7.5, width: 390, height: 844), got = frame[x, y]
            return max(abs(Double(got.x) - expected.x), abs(Double(got.y) - expected.y), abs(Double(got.z) - expected.z))
        }.max()!
        #expect(worst > 5)
    }

    @Test("landscape 1280×720: corner anchoring and u-scaling agree with the model")
    func landscapeMatchesModel() throws {
        let model = try DriftDesignModel()
        let time = 9.4
        let frame = renderRGB(DriftScene(width: 1280, height: 720), time: time)
        let u = 720.0 / 390
        // Float 2 and 4 hang from the right edge; float 3 sits on the bottom.
        func px(_ v: Double) -> Int { Int(v * u) }
        let pixels: [(Int, Int)] = [(1280 - px(128), px(208)), (1280 - px(200), 720 - px(152)), (px(120), 720 - px(168)),
                                    (640, 360), (1270, 10), (5, 715), (px(0.75), px(50.75))]
        for (x, y) in pixels {
            let expected = model.color(x: x, y: y, at: time, width: 1280, height: 720)
            let got = frame[x, y]
            let worst = max(abs(Double(got.x) - expected.x), abs(Double(got.y) - expected.y), abs(Double(got.z) - expected.z))
            #expect(worst < 1.3, "(\(x), \(y)): model \(expected), frame \(got)")
        }
    }

    @Test("grid dots every 50u px from (0.75u, 0.75u), in portrait and landscape", arguments: [(780, 1000), (1000, 780)])
    func dotPitch(width: Int, height: Int) {
        // u = 2: a 100 px pitch, 3 px dots centred at 1.5 + 100k: pixels
        // 100k … 100k + 2 are darker than the row between the dots' rows.
        let frame = renderRGB(DriftScene(width: width, height: height), time: 4)
        let dotRow = 201, plainRow = 230
        var dark: [Int] = []
        for x in 0..<width {
            let a = frame[x, dotRow], b = frame[x, plainRow]
            if Int(b.x) - Int(a.x) >= 5 { dark.append(x) }
        }
        var expected: [Int] = []
        for k in 0...(width / 100) {
            for x in (100 * k)...(100 * k + 2) where x < width { expected.append(x) }
        }
        #expect(dark == expected)
    }

    @Test("deterministic: same time, same bytes; thread count changes nothing")
    func deterministic() {
        let one = DriftScene(width: 320, height: 240, threads: 1)
        let two = DriftScene(width: 320, height: 240, threads: 2)
        let a = renderRGB(one, time: 3.21), b = renderRGB(one, time: 3.21), c = renderRGB(two, time: 3.21)
        #expect(a == b)
        #expect(a == c)
        #expect(a != renderRGB(one, time: 3.5))
        #expect(renderRGB(one, time: 3.21) == a, "rendering other times in between leaves no trace")
    }

    @Test("any size and orientation renders", arguments: [(1, 1), (7, 3), (16, 16), (17, 40), (480, 800), (800, 480)])
    func sizes(width: Int, height: Int) {
        let scene = DriftScene(width: width, height: height)
        let frame = renderRGB(scene, time: 5)
        // The page is light everywhere: gradient from #eff6ff, dots and soft blues.
        for y in stride(from: 0, to: height, by: max(1, height / 7)) {
            for x in stride(from: 0, to: width, by: max(1, width / 7)) {
                #expect(frame[x, y].z > 200, "(\(x), \(y)) \(frame[x, y])")
            }
        }
    }

    @Test("reduce motion: one still frame whatever the time, the page with its animations off")
    func reduceMotion() throws {
        let scene = DriftScene(width: 390, height: 844, settings: RenderSettings(reduceMotion: true))
        #expect(scene.isStill)
        let a = renderRGB(scene, time: 0), b = renderRGB(scene, time: 17.3)
        #expect(a == b)
        #expect(!DriftScene(width: 390, height: 844).isStill)
        // Float 2 at its anchor with its static opacity 0.4 (the model at
        // t = 0 has pulse-glow's 0.3 there, the only difference).
        let model = try DriftDesignModel()
        let expected = model.color(x: 262, y: 208, at: 0, width: 390, height: 844)
        #expect(Double(a[262, 208].x) < expected.x - 3, "float 2 is deeper than at pulse-glow's 0.3")
    }

    @Test("low power: a coarser base, close to the full frame")
    func lowPower() {
        let full = DriftScene(width: 390, height: 844), low = DriftScene(width: 390, height: 844, settings: RenderSettings(lowPower: true))
        #expect(!low.isStill)
        let difference = ImageDifference(renderRGB(full, time: 12.5), renderRGB(low, time: 12.5))
        #expect(difference.meanAbsolute < 0.6)
        #expect(difference.smoothedMax < 3)
    }
}
