// A surface is a float premultiplied-RGBA image placed on the screen's pixel
// lattice at an integer downsampling factor: grid point (i, j) sits on the
// centre of screen pixel (originX + i·factor, originY + j·factor). Soft,
// blurred layers live on coarse grids (factor > 1) and are upsampled
// bilinearly when the frame is composed; keeping the grid on the pixel
// lattice makes factor 1 exact and factor f a fixed pattern of weights.
//
// Ownership: a surface owns its storage from init to deinit. It is sized once
// (capacity) when a scene is set up for a screen size and re-placed per frame
// with `place(...)`, which never allocates.

public final class Surface: @unchecked Sendable {
    public let capacity: Int
    public private(set) var width: Int = 0
    public private(set) var height: Int = 0
    public private(set) var originX: Int = 0
    public private(set) var originY: Int = 0
    public private(set) var factor: Int = 1
    public let pixels: UnsafeMutablePointer<RGBA>
    /// Per grid row, the first and last column whose alpha is not negligible
    /// (see `updateRowExtents`); lets the compositor skip empty spans.
    public let rowFirst: UnsafeMutablePointer<Int32>
    public let rowLast: UnsafeMutablePointer<Int32>
    /// Per grid row, the widest run of negligible columns strictly inside
    /// [rowFirst, rowLast] (a ring's hole), or an empty run (first > last).
    public let holeFirst: UnsafeMutablePointer<Int32>
    public let holeLast: UnsafeMutablePointer<Int32>
    private let rowCapacity: Int

    public init(capacityWidth: Int, capacityHeight: Int) {
        precondition(capacityWidth > 0 && capacityHeight > 0)
        capacity = capacityWidth * capacityHeight
        rowCapacity = capacityHeight
        pixels = .allocate(capacity: capacity)
        pixels.initialize(repeating: .zero, count: capacity)
        rowFirst = .allocate(capacity: capacityHeight)
        rowLast = .allocate(capacity: capacityHeight)
        rowFirst.initialize(repeating: 0, count: capacityHeight)
        rowLast.initialize(repeating: -1, count: capacityHeight)
        holeFirst = .allocate(capacity: capacityHeight)
        holeLast = .allocate(capacity: capacityHeight)
        holeFirst.initialize(repeating: 1, count: capacityHeight)
        holeLast.initialize(repeating: 0, count: capacityHeight)
        place(width: capacityWidth, height: capacityHeight, originX: 0, originY: 0, factor: 1)
    }

    /// A surface covering exactly `width`×`height` grid points at factor 1.
    public convenience init(width: Int, height: Int) {
        self.init(capacityWidth: width, capacityHeight: height)
    }

    deinit {
        pixels.deallocate()
        rowFirst.deallocate()
        rowLast.deallocate()
        holeFirst.deallocate()
        holeLast.deallocate()
    }

    /// Re-places the surface; its capacity must hold the new grid.
    public func place(width: Int, height: Int, originX: Int, originY: Int, factor: Int) {
        precondition(width > 0 && height > 0 && factor > 0)
        precondition(width * height <= capacity && height <= rowCapacity, "surface capacity exceeded")
        self.width = width
        self.height = height
        self.originX = originX
        self.originY = originY
        self.factor = factor
    }

    /// Places a grid of `factor` covering the screen-pixel rectangle
    /// [minX, maxX]×[minY, maxY] (inclusive pixel indices), aligned so grid
    /// points fall on multiples of `factor` (stable from frame to frame).
    public func place(coveringMinX minX: Int, minY: Int, maxX: Int, maxY: Int, factor: Int) {
        let x0 = Self.floorDiv(minX, factor) * factor
        let y0 = Self.floorDiv(minY, factor) * factor
        let w = Self.floorDiv(maxX - x0 + factor - 1, factor) + 1
        let h = Self.floorDiv(maxY - y0 + factor - 1, factor) + 1
        place(width: w, height: h, originX: x0, originY: y0, factor: factor)
    }

    /// The grid factor for content blurred by `screenSigma` pixels: the
    /// whole number of pixels nearest to σ / `cellsPerSigma`, at least 1.
    /// Rounded to nearest, not down: rounding down gave small screens up to
    /// twice the cells per σ (a σ of 4.9 px on a factor of 1 instead of 2,
    /// four times the cells), so their cost did not shrink with their
    /// pixels. From factor 2 up, nearest keeps cells per σ within
    /// [0.75, 1.25)·`cellsPerSigma`; factor 1 is exact.
    public static func gridFactor(screenSigma: Double, cellsPerSigma: Double) -> Int {
        max(1, Int((screenSigma / cellsPerSigma).rounded(.toNearestOrAwayFromZero)))
    }

    /// Grid points `place(covering...)` needs at most along an axis for a
    /// span of `pixels` screen pixels (max − min + 1) wherever it starts:
    /// aligning the origin down to a multiple of the factor can add one.
    public static func gridExtent(pixels: Int, factor: Int) -> Int {
        (pixels + factor - 1) / factor + 3
    }

    @inline(__always)
    static func floorDiv(_ a: Int, _ b: Int) -> Int {
        a >= 0 ? a / b : -((-a + b - 1) / b)
    }

    /// Screen coordinates of grid point (i, j): the centre of its pixel.
    @inlinable @inline(__always)
    public func screenX(_ i: Int) -> Float { Float(originX + i * factor) + 0.5 }
    @inlinable @inline(__always)
    public func screenY(_ j: Int) -> Float { Float(originY + j * factor) + 0.5 }

    @inlinable
    public subscript(i: Int, j: Int) -> RGBA {
        get { pixels[j * width + i] }
        set { pixels[j * width + i] = newValue }
    }

