import CLanes
// Crossfades between scenes: both are drawn into frames of their own
// (XRGB8888, unrotated), then mixed per pixel and written to the output
// like any composed frame: dithered, packed into its format, turned by its
// rotation. Only runs while a transition lasts (about a second), so the
// second scene's frame is the cost of a transition, not of every frame.

public final class FrameMixer: @unchecked Sendable {
    public let maxWidth: Int
    private let row: FixedRow
    private let packed: UnsafeMutableRawPointer
    /// The last group of a row when it is shorter than eight pixels.
    private let tails: UnsafeMutablePointer<UInt32>

    public init(maxWidth: Int) {
        self.maxWidth = maxWidth
        row = FixedRow.allocate(capacity: maxWidth)
        packed = .allocate(byteCount: maxWidth * 4, alignment: 16)
        tails = .allocate(capacity: 16)
    }

    deinit {
        row.deallocate()
        packed.deallocate()
        tails.deallocate()
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
        // a + (2(b − a)·t) >> 16 on channel bytes at row scale (·64); at
        // amount 1 the frame `to` itself (t tops out at 32767/32768).
        let t = SIMD8<Int16>(repeating: amount >= 1 ? 0 : q15(amount))
        let endpoint = amount >= 1
        let width = output.width
        for y in 0..<output.height {
            let a = (from.base + y * from.stride).assumingMemoryBound(to: UInt32.self)
            let b = (to.base + y * to.stride).assumingMemoryBound(to: UInt32.self)
            var x = 0
            while x < width {
                var pa = UnsafeRawPointer(a + x), pb = UnsafeRawPointer(b + x)
                if x + 8 > width {
                    // Past the row's end: zeros (the packer never writes them).
                    tails.initialize(repeating: 0, count: 16)
                    (tails).update(from: a + x, count: width - x)
                    (tails + 8).update(from: b + x, count: width - x)
                    (pa, pb) = (UnsafeRawPointer(tails), UnsafeRawPointer(tails + 8))
                }
                if endpoint { pa = pb }
                storeLanes(Self.mixed(pa, pb, 2, t), row.red + x)
                storeLanes(Self.mixed(pa, pb, 1, t), row.green + x)
                storeLanes(Self.mixed(pa, pb, 0, t), row.blue + x)
                x &+= 8
            }
            if output.rotation == .none {
                PixelPacker.pack(row, count: width, y: y, format: output.format, into: output.base + y * output.stride)
            } else {
                PixelPacker.pack(row, count: width, y: y, format: output.format, into: packed)
                output.scatter(packedRow: packed, y: y)
            }
        }
    }

    /// Byte `index` of eight pixels of each frame, mixed by `t` (Q15), at
    /// row scale.
    @inline(__always)
    private static func mixed(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ index: Int32, _ t: SIMD8<Int16>) -> SIMD8<Int16> {
        let from = chakra_channel_of_pixels32(a, index) &<< 6, to = chakra_channel_of_pixels32(b, index) &<< 6
        return from &+ mulhiDoubled(to &- from, t)
    }
}
