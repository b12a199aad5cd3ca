import ChakraRaster
import Testing
@testable import ChakraDisplay

@Suite("The picture on screen at start: whether it is read, and the copy into a frame")
struct PictureOnScreenTests {
    static let xrgb = DRMFourCC.code(for: .xrgb8888)
    static func framebuffer(width: Int = 1280, height: Int = 800, fourcc: UInt32 = xrgb, modifier: UInt64? = nil,
                            handles: [UInt32] = [5], pitch: Int = 1280 * 4, offset: Int = 0) -> ShownFramebuffer {
        ShownFramebuffer(id: 42, width: width, height: height, fourcc: fourcc, modifier: modifier, handles: handles, pitch: pitch, offset: offset)
    }
    static func plan(shown: UInt32 = 42, mode: (width: Int, height: Int)? = (1280, 800), origin: (x: Int, y: Int) = (0, 0),
                     screen: (width: Int, height: Int) = (1280, 800), _ framebuffer: ShownFramebuffer? = framebuffer())
        -> Result<PictureReadPlan, PictureUnreadable> {
        PictureOnScreen.plan(shown: shown, mode: mode, origin: origin, screen: screen, framebuffer: framebuffer)
    }

    @Test("a linear XRGB8888 or ARGB8888 framebuffer of the screen's size is read whole")
    func readable() throws {
        let plan = try Self.plan().get()
        #expect(plan == PictureReadPlan(handle: 5, format: .xrgb8888, start: 0, pitch: 5120, width: 1280, height: 800, length: 5120 * 800))
        let argb = try Self.plan(Self.framebuffer(fourcc: DRMFourCC.code(for: .argb8888), modifier: 0)).get()
        #expect(argb.format == .argb8888, "modifier 0 is linear")
        // GETFB2 lists the one buffer once.
        #expect(try Self.plan(Self.framebuffer(fourcc: DRMFourCC.code(for: .rgb565), pitch: 2560)).get().length == 2560 * 800)
    }

    @Test("a window into a larger framebuffer (the console's panning): from its origin, mapped through its last pixel")
    func window() throws {
        let fb = Self.framebuffer(width: 1344, height: 1600, pitch: 5376, offset: 64)
        let plan = try Self.plan(origin: (8, 800), fb).get()
        #expect(plan.start == 64 + 800 * 5376 + 8 * 4)
        #expect(plan.length == plan.start + 799 * 5376 + 1280 * 4)
        #expect(Self.plan(origin: (65, 0), fb) == .failure(.outsideFramebuffer("1280x800 at 65,0 of 1344x1600")))
        #expect(Self.plan(origin: (8, 801), fb) == .failure(.outsideFramebuffer("1280x800 at 8,801 of 1344x1600")))
    }

    @Test("anything else is not read, and says why")
    func unreadable() {
        #expect(Self.plan(shown: 0) == .failure(.nothingShown))
        #expect(Self.plan(mode: nil) == .failure(.nothingShown))
        #expect(Self.plan(mode: (1024, 768)) == .failure(.otherSize(shown: "1024x768", chosen: "1280x800")))
        #expect(Self.plan(nil) == .failure(.failed("the framebuffer 42 cannot be read")))
        #expect(Self.plan(Self.framebuffer(fourcc: DRMFourCC.code("NV12"))) == .failure(.format("NV12")))
        #expect(Self.plan(Self.framebuffer(modifier: 0x0100_0000_0000_0001)) == .failure(.tiled(modifier: 0x0100_0000_0000_0001)))
        #expect(Self.plan(Self.framebuffer(handles: [5, 6])) == .failure(.format("XR24 in 2 planes")))
        #expect(Self.plan(Self.framebuffer(handles: [0])) == .failure(.noHandle))
        #expect(Self.plan(Self.framebuffer(width: 1024)) == .failure(.outsideFramebuffer("1280x800 at 0,0 of 1024x800")))
        #expect(Self.plan(Self.framebuffer(pitch: 4000)) == .failure(.outsideFramebuffer("1280x800 at 0,0 of 1280x800")))
        #expect("\(PictureUnreadable.otherSize(shown: "1024x768", chosen: "1280x800"))" == "the screen shows 1024x768, chakrad's mode is 1280x800")
        #expect("\(PictureUnreadable.noHandle)" == "DRM gave no buffer handle (chakrad is not DRM master)")
    }

