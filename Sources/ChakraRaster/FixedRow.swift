import CLanes
// One row of the final pass in 16-bit fixed point, one array per channel.
//
// The final pass touches every pixel of every frame, so its number format
// sets the cost floor. Floats take four pixels a vector; 16-bit lanes take
// eight, and the 8-bit output needs no more: a row value is the colour
// times `FixedRow.one` = 255·64, so one output level is 64 units, as fine
// as the 8×8 ordered dither's 64 thresholds, and packing is (v + b) >> 6
// with the Bayer index b: the same decisions as floor(c·255 + (b + ½)/64)
// on floats, the mean colour kept to 1/128 of a level. Values up to twice
// 1.0 and below zero fit an Int16, so the rounding of interpolation and
// blending can never wrap.
//
// Every channel array is 16-byte aligned and padded past `capacity` to the
// next multiple of eight plus one more vector, so loops may read and write
// whole groups of eight at and beyond the row's end.

public struct FixedRow: @unchecked Sendable {
    /// 1.0 of a colour channel in a row.
    public static let one: Float = 16320

    public let red: UnsafeMutablePointer<Int16>
    public let green: UnsafeMutablePointer<Int16>
    public let blue: UnsafeMutablePointer<Int16>
    /// Pixels the row holds (without the padding).
    public let capacity: Int

    /// Channel length with padding, in lanes.
    static func paddedLength(_ capacity: Int) -> Int { (capacity + 7) / 8 * 8 + 8 }

    /// Allocates three zeroed channel arrays; the owner calls `deallocate`.
    public static func allocate(capacity: Int) -> FixedRow {
        FixedRow(red: allocateLanes(capacity), green: allocateLanes(capacity), blue: allocateLanes(capacity), capacity: capacity)
    }

    /// One zeroed, aligned, padded channel array for `capacity` pixels.
    static func allocateLanes(_ capacity: Int) -> UnsafeMutablePointer<Int16> {
        let n = paddedLength(capacity)
        let raw = UnsafeMutableRawPointer.allocate(byteCount: n * MemoryLayout<Int16>.stride, alignment: 16)
        return raw.initializeMemory(as: Int16.self, repeating: 0, count: n)
    }

    public func deallocate() {
        red.deallocate()
        green.deallocate()
        blue.deallocate()
    }

    /// Pixel x as RGB (alpha 1) in 0...1: for tests and for painters that
    /// blend a few pixels one at a time.
    public subscript(x: Int) -> RGBA {
        get { RGBA(Float(red[x]), Float(green[x]), Float(blue[x]), FixedRow.one) / FixedRow.one }
        nonmutating set {
            red[x] = FixedRow.lane(newValue.x)
            green[x] = FixedRow.lane(newValue.y)
            blue[x] = FixedRow.lane(newValue.z)
        }
    }

    /// Source-over of premultiplied `colour` (0...1) onto pixel x, rounded
    /// to nearest: for painters that blend a few pixels one at a time (the
    /// spiral's track, bar and particles). On lanes, with no libm call.
    @inlinable @inline(__always)
    public func blend(_ colour: RGBA, at x: Int) {
        let pixel = SIMD4<Float>(Float(red[x]), Float(green[x]), Float(blue[x]), 0)
        let v = roundedLanes(colour * FixedRow.one + pixel * (1 - colour.w))
        red[x] = Int16(truncatingIfNeeded: v.x)
        green[x] = Int16(truncatingIfNeeded: v.y)
        blue[x] = Int16(truncatingIfNeeded: v.z)
    }

    /// `blend(colour * opacities[k], at: x + k)` for k in 0..<4, the same
    /// values, a channel's four pixels in lanes. A lane at opacity 0 keeps
    /// its pixel (it blends nothing), so spare lanes past a painter's last
    /// pixel may fall anywhere in the row's padding.
    @inlinable @inline(__always)
    public func blend(_ colour: RGBA, opacities o: SIMD4<Float>, at x: Int) {
        let keep = 1 - colour.w * o
        @inline(__always)
        func channel(_ p: UnsafeMutablePointer<Int16>, _ c: Float) {
            let pixel = SIMD4<Float>(Float(p[x]), Float(p[x &+ 1]), Float(p[x &+ 2]), Float(p[x &+ 3]))
            let v = roundedLanes(c * o * FixedRow.one + pixel * keep)
            (p[x], p[x &+ 1]) = (Int16(truncatingIfNeeded: v[0]), Int16(truncatingIfNeeded: v[1]))
            (p[x &+ 2], p[x &+ 3]) = (Int16(truncatingIfNeeded: v[2]), Int16(truncatingIfNeeded: v[3]))
        }
        channel(red, colour.x)
        channel(green, colour.y)
        channel(blue, colour.z)
    }

