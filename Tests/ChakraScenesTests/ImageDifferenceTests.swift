import ChakraPNG
import Testing

/// The comparison the Chromium tests rest on: its box filter (sliding sums)
/// against the 5×5 mean written out term by term.
@Suite("The frame comparison's box filter")
struct ImageDifferenceTests {
    @Test("sliding sums equal the 25-term mean at every pixel, 0 on the border")
    func boxFilterEqualsTheMean() {
        let w = 23, h = 17
        var state: UInt32 = 12345
        let bytes = (0..<(w * h * 3)).map { _ -> UInt8 in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
        let image = PNGImage.RGB(width: w, height: h, bytes: bytes)
        var expected = [Double](repeating: 0, count: w * h * 3)
        for y in 2..<(h - 2) {
            for x in 2..<(w - 2) {
                for c in 0..<3 {
                    var sum = 0.0
                    for dy in -2...2 { for dx in -2...2 { sum += Double(bytes[((y + dy) * w + x + dx) * 3 + c]) } }
                    expected[(y * w + x) * 3 + c] = sum / 25
                }
            }
        }
        #expect(ImageDifference.boxFiltered(image) == expected)
    }
}
