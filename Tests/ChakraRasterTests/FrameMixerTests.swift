import ChakraRaster
import Testing

@Suite("Frame mixer (crossfades)")
struct FrameMixerTests {
    /// A frame whose pixel (x, y) has its own levels, so a misplaced pixel shows.
    static func pattern(width: Int, height: Int, seed: Int) -> FrameBuffer {
        let frame = FrameBuffer(width: width, height: height, format: .xrgb8888)
        for y in 0..<height {
            for x in 0..<width {
                let r = UInt32((x * 37 + y * 11 + seed) % 256), g = UInt32((x * 5 + y * 53 + 2 * seed) % 256), b = UInt32((x * y + seed) % 256)
                (frame.pixels.base + y * frame.pixels.stride + 4 * x).storeBytes(of: 0xFF00_0000 | r << 16 | g << 8 | b, as: UInt32.self)
            }
        }
        return frame
    }

    static func largest(_ v: SIMD3<Double>) -> Double { max(abs(v.x), abs(v.y), abs(v.z)) }

    @Test("amount 0 and 1 give either frame exactly; ½ gives the mean, to the dither's half level", arguments: [7, 13])
    func endsAndMiddle(width: Int) {
        let (a, b) = (Self.pattern(width: width, height: 5, seed: 3), Self.pattern(width: width, height: 5, seed: 101))
        let mixer = FrameMixer(maxWidth: width)
        for (amount, expected) in [(Float(0), a), (1, b)] {
            let out = FrameBuffer(width: width, height: 5, format: .xrgb8888)
            mixer.mix(a.pixels, b.pixels, amount: amount, into: out.pixels)
            #expect(out.rgbBytes() == expected.rgbBytes())
        }
        let out = FrameBuffer(width: width, height: 5, format: .xrgb8888)
        mixer.mix(a.pixels, b.pixels, amount: 0.5, into: out.pixels)
        for y in 0..<5 {
            for x in 0..<width {
                let mean = (SIMD3<Double>(a.pixels.rgb(x: x, y: y)) + SIMD3<Double>(b.pixels.rgb(x: x, y: y))) / 2
                let got = SIMD3<Double>(out.pixels.rgb(x: x, y: y))
                #expect(Self.largest(got - mean) <= 0.5 + 1e-9, "pixel (\(x), \(y)): \(got) for the mean \(mean)")
            }
        }
    }

    @Test("a rotated output holds the mixed frame turned", arguments: [Rotation.clockwise90, .upsideDown, .clockwise270])
    func rotated(_ rotation: Rotation) {
        let (width, height) = (6, 4)
        let (a, b) = (Self.pattern(width: width, height: height, seed: 9), Self.pattern(width: width, height: height, seed: 77))
        let mixer = FrameMixer(maxWidth: width)
        let straight = FrameBuffer(width: width, height: height, format: .xrgb8888)
        mixer.mix(a.pixels, b.pixels, amount: 0.3, into: straight.pixels)
        let (mw, mh) = rotation.swapsAxes ? (height, width) : (width, height)
        let panel = FrameBuffer(width: mw, height: mh, format: .xrgb8888)
        let view = panel.pixels.rotated(rotation)
        mixer.mix(a.pixels, b.pixels, amount: 0.3, into: view)
        for y in 0..<height {
            for x in 0..<width {
                // Where (x, y) of the frame lands in memory, worked out by hand.
                let (mx, my): (Int, Int) = switch rotation {
                case .clockwise90: (height - 1 - y, x)
                case .upsideDown: (width - 1 - x, height - 1 - y)
                case .clockwise270: (y, width - 1 - x)
                case .none: (x, y)
                }
                #expect(panel.pixels.rgb(x: mx, y: my) == straight.pixels.rgb(x: x, y: y))
            }
        }
    }

    @Test("RGB565 output is dithered: a flat mix keeps its mean over a tile")
    func dithered565() {
        let (width, height) = (16, 8)
        let a = FrameBuffer(width: width, height: height, format: .xrgb8888)
        let b = FrameBuffer(width: width, height: height, format: .xrgb8888)
        for y in 0..<height {
            for x in 0..<width {
                (a.pixels.base + y * a.pixels.stride + 4 * x).storeBytes(of: 0xFF10_2030, as: UInt32.self)
                (b.pixels.base + y * b.pixels.stride + 4 * x).storeBytes(of: 0xFF15_2A3B, as: UInt32.self)
            }
        }
        let out = FrameBuffer(width: width, height: height, format: .rgb565)
        FrameMixer(maxWidth: width).mix(a.pixels, b.pixels, amount: 0.5, into: out.pixels)
        var sum = SIMD3<Double>()
        for y in 0..<height { for x in 0..<width { sum += SIMD3<Double>(out.pixels.rgb(x: x, y: y)) } }
        let mean = sum / Double(width * height)
        let expected = SIMD3<Double>((0x10 + 0x15) / 2.0, (0x20 + 0x2A) / 2.0, (0x30 + 0x3B) / 2.0)
        // 5- and 6-bit steps are 8.2 and 4 levels; the dither keeps the mean within a level.
        #expect(Self.largest(mean - expected) < 1.2, "mean \(mean), expected \(expected)")
        // And it does dither: not every pixel the same.
        #expect(Set((0..<width).map { out.pixels.rgb(x: $0, y: 0) }).count > 1)
    }
}
