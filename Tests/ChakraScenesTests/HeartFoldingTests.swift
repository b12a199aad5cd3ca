import ChakraPNG
import Testing
@testable import ChakraScenes

/// The heart folds its glow, and its ring once wide, into the base at grid
/// points (`HeartLayers.fold`): the frames stay within a level of composing
/// every layer per pixel, with the ring folded and not.
@Suite("Heart folding")
struct HeartFoldingTests {
    @Test("folded frames are within a level of the layers composed one by one", arguments: [(800, 480), (1280, 720)])
    func foldedMatchesLayers(size: (Int, Int)) {
        let folded = HeartScene(width: size.0, height: size.1), layered = HeartScene(width: size.0, height: size.1)
        layered.layers.foldingEnabled = false
        var ringStates = Set<Bool>()
        // The pulse's start (ring sharp, under the glow), its middle and
        // end (folded), and times with particles under the ring.
        for t in [0.25, 1.3, 2.2, 7.25, 13.9] {
            let difference = HeartMistKeyframeTests.largest(renderRGB(folded, time: t), renderRGB(layered, time: t))
            if folded.layers.ringVisible { ringStates.insert(folded.layers.ringFolded) }
            #expect(difference.max <= 1 && difference.mean < 0.05, "\(size) t \(t): \(difference)")
        }
        #expect(ringStates == [false, true], "the times cover the ring folded and not: \(ringStates)")
    }

    @Test("the folded base's factor divides the base's and is at most the glow's")
    func foldFactor() {
        for (w, h) in [(800, 480), (1280, 720), (1920, 1080), (1366, 768), (320, 240)] {
            let scene = HeartScene(width: w, height: h)
            for t in [0.25, 1.3] {
                _ = renderRGB(scene, time: t)
                let layers = scene.layers
                #expect(layers.base.factor % layers.foldFactor == 0 && layers.foldFactor >= layers.minimumFoldFactor, "\(w)x\(h) t \(t)")
                #expect(layers.glow.factor == layers.foldFactor && layers.folded.factor == layers.foldFactor)
            }
        }
    }
}
