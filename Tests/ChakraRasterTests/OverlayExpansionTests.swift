import Testing
@testable import ChakraRaster

/// The compositor expands overlay grid rows to screen pixels two ways: cell
/// by cell with constant lane patterns for factors up to 8, interval by
/// interval for any factor. Both must give the same fixed-point values.
@Suite("Overlay row expansion")
struct OverlayExpansionTests {
    /// A premultiplied grid row with every channel varying, some cells
    /// opaque, some clear, some in between (a deterministic generator).
    static func grid(cells: Int, seed: UInt64) -> [RGBA] {
        var state = seed
        func next() -> Float {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Float(state >> 40) / Float(1 << 24)
        }
        return (0..<cells).map { i in
            let alpha: Float = i % 7 == 0 ? 0 : (i % 5 == 0 ? 1 : next())
            return RGBA(next() * alpha, next() * alpha, next() * alpha, alpha)
        }
    }

    @Test("cell-major expansion equals interval expansion", arguments: 2...8)
    func sameValues(factor f: Int) {
        let width = 300
        let compositor = FrameCompositor(maxWidth: width, maxGridWidth: width, threads: 1)
        let cells = ExpandedRow(width: width + 16)
        let byCells = ExpandedRow(width: width), byIntervals = ExpandedRow(width: width)
        defer { cells.deallocate(); byCells.deallocate(); byIntervals.deallocate() }
        // Origins on and off the screen's left edge, parts starting on a cell
        // boundary and mid-cell (clipped), ending anywhere.
        for originX in [-2 * f - 1, -f, -1, 0, 3] {
            let gridCells = (width - originX) / f
            var values = Self.grid(cells: gridCells, seed: UInt64(f * 100 + originX + 50))
            values.append(.zero)
            values.append(contentsOf: Array(repeating: RGBA.zero, count: 8))
            for (xStart, xEnd) in [(max(originX, 0), width - 1 - f), (max(originX + f, 0) + 1, width / 2), (max(originX, 0) + 2 * f, 2 * f + 20)] {
                guard xStart <= xEnd else { continue }
                values.withUnsafeMutableBufferPointer { grid in
                    compositor.expandCells(grid.baseAddress!, originX: originX, factor: f, from: xStart, through: xEnd, into: byCells, cells: cells)
                    compositor.expandIntervals(grid.baseAddress!, originX: originX, factor: f, from: xStart, through: xEnd, into: byIntervals)
                }
                for x in xStart...xEnd {
                    for (a, b, name) in [(byCells.red, byIntervals.red, "red"), (byCells.green, byIntervals.green, "green"),
                                         (byCells.blue, byIntervals.blue, "blue"), (byCells.alpha, byIntervals.alpha, "alpha")] where a[x] != b[x] {
                        Issue.record("factor \(f), origin \(originX), part \(xStart)...\(xEnd): \(name) at \(x) is \(a[x]), not \(b[x])")
                        return
                    }
                }
            }
        }
    }
}
