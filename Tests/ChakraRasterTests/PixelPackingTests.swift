import Foundation
import Testing
@testable import ChakraRaster

/// Channel levels in each format's own units (0...255, or 0...31 / 0...63).
private typealias Levels = (r: Int, g: Int, b: Int)

private func isWide(_ format: PixelFormat) -> Bool { format.bytesPerPixel > 2 }

/// The bytes of one pixel, written out per the DRM fourcc layouts
/// (little-endian words, channels named from the most significant bit).
private func expectedBytes(_ format: PixelFormat, _ c: Levels) -> [UInt8] {
    let (r, g, b) = (UInt8(c.r), UInt8(c.g), UInt8(c.b))
    switch format {
    case .xrgb8888, .argb8888: return [b, g, r, 0xFF]
    case .xbgr8888: return [r, g, b, 0xFF]
    case .rgb888: return [b, g, r]
    case .bgr888: return [r, g, b]
    case .rgb565:
        let v = UInt16(c.r) << 11 | UInt16(c.g) << 5 | UInt16(c.b)
        return [UInt8(v & 0xFF), UInt8(v >> 8)]
    case .bgr565:
        let v = UInt16(c.b) << 11 | UInt16(c.g) << 5 | UInt16(c.r)
        return [UInt8(v & 0xFF), UInt8(v >> 8)]
    }
}

/// Pure channels, white, black and exact in-between levels: a value of
/// exactly k/max quantizes to k whatever the dither threshold d ∈ [1/128,
/// 127/128], since floor(k ± ε + d) = k.
private func testLevels(_ format: PixelFormat) -> [Levels] {
    isWide(format)
        ? [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255), (0, 0, 0), (17, 130, 222), (254, 1, 128), (99, 3, 250), (64, 200, 7)]
        : [(31, 0, 0), (0, 63, 0), (0, 0, 31), (31, 63, 31), (0, 0, 0), (5, 40, 17), (30, 1, 16), (12, 62, 1), (1, 33, 29)]
}

private func floats(_ format: PixelFormat, _ levels: [Levels]) -> [RGBA] {
    let m = isWide(format) ? (255.0, 255.0, 255.0) : (31.0, 63.0, 31.0)
    return levels.map { RGBA(Float(Double($0.r) / m.0), Float(Double($0.g) / m.1), Float(Double($0.b) / m.2), 1) }
}

/// The pixels as a fixed-point row (the packer's input); the caller deallocates.
private func planar(_ pixels: [RGBA]) -> FixedRow {
    let row = FixedRow.allocate(capacity: pixels.count)
    for (x, c) in pixels.enumerated() { row[x] = c }
    return row
}

/// Packs `count` pixels of `row` into a buffer followed by guard bytes.
private func packed(_ pixels: [RGBA], count: Int, y: Int, format: PixelFormat, guardBytes: Int = 32) -> [UInt8] {
    var bytes = [UInt8](repeating: 0xA5, count: count * format.bytesPerPixel + guardBytes)
    let row = planar(pixels)
    defer { row.deallocate() }
    bytes.withUnsafeMutableBytes { PixelPacker.pack(row, count: count, y: y, format: format, into: $0.baseAddress!) }
    return bytes
}

@Suite("Pixel formats and packing")
struct PixelPackingTests {
    @Test("format sizes and channel depths")
    func sizes() {
        let expected: [PixelFormat: (Int, SIMD3<Int>)] = [
            .xrgb8888: (4, SIMD3(8, 8, 8)), .argb8888: (4, SIMD3(8, 8, 8)), .xbgr8888: (4, SIMD3(8, 8, 8)),
            .rgb888: (3, SIMD3(8, 8, 8)), .bgr888: (3, SIMD3(8, 8, 8)), .rgb565: (2, SIMD3(5, 6, 5)), .bgr565: (2, SIMD3(5, 6, 5)),
        ]
        for format in PixelFormat.allCases {
            #expect(format.bytesPerPixel == expected[format]!.0 && format.channelBits == expected[format]!.1)
            #expect(PixelFormat(rawValue: format.rawValue) == format)
        }
    }

    @Test("exact byte layout for pure and exact colours, every row length and dither row", arguments: PixelFormat.allCases)
    func layout(format: PixelFormat) {
        let levels = testLevels(format)
        let row = floats(format, levels)
        let bpp = format.bytesPerPixel
        for count in 1...levels.count {
            for y in 0..<8 {
                let bytes = packed(row, count: count, y: y, format: format)
                for x in 0..<count {
                    #expect(Array(bytes[x * bpp ..< (x + 1) * bpp]) == expectedBytes(format, levels[x]), "count \(count), y \(y), pixel \(x)")
                }
                // Nothing past `count` is written.
                #expect(bytes[(count * bpp)...].allSatisfy { $0 == 0xA5 }, "count \(count), y \(y)")
            }
        }
    }

