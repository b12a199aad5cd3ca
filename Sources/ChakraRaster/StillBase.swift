import CLanes

/// A base that never changes (a scene's background), expanded to screen
/// pixels once: every grid row and the step to the next, as the final pass
/// takes them. A frame composed on it pays nothing per row for the base,
/// where a `Surface` base has its two grid rows around each band expanded
/// again every frame (the spiral's background cost 0.5 M instructions a
/// frame that way at 800x480, on aarch64).
///
/// Made by `FrameCompositor.still(_:width:)` for one output width; the
/// surface must not change afterwards. Memory: six 16-bit planes per grid
/// row (1.4 MB at 1920x1080 and factor 18).
///
/// Ownership: owns its planes; keeps the surface it was made from.
public final class StillBase: @unchecked Sendable {
    let surface: Surface
    let width: Int
    /// Lanes per plane (the row width padded as `FixedRow` pads it).
    private let stride: Int
    /// Per grid row j, six planes: red, green, blue, then the step per
    /// output row to row j + 1 (`chakra_base_step`; zero for the last row).
    private let planes: UnsafeMutablePointer<Int16>

    init(surface: Surface, width: Int, fill: (_ j: Int, _ row: inout ExpandedRow) -> Void) {
        (self.surface, self.width) = (surface, width)
        stride = FixedRow.paddedLength(width)
        let rows = surface.height
        let raw = UnsafeMutableRawPointer.allocate(byteCount: rows * 6 * stride * MemoryLayout<Int16>.stride, alignment: 16)
        planes = raw.initializeMemory(as: Int16.self, repeating: 0, count: rows * 6 * stride)
        var row = ExpandedRow(width: width)
        defer { row.deallocate() }
        for j in 0..<rows {
            fill(j, &row)
            let at = planes + j * 6 * stride
            at.update(from: row.red, count: stride)
            (at + stride).update(from: row.green, count: stride)
            (at + 2 * stride).update(from: row.blue, count: stride)
        }
        for j in 0..<max(rows - 1, 0) {
            let a = planes + j * 6 * stride, b = a + 6 * stride
            for channel in 0..<3 {
                chakra_base_step(a + channel * stride, b + channel * stride, a + (3 + channel) * stride, stride, Int32(surface.factor))
            }
        }
    }

    deinit { planes.deallocate() }

    /// The base at screen row y, as `FrameCompositor` makes it from a
    /// surface: the grid row, or the nearer of the two around y and steps
    /// from it (`steppedBaseRow`).
    @inline(__always)
    func row(at y: Int) -> chakra_base_row {
        let f = surface.factor
        let relative = y - surface.originY
        let j = relative / f, k = relative - j * f
        precondition(relative >= 0 && j < surface.height && (k == 0 || j + 1 < surface.height), "base must cover the screen")
        let a = planes + j * 6 * stride
        if k == 0 {
            return chakra_base_row(red: a, green: a + stride, blue: a + 2 * stride, stepRed: a, stepGreen: a + stride, stepBlue: a + 2 * stride,
                                   k: 0)
        }
        let b = a + 6 * stride
        return steppedBaseRow(upper: (a, a + stride, a + 2 * stride), lower: (b, b + stride, b + 2 * stride),
                              step: (a + 3 * stride, a + 4 * stride, a + 5 * stride), k: k, factor: f)
    }
}