    /// Screen memory of `width`x`height` in `format`, pixel (x, y) the
    /// colour `colour(x, y)`, rows padded to `pitch`.
    static func screen(width: Int, height: Int, format: PixelFormat, pitch: Int? = nil,
                       colour: (Int, Int) -> SIMD3<UInt8>) -> (FrameBuffer, PixelBuffer) {
        let stride = pitch ?? width * format.bytesPerPixel
        let memory = FrameBuffer(width: stride / format.bytesPerPixel + 1, height: height, format: format)
        let buffer = PixelBuffer(base: memory.pixels.base, width: width, height: height, stride: stride, format: format)
        for y in 0..<height {
            for x in 0..<width {
                let c = colour(x, y), p = buffer.base + y * stride + x * format.bytesPerPixel
                switch format {
                case .xrgb8888, .argb8888:
                    p.storeBytes(of: UInt32(c.x) << 16 | UInt32(c.y) << 8 | UInt32(c.z) | 0x1200_0000, as: UInt32.self)
                case .rgb565:
                    p.storeBytes(of: UInt16(c.x >> 3) << 11 | UInt16(c.y >> 2) << 5 | UInt16(c.z >> 3), as: UInt16.self)
                default:
                    Issue.record("not a format this test writes")
                }
            }
        }
        return (memory, buffer)
    }

    static func pattern(_ x: Int, _ y: Int) -> SIMD3<UInt8> { SIMD3(UInt8(x * 16 % 256), UInt8(y * 32 % 256), UInt8((x + y) * 8 % 256)) }

    @Test("XRGB8888 and ARGB8888: every pixel copied (alpha not read), from padded rows")
    func copyWords() {
        for format in [PixelFormat.xrgb8888, .argb8888] {
            let (memory, screen) = Self.screen(width: 13, height: 7, format: format, pitch: 64, colour: Self.pattern)
            let frame = FrameBuffer(width: 13, height: 7, format: .xrgb8888)
            PictureOnScreen.copy(screen, turnedBy: .none, into: frame.pixels)
            for y in 0..<7 { for x in 0..<13 { #expect(frame.pixels.rgb(x: x, y: y) == Self.pattern(x, y), "\(format) at \(x),\(y)") } }
            withExtendedLifetime(memory) {}
        }
    }

    @Test("RGB565: widened as the renderer reads 565 back")
    func copy565() {
        let (memory, screen) = Self.screen(width: 9, height: 4, format: .rgb565, colour: Self.pattern)
        let frame = FrameBuffer(width: 9, height: 4, format: .xrgb8888)
        PictureOnScreen.copy(screen, turnedBy: .none, into: frame.pixels)
        for y in 0..<4 {
            for x in 0..<9 {
                let expected = PixelFormat.rgb565.decode(screen.base + y * screen.stride + x * 2)
                #expect(frame.pixels.rgb(x: x, y: y) == expected)
                #expect(abs(Int(expected.x) - Int(Self.pattern(x, y).x)) < 8, "the test's own 565 packing")
            }
        }
        withExtendedLifetime(memory) {}
    }

    @Test("turned: the frame is the screen as the scene sees it, so mixing and turning it back gives the screen")
    func copyTurned() {
        for rotation in Rotation.allCases {
            let (memory, screen) = Self.screen(width: 6, height: 4, format: .xrgb8888, colour: Self.pattern)
            let turned = screen.rotated(rotation)
            let frame = FrameBuffer(width: turned.width, height: turned.height, format: .xrgb8888)
            PictureOnScreen.copy(screen, turnedBy: rotation, into: frame.pixels)
            // Back onto the screen the way every frame goes: the mixer at
            // amount 0 (the fade's first step) into the turned memory.
            let back = FrameBuffer(width: 6, height: 4, format: .xrgb8888)
            FrameMixer(maxWidth: turned.width).mix(frame.pixels, frame.pixels, amount: 0, into: back.pixels.rotated(rotation))
            for y in 0..<4 { for x in 0..<6 { #expect(back.pixels.rgb(x: x, y: y) == Self.pattern(x, y), "\(rotation) at \(x),\(y)") } }
            withExtendedLifetime(memory) {}
        }
    }
}