    @Test("channels a float rounding outside [0, 1] still pack to 0 and the maximum, at every dither threshold", arguments: PixelFormat.allCases)
    func nearRange(format: PixelFormat) {
        // Eight pixels cover every threshold of a dither row.
        let row = [RGBA](repeating: RGBA(1 + 2e-5, -2e-5, 1 + 2e-5, 1), count: 8) + [RGBA](repeating: RGBA(-2e-5, 1 + 2e-5, -2e-5, 1), count: 8)
        let top = isWide(format) ? (255, 255, 255) : (31, 63, 31)
        let bpp = format.bytesPerPixel
        for y in 0..<8 {
            let bytes = packed(row, count: 16, y: y, format: format)
            for x in 0..<8 { #expect(Array(bytes[x * bpp ..< (x + 1) * bpp]) == expectedBytes(format, (top.0, 0, top.2)), "y \(y), x \(x)") }
            for x in 8..<16 { #expect(Array(bytes[x * bpp ..< (x + 1) * bpp]) == expectedBytes(format, (0, top.1, 0)), "y \(y), x \(x)") }
        }
    }

    @Test("long rows: every pixel packed, guard intact", arguments: [PixelFormat.xrgb8888, .xbgr8888, .rgb888, .rgb565])
    func longRows(format: PixelFormat) {
        let levels = testLevels(format)
        for count in [13, 31, 64, 67] {
            let pixelLevels = (0..<count).map { levels[($0 * 7) % levels.count] }
            let bytes = packed(floats(format, pixelLevels), count: count, y: 5, format: format)
            let expected = pixelLevels.flatMap { expectedBytes(format, $0) }
            #expect(Array(bytes[..<(count * format.bytesPerPixel)]) == expected)
            #expect(bytes[(count * format.bytesPerPixel)...].allSatisfy { $0 == 0xA5 })
        }
    }

    @Test("decode round-trips through PixelBuffer and FrameBuffer", arguments: PixelFormat.allCases)
    func decodeRoundTrip(format: PixelFormat) {
        let levels = testLevels(format)
        let frame = FrameBuffer(width: levels.count, height: 2, format: format)
        let row = floats(format, levels)
        let source = planar(row)
        defer { source.deallocate() }
        for y in 0..<2 {
            PixelPacker.pack(source, count: levels.count, y: y, format: format, into: frame.pixels.base + y * frame.pixels.stride)
        }
        let rgb = frame.rgbBytes()
        for (x, c) in levels.enumerated() {
            let decoded = frame.pixels.rgb(x: x, y: 1)
            #expect(Array(rgb[(levels.count + x) * 3 ..< (levels.count + x) * 3 + 3]) == [decoded.x, decoded.y, decoded.z])
            if isWide(format) {
                #expect(decoded == SIMD3(UInt8(c.r), UInt8(c.g), UInt8(c.b)))
            } else {
                // 5/6-bit fields scaled to 8 bits: the field is the top bits, and
                // the value is within one of the exact scaling k·255/31 (k·255/63).
                let (r, g, b) = (Int(decoded.x), Int(decoded.y), Int(decoded.z))
                #expect(r >> 3 == c.r && g >> 2 == c.g && b >> 3 == c.b)
                #expect(abs(Double(r) - Double(c.r) * 255 / 31) <= 1 && abs(Double(g) - Double(c.g) * 255 / 63) <= 1
                        && abs(Double(b) - Double(c.b) * 255 / 31) <= 1)
            }
        }
        // Full scale decodes to 255.
        #expect(frame.pixels.rgb(x: 3, y: 0) == SIMD3(255, 255, 255) && frame.pixels.rgb(x: 4, y: 0) == SIMD3(0, 0, 0))
    }
}

@Suite("Ordered dithering")
struct DitherTests {
    @Test("the threshold pattern is the 8×8 Bayer matrix, indexed [y][x]")
    func pattern() {
        // 80.3 levels: pixel (x, y) rounds up where the threshold (b + ½)/64 ≥ 0.7.
        let value = Float(80.3 / 255)
        for y in 0..<8 {
            let row = [RGBA](repeating: RGBA(value, value, value, 1), count: 16)
            let bytes = packed(row, count: 16, y: y, format: .xrgb8888)
            for x in 0..<16 {
                let expected = 80 + ((Double(Ref.bayer8[y][x % 8]) + 0.5) / 64 >= 0.7 ? 1 : 0)
                #expect(Int(bytes[x * 4 + 2]) == expected, "pixel \(x), \(y)")
            }
        }
        #expect((0..<64).allSatisfy { abs(OrderedDither.threshold(x: $0 % 8, y: $0 / 8) - Float(Double(Ref.bayer8[$0 / 8][$0 % 8]) + 0.5) / 64) < 1e-7 })
    }

