import CPNG

/// PNG files through libpng's simplified API (png_image_*), which reports
/// errors in the image struct instead of longjmp-ing.
public enum PNGImage {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// An 8-bit RGB image, rows top to bottom, 3 bytes a pixel.
    public struct RGB: Sendable, Equatable {
        public var width: Int
        public var height: Int
        public var bytes: [UInt8]

        public init(width: Int, height: Int, bytes: [UInt8]) {
            precondition(bytes.count == width * height * 3)
            (self.width, self.height, self.bytes) = (width, height, bytes)
        }

        public subscript(x: Int, y: Int) -> SIMD3<UInt8> {
            let i = (y * width + x) * 3
            return SIMD3(bytes[i], bytes[i + 1], bytes[i + 2])
        }
    }

    /// Writes tightly packed RGB bytes as an 8-bit RGB PNG, for tests'
    /// own files only. libpng opens whatever is at `path` (a FIFO blocks,
    /// a device is written) and removes `path` when a write fails: a file
    /// a person named goes through `encode` and ChakraSystem's OutputFile.
    public static func write(_ image: RGB, to path: String) throws {
        var png = png_image()
        png.version = UInt32(PNG_IMAGE_VERSION)
        png.width = UInt32(image.width)
        png.height = UInt32(image.height)
        png.format = UInt32(PNG_FORMAT_RGB)
        let ok = image.bytes.withUnsafeBytes { bytes in
            png_image_write_to_file(&png, path, 0, bytes.baseAddress, Int32(image.width * 3), nil)
        }
        guard ok != 0 else { throw Failure(description: "cannot write PNG '\(path)': \(message(of: &png))") }
    }

    /// The PNG file's bytes, in memory (snapshots over the control socket).
    public static func encode(_ image: RGB, fast: Bool = false) throws -> [UInt8] {
        try image.bytes.withUnsafeBytes { try encode(rgb: $0.baseAddress!, width: image.width, height: image.height, fast: fast) }
    }

    /// The same from tightly packed RGB rows in memory the caller owns (a
    /// frame converted in place, with no second copy of the picture).
    /// `fast`: libpng's speed-over-size filtering and compression (a
    /// snapshot for a client, about three times faster; a file keeps the
    /// smaller default).
    public static func encode(rgb pixels: UnsafeRawPointer, width: Int, height: Int, fast: Bool = false) throws -> [UInt8] {
        var png = png_image()
        png.version = UInt32(PNG_IMAGE_VERSION)
        png.width = UInt32(width)
        png.height = UInt32(height)
        png.format = UInt32(PNG_FORMAT_RGB)
        if fast { png.flags = UInt32(PNG_IMAGE_FLAG_FAST) }
        // Room for the worst case, so the picture is compressed once.
        var size = CPNG_image_png_size_max(&png)
        guard size > 0 else { throw Failure(description: "cannot encode PNG: \(width)x\(height) is too large") }
        var out = [UInt8](repeating: 0, count: size)
        let ok = out.withUnsafeMutableBytes { target in
            png_image_write_to_memory(&png, target.baseAddress, &size, 0, pixels, Int32(width * 3), nil)
        }
        guard ok != 0 else { throw Failure(description: "cannot encode PNG: \(message(of: &png))") }
        out.removeLast(out.count - size)   // in place: no second copy
        return out
    }

    /// Decodes PNG bytes to 8-bit RGB.
    public static func decode(_ data: [UInt8]) throws -> RGB {
        var png = png_image()
        png.version = UInt32(PNG_IMAGE_VERSION)
        let begun = data.withUnsafeBytes { png_image_begin_read_from_memory(&png, $0.baseAddress, $0.count) }
        guard begun != 0 else { throw Failure(description: "cannot read PNG data: \(message(of: &png))") }
        png.format = UInt32(PNG_FORMAT_RGB)
        let width = Int(png.width), height = Int(png.height)
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        let ok = bytes.withUnsafeMutableBytes { buffer in
            png_image_finish_read(&png, nil, buffer.baseAddress, Int32(width * 3), nil)
        }
        guard ok != 0 else { throw Failure(description: "cannot decode PNG data: \(message(of: &png))") }
        return RGB(width: width, height: height, bytes: bytes)
    }

    /// Reads any PNG, converted to 8-bit RGB (alpha composited on black).
    public static func read(from path: String) throws -> RGB {
        var png = png_image()
        png.version = UInt32(PNG_IMAGE_VERSION)
        guard png_image_begin_read_from_file(&png, path) != 0 else {
            throw Failure(description: "cannot read PNG '\(path)': \(message(of: &png))")
        }
        png.format = UInt32(PNG_FORMAT_RGB)
        let width = Int(png.width), height = Int(png.height)
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        let ok = bytes.withUnsafeMutableBytes { buffer in
            png_image_finish_read(&png, nil, buffer.baseAddress, Int32(width * 3), nil)
        }
        guard ok != 0 else { throw Failure(description: "cannot decode PNG '\(path)': \(message(of: &png))") }
        return RGB(width: width, height: height, bytes: bytes)
    }

    private static func message(of png: inout png_image) -> String {
        withUnsafeBytes(of: &png.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
