// Anti-aliased polygon coverage by signed-area accumulation: every edge adds,
// to each cell it crosses, the signed area it sweeps; a prefix sum along the
// row then gives each cell's exact box-filtered coverage (the method of
// font-rs and stb_truetype 2). Contours of one winding direction give the
// non-zero fill; overlapping same-direction contours sum and are clamped to 1.
//
// Coordinates are in grid-cell units of the target surface: cell (i, j)
// spans [i, i+1]×[j, j+1], its centre is the surface's grid point (i, j).
//
// Ownership: a rasterizer owns its accumulation buffer, sized once for the
// largest surface it will draw into; `fill` allocates nothing.

public final class CoverageRasterizer: @unchecked Sendable {
    private let capacity: Int
    private var width = 0, height = 0
    private let accumulation: UnsafeMutablePointer<Float>
    /// Rows touched by the current polygon (to clear and to scan only those).
    private var minRow = Int.max, maxRow = Int.min

    public init(capacityWidth: Int, capacityHeight: Int) {
        capacity = (capacityWidth + 3) * capacityHeight
        accumulation = .allocate(capacity: capacity)
        accumulation.initialize(repeating: 0, count: capacity)
    }

    deinit { accumulation.deallocate() }

    /// Starts a polygon for a grid of `width`×`height` cells.
    public func begin(width: Int, height: Int) {
        precondition((width + 3) * height <= capacity, "rasterizer capacity exceeded")
        self.width = width
        self.height = height
        minRow = .max
        maxRow = .min
    }

    private var stride: Int { width + 3 }

    /// Adds the edge p0→p1 (grid-cell units), clipped to the grid horizontally:
    /// the parts left of the grid are projected onto x = 0 (they still cover
    /// every cell to their right), the parts right of it onto x = width.
    public func addEdge(_ p0: SIMD2<Float>, _ p1: SIMD2<Float>) {
        let w = Float(width)
        var a = p0, b = p1
        if a.x > b.x { swap(&a, &b) }
        // Split at x = 0 and x = w so each piece is inside or on a border.
        if a.x < 0 && b.x > 0 {
            let y = a.y + (b.y - a.y) * (0 - a.x) / (b.x - a.x)
            addClippedEdge(SIMD2(0, a.y), SIMD2(0, y), original: (p0, p1))
            a = SIMD2(0, y)
        }
        if a.x < w && b.x > w {
            let y = a.y + (b.y - a.y) * (w - a.x) / (b.x - a.x)
            addClippedEdge(a, SIMD2(w, y), original: (p0, p1))
            a = SIMD2(w, y)
        }
        addClippedEdge(SIMD2(min(max(a.x, 0), w), a.y), SIMD2(min(max(b.x, 0), w), b.y), original: (p0, p1))
    }

    /// Adds a piece keeping the original edge's direction (the sign of the area).
    private func addClippedEdge(_ a: SIMD2<Float>, _ b: SIMD2<Float>, original: (SIMD2<Float>, SIMD2<Float>)) {
        let down = original.0.y < original.1.y || (original.0.y == original.1.y && original.0.x <= original.1.x)
        // `a` is the left end; orient the piece like the original edge in y.
        let (from, to) = (a.y < b.y) == down ? (a, b) : (b, a)
        accumulateLine(from, to)
    }

    private func accumulateLine(_ p0: SIMD2<Float>, _ p1: SIMD2<Float>) {
        if abs(p0.y - p1.y) <= .ulpOfOne { return }
        let (direction, top, bottom): (Float, SIMD2<Float>, SIMD2<Float>) = p0.y < p1.y ? (1, p0, p1) : (-1, p1, p0)
        let dxdy = (bottom.x - top.x) / (bottom.y - top.y)
        var x = top.x
        if top.y < 0 { x -= top.y * dxdy }
        let firstRow = max(0, Int(top.y.rounded(.down)))
        let endRow = min(height, Int(bottom.y.rounded(.up)))
        guard firstRow < endRow else { return }
        minRow = min(minRow, firstRow)
        maxRow = max(maxRow, endRow - 1)
        for y in firstRow..<endRow {
            let dy = min(Float(y + 1), bottom.y) - max(Float(y), top.y)
            let xNext = x + dxdy * dy
            accumulateRowSpan(row: y, x, xNext, d: dy * direction)
            x = xNext
        }
    }

    @inline(__always)
    private func accumulateRowSpan(row y: Int, _ xa: Float, _ xb: Float, d: Float) {
        let acc = accumulation + y * stride
        let x0 = min(xa, xb), x1 = max(xa, xb)
        let x0Floor = x0.rounded(.down)
        let x0i = Int(x0Floor)
        let x1Ceil = x1.rounded(.up)
        let x1i = Int(x1Ceil)
        if x1i <= x0i + 1 {
            let xmf = 0.5 * (xa + xb) - x0Floor
            acc[x0i] += d - d * xmf
            acc[x0i + 1] += d * xmf
            return
        }
        let s = 1 / (x1 - x0)
        let x0f = x0 - x0Floor
        let a0 = 0.5 * s * (1 - x0f) * (1 - x0f)
        let x1f = x1 - x1Ceil + 1
        let am = 0.5 * s * x1f * x1f
        acc[x0i] += d * a0
        if x1i == x0i + 2 {
            acc[x0i + 1] += d * (1 - a0 - am)
        } else {
            let a1 = s * (1.5 - x0f)
            acc[x0i + 1] += d * (a1 - a0)
            var xi = x0i + 2
            while xi < x1i - 1 { acc[xi] += d * s; xi += 1 }
            let a2 = a1 + Float(x1i - x0i - 3) * s
            acc[x1i - 1] += d * (1 - a2 - am)
        }
        acc[x1i] += d * am
    }

    /// Adds a closed polygon (the last point joins the first).
    public func addPolygon(_ points: UnsafeBufferPointer<SIMD2<Float>>) {
        guard points.count > 1 else { return }
        for index in 0..<points.count {
            addEdge(points[index], points[(index + 1) % points.count])
        }
    }

    /// Walks the accumulated coverage row by row, calling `body(row, column,
    /// coverage)` for every cell with coverage > 0, and clears the buffer.
    @inline(__always)
    public func finish(_ body: (Int, Int, Float) -> Void) {
        guard minRow <= maxRow else { return }
        for y in minRow...maxRow {
            let acc = accumulation + y * stride
            var sum: Float = 0
            for x in 0..<width {
                sum += acc[x]
                acc[x] = 0
                let coverage = min(abs(sum), 1)
                if coverage > 1.0 / 4096 { body(y, x, coverage) }
            }
            acc[width] = 0; acc[width + 1] = 0; acc[width + 2] = 0
        }
        minRow = .max
        maxRow = .min
    }
}