    @inlinable
    public func row(_ j: Int) -> UnsafeMutablePointer<RGBA> { pixels + j * width }

    public func clear(to color: RGBA = .zero) {
        pixels.update(repeating: color, count: width * height)
    }

    /// Recomputes the per-row extents of pixels with alpha above `threshold`.
    public func updateRowExtents(threshold: Float = 1.0 / 2048) {
        for j in 0..<height { updateRowExtent(j, threshold: threshold) }
    }

    /// Row j's content extent and inner hole (see `rowFirst`, `holeFirst`).
    /// Rows are independent, so threads may update different rows at once.
    public func updateRowExtent(_ j: Int, threshold: Float) {
        updateRowExtent(j, threshold: threshold, within: 0..<width)
    }

    /// The same, when the caller knows every cell outside `cells` is clear
    /// (it drew only those): only they are looked at. Four cells a step:
    /// groups wholly above or wholly below the threshold (nearly all of
    /// them) are one comparison, and only mixed groups go cell by cell.
    public func updateRowExtent(_ j: Int, threshold: Float, within cells: Range<Int>) {
        let row = self.row(j)
        let range = cells.clamped(to: 0..<width)
        var scan = ExtentScan()
        var i = range.lowerBound
        while i &+ 4 <= range.upperBound {
            let above = SIMD4(row[i].w, row[i &+ 1].w, row[i &+ 2].w, row[i &+ 3].w) .> SIMD4(repeating: threshold)
            if all(above) {
                scan.above(i)
                scan.last = i &+ 3
            } else if !any(above) {
                scan.clear(i)
            } else {
                for k in i..<(i &+ 4) { scan.cell(k, above: row[k].w > threshold) }
            }
            i &+= 4
        }
        while i < range.upperBound {
            scan.cell(i, above: row[i].w > threshold)
            i &+= 1
        }
        rowFirst[j] = Int32(scan.first < 0 ? width : scan.first)
        rowLast[j] = Int32(scan.last)
        holeFirst[j] = Int32(scan.holeStart)
        holeLast[j] = Int32(scan.holeEnd)
    }

    /// Row j's extent taken as `cells` (everything outside them clear) and
    /// its hole as `hole` (clear inside), without reading the row: for a
    /// layer whose drawing knows where it may have content and whose cells
    /// are blended at grid points (a folded overlay), where the scan cost
    /// more than the nearly transparent cells it would trim. A hole that is
    /// not strictly inside the extent is dropped.
    public func setRowExtent(_ j: Int, cells: Range<Int>, hole: Range<Int>) {
        let range = cells.clamped(to: 0..<width)
        guard !range.isEmpty else {
            (rowFirst[j], rowLast[j], holeFirst[j], holeLast[j]) = (Int32(width), -2, 1, 0)
            return
        }
        (rowFirst[j], rowLast[j]) = (Int32(range.lowerBound), Int32(range.upperBound - 1))
        let inside = !hole.isEmpty && hole.lowerBound > range.lowerBound && hole.upperBound < range.upperBound
        (holeFirst[j], holeLast[j]) = inside ? (Int32(hole.lowerBound), Int32(hole.upperBound - 1)) : (1, 0)
    }

    /// Marks every row as fully used (for opaque or unknown content).
    public func markRowsFull() {
        for j in 0..<height {
            rowFirst[j] = 0
            rowLast[j] = Int32(width - 1)
            holeFirst[j] = 1
            holeLast[j] = 0
        }
    }

    /// Copies this surface's pixels into a straight-alpha 8-bit RGBA array
    /// (row-major), for tests and debugging; allocates.
    public func rgba8() -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: width * height * 4)
        for index in 0..<(width * height) {
            let c = Colors.straight8(pixels[index])
            for k in 0..<4 { bytes[index * 4 + k] = UInt8(clamping: c[k]) }
        }
        return bytes
    }
}

/// A row's content extent and widest inner gap, cell by cell from left to
/// right: the first and last cell above the threshold, and the longest
/// run of cells at or below it between them.
private struct ExtentScan {
    var first = -1, last = -2
    var holeStart = 1, holeEnd = 0
    /// Where the current run of clear cells started (-1: in content).
    var runStart = -1

    @inline(__always)
    mutating func cell(_ i: Int, above: Bool) {
        if above {
            self.above(i)
            last = i
        } else {
            clear(i)
        }
    }

    /// Cell i is above the threshold: a run of clear cells before it ends.
    @inline(__always)
    mutating func above(_ i: Int) {
        if first < 0 { first = i }
        if runStart >= 0, i - runStart > holeEnd - holeStart + 1 { (holeStart, holeEnd) = (runStart, i - 1) }
        runStart = -1
    }

    /// Cell i is clear: a run starts here if content came before.
    @inline(__always)
    mutating func clear(_ i: Int) {
        if first >= 0, runStart < 0 { runStart = i }
    }
}

/// A surface's placement and memory as it is this frame, with no reference
/// to count: the compositor reads surfaces for every output row, and
/// passing the objects retained and released them each time (atomic
/// operations). Valid until the surface is placed again or freed.
struct SurfaceView {
    let width, height, originX, originY, factor: Int
    let pixels: UnsafeMutablePointer<RGBA>
    let rowFirst, rowLast, holeFirst, holeLast: UnsafeMutablePointer<Int32>

    @inline(__always)
    func row(_ j: Int) -> UnsafeMutablePointer<RGBA> { pixels + j * width }
}

extension Surface {
    var view: SurfaceView {
        SurfaceView(width: width, height: height, originX: originX, originY: originY, factor: factor, pixels: pixels,
                    rowFirst: rowFirst, rowLast: rowLast, holeFirst: holeFirst, holeLast: holeLast)
    }
}
