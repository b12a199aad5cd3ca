import ChakraRaster

/// DRM fourcc codes (drm_fourcc.h's fourcc_code: four characters, the first
/// in the low byte), and which format to scan out.
public enum DRMFourCC {
    public static func code(_ characters: String) -> UInt32 {
        precondition(characters.utf8.count == 4)
        return characters.utf8.enumerated().reduce(0) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
    }

    public static func code(for format: PixelFormat) -> UInt32 {
        switch format {
        case .xrgb8888: code("XR24")
        case .argb8888: code("AR24")
        case .xbgr8888: code("XB24")
        case .rgb888: code("RG24")
        case .bgr888: code("BG24")
        case .rgb565: code("RG16")
        case .bgr565: code("BG16")
        }
    }

    public static func name(_ code: UInt32) -> String {
        let bytes = (0..<4).map { UInt8(truncatingIfNeeded: code >> (8 * UInt32($0))) }
        return bytes.allSatisfy { $0 >= 32 && $0 < 127 } ? String(decoding: bytes, as: UTF8.self) : "0x" + String(code, radix: 16)
    }

    /// The format to scan out: the asked one, else RGB565 when the device
    /// prefers 16-bit dumb buffers (DRM_CAP_DUMB_PREFERRED_DEPTH), else
    /// XRGB8888, which every KMS driver takes. `planeFormats` (empty: unknown)
    /// is what the primary plane accepts.
    public static func choose(requested: PixelFormat?, preferredDepth: Int, planeFormats: [UInt32]) throws(DisplayError) -> PixelFormat {
        let supports = { (format: PixelFormat) in planeFormats.isEmpty || planeFormats.contains(code(for: format)) }
        if let requested {
            guard supports(requested) else {
                throw .unavailable("the display plane does not take \(requested.rawValue); it takes \(planeFormats.map(name).joined(separator: ", "))")
            }
            return requested
        }
        if preferredDepth == 16, supports(.rgb565) { return .rgb565 }
        return .xrgb8888
    }
}
