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

/// How a frame is turned to fit the panel: the scene's rows are drawn
/// clockwise by this many degrees into the memory (docs/design.md, Display:
/// rotation is done once, in the final conversion pass).
public enum Rotation: Int, Sendable, CaseIterable {
    case none = 0, clockwise90 = 90, upsideDown = 180, clockwise270 = 270

    /// True when the frame's width runs along the memory's columns.
    public var swapsAxes: Bool { self == .clockwise90 || self == .clockwise270 }
}

/// A frame's pixels in memory the caller owns (a dumb buffer, an fbdev
/// mapping, or a `FrameBuffer`): the renderer writes, the backend flips.
///
/// `width` and `height` are the frame's (the scene's) size; with a rotation
/// the memory is `height` pixels wide and `width` rows tall. `stride` is the
/// memory's bytes per row.
public struct PixelBuffer: @unchecked Sendable {
    public var base: UnsafeMutableRawPointer
    public var width: Int
    public var height: Int
    public var stride: Int   // bytes per row of the memory
    public var format: PixelFormat
    public var rotation: Rotation

    /// Memory of `width`×`height` pixels, drawn unrotated.
    public init(base: UnsafeMutableRawPointer, width: Int, height: Int, stride: Int, format: PixelFormat) {
        precondition(width >= 0 && height >= 0 && stride >= width * format.bytesPerPixel)
        (self.base, self.width, self.height, self.stride, self.format, self.rotation) = (base, width, height, stride, format, .none)
    }

    /// The same memory, with frames drawn turned clockwise by `rotation`:
    /// a 1920×1080 panel turned 90° takes 1080×1920 frames.
    public func rotated(_ rotation: Rotation) -> PixelBuffer {
        precondition(self.rotation == .none, "rotate the unrotated buffer")
        var view = self
        view.rotation = rotation
        if rotation.swapsAxes { (view.width, view.height) = (height, width) }
        return view
    }

    /// Memory size in pixels (the panel's).
    public var memoryWidth: Int { rotation.swapsAxes ? height : width }
    public var memoryHeight: Int { rotation.swapsAxes ? width : height }

    /// Where frame pixel (x, y) lives in memory, and how many bytes lie
    /// between it and pixel (x + 1, y).
    @inline(__always)
    public func address(x: Int, y: Int) -> (pointer: UnsafeMutableRawPointer, pixelStep: Int) {
        let bpp = format.bytesPerPixel
        switch rotation {
        case .none: return (base + y * stride + x * bpp, bpp)
        case .clockwise90: return (base + x * stride + (height - 1 - y) * bpp, stride)
        case .upsideDown: return (base + (height - 1 - y) * stride + (width - 1 - x) * bpp, -bpp)
        case .clockwise270: return (base + (width - 1 - x) * stride + y * bpp, -stride)
        }
    }

    /// 8-bit RGB of frame pixel (x, y).
    public func rgb(x: Int, y: Int) -> SIMD3<UInt8> {
        format.decode(address(x: x, y: y).pointer)
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

extension PixelBuffer {
    /// Copies frame row y, packed in this buffer's format, to its place in
    /// rotated memory, where consecutive pixels are a row apart (90°, 270°)
    /// or run backwards (180°).
    func scatter(packedRow packed: UnsafeMutableRawPointer, y: Int) {
        let (start, step) = address(x: 0, y: y)
        var target = start
        switch format.bytesPerPixel {
        case 4:
            let source = packed.assumingMemoryBound(to: UInt32.self)
            for x in 0..<width { target.storeBytes(of: source[x], as: UInt32.self); target += step }
        case 2:
            let source = packed.assumingMemoryBound(to: UInt16.self)
            for x in 0..<width { target.storeBytes(of: source[x], as: UInt16.self); target += step }
        default:
            let bpp = format.bytesPerPixel
            for x in 0..<width { target.copyMemory(from: packed + x * bpp, byteCount: bpp); target += step }
        }
    }
}
