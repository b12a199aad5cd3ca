import ChakraPNG
import ChakraRaster
import ChakraScenes
import Foundation
import Testing

/// Drift at 390×844 against Chromium's rendering of the design's CSS
/// (tools/reference/drift.html, written from the seed and drift-params.json
/// by someone who did not see this renderer).
///
/// Measured (this renderer, these references): mean |Δ| 0.48-0.59 levels,
/// p99 of the 5×5-smoothed |Δ| 2.8-3.6, its maximum 4.4-5.3. What is left
/// is the browser's blur, not the design: Chromium approximates the
/// Gaussian with box passes (the W3C recipe for σ = 40 is three boxes of 75
/// px, an effective σ of 37.5) and keeps its layers in 8 bits without
/// dithering, so its floats peak a few percent stronger and its soft
/// edges show contour bands (the rings in a diff image). When this test
/// was written, a throw-away NumPy rendering of t = 0 with exact Gaussians
/// agreed with this renderer to a smoothed p99 of 0.5, and the same with
/// W3C box passes moved 30% of the way to Chromium's.
/// The bounds below sit above those figures with some room, and well
/// below the heart's (1.5, 6, 12).
@Suite("Drift matches the browser rendering of its CSS", .serialized)
struct DriftReferenceTests {
    static let scene = DriftScene(width: 390, height: 844)

    @Test("frame matches the Chromium reference", arguments: ["0.0", "1.3", "2.6", "5.0", "7.75", "16.2"])
    func matchesReference(time: String) throws {
        let reference = try PNGImage.read(from: TestFiles.resource("drift-ref-390x844-t\(time).png"))
        #expect(reference.width == 390 && reference.height == 844)
        let frame = renderRGB(Self.scene, time: Double(time)!)
        expectMatches(frame, reference, within: ReferenceLimits(mean: 1, smoothedP99: 4.5, smoothedMax: 8), name: "drift-t\(time)")
    }

    @Test("a wrong frame is caught: the reference at another time differs")
    func comparisonCanFail() throws {
        let reference = try PNGImage.read(from: TestFiles.resource("drift-ref-390x844-t7.75.png"))
        let frame = renderRGB(Self.scene, time: 0)
        #expect(ImageDifference(frame, reference).smoothedMax > 8)
    }
}
