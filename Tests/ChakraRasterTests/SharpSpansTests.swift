import Testing
@testable import ChakraRaster

/// Sharp content composed twice only over the spans its painter names, and
/// a still base expanded once: the same bytes as the whole row composed
/// twice, and as a base expanded every frame.
@Suite("Sharp spans and still bases")
struct SharpSpansTests {
    /// Not a multiple of eight: the packed output's last group is cut.
    static let (width, height) = (61, 14)

    /// Marks in three clusters per row (one across the last, partial group)
    /// painted source-over; names them as `spans`, or the whole row when
    /// `wholeRow`, or leaves the third out when `forgetThird`.
    final class Marks: SharpRowPainter {
        let wholeRow: Bool, forgetThird: Bool
        static let clusters = [(x: 3, count: 5), (x: 27, count: 9), (x: 55, count: 6)]
        init(wholeRow: Bool = false, forgetThird: Bool = false) { (self.wholeRow, self.forgetThird) = (wholeRow, forgetThird) }

        static func shift(_ y: Int) -> Int { y % 3 }

        func spans(y: Int, width: Int, into spans: UnsafeMutablePointer<Int>, capacity: Int) -> Int {
            if wholeRow {
                (spans[0], spans[1]) = (0, width)
                return 1
            }
            // Out of order and overlapping, as a painter may give them.
            let c = Self.clusters, s = Self.shift(y)
            let given = forgetThird ? [c[1], c[0]] : [c[2], c[0], c[1], (x: c[1].x + 2, count: 3)]
            for (k, cluster) in given.enumerated() {
                (spans[2 * k], spans[2 * k + 1]) = (cluster.x + s, min(cluster.x + s + cluster.count, width))
            }
            return given.count
        }

        func paint(row: FixedRow, y: Int, width: Int) {
            for (k, cluster) in Self.clusters.enumerated() {
                for x in cluster.x + Self.shift(y) ..< min(cluster.x + Self.shift(y) + cluster.count, width) {
                    row.blend(RGBA(0.9, 0.2 + 0.2 * Float(k), 0.1, 1) * (0.4 + 0.1 * Float(x % 5)), at: x)
                }
            }
        }
    }

    /// An opaque base of grid factor `factor` with a vertical gradient (so
    /// rows between grid rows are stepped), and one soft overlay over part
    /// of the marks.
    final class Layers {
        let base: Surface
        let overlay = Surface(capacityWidth: width, capacityHeight: height)
        init(factor: Int) {
            base = Surface(capacityWidth: Surface.gridExtent(pixels: width, factor: factor),
                           capacityHeight: Surface.gridExtent(pixels: height, factor: factor))
            base.place(coveringMinX: 0, minY: 0, maxX: width - 1, maxY: height - 1, factor: factor)
            for j in 0..<base.height {
                for i in 0..<base.width {
                    base[i, j] = RGBA(0.2 + 0.02 * Float(i), 0.1 + 0.05 * Float(j), 0.5, 1)
                }
            }
            overlay.place(width: width / 2, height: height / 2, originX: 0, originY: 0, factor: 2)
            overlay.clear()
            for j in 1..<6 { for i in 10..<22 { overlay[i, j] = RGBA(0.2, 0.3, 0.9, 1) * 0.6 } }
            overlay.updateRowExtents()
        }
    }

    static func compose(_ layers: Layers, still: Bool = false, painter: SharpRowPainter?, format: PixelFormat = .xrgb8888) -> [UInt8] {
        let compositor = FrameCompositor(maxWidth: width, maxGridWidth: width, threads: 1)
        let frame = FrameBuffer(width: width, height: height, format: format)
        let overlays = [layers.overlay], opacities: [Float] = [1]
        let stillBase = still ? compositor.still(layers.base, width: width) : nil
        overlays.withUnsafeBufferPointer { o in
            opacities.withUnsafeBufferPointer { a in
                if let stillBase {
                    compositor.compose(base: stillBase, overlays: o, opacities: a, into: frame.pixels, rows: 0..<height, slot: 0,
                                       frame: compositor.beginFrame(), sharp: painter)
                } else {
                    compositor.compose(base: layers.base, overlays: o, opacities: a, into: frame.pixels, rows: 0..<height, slot: 0,
                                       frame: compositor.beginFrame(), sharp: painter)
                }
            }
        }
        return frame.rgbBytes()
    }

    @Test("spans give the bytes of the whole row composed twice", arguments: [PixelFormat.xrgb8888, .xbgr8888, .rgb565])
    func spansMatchWholeRow(format: PixelFormat) {
        let layers = Layers(factor: 4)
        let spans = Self.compose(layers, painter: Marks(), format: format)
        #expect(spans == Self.compose(layers, painter: Marks(wholeRow: true), format: format))
        // The marks are there: without them the frame differs.
        #expect(spans != Self.compose(layers, painter: nil, format: format))
    }

    @Test("what a painter writes outside its spans is not shown")
    func outsideSpansIsNotShown() {
        let layers = Layers(factor: 4)
        let forgot = Self.compose(layers, painter: Marks(forgetThird: true))
        let none = Self.compose(layers, painter: nil), all = Self.compose(layers, painter: Marks())
        let third = Marks.clusters[2].x
        for y in 0..<Self.height {
            for x in 0..<Self.width {
                let at = 3 * (y * Self.width + x)
                let expected = x >= third ? none : all
                #expect(forgot[at..<at + 3] == expected[at..<at + 3], "(\(x), \(y))")
            }
        }
    }

    @Test("painter spans cut to the row, widened to groups, sorted and merged")
    func groupSpans() {
        let g = FrameCompositor.sharpMergeGap
        #expect(g % 8 == 0)
        let width = 64 + 4 * g + 3
        let spans = UnsafeMutablePointer<Int>.allocate(capacity: 32)
        defer { spans.deallocate() }
        // [0, 8) and [8, 16) touch; [16 + g, 24 + g) is g past them (merged);
        // [32 + 2g, 40 + 2g) is g + 8 past that (apart); the last one is cut
        // to the row's groups, one past the row dropped.
        let given = [(width - 2, width + 50), (16 + g, 21 + g), (-5, 3), (width + 10, width + 20), (32 + 2 * g, 35 + 2 * g), (9, 10)]
        for (k, span) in given.enumerated() { (spans[2 * k], spans[2 * k + 1]) = span }
        let count = FrameCompositor.groupSpans(given.count, spans, width: width)
        #expect((0..<2 * count).map { spans[$0] } == [0, 24 + g, 32 + 2 * g, 40 + 2 * g, (width - 2) & ~7, (width + 7) & ~7])
    }

    @Test("a still base gives the bytes of the same base expanded every frame", arguments: [3, 4, 9])
    func stillBaseMatchesSurface(factor: Int) {
        let layers = Layers(factor: factor)
        for painter in [nil, Marks()] as [SharpRowPainter?] {
            #expect(Self.compose(layers, still: true, painter: painter) == Self.compose(layers, painter: painter))
        }
    }
}
