import ChakraPNG
import ChakraRaster
import ChakraScenes
import Foundation
import Testing

@Suite("Calm frames")
struct CalmFrameTests {
    static func worst(_ a: SIMD3<UInt8>, _ b: SIMD3<Double>) -> Double {
        max(abs(Double(a.x) - b.x), abs(Double(a.y) - b.y), abs(Double(a.z) - b.z))
    }

    @Test("frames equal the design computed independently from the JSON, at two times and two orientations",
          arguments: [(390, 844, 0.0), (390, 844, 6.3), (1280, 720, 2.2)])
    func matchesModel(width: Int, height: Int, time: Double) throws {
        let model = try CalmDesignModel()
        let frame = renderRGB(CalmScene(width: width, height: height), time: time)
        var checked = 0
        // Blob centres, points between them, and a coarse lattice.
        var pixels = model.centres(at: time, width: Double(width), height: Double(height)).map { (Int($0.x), Int($0.y)) }
        for fy in stride(from: 0.05, to: 1, by: 0.3) { for fx in stride(from: 0.05, to: 1, by: 0.3) { pixels.append((Int(fx * Double(width)), Int(fy * Double(height)))) } }
        for (x, y) in pixels where x >= 0 && x < width && y >= 0 && y < height {
            let expected = model.color(x: x, y: y, at: time, width: width, height: height)
            #expect(Self.worst(frame[x, y], expected) < 1.3, "(\(x), \(y)) at t = \(time): model \(expected), frame \(frame[x, y])")
            checked += 1
        }
        #expect(checked >= 18)
    }

    @Test("the blobs move: a blob's edge changes between two times, by the model's amount")
    func blobsMove() throws {
        let model = try CalmDesignModel()
        let scene = CalmScene(width: 390, height: 844)
        let a = renderRGB(scene, time: 0), b = renderRGB(scene, time: 2.8)
        // Apricot's centre moves 28 px right (x: -14 → 14) in 2.8 s, one
        // linear leg: its right flank, near x = 86 + 140, gets warmer.
        let x = 226, y = 169
        let ma = model.color(x: x, y: y, at: 0, width: 390, height: 844), mb = model.color(x: x, y: y, at: 2.8, width: 390, height: 844)
        #expect(abs(ma.y - mb.y) > 3, "the model moves")
        #expect(Self.worst(a[x, y], ma) < 1.3 && Self.worst(b[x, y], mb) < 1.3)
    }

    @Test("reduce motion: the static gradient alone, the same at every time")
    func reduceMotion() throws {
        let scene = CalmScene(width: 390, height: 844, settings: RenderSettings(reduceMotion: true))
        #expect(scene.isStill && !CalmScene(width: 390, height: 844).isStill)
        let a = renderRGB(scene, time: 0), b = renderRGB(scene, time: 42.5)
        #expect(a == b)
        let model = try CalmDesignModel()
        for (x, y) in [(0, 0), (86, 169), (195, 422), (300, 700), (389, 843)] {
            #expect(Self.worst(a[x, y], model.gradient(x: x, y: y, width: 390, height: 844) * 255) < 1.3)
        }
    }

    @Test("deterministic: same time, same bytes; thread count changes nothing")
    func deterministic() {
        let one = CalmScene(width: 320, height: 240, threads: 1), two = CalmScene(width: 320, height: 240, threads: 2)
        let a = renderRGB(one, time: 7.77)
        #expect(a == renderRGB(one, time: 7.77))
        #expect(a == renderRGB(two, time: 7.77))
        #expect(a != renderRGB(one, time: 8.5))
    }

    @Test("any size and orientation renders warm", arguments: [(1, 1), (7, 3), (480, 800), (800, 480)])
    func sizes(width: Int, height: Int) {
        let frame = renderRGB(CalmScene(width: width, height: height), time: 3)
        for y in stride(from: 0, to: height, by: max(1, height / 5)) {
            for x in stride(from: 0, to: width, by: max(1, width / 5)) {
                let c = frame[x, y]
                #expect(c.x > 230 && c.x >= c.y && c.y >= c.z, "warm at (\(x), \(y)): \(c)")
            }
        }
    }

    @Test("low power: a coarser base, close to the full frame")
    func lowPower() {
        let full = CalmScene(width: 390, height: 844), low = CalmScene(width: 390, height: 844, settings: RenderSettings(lowPower: true))
        let difference = ImageDifference(renderRGB(full, time: 5), renderRGB(low, time: 5))
        #expect(difference.meanAbsolute < 0.6 && difference.smoothedMax < 3)
    }
}
