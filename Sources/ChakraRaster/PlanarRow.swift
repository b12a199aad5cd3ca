// One row of float colour stored as separate channel arrays. The final pass
// works on four pixels at a time, and with one array per channel those four
// pixels' reds are one vector load: nothing needs transposing before the
// dither and pack (the interleaved RGBA row cost a shuffle per pixel).
//
// Every channel array is 16-byte aligned and padded past `capacity` to the
// next multiple of four plus one more vector, so loops may read and write
// whole groups of four at and beyond the row's end.

public struct PlanarRow: @unchecked Sendable {
    public let red: UnsafeMutablePointer<Float>
    public let green: UnsafeMutablePointer<Float>
    public let blue: UnsafeMutablePointer<Float>
    /// Pixels the row holds (without the padding).
    public let capacity: Int

    /// Channel length with padding, in floats.
    static func paddedLength(_ capacity: Int) -> Int { (capacity + 3) / 4 * 4 + 4 }

    /// Allocates three zeroed channel arrays; the owner calls `deallocate`.
    public static func allocate(capacity: Int) -> PlanarRow {
        let n = paddedLength(capacity)
        func channel() -> UnsafeMutablePointer<Float> {
            let raw = UnsafeMutableRawPointer.allocate(byteCount: n * MemoryLayout<Float>.stride, alignment: 16)
            return raw.initializeMemory(as: Float.self, repeating: 0, count: n)
        }
        return PlanarRow(red: channel(), green: channel(), blue: channel(), capacity: capacity)
    }

    public func deallocate() {
        red.deallocate()
        green.deallocate()
        blue.deallocate()
    }

    /// Pixel x as RGB (alpha 1), for tests.
    public subscript(x: Int) -> RGBA {
        get { RGBA(red[x], green[x], blue[x], 1) }
        nonmutating set {
            red[x] = newValue.x
            green[x] = newValue.y
            blue[x] = newValue.z
        }
    }
}

/// Four lanes of a channel at `pointer` (16-byte aligned).
@inline(__always)
func loadLanes(_ pointer: UnsafeMutablePointer<Float>) -> SIMD4<Float> {
    UnsafeRawPointer(pointer).load(as: SIMD4<Float>.self)
}

/// Stores four lanes at `pointer`, which need not be aligned.
@inline(__always)
func storeLanes(_ value: SIMD4<Float>, _ pointer: UnsafeMutablePointer<Float>) {
    UnsafeMutableRawPointer(pointer).storeBytes(of: value, as: SIMD4<Float>.self)
}

/// Four lanes at `pointer`, which need not be aligned.
@inline(__always)
func loadAnyLanes(_ pointer: UnsafeMutablePointer<Float>) -> SIMD4<Float> {
    UnsafeRawPointer(pointer).loadUnaligned(as: SIMD4<Float>.self)
}

/// Lane-wise clamp to [0, hi] without branches or calls:
/// ½(|y| − |y − hi| + hi), with |·| by clearing the sign bit. The stdlib's
/// `pointwiseMin`/`pointwiseMax` are not inlined in large loops and scalar
/// `min`/`max` compile to compare-and-branch per lane; this stays in vector
/// registers. (Its rounding error, ~1e-5, is far below one output level.)
@inline(__always)
func clampToRange(_ y: SIMD4<Float>, _ hi: Float) -> SIMD4<Float> {
    let signless = SIMD4<UInt32>(repeating: 0x7FFF_FFFF)
    let absY = unsafeBitCast(unsafeBitCast(y, to: SIMD4<UInt32>.self) & signless, to: SIMD4<Float>.self)
    let absYMinusHi = unsafeBitCast(unsafeBitCast(y - hi, to: SIMD4<UInt32>.self) & signless, to: SIMD4<Float>.self)
    return (absY - absYMinusHi + hi) * 0.5
}
