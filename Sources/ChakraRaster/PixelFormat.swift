/// The formats a frame can be delivered in, named and laid out as the DRM
/// fourcc codes (drm_fourcc.h): the name lists the channels from the most
/// significant bit of a little-endian word.
public enum PixelFormat: String, Sendable, CaseIterable {
    case xrgb8888 = "XRGB8888"  // bytes B G R X
    case argb8888 = "ARGB8888"  // bytes B G R A (A = 255: frames are opaque)
    case xbgr8888 = "XBGR8888"  // bytes R G B X
    case rgb888 = "RGB888"      // bytes B G R
    case bgr888 = "BGR888"      // bytes R G B
    case rgb565 = "RGB565"      // u16: R 15-11, G 10-5, B 4-0
    case bgr565 = "BGR565"      // u16: B 15-11, G 10-5, R 4-0

    public var bytesPerPixel: Int {
        switch self {
        case .xrgb8888, .argb8888, .xbgr8888: 4
        case .rgb888, .bgr888: 3
        case .rgb565, .bgr565: 2
        }
    }

    /// Bits per colour channel (red, green, blue).
    public var channelBits: SIMD3<Int> {
        switch self {
        case .rgb565: SIMD3(5, 6, 5)
        case .bgr565: SIMD3(5, 6, 5)
        default: SIMD3(8, 8, 8)
        }
    }

    /// Reads back the 8-bit-scaled RGB of the pixel at `pointer` (tests, PNG).
    public func decode(_ pointer: UnsafeRawPointer) -> SIMD3<UInt8> {
        let b = pointer.assumingMemoryBound(to: UInt8.self)
        switch self {
        case .xrgb8888, .argb8888, .rgb888: return SIMD3(b[2], b[1], b[0])
        case .xbgr8888, .bgr888: return SIMD3(b[0], b[1], b[2])
        case .rgb565, .bgr565:
            let v = UInt16(b[0]) | UInt16(b[1]) << 8
            let hi = UInt8((v >> 11) & 31), mid = UInt8((v >> 5) & 63), lo = UInt8(v & 31)
            let expand5 = { (x: UInt8) in (x << 3) | (x >> 2) }
            let green = (mid << 2) | (mid >> 4)
            return self == .rgb565 ? SIMD3(expand5(hi), green, expand5(lo)) : SIMD3(expand5(lo), green, expand5(hi))
        }
    }
}

/// A frame's pixels in memory the caller owns (a dumb buffer, an fbdev
/// mapping, or a `FrameBuffer`): the renderer writes, the backend flips.
public struct PixelBuffer: @unchecked Sendable {
    public var base: UnsafeMutableRawPointer
    public var width: Int
    public var height: Int
    public var stride: Int   // bytes per row
    public var format: PixelFormat

    public init(base: UnsafeMutableRawPointer, width: Int, height: Int, stride: Int, format: PixelFormat) {
        precondition(stride >= width * format.bytesPerPixel)
        (self.base, self.width, self.height, self.stride, self.format) = (base, width, height, stride, format)
    }

    /// 8-bit RGB of pixel (x, y).
    public func rgb(x: Int, y: Int) -> SIMD3<UInt8> {
        format.decode(base + y * stride + x * format.bytesPerPixel)
    }
}

/// Memory for frames with no display (headless output, PNG, tests, bench).
/// Owns its bytes from init to deinit.
public final class FrameBuffer: @unchecked Sendable {
    public let pixels: PixelBuffer
    private let storage: UnsafeMutableRawPointer

    public init(width: Int, height: Int, format: PixelFormat) {
        let stride = width * format.bytesPerPixel
        storage = .allocate(byteCount: max(stride * height, 1), alignment: 64)
        storage.initializeMemory(as: UInt8.self, repeating: 0, count: max(stride * height, 1))
        pixels = PixelBuffer(base: storage, width: width, height: height, stride: stride, format: format)
    }

    deinit { storage.deallocate() }

    /// Tightly packed R, G, B bytes, row-major (PNG encoding, comparisons).
    public func rgbBytes() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: pixels.width * pixels.height * 3)
        for y in 0..<pixels.height {
            for x in 0..<pixels.width {
                let c = pixels.rgb(x: x, y: y)
                let i = (y * pixels.width + x) * 3
                out[i] = c.x; out[i + 1] = c.y; out[i + 2] = c.z
            }
        }
        return out
    }
}