    /// Mean of each channel's field over an 8×8 tile.
    static func tileMeans(_ color: RGBA, format: PixelFormat) -> SIMD3<Double> {
        var sum = SIMD3<Double>.zero
        for y in 0..<8 {
            let bytes = packed([RGBA](repeating: color, count: 8), count: 8, y: y, format: format)
            for x in 0..<8 {
                switch format {
                case .xrgb8888:
                    sum += SIMD3(Double(bytes[x * 4 + 2]), Double(bytes[x * 4 + 1]), Double(bytes[x * 4]))
                case .rgb565:
                    let v = Int(bytes[x * 2]) | Int(bytes[x * 2 + 1]) << 8
                    sum += SIMD3(Double(v >> 11), Double((v >> 5) & 63), Double(v & 31))
                default:
                    Issue.record("unsupported")
                }
            }
        }
        return sum / 64
    }

    @Test("8-bit dithering keeps the mean colour over a tile")
    func meanEightBit() {
        // 80.3, 12.71 and 200.9 levels: floor(v + d) over the 64 thresholds
        // averages floor(v) + round(64·frac(v))/64, within 1/128 of v.
        let levels = SIMD3<Double>(80.3, 12.71, 200.9)
        let color = RGBA(Float(levels.x / 255), Float(levels.y / 255), Float(levels.z / 255), 1)
        let means = Self.tileMeans(color, format: .xrgb8888)
        for k in 0..<3 { #expect(abs(means[k] - levels[k]) <= 1.0 / 64, "channel \(k): \(means[k])") }
        // Without dithering the mean would be the rounded level, 0.3 away for red.
        #expect(abs(80.0 - levels.x) > 0.25)
    }

    @Test("RGB565 dithering keeps the mean in 5- and 6-bit units")
    func meanRGB565() {
        for v in [0.3149, 0.0431, 0.6667, 0.9] {
            let means = Self.tileMeans(RGBA(Float(v), Float(v), Float(v), 1), format: .rgb565)
            #expect(abs(means.x - v * 31) <= 1.0 / 64 + 1e-9, "red at \(v): \(means.x) vs \(v * 31)")
            #expect(abs(means.y - v * 63) <= 1.0 / 64 + 1e-9, "green at \(v): \(means.y) vs \(v * 63)")
            #expect(abs(means.z - v * 31) <= 1.0 / 64 + 1e-9, "blue at \(v)")
        }
    }

    @Test("a dark gradient row has no long bands when dithered")
    func noBanding() {
        // 20/255 to 24/255 across 256 px: v(x) = 20 + x/64 levels, a slope of
        // 1/64 level per pixel. Rounded without dither, every level is a run
        // of 64 pixels.
        let width = 256
        let row = (0..<width).map { x -> RGBA in
            let v = Float((20 + Double(x) / 64) / 255)
            return RGBA(v, v, v, 1)
        }
        func longestRun(_ values: [Int]) -> Int {
            var longest = 1, current = 1
            for k in 1..<values.count {
                current = values[k] == values[k - 1] ? current + 1 : 1
                longest = max(longest, current)
            }
            return longest
        }
        let undithered = (0..<width).map { Int((20 + Double($0) / 64).rounded()) }
        #expect(longestRun(undithered) >= 64)
        var total = 0
        for y in 0..<8 {
            let bytes = packed(row, count: width, y: y, format: .xrgb8888)
            let red = (0..<width).map { Int(bytes[$0 * 4 + 2]) }
            total += red.reduce(0, +)
            // Bound: in a run of L equal outputs n, n ≤ v(x) + d(x) < n + 1 for
            // all its pixels. If L ≥ 16 its first 8 pixels hold the column x_lo
            // of this Bayer row's smallest threshold and its last 8 the column
            // x_hi of the largest, x_hi − x_lo ≥ L − 15; then
            // (x_hi − x_lo)/64 = v(x_hi) − v(x_lo) < 1 − (d_max − d_min),
            // so L − 15 < 64 − spread (spread = max − min Bayer index of the row)
            // and L ≤ 78 − spread. Every Bayer row spreads 42: L ≤ 36 < 64.
            let spread = Ref.bayer8[y].max()! - Ref.bayer8[y].min()!
            let bound = 78 - spread
            #expect(bound <= 36)
            #expect(longestRun(red) <= bound, "row \(y): longest run \(longestRun(red))")
        }
        // And the mean level is kept: mean of v is 20 + 127.5/64.
        #expect(abs(Double(total) / Double(8 * width) - (20 + 127.5 / 64)) < 1.0 / 32)
    }
}
