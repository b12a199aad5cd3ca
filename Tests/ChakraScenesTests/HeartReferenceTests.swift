import ChakraPNG
import ChakraRaster
import ChakraScenes
import Foundation
import Testing

/// The heart at 390×844 against Chromium's rendering of the design's CSS
/// (tools/reference/heart.html, written from the seed and heart-params.json
/// without looking at this renderer; see tools/reference/README.md).
///
/// Tolerances: Chromium blurs with a three-box approximation of the Gaussian
/// and rounds to 8 bits without dithering; its author measured up to 3-6
/// levels against an exact Gaussian. So the frames must agree on average to
/// about a level, and everywhere within a few levels once dither noise is
/// filtered out.
@Suite("Heart matches the browser rendering of its CSS", .serialized)
struct HeartReferenceTests {
    static let scene = HeartScene(width: 390, height: 844)
    static let limits = ReferenceLimits(mean: 1.5, smoothedP99: 6, smoothedMax: 12)

    @Test("frame matches the Chromium reference", arguments: ["0.0", "0.3", "1.0", "2.0", "7.25", "12.5", "30.0"])
    func matchesReference(time: String) throws {
        let reference = try PNGImage.read(from: TestFiles.resource("heart-ref-390x844-t\(time).png"))
        #expect(reference.width == 390 && reference.height == 844)
        let frame = renderRGB(Self.scene, time: Double(time)!)
        expectMatches(frame, reference, within: Self.limits, name: "heart-t\(time)")
    }

    /// Landscape, where u = 720/390 and the full-screen layers (fractions of
    /// W, H) and the focal elements (dw, dh, u) no longer scale alike, at the
    /// first frame (issue 31, item 2). The browser's frame frozen at
    /// currentTime exactly 0 (its other raster path for the paused mist
    /// rotation, tools/reference/README.md) was 2.0 levels off on average
    /// and fails this test; the one at 0.01 ms is 1.0 off, as near as t ≥ 0.3.
    @Test("landscape first frame matches the Chromium reference (1280×720, t = 0)")
    func matchesLandscapeFirstFrame() throws {
        let reference = try PNGImage.read(from: TestFiles.resource("heart-ref-1280x720-t0.0.png"))
        #expect(reference.width == 1280 && reference.height == 720)
        let frame = renderRGB(HeartScene(width: 1280, height: 720), time: 0)
        expectMatches(frame, reference, within: Self.limits, name: "heart-1280x720-t0.0")
    }

    @Test("a wrong frame is caught: the reference at another time differs")
    func comparisonCanFail() throws {
        // t = 0.3 shows the bright pulse ring, t = 12.5 does not.
        let reference = try PNGImage.read(from: TestFiles.resource("heart-ref-390x844-t12.5.png"))
        let frame = renderRGB(Self.scene, time: 0.3)
        #expect(ImageDifference(frame, reference).smoothedMax > 12)
    }
}
