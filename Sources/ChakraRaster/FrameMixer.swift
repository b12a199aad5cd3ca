// Crossfades between scenes: both are drawn into frames of their own
// (XRGB8888, unrotated), then mixed per pixel and written to the output
// like any composed frame: dithered, packed into its format, turned by its
// rotation. Only runs while a transition lasts (about a second), so the
// second scene's frame is the cost of a transition, not of every frame.

public final class FrameMixer: @unchecked Sendable {
    public let maxWidth: Int
    private let row: PlanarRow
    private let packed: UnsafeMutableRawPointer

    public init(maxWidth: Int) {
        self.maxWidth = maxWidth
        row = .allocate(capacity: maxWidth)
        packed = .allocate(byteCount: maxWidth * 4, alignment: 16)
    }

    deinit {
        row.deallocate()
        packed.deallocate()
    }

    /// output = from·(1 − amount) + to·amount, per channel. `from` and `to`
    /// are XRGB8888 frames of the output's size as seen (its width and
    /// height after rotation).
    public func mix(_ from: PixelBuffer, _ to: PixelBuffer, amount: Float, into output: PixelBuffer) {
        precondition(from.format == .xrgb8888 && to.format == .xrgb8888 && from.rotation == .none && to.rotation == .none,
                     "mix XRGB8888 frames drawn unrotated")
        precondition(from.width == output.width && from.height == output.height && to.width == output.width && to.height == output.height,
                     "mixed frames must have the output's size")
        precondition(output.width <= maxWidth)
        let t = min(max(amount, 0), 1)
        // Channel bytes scaled straight to [0, 1] with the mix weight.
        let wFrom = SIMD4<Float>(repeating: (1 - t) / 255), wTo = SIMD4<Float>(repeating: t / 255)
        let width = output.width
        for y in 0..<output.height {
            let a = (from.base + y * from.stride).assumingMemoryBound(to: UInt32.self)
            let b = (to.base + y * to.stride).assumingMemoryBound(to: UInt32.self)
            var x = 0
            while x < width {
                let pa = Self.load4(a, x, width), pb = Self.load4(b, x, width)
                storeLanes(Self.channel(pa, 16) * wFrom + Self.channel(pb, 16) * wTo, row.red + x)
                storeLanes(Self.channel(pa, 8) * wFrom + Self.channel(pb, 8) * wTo, row.green + x)
                storeLanes(Self.channel(pa, 0) * wFrom + Self.channel(pb, 0) * wTo, row.blue + x)
                x &+= 4
            }
            if output.rotation == .none {
                PixelPacker.pack(row, count: width, y: y, format: output.format, into: output.base + y * output.stride)
            } else {
                PixelPacker.pack(row, count: width, y: y, format: output.format, into: packed)
                output.scatter(packedRow: packed, y: y)
            }
        }
    }

    /// Pixels x..x+3 (zeros past the row's end).
    @inline(__always)
    private static func load4(_ pixels: UnsafeMutablePointer<UInt32>, _ x: Int, _ width: Int) -> SIMD4<UInt32> {
        if x + 4 <= width { return UnsafeRawPointer(pixels + x).loadUnaligned(as: SIMD4<UInt32>.self) }
        var lanes = SIMD4<UInt32>()
        for k in 0..<(width - x) { lanes[k] = pixels[x + k] }
        return lanes
    }

    /// The channel byte at `shift` of four pixels, as floats: the byte put
    /// into the mantissa of 2²³ and 2²³ taken away again (exact, and no
    /// integer conversion, which the optimiser does not vectorise here).
    @inline(__always)
    private static func channel(_ pixels: SIMD4<UInt32>, _ shift: UInt32) -> SIMD4<Float> {
        let bits = ((pixels &>> shift) & 0xFF) | 0x4B00_0000
        return unsafeBitCast(bits, to: SIMD4<Float>.self) - 8_388_608
    }
}
