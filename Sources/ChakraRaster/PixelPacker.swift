// The last stage of a frame: float RGB (0...1, opaque) to the output's pixel
// format, with ordered dithering wherever the output has fewer bits than the
// frame. Every output in Chakra is dithered, 8-bit included: the frame is
// float, so an 8-bit target still drops bits, and the heart's dark violet
// background spans only ~30 levels across the screen — undithered it bands.
//
// Dithering adds a Bayer 8×8 threshold d ∈ (0, 1) (mean ½) before taking the
// floor, so floor(v·max + d) averages v·max over the tile: the mean colour is
// kept (tests check it). The converter is chosen once per format
// (Plymouth's flush_area idea); the per-pixel loops have no format branches.

/// The 8×8 Bayer matrix, thresholds (b + ½)/64.
public enum OrderedDither {
    public static let bayer8: [UInt8] = [
        0, 32, 8, 40, 2, 34, 10, 42,
        48, 16, 56, 24, 50, 18, 58, 26,
        12, 44, 4, 36, 14, 46, 6, 38,
        60, 28, 52, 20, 62, 30, 54, 22,
        3, 35, 11, 43, 1, 33, 9, 41,
        51, 19, 59, 27, 49, 17, 57, 25,
        15, 47, 7, 39, 13, 45, 5, 37,
        63, 31, 55, 23, 61, 29, 53, 21,
    ]

    @inlinable
    public static func threshold(x: Int, y: Int) -> Float {
        (Float(bayer8[(y & 7) * 8 + (x & 7)]) + 0.5) / 64
    }
}

public enum PixelPacker {
    /// Packs one row of float RGB (`.w` ignored) into `destination`.
    /// `y` selects the dither row.
    @inline(__always)
    public static func pack(_ row: UnsafePointer<RGBA>, count: Int, y: Int, format: PixelFormat, into destination: UnsafeMutableRawPointer) {
        var thresholds = SIMD8<Float>()
        for k in 0..<8 { thresholds[k] = OrderedDither.threshold(x: k, y: y) }
        switch format {
        case .xrgb8888: pack32(row, count, thresholds, destination, shifts: SIMD4(16, 8, 0, 24), alpha: 0xFF00_0000)
        case .argb8888: pack32(row, count, thresholds, destination, shifts: SIMD4(16, 8, 0, 24), alpha: 0xFF00_0000)
        case .xbgr8888: pack32(row, count, thresholds, destination, shifts: SIMD4(0, 8, 16, 24), alpha: 0xFF00_0000)
        case .rgb888: pack24(row, count, thresholds, destination, order: SIMD3(2, 1, 0))
        case .bgr888: pack24(row, count, thresholds, destination, order: SIMD3(0, 1, 2))
        case .rgb565: pack16(row, count, thresholds, destination, shifts: SIMD4(11, 5, 0, 0))
        case .bgr565: pack16(row, count, thresholds, destination, shifts: SIMD4(0, 5, 11, 0))
        }
    }

    @inline(__always)
    static func quantize(_ c: RGBA, scale: RGBA, threshold: Float) -> SIMD4<Int32> {
        let v = pointwiseMin(pointwiseMax(c * scale + threshold, .zero), scale + 0.999)
        return SIMD4<Int32>(v, rounding: .towardZero)
    }

    static func pack32(_ row: UnsafePointer<RGBA>, _ count: Int, _ thresholds: SIMD8<Float>, _ destination: UnsafeMutableRawPointer, shifts: SIMD4<Int32>, alpha: UInt32) {
        let out = destination.assumingMemoryBound(to: UInt32.self)
        let scale = RGBA(255, 255, 255, 0)
        for x in 0..<count {
            let q = quantize(row[x], scale: scale, threshold: thresholds[x & 7]) &<< shifts
            out[x] = UInt32(truncatingIfNeeded: q.x | q.y | q.z) | alpha
        }
    }

    static func pack24(_ row: UnsafePointer<RGBA>, _ count: Int, _ thresholds: SIMD8<Float>, _ destination: UnsafeMutableRawPointer, order: SIMD3<Int>) {
        let out = destination.assumingMemoryBound(to: UInt8.self)
        let scale = RGBA(255, 255, 255, 0)
        for x in 0..<count {
            let q = quantize(row[x], scale: scale, threshold: thresholds[x & 7])
            out[3 * x + order.x] = UInt8(truncatingIfNeeded: q.x)
            out[3 * x + order.y] = UInt8(truncatingIfNeeded: q.y)
            out[3 * x + order.z] = UInt8(truncatingIfNeeded: q.z)
        }
    }

    static func pack16(_ row: UnsafePointer<RGBA>, _ count: Int, _ thresholds: SIMD8<Float>, _ destination: UnsafeMutableRawPointer, shifts: SIMD4<Int32>) {
        let out = destination.assumingMemoryBound(to: UInt16.self)
        let scale = RGBA(31, 63, 31, 0)
        for x in 0..<count {
            let q = quantize(row[x], scale: scale, threshold: thresholds[x & 7]) &<< shifts
            out[x] = UInt16(truncatingIfNeeded: q.x | q.y | q.z)
        }
    }
}
