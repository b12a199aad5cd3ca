import ChakraRaster
import Glibc

/// The picture a CRTC shows when chakrad starts (Plymouth's splash after
/// `plymouth deactivate`, or the console's framebuffer), read once so the
/// scene can fade in from it with no black in between (docs/seams.md,
/// Boot). The pure half: whether it can be read and how, and the copy into
/// a frame; the ioctls are `DRMOutput.copyPictureOnScreen`.

/// A framebuffer as DRM describes it (GETFB2, or GETFB before Linux 5.7).
public struct ShownFramebuffer: Equatable, Sendable {
    public var id: UInt32
    public var width: Int, height: Int
    public var fourcc: UInt32
    /// Its layout modifier, when it was made with one (0: linear).
    public var modifier: UInt64?
    /// Buffer handles given (a second one: a format of several planes).
    public var handles: [UInt32]
    public var pitch: Int
    public var offset: Int

    public init(id: UInt32, width: Int, height: Int, fourcc: UInt32, modifier: UInt64? = nil, handles: [UInt32], pitch: Int, offset: Int = 0) {
        (self.id, self.width, self.height, self.fourcc, self.modifier) = (id, width, height, fourcc, modifier)
        (self.handles, self.pitch, self.offset) = (handles, pitch, offset)
    }
}

/// How to read the picture: where the screen's window lies in the buffer
/// once mapped, and in which format.
public struct PictureReadPlan: Equatable, Sendable {
    public var handle: UInt32
    public var format: PixelFormat
    /// Bytes from the mapping's start to the screen's first pixel.
    public var start: Int
    public var pitch: Int
    public var width: Int, height: Int
    /// Bytes to map: through the last pixel on screen.
    public var length: Int
}

/// Why no picture was read: the start then goes on exactly as without one.
public enum PictureUnreadable: Error, Equatable, Sendable, CustomStringConvertible {
    case notOffered(String)
    case nothingShown
    case otherSize(shown: String, chosen: String)
    case outsideFramebuffer(String)
    case format(String)
    case tiled(modifier: UInt64)
    case noHandle
    case failed(String)

    public var description: String {
        switch self {
        case .notOffered(let why): why
        case .nothingShown: "the CRTC shows nothing"
        case .otherSize(let shown, let chosen): "the screen shows \(shown), chakrad's mode is \(chosen)"
        case .outsideFramebuffer(let what): "the screen's window lies outside the framebuffer (\(what))"
        case .format(let name): "its format \(name) is not one chakrad reads"
        case .tiled(let modifier): "it is not linear (modifier 0x\(String(modifier, radix: 16)))"
        case .noHandle: "DRM gave no buffer handle (chakrad is not DRM master)"
        case .failed(let what): what
        }
    }
}

public enum PictureOnScreen {
    /// Whether and how the picture can be read. `shown` is the CRTC's
    /// framebuffer id (0: off), `mode` its mode's size (nil: none),
    /// `origin` where the screen's window starts in the framebuffer;
    /// `screen` the size of the mode chakrad chose; `framebuffer` what
    /// GETFB2 said of `shown`. A picture of another size than chakrad's
    /// is not faded from: the modeset would change it anyway.
    public static func plan(shown: UInt32, mode: (width: Int, height: Int)?, origin: (x: Int, y: Int), screen: (width: Int, height: Int),
                            framebuffer: ShownFramebuffer?) -> Result<PictureReadPlan, PictureUnreadable> {
        guard shown != 0, let mode else { return .failure(.nothingShown) }
        guard mode == screen else {
            return .failure(.otherSize(shown: "\(mode.width)x\(mode.height)", chosen: "\(screen.width)x\(screen.height)"))
        }
        guard let framebuffer else { return .failure(.failed("the framebuffer \(shown) cannot be read")) }
        guard let format = PixelFormat.allCases.first(where: { DRMFourCC.code(for: $0) == framebuffer.fourcc }) else {
            return .failure(.format(DRMFourCC.name(framebuffer.fourcc)))
        }
        if let modifier = framebuffer.modifier, modifier != 0 { return .failure(.tiled(modifier: modifier)) }
        guard framebuffer.handles.count <= 1 else { return .failure(.format("\(DRMFourCC.name(framebuffer.fourcc)) in \(framebuffer.handles.count) planes")) }
        guard let handle = framebuffer.handles.first, handle != 0 else { return .failure(.noHandle) }
        let bpp = format.bytesPerPixel
        guard origin.x >= 0, origin.y >= 0, origin.x + mode.width <= framebuffer.width, origin.y + mode.height <= framebuffer.height,
              framebuffer.pitch >= framebuffer.width * bpp, framebuffer.offset >= 0 else {
            return .failure(.outsideFramebuffer("\(mode.width)x\(mode.height) at \(origin.x),\(origin.y) of \(framebuffer.width)x\(framebuffer.height)"))
        }
        let start = framebuffer.offset + origin.y * framebuffer.pitch + origin.x * bpp
        let length = start + (mode.height - 1) * framebuffer.pitch + mode.width * bpp
        return .success(PictureReadPlan(handle: handle, format: format, start: start, pitch: framebuffer.pitch,
                                        width: mode.width, height: mode.height, length: length))
    }

    /// Copies the screen's memory `screen` (unrotated, in its own format)
    /// into `frame`, an XRGB8888 frame as the scene sees the screen (turned
    /// by `rotation`: what the crossfade mixes and turns back). A frame of
    /// another size than the screen turned is a programming error.
    public static func copy(_ screen: PixelBuffer, turnedBy rotation: Rotation, into frame: PixelBuffer) {
        let source = screen.rotated(rotation)
        precondition(frame.format == .xrgb8888 && frame.rotation == .none && frame.width == source.width && frame.height == source.height,
                     "an XRGB8888 frame of the screen's size turned")
        let wordSized = screen.format == .xrgb8888 || screen.format == .argb8888
        for y in 0..<frame.height {
            let row = (frame.base + y * frame.stride).assumingMemoryBound(to: UInt32.self)
            if wordSized, rotation == .none {
                // One pass over memory that may be slow to read (write-combined
                // VRAM): a row at a time; the alpha byte is carried and ignored.
                memcpy(row, screen.base + y * screen.stride, frame.width * 4)
                continue
            }
            var (pointer, step) = source.address(x: 0, y: y)
            for x in 0..<frame.width {
                // ARGB on the primary plane scans out opaque: alpha is not read.
                if wordSized {
                    row[x] = pointer.loadUnaligned(as: UInt32.self) | 0xFF00_0000
                } else {
                    let c = SIMD3<UInt32>(truncatingIfNeeded: screen.format.decode(pointer))
                    row[x] = 0xFF00_0000 | c.x << 16 | c.y << 8 | c.z
                }
                pointer += step
            }
        }
    }
}
