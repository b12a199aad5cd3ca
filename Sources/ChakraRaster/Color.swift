// Colours inside the renderer are premultiplied RGBA in gamma-encoded sRGB,
// 0...1, one `SIMD4<Float>` per pixel: browsers composite in exactly this
// space, so frames blend the way the HTML originals do.

/// A premultiplied, gamma-encoded sRGB colour: (r·a, g·a, b·a, a).
public typealias RGBA = SIMD4<Float>

public enum Colors {
    /// A straight-alpha colour with 0-255 channels, as the design documents
    /// write them (`[r, g, b, a]`), premultiplied.
    @inlinable
    public static func rgba(_ r: Double, _ g: Double, _ b: Double, _ a: Double = 1) -> RGBA {
        let alpha = Float(a)
        return RGBA(Float(r / 255) * alpha, Float(g / 255) * alpha, Float(b / 255) * alpha, alpha)
    }

    public static let transparent = RGBA(0, 0, 0, 0)

    /// Porter-Duff source-over for premultiplied colours.
    @inlinable @inline(__always)
    public static func over(_ source: RGBA, _ destination: RGBA) -> RGBA {
        source + destination * (1 - source.w)
    }

    /// CSS `filter: brightness(k)` on a premultiplied colour: the straight
    /// colour is multiplied by k and clamped to 1, i.e. c·k clamped to alpha.
    @inlinable @inline(__always)
    public static func brightness(_ color: RGBA, _ k: Float) -> RGBA {
        var scaled = lanewiseMin(color * k, RGBA(repeating: color.w))
        scaled.w = color.w
        return scaled
    }

    /// min(a, b) per lane as ½(a + b − |a − b|), |·| by clearing the sign
    /// bit: stays in vector registers, where the stdlib's generic
    /// `pointwiseMin` is an out-of-line call in the per-pixel loops.
    @inline(__always)
    @inlinable public static func lanewiseMin(_ a: RGBA, _ b: RGBA) -> RGBA {
        let d = a - b
        let absD = unsafeBitCast(unsafeBitCast(d, to: SIMD4<UInt32>.self) & SIMD4(repeating: 0x7FFF_FFFF), to: RGBA.self)
        return (a + b - absD) * 0.5
    }

    /// The straight (un-premultiplied) 0-255 channels, rounded: for tests and logs.
    public static func straight8(_ color: RGBA) -> SIMD4<Int> {
        guard color.w > 0 else { return .zero }
        let rgb = color / color.w * 255
        return SIMD4<Int>(Int(rgb.x.rounded()), Int(rgb.y.rounded()), Int(rgb.z.rounded()), Int((color.w * 255).rounded()))
    }
}
