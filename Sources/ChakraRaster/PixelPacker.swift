import CStreamStore
import CLanes
// The last stage of a frame: a fixed-point row (`FixedRow`, opaque) to the
// output's pixel format, with ordered dithering wherever the output has
// fewer bits than the frame. Every output in Chakra is dithered, 8-bit
// included: the row holds 64 steps per 8-bit level, so an 8-bit target
// still drops bits, and the heart's dark violet background spans only ~30
// levels across the screen — undithered it bands.
//
// Dithering adds a Bayer 8×8 threshold d ∈ (0, 1) (mean ½) before taking the
// floor, so floor(v·max + d) averages v·max over the tile: the mean colour is
// kept (tests check it). On the row's 1/64-level units that is (v + b) >> 6
// with the Bayer index b ∈ 0...63, exactly (v + b + ½ never crosses a
// multiple of 64 that v + b does not). The converter is chosen once per
// format (Plymouth's flush_area idea); the per-pixel loops have no format
// branches, and take eight pixels a step.

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
    /// Orders the streaming stores of `pack(streaming: true)` before what
    /// follows (handing the frame to the display).
    public static func finishStreaming() { chakra_stream_fence() }

    /// The Bayer indices of pixels 0-7 of tile row y & 7, in lanes.
    @inline(__always)
    static func dither(_ y: Int) -> SIMD8<Int16> {
        var lanes = SIMD8<Int16>()
        for k in 0..<8 { lanes[k] = Int16(OrderedDither.bayer8[(y & 7) * 8 + k]) }
        return lanes
    }

    /// Packs `count` pixels of a fixed-point row into `destination`. `y`
    /// selects the dither row. Reads (never writes) the row's padding past
    /// `count`; writes exactly `count` pixels. `streaming`: the destination
    /// is frame memory the CPU will not read back (see CStreamStore); call
    /// `finishStreaming()` before showing it.
    public static func pack(_ row: FixedRow, count: Int, y: Int, format: PixelFormat, into destination: UnsafeMutableRawPointer,
                            streaming: Bool = false) {
        precondition(count <= row.capacity)
        let d = dither(y)
        switch format {
        case .xrgb8888, .argb8888: pack32(row, count, d, destination, redFirst: false, streaming: streaming)
        case .xbgr8888: pack32(row, count, d, destination, redFirst: true, streaming: streaming)
        case .rgb888: pack24(row, count, d, destination, redOffset: 2, blueOffset: 0)
        case .bgr888: pack24(row, count, d, destination, redOffset: 0, blueOffset: 2)
        case .rgb565: pack16(row, count, d, destination, redShift: 11, blueShift: 0)
        case .bgr565: pack16(row, count, d, destination, redShift: 0, blueShift: 11)
        }
    }

    /// 8-bit channels: (v + b) >> 6, saturated to 0...255 and interleaved
    /// with 0xFF by `chakra_store_dithered32`. Values a rounding outside
    /// [0, 1] saturate, so the compositor's float rounding needs no clamp.
    static func pack32(_ row: FixedRow, _ count: Int, _ d: SIMD8<Int16>, _ destination: UnsafeMutableRawPointer,
                       redFirst: Bool, streaming requested: Bool) {
        // Streaming stores need 16-byte alignment (every buffer the daemon
        // draws into has it).
        let streaming: Int32 = requested && chakra_stream_available() != 0 && Int(bitPattern: destination) & 15 == 0 ? 1 : 0
        let (first, third) = redFirst ? (row.red, row.blue) : (row.blue, row.red)
        var x = 0
        while x &+ 8 <= count {
            chakra_store_dithered32(loadLanes(first + x), loadLanes(row.green + x), loadLanes(third + x), d, destination + (x &<< 2),
                                    streaming)
            x &+= 8
        }
        guard x < count else { return }
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 8) { tail in
            chakra_store_dithered32(loadLanes(first + x), loadLanes(row.green + x), loadLanes(third + x), d, tail.baseAddress!, 0)
            (destination + 4 * x).copyMemory(from: tail.baseAddress!, byteCount: 4 * (count - x))
        }
    }

    /// Channels clamped to 0...255 after the dither.
    @inline(__always)
    static func levels8(_ lanes: SIMD8<Int16>, _ d: SIMD8<Int16>) -> SIMD8<Int16> {
        chakra_clamp((lanes &+ d) &>> 6, 0, 255)
    }

    static func pack24(_ row: FixedRow, _ count: Int, _ d: SIMD8<Int16>, _ destination: UnsafeMutableRawPointer,
                       redOffset: Int, blueOffset: Int) {
        let out = destination.assumingMemoryBound(to: UInt8.self)
        var x = 0
        while x < count {
            let r = levels8(loadLanes(row.red + x), d), g = levels8(loadLanes(row.green + x), d), b = levels8(loadLanes(row.blue + x), d)
            for k in 0..<Swift.min(8, count - x) {
                let o = out + 3 * (x + k)
                o[redOffset] = UInt8(truncatingIfNeeded: r[k])
                o[1] = UInt8(truncatingIfNeeded: g[k])
                o[blueOffset] = UInt8(truncatingIfNeeded: b[k])
            }
            x &+= 8
        }
    }

    /// 5- and 6-bit channels: the row value scaled to 1/256 of a 5-bit
    /// (6-bit) level by a high-half multiply of the doubled value (31·256/
    /// 16320 ≈ 2·7967/2¹⁶·2, 63·256/16320 ≈ 2·16191/2¹⁶·2), then the
    /// threshold (b + ½)/64 = (4b + 2)/256 added: the product's rounding
    /// (under 1.3/256 of a level) stays inside the half step, so an exact
    /// level packs to itself at every threshold.
    static func pack16(_ row: FixedRow, _ count: Int, _ d: SIMD8<Int16>, _ destination: UnsafeMutableRawPointer,
                       redShift: Int16, blueShift: Int16) {
        let out = destination.assumingMemoryBound(to: UInt16.self)
        let five = SIMD8<Int16>(repeating: 2 * 7967), six = SIMD8<Int16>(repeating: 2 * 16191)
        let threshold = (d &<< 2) &+ 2
        var x = 0
        while x < count {
            let r = chakra_clamp((mulhiDoubled(loadLanes(row.red + x), five) &+ threshold) &>> 8, 0, 31)
            let g = chakra_clamp((mulhiDoubled(loadLanes(row.green + x), six) &+ threshold) &>> 8, 0, 63)
            let b = chakra_clamp((mulhiDoubled(loadLanes(row.blue + x), five) &+ threshold) &>> 8, 0, 31)
            let packed = (r &<< SIMD8(repeating: redShift)) | (g &<< 5) | (b &<< SIMD8(repeating: blueShift))
            if x &+ 8 <= count {
                UnsafeMutableRawPointer(out + x).storeBytes(of: packed, as: SIMD8<Int16>.self)
            } else {
                for k in 0..<(count - x) { out[x + k] = UInt16(bitPattern: packed[k]) }
            }
            x &+= 8
        }
    }
}