    /// Premultiplied `colour` (0...1) as the terms of a source-over in row
    /// values, for painters that blend precomputed colours eight pixels a
    /// step (CLanes' track.h): w minus the alpha in Q15, and x, y, z each
    /// colour channel times `one`, for the blend p + z + ⌊p·w / 2¹⁵⌋. For
    /// an opaque colour (w = −32768) the product is exact and z is rounded
    /// as `blend` rounds; otherwise the product's floor is up to a unit
    /// low, and z is rounded up. A pixel is then within a unit of `blend`'s
    /// (which rounds the sum once, ties to even).
    public static func overTerms(_ colour: RGBA) -> SIMD4<Int16> {
        let alpha = min(max((colour.w * 32768).rounded(), 0), 32768)
        let scaled = colour * one
        let c = roundedLanes(alpha < 32768 ? scaled.rounded(.up) : scaled)
        return SIMD4(Int16(truncatingIfNeeded: c.x), Int16(truncatingIfNeeded: c.y), Int16(truncatingIfNeeded: c.z), Int16(-alpha))
    }

    /// A channel value 0...1 (give or take rounding) as a row value.
    @inline(__always)
    static func lane(_ value: Float) -> Int16 {
        Int16(max(min(value * one, 32767), -32768).rounded())
    }
}

/// Eight lanes at `pointer` (16-byte aligned).
@inline(__always)
func loadLanes(_ pointer: UnsafeMutablePointer<Int16>) -> SIMD8<Int16> {
    UnsafeRawPointer(pointer).load(as: SIMD8<Int16>.self)
}

/// Stores eight lanes at `pointer`, which need not be aligned.
@inline(__always)
func storeLanes(_ value: SIMD8<Int16>, _ pointer: UnsafeMutablePointer<Int16>) {
    UnsafeMutableRawPointer(pointer).storeBytes(of: value, as: SIMD8<Int16>.self)
}

/// `chakra_mulhi`(2a, b), (a·b) >> 15 (2a within 16 bits): NEON's
/// sqdmulh alone.
@inline(__always)
func mulhiDoubled(_ a: SIMD8<Int16>, _ b: SIMD8<Int16>) -> SIMD8<Int16> {
    chakra_mulhi_doubled(a, b)
}

/// `chakra_mulhi`(a, b) << 1.
@inline(__always)
func mulhiEven(_ a: SIMD8<Int16>, _ b: SIMD8<Int16>) -> SIMD8<Int16> {
    chakra_mulhi_even(a, b)
}

/// An operand of `mulhiDoubling`, kept where it is reused: mulhiDoubling(
/// doubling(a), b) = mulhiDoubled(a, b) in one instruction on SSE2 and NEON.
@inline(__always)
func doubling(_ a: SIMD8<Int16>) -> SIMD8<Int16> {
    chakra_doubling(a)
}

@inline(__always)
func mulhiDoubling(_ prepared: SIMD8<Int16>, _ b: SIMD8<Int16>) -> SIMD8<Int16> {
    chakra_mulhi_doubling(prepared, b)
}

/// A weight 0...1 in Q15: w·32768 rounded, 1 itself as 32767 (the
/// largest lane), so ½ is exactly 16384.
@inline(__always)
func q15(_ weight: Float) -> Int16 {
    Int16(min((max(weight, 0) * 32768).rounded(), 32767))
}

/// Four floats rounded to the nearest integer with the 1.5·2²³ trick (see
/// `PixelPacker`): |v| < 2²²; the stdlib's generic conversion is not
/// vectorised.
@inlinable @inline(__always)
func roundedLanes(_ v: SIMD4<Float>) -> SIMD4<Int32> {
    unsafeBitCast(v + SIMD4<Float>(repeating: 12_582_912), to: SIMD4<Int32>.self) &- 0x4B40_0000
}
