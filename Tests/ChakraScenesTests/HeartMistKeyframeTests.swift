import ChakraPNG
import Testing
@testable import ChakraScenes

/// The heart's mist is drawn at keyframes 0.1 s apart and mixed
/// (`HeartLayers.drawMist`): still a pure function of time, and as good as
/// the mist drawn at each frame's own time.
@Suite("Heart mist keyframes")
struct HeartMistKeyframeTests {
    static func largest(_ a: PNGImage.RGB, _ b: PNGImage.RGB) -> (max: Int, mean: Double) {
        var largest = 0, total = 0
        for index in a.bytes.indices {
            let d = abs(Int(a.bytes[index]) - Int(b.bytes[index]))
            largest = max(largest, d)
            total += d
        }
        return (largest, Double(total) / Double(a.bytes.count))
    }

    @Test("a frame is the same whatever frames came before it")
    func orderIndependent() {
        let fresh = HeartScene(width: 320, height: 200), used = HeartScene(width: 320, height: 200)
        for t in [3.0, 12.0, 7.3, 7.2] { _ = renderRGB(used, time: t) }
        #expect(renderRGB(fresh, time: 7.25) == renderRGB(used, time: 7.25))
    }

    @Test("the mixed mist is within a level of the mist drawn at the frame's time; a twentieth of a second is not")
    func mixMatchesExact() {
        let keyed = HeartScene(width: 800, height: 480), exact = HeartScene(width: 800, height: 480)
        exact.mistKeyframed = false
        for t in [7.25, 20.04] {
            let difference = Self.largest(renderRGB(keyed, time: t), renderRGB(exact, time: t))
            #expect(difference.max <= 1 && difference.mean < 0.01, "t \(t): \(difference)")
        }
        // The check can fail: the exact mist 0.05 s later differs more.
        let later = Self.largest(renderRGB(exact, time: 20.09), renderRGB(exact, time: 20.04))
        #expect(later.mean > 0.05, "\(later)")
    }
}
