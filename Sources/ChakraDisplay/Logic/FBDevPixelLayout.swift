import ChakraRaster

/// A legacy framebuffer's pixel layout as fb_var_screeninfo describes it
/// (bits_per_pixel and one bitfield per channel), and the `PixelFormat`
/// that writes exactly that layout.
public struct FBDevPixelLayout: Equatable, Sendable, CustomStringConvertible {
    /// fb_bitfield: the channel's lowest bit and its width.
    public struct Field: Equatable, Sendable {
        public var offset: UInt32
        public var length: UInt32
        public var msbRight: Bool
        public init(offset: UInt32, length: UInt32, msbRight: Bool = false) {
            (self.offset, self.length, self.msbRight) = (offset, length, msbRight)
        }
    }

    public var bitsPerPixel: UInt32
    public var red: Field, green: Field, blue: Field, transparency: Field
    /// Grayscale framebuffers and non-truecolour visuals cannot show our frames.
    public var grayscale: Bool = false
    public var trueColor: Bool = true

    public init(bitsPerPixel: UInt32, red: Field, green: Field, blue: Field, transparency: Field = Field(offset: 0, length: 0)) {
        (self.bitsPerPixel, self.red, self.green, self.blue, self.transparency) = (bitsPerPixel, red, green, blue, transparency)
    }

    /// The matching format (DRM fourcc naming: channels from the most
    /// significant bit of a little-endian word), or nil.
    public var pixelFormat: PixelFormat? {
        guard trueColor, !grayscale, ![red, green, blue].contains(where: \.msbRight) else { return nil }
        let rgb = (red.offset, red.length, green.offset, green.length, blue.offset, blue.length)
        switch (bitsPerPixel, rgb) {
        case (32, (16, 8, 8, 8, 0, 8)): return transparency.length == 8 && transparency.offset == 24 ? .argb8888 : .xrgb8888
        case (32, (0, 8, 8, 8, 16, 8)): return .xbgr8888
        case (24, (16, 8, 8, 8, 0, 8)): return .rgb888
        case (24, (0, 8, 8, 8, 16, 8)): return .bgr888
        case (16, (11, 5, 5, 6, 0, 5)): return .rgb565
        case (16, (0, 5, 5, 6, 11, 5)): return .bgr565
        default: return nil
        }
    }

    /// The layout to ask for with FBIOPUT_VSCREENINFO to get `format`.
    public static func layout(for format: PixelFormat) -> FBDevPixelLayout {
        let f = Field.init(offset:length:msbRight:)
        switch format {
        case .xrgb8888: return FBDevPixelLayout(bitsPerPixel: 32, red: f(16, 8, false), green: f(8, 8, false), blue: f(0, 8, false))
        case .argb8888: return FBDevPixelLayout(bitsPerPixel: 32, red: f(16, 8, false), green: f(8, 8, false), blue: f(0, 8, false), transparency: f(24, 8, false))
        case .xbgr8888: return FBDevPixelLayout(bitsPerPixel: 32, red: f(0, 8, false), green: f(8, 8, false), blue: f(16, 8, false))
        case .rgb888: return FBDevPixelLayout(bitsPerPixel: 24, red: f(16, 8, false), green: f(8, 8, false), blue: f(0, 8, false))
        case .bgr888: return FBDevPixelLayout(bitsPerPixel: 24, red: f(0, 8, false), green: f(8, 8, false), blue: f(16, 8, false))
        case .rgb565: return FBDevPixelLayout(bitsPerPixel: 16, red: f(11, 5, false), green: f(5, 6, false), blue: f(0, 5, false))
        case .bgr565: return FBDevPixelLayout(bitsPerPixel: 16, red: f(0, 5, false), green: f(5, 6, false), blue: f(11, 5, false))
        }
    }

    public var description: String {
        "\(bitsPerPixel) bpp r\(red.length)@\(red.offset) g\(green.length)@\(green.offset) b\(blue.length)@\(blue.offset)"
            + (transparency.length > 0 ? " a\(transparency.length)@\(transparency.offset)" : "")
            + (grayscale ? " grayscale" : "") + (trueColor ? "" : " (not truecolor)")
    }
}

/// Whether frames can alternate between two pages of the framebuffer by
/// panning (FBIOPAN_DISPLAY), and what to ask for when the virtual height
/// is too small.
public enum FBDevPaging {
    public enum Plan: Equatable, Sendable {
        /// Two pages already fit the virtual height: pan between y = 0 and yres.
        case pan
        /// Ask FBIOPUT_VSCREENINFO for this yres_virtual, then pan.
        case enlarge(virtualHeight: UInt32)
        /// One page: draw into the visible memory.
        case single(reason: String)
    }

    /// `memoryBytes` is fix.smem_len; `lineLength` fix.line_length;
    /// `panStep` fix.ypanstep (0: the driver cannot pan).
    public static func plan(height: UInt32, virtualHeight: UInt32, lineLength: UInt32, memoryBytes: UInt32, panStep: UInt16) -> Plan {
        guard panStep > 0 else { return .single(reason: "the driver cannot pan (ypanstep 0)") }
        guard height % UInt32(panStep) == 0 else { return .single(reason: "yres \(height) is not a multiple of ypanstep \(panStep)") }
        if virtualHeight >= 2 * height { return .pan }
        guard UInt64(lineLength) * UInt64(2 * height) <= UInt64(memoryBytes) else {
            return .single(reason: "\(memoryBytes) bytes of video memory hold one page of \(height) lines of \(lineLength) bytes")
        }
        return .enlarge(virtualHeight: 2 * height)
    }
}
