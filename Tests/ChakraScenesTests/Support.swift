import ChakraPNG
import ChakraRaster
import ChakraScenes
import Foundation
import Testing

/// Files beside the tests (not SwiftPM resources: plain paths keep them
/// readable by other tools too).
enum TestFiles {
    static let resources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Resources")
    static func resource(_ name: String) -> String { resources.appendingPathComponent(name).path }
    /// Where failing image comparisons write their evidence.
    static let artifacts: URL = {
        let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("chakra-test-artifacts")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()
}

/// Renders a scene frame to 8-bit RGB.
func renderRGB(_ scene: Scene, time: Double) -> PNGImage.RGB {
    let frame = FrameBuffer(width: scene.width, height: scene.height, format: .bgr888)
    scene.render(time: time, into: frame.pixels)
    return PNGImage.RGB(width: scene.width, height: scene.height, bytes: frame.rgbBytes())
}

/// Limits of a comparison with a Chromium reference (`ImageDifference`).
struct ReferenceLimits {
    var mean: Double, smoothedP99: Double, smoothedMax: Double
}

/// Expects `frame` within `limits` of `reference`; a frame outside them
/// leaves itself and a difference image in the artifacts as `name`.
func expectMatches(_ frame: PNGImage.RGB, _ reference: PNGImage.RGB, within limits: ReferenceLimits, name: String,
                   sourceLocation: SourceLocation = #_sourceLocation) {
    let difference = ImageDifference(frame, reference)
    if difference.meanAbsolute > limits.mean || difference.smoothedP99 > limits.smoothedP99 || difference.smoothedMax > limits.smoothedMax {
        let base = TestFiles.artifacts.appendingPathComponent(name)
        try? PNGImage.write(frame, to: base.path + "-ours.png")
        try? PNGImage.write(ImageDifference.visualization(frame, reference), to: base.path + "-diff.png")
    }
    #expect(difference.meanAbsolute < limits.mean, "mean |Δ| \(difference.meanAbsolute)", sourceLocation: sourceLocation)
    #expect(difference.smoothedP99 < limits.smoothedP99, "p99 of smoothed |Δ| \(difference.smoothedP99)", sourceLocation: sourceLocation)
    #expect(difference.smoothedMax < limits.smoothedMax, "max of smoothed |Δ| \(difference.smoothedMax)", sourceLocation: sourceLocation)
}

/// Per-channel image statistics used to compare a frame with a reference.
struct ImageDifference {
    var meanAbsolute: Double
    var smoothedP99: Double
    var smoothedMax: Double

    /// Compares two images after a 5×5 box filter on each (ordered dither
    /// and the reference's 8-bit rounding are pixel-scale noise; the design
    /// is what must match), ignoring a 2-pixel border the filter cannot see.
    init(_ a: PNGImage.RGB, _ b: PNGImage.RGB) {
        precondition(a.width == b.width && a.height == b.height)
        let w = a.width, h = a.height
        var total = 0.0
        for index in a.bytes.indices { total += abs(Double(a.bytes[index]) - Double(b.bytes[index])) }
        meanAbsolute = total / Double(a.bytes.count)
        let sa = Self.boxFiltered(a), sb = Self.boxFiltered(b)
        var diffs: [Double] = []
        diffs.reserveCapacity(w * h)
        for y in 2..<(h - 2) {
            for x in 2..<(w - 2) {
                var worst = 0.0
                for c in 0..<3 { worst = max(worst, abs(sa[(y * w + x) * 3 + c] - sb[(y * w + x) * 3 + c])) }
                diffs.append(worst)
            }
        }
        diffs.sort()
        smoothedP99 = diffs[Int(Double(diffs.count - 1) * 0.99)]
        smoothedMax = diffs.last ?? 0
    }

    /// The 5×5 mean at each pixel out of the 2-pixel border (0 on it), as
    /// two sliding sums: five columns, then five rows of those. The sums are
    /// of whole numbers, so this equals adding the 25 terms (which, in the
    /// unoptimised test build, was most of these tests' time).
    static func boxFiltered(_ image: PNGImage.RGB) -> [Double] {
        let w = image.width, h = image.height
        var columns = [Int](repeating: 0, count: w * h * 3)
        image.bytes.withUnsafeBufferPointer { bytes in
            columns.withUnsafeMutableBufferPointer { columns in
                for y in 0..<h {
                    for c in 0..<3 {
                        let row = y * w
                        var sum = 0
                        for x in 0..<5 { sum += Int(bytes[(row + x) * 3 + c]) }
                        columns[(row + 2) * 3 + c] = sum
                        for x in 3..<(w - 2) {
                            sum += Int(bytes[(row + x + 2) * 3 + c]) - Int(bytes[(row + x - 3) * 3 + c])
                            columns[(row + x) * 3 + c] = sum
                        }
                    }
                }
            }
        }
        var out = [Double](repeating: 0, count: w * h * 3)
        columns.withUnsafeBufferPointer { columns in
            out.withUnsafeMutableBufferPointer { out in
                for x in 2..<(w - 2) {
                    for c in 0..<3 {
                        var sum = 0
                        for y in 0..<5 { sum += columns[(y * w + x) * 3 + c] }
                        out[(2 * w + x) * 3 + c] = Double(sum) / 25
                        for y in 3..<(h - 2) {
                            sum += columns[((y + 2) * w + x) * 3 + c] - columns[((y - 3) * w + x) * 3 + c]
                            out[(y * w + x) * 3 + c] = Double(sum) / 25
                        }
                    }
                }
            }
        }
        return out
    }

    /// |a − b| × 8, for looking at where two frames differ.
    static func visualization(_ a: PNGImage.RGB, _ b: PNGImage.RGB) -> PNGImage.RGB {
        PNGImage.RGB(width: a.width, height: a.height, bytes: zip(a.bytes, b.bytes).map { UInt8(min(255, abs(Int($0) - Int($1)) * 8)) })
    }
}
