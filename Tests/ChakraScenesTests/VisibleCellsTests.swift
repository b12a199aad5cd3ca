import Testing
@testable import ChakraScenes

@Suite("Visible cells of an elliptical overlay row")
struct VisibleCellsTests {
    /// Every cell left out (outside `visible`, or in `hole`) must lie
    /// outside the clear radii: brute force over many rows and grids.
    @Test("cells skipped lie beyond clearOutside or within clearInside", arguments: [(0.3, 1.4), (0.0, 2.0), (0.8, 1.05)])
    func skippedCellsAreClear(radii: (Float, Float)) {
        let (inside, outside) = radii
        var skipped = 0
        for (x0, dx, width) in [(-2.5 as Float, 0.05 as Float, 101), (-1.13, 0.037, 64), (0.2, 0.1, 30), (-3.0, 0.5, 13)] {
            for step in -60...60 {
                let y = Float(step) / 40
                let (visible, hole) = HeartLayers.visibleCells(x0: x0, dx: dx, y: y, width: width, clearInside: inside, clearOutside: outside)
                #expect(visible.lowerBound >= 0 && visible.upperBound <= width)
                for i in 0..<width where !visible.contains(i) || hole.contains(i) {
                    let x = x0 + Float(i) * dx
                    let r = (x * x + y * y).squareRoot()
                    #expect(r >= outside || r <= inside, "cell \(i) at r = \(r) skipped, y \(y)")
                    skipped += 1
                }
            }
        }
        // The test means something only if cells are skipped at all.
        #expect(skipped > 1000)
    }

    @Test("no clear outside radius: the whole row is evaluated")
    func unbounded() {
        let (visible, hole) = HeartLayers.visibleCells(x0: -1, dx: 0.1, y: 5, width: 20, clearInside: 0, clearOutside: .infinity)
        #expect(visible == 0..<20 && hole.isEmpty)
    }
}
