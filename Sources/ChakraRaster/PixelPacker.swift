import CStreamStore
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
    /// Packs `count` pixels of a planar float row into `destination`.
    /// `y` selects the dither row. Reads (never writes) the row's padding
    /// past `count`; writes exactly `count` pixels.
    @inline(__always)
    /// `streaming`: the destination is frame memory the CPU will not read
    /// back (see CStreamStore); call `finishStreaming()` before showing it.
    /// Orders the streaming stores of `pack(streaming: true)` before what
    /// follows (handing the frame to the display).
    public static func finishStreaming() { chakra_stream_fence() }

    public static func pack(_ row: PlanarRow, count: Int, y: Int, format: PixelFormat, into destination: UnsafeMutableRawPointer,
                            streaming: Bool = false) {
        precondition(count <= row.capacity)
        // Thresholds minus ½ (see `quantize4`) for pixels 0-3 and 4-7 of the tile row.
        var low = SIMD4<Float>(), high = SIMD4<Float>()
        for k in 0..<4 {
            low[k] = OrderedDither.threshold(x: k, y: y) - 0.5
            high[k] = OrderedDither.threshold(x: k + 4, y: y) - 0.5
        }
        let dither = (low, high)
        switch format {
        case .xrgb8888, .argb8888: pack32(row, count, dither, destination, redShift: 16, blueShift: 0, streaming: streaming)
        case .xbgr8888: pack32(row, count, dither, destination, redShift: 0, blueShift: 16, streaming: streaming)
        case .rgb888: pack24(row, count, dither, destination, redOffset: 2, blueOffset: 0)
        case .bgr888: pack24(row, count, dither, destination, redOffset: 0, blueOffset: 2)
        case .rgb565: pack16(row, count, dither, destination, redShift: 11, blueShift: 0)
        case .bgr565: pack16(row, count, dither, destination, redShift: 0, blueShift: 11)
        }
    }

    /// Pixels x..x+3's channels as integer lanes, each floor(c·max + d).
    /// Channels must lie in [0, 1] (give or take float rounding): the
    /// compositor guarantees it (see `FrameCompositor`), so there is no
    /// clamp here, which was 40% of this pass.
    ///
    /// Rounds with the 1.5·2²³ trick: adding it to y ∈ (−2²², 2²²) gives a
    /// float in [2²³, 2²⁴), where floats are whole numbers, so round(y)
    /// lands in the low mantissa bits (0x4B40_0000 + round(y)). The ½·2²³
    /// keeps slightly negative y (0 minus the dither's ½) out of [2²², 2²³),
    /// where floats step by ½. The stdlib's generic SIMD float → int
    /// conversion is not vectorised. floor(y) = round(y − ½);
    /// the dither keeps y off the half-way ties. Flat code on purpose: the
    /// optimiser does not inline closures or nested functions here.
    @inline(__always)
    static func quantize4(_ row: PlanarRow, _ x: Int, dither: SIMD4<Float>, max m: SIMD3<Float>) -> (r: SIMD4<UInt32>, g: SIMD4<UInt32>, b: SIMD4<UInt32>) {
        let magic = SIMD4<Float>(repeating: 12_582_912)
        return (rawRounded(loadLanes(row.red + x) * m.x + dither + magic) &- 0x4B40_0000,
                rawRounded(loadLanes(row.green + x) * m.y + dither + magic) &- 0x4B40_0000,
                rawRounded(loadLanes(row.blue + x) * m.z + dither + magic) &- 0x4B40_0000)
    }

    /// The bits of a float in [2²³, 2²⁴): 0x4B40_0000 plus its integer value.
    @inline(__always)
    static func rawRounded(_ v: SIMD4<Float>) -> SIMD4<UInt32> { unsafeBitCast(v, to: SIMD4<UInt32>.self) }

    static func pack32(_ row: PlanarRow, _ count: Int, _ dither: (SIMD4<Float>, SIMD4<Float>), _ destination: UnsafeMutableRawPointer,
                       redShift: UInt32, blueShift: UInt32, streaming requested: Bool) {
        let out = destination.assumingMemoryBound(to: UInt32.self)
        // The dither for pixels 0-3 and 4-7 of the tile row. (It cannot be
        // folded into the rounding constant: that sum rounds the dither away.)
        let magic = SIMD4<Float>(repeating: 12_582_912)
        let opaque = SIMD4<UInt32>(repeating: 0xFF00_0000)
        let scale = SIMD4<Float>(repeating: 255)
        let exponent = SIMD4<UInt32>(repeating: 0x4B40_0000)
        var x = 0
        if redShift == 16 {
            // XRGB/ARGB, the common case, with constant shifts (SSE2 has no
            // per-lane variable shift: run-time shift counts cost more), eight
            // pixels a step so each half keeps its dither in a register.
            // Streaming stores need 16-byte alignment (every buffer the
            // daemon draws into has it).
            let streaming = requested && Int(bitPattern: destination) & 15 == 0
            @inline(__always)
            func group(_ x: Int, _ rounding: SIMD4<Float>) {
                let r = rawRounded(loadLanes(row.red + x) * scale + rounding + magic) &- exponent
                let g = rawRounded(loadLanes(row.green + x) * scale + rounding + magic) &- exponent
                let b = rawRounded(loadLanes(row.blue + x) * scale + rounding + magic) &- exponent
                var pixels = (r &<< 16) | (g &<< 8) | b | opaque
                if streaming {
                    chakra_stream16(out + x, &pixels)
                } else {
                    UnsafeMutableRawPointer(out + x).storeBytes(of: pixels, as: SIMD4<UInt32>.self)
                }
            }
            let (first, second) = dither
            while x &+ 8 <= count {
                group(x, first)
                group(x &+ 4, second)
                x &+= 8
            }
            if x &+ 4 <= count {
                group(x, first)
                x &+= 4
            }
        }
        let max = SIMD3<Float>(255, 255, 255)
        while x + 4 <= count {
            let q = quantize4(row, x, dither: (x & 4) == 0 ? dither.0 : dither.1, max: max)
            let packed = (q.r &<< redShift) | (q.g &<< 8) | (q.b &<< blueShift) | opaque
            UnsafeMutableRawPointer(out + x).storeBytes(of: packed, as: SIMD4<UInt32>.self)
            x &+= 4
        }
        guard x < count else { return }
        let q = quantize4(row, x, dither: (x & 4) == 0 ? dither.0 : dither.1, max: max)
        let packed = (q.r &<< redShift) | (q.g &<< 8) | (q.b &<< blueShift) | opaque
        for k in 0..<(count - x) { out[x + k] = packed[k] }
    }

    static func pack24(_ row: PlanarRow, _ count: Int, _ dither: (SIMD4<Float>, SIMD4<Float>), _ destination: UnsafeMutableRawPointer,
                       redOffset: Int, blueOffset: Int) {
        let out = destination.assumingMemoryBound(to: UInt8.self)
        let max = SIMD3<Float>(255, 255, 255)
        var x = 0
        while x < count {
            let q = quantize4(row, x, dither: (x & 4) == 0 ? dither.0 : dither.1, max: max)
            for k in 0..<Swift.min(4, count - x) {
                let o = out + 3 * (x + k)
                o[redOffset] = UInt8(truncatingIfNeeded: q.r[k])
                o[1] = UInt8(truncatingIfNeeded: q.g[k])
                o[blueOffset] = UInt8(truncatingIfNeeded: q.b[k])
            }
            x &+= 4
        }
    }

    static func pack16(_ row: PlanarRow, _ count: Int, _ dither: (SIMD4<Float>, SIMD4<Float>), _ destination: UnsafeMutableRawPointer,
                       redShift: UInt32, blueShift: UInt32) {
        let out = destination.assumingMemoryBound(to: UInt16.self)
        let max = SIMD3<Float>(31, 63, 31)
        var x = 0
        while x < count {
            let q = quantize4(row, x, dither: (x & 4) == 0 ? dither.0 : dither.1, max: max)
            let packed = (q.r &<< redShift) | (q.g &<< 5) | (q.b &<< blueShift)
            for k in 0..<Swift.min(4, count - x) { out[x + k] = UInt16(truncatingIfNeeded: packed[k]) }
            x &+= 4
        }
    }
}
