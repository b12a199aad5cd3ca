import ChakraPNG
import ChakraRaster
import Testing
@testable import ChakraDaemon

/// A snapshot's PNG is the frame as a person sees it, whichever way it is
/// made: converted inside the frame's own memory (unrotated 4-byte formats)
/// or through a separate RGB picture (the rest).
@Suite("Snapshot PNGs")
struct SnapshotPNGTests {
    /// A frame of 7x5 pixels (odd sizes: no row is a multiple of anything)
    /// filled with pseudo-random bytes, and a second frame with the same bytes.
    static func frames(_ format: PixelFormat) -> (FrameBuffer, FrameBuffer) {
        let a = FrameBuffer(width: 7, height: 5, format: format), b = FrameBuffer(width: 7, height: 5, format: format)
        var state: UInt32 = 0x9E37_79B9
        for y in 0..<5 {
            for byte in 0..<(7 * format.bytesPerPixel) {
                state = state &* 1_664_525 &+ 1_013_904_223
                let value = UInt8(truncatingIfNeeded: state >> 24)
                a.pixels.base.storeBytes(of: value, toByteOffset: y * a.pixels.stride + byte, as: UInt8.self)
                b.pixels.base.storeBytes(of: value, toByteOffset: y * b.pixels.stride + byte, as: UInt8.self)
            }
        }
        return (a, b)
    }

    @Test("the PNG decodes to rgb(): every format, unrotated and turned",
          arguments: PixelFormat.allCases, [Rotation.none, .clockwise90, .upsideDown])
    func pngMatchesRGB(format: PixelFormat, rotation: Rotation) throws {
        let (frame, twin) = Self.frames(format)
        let expected = FrameSnapshot(frame: twin, rotation: rotation).rgb()
        let made = try FrameSnapshot(frame: frame, rotation: rotation).consumedIntoPNG()
        let decoded = try PNGImage.decode(made.png)
        #expect(made.width == expected.width && made.height == expected.height)
        #expect(decoded == expected)
        // The pattern is not flat: a conversion that lost pixels would show.
        #expect(Set(stride(from: 0, to: expected.bytes.count, by: 3).map { expected.bytes[$0] }).count > 10)
    }
}
