import CLanes
import Glibc

/// An ellipse of semi-axes (a, b) filled with a radial gradient (closest-side:
/// t = √((x/a)² + (y/b)²)), transparent outside, then Gaussian-blurred by σ,
/// evaluated analytically at any point.
///
/// An ellipse is not radially symmetric, but the scenes' ellipses are near
/// circles (b/a ≈ 1.08). Along the x axis the blurred edge is the disc's
/// with σ/a, along y with σ/b; between them the two tables are mixed by the
/// direction's weight (x/a)²/t². `BlurredEllipseTests` checks the result
/// against a brute-force 2-D convolution.
///
/// σ may animate: tables are built at setup for a list of σ levels and
/// `select(sigma:)` mixes the two nearest into the current tables (no
/// allocation), once per frame.
public final class BlurredEllipse: @unchecked Sendable {
    public let semiAxisX: Double, semiAxisY: Double
    public let sigmaLevels: [Double]
    private let tablesX: [BlurredRadialTable]
    private let tablesY: [BlurredRadialTable]
    private let currentX: UnsafeMutableBufferPointer<RGBA>
    private let currentY: UnsafeMutableBufferPointer<RGBA>
    private let positionScale: Float
    private let circular: Bool
    public let maxRadius: Double
    public private(set) var sigma: Double
    /// For the current σ, normalised radii between which the blurred ellipse
    /// may be visible: below `clearInside` and beyond `clearOutside` every
    /// channel of both tables is under `clearLevel`, so callers may skip
    /// those points and take them as transparent.
    public private(set) var clearInside: Float = 0
    public private(set) var clearOutside: Float = .infinity
    /// 1/8192: under a tenth of an 8-bit level even at full brightness.
    public static let clearLevel: Float = 1.0 / 8192

    /// `sigmaLevels` in the same length unit as the semi-axes; one level for
    /// a fixed blur, several (ascending) for an animated one.
    public convenience init(stops: GradientStops, semiAxisX a: Double, semiAxisY b: Double, sigmaLevels: [Double], count: Int = 512) {
        // Two statements: Swift 6.0 (the arm64 build's) gives up on one.
        let inner = stops.stops.map { Double($0.offset) }.filter { $0 > 0 && $0 < 1 }
        let breaks = [0.0] + inner + [1.0]
        self.init(semiAxisX: a, semiAxisY: b, sigmaLevels: sigmaLevels, extent: 1, breaks: breaks, count: count) { _ in
            { r in r <= 1 ? SIMD4<Double>(stops.color(at: Float(r))) : .zero }
        }
    }

    /// A general elliptical paint: `profile(semiAxis)` gives the radial
    /// function f(t) to use along an axis of that length (t in units of the
    /// semi-axis, zero beyond `extent`), for paints that themselves depend
    /// on the axis (a box-shadow already blurred in screen units).
    public init(semiAxisX a: Double, semiAxisY b: Double, sigmaLevels: [Double], extent: Double, breaks: [Double], count: Int = 512,
                profile: (Double) -> (Double) -> SIMD4<Double>) {
        precondition(!sigmaLevels.isEmpty && a > 0 && b > 0)
        semiAxisX = a
        semiAxisY = b
        circular = a == b
        self.sigmaLevels = sigmaLevels
        let reach = extent + 4.5 * sigmaLevels.max()! / min(a, b)
        maxRadius = reach
        let profileX = profile(a), profileY = profile(b)
        tablesX = sigmaLevels.map { BlurredRadialTable(sigma: $0 / a, maxRadius: reach, count: count, breaks: breaks, profile: profileX) }
        tablesY = a == b ? tablesX : sigmaLevels.map { BlurredRadialTable(sigma: $0 / b, maxRadius: reach, count: count, breaks: breaks, profile: profileY) }
        currentX = .allocate(capacity: count)
        currentY = .allocate(capacity: count)
        _ = currentX.initialize(from: tablesX[0].entries)
        _ = currentY.initialize(from: tablesY[0].entries)
        positionScale = Float(count - 1) / Float(reach)
        sigma = sigmaLevels[0]
        updateClearRadii()
    }

    deinit {
        currentX.deallocate()
        currentY.deallocate()
    }

    /// Makes `value` use blur σ (clamped to the levels' range).
    public func select(sigma: Double) {
        self.sigma = sigma
        var upper = sigmaLevels.firstIndex { $0 >= sigma } ?? sigmaLevels.count - 1
        upper = max(upper, 0)
        let lower = max(upper - 1, 0)
        let span = sigmaLevels[upper] - sigmaLevels[lower]
        let t = span > 0 ? Float(min(max((sigma - sigmaLevels[lower]) / span, 0), 1)) : 0
        BlurredRadialTable.mix(tablesX[lower], tablesX[upper], t, into: currentX)
        BlurredRadialTable.mix(tablesY[lower], tablesY[upper], t, into: currentY)
        updateClearRadii()
    }

    /// Scans the current tables for their first and last visible entries.
    private func updateClearRadii() {
        func visible(_ index: Int) -> Bool {
            let c = pointwiseMax(currentX[index], currentY[index])
            return c.max() > Self.clearLevel
        }
        let count = currentX.count
        var first = 0
        while first < count && !visible(first) { first += 1 }
        var last = count - 1
        while last > first && !visible(last) { last -= 1 }
        // Entry k sits at radius k/positionScale; the lookup interpolates
        // between neighbours, so the clear zones stop one entry short.
        clearInside = first == 0 ? 0 : Float(first - 1) / positionScale
        clearOutside = last >= count - 1 ? .infinity : Float(last + 1) / positionScale
    }

    /// Normalised distance beyond which the blurred ellipse is (nearly) transparent.
    public var reach: Double { maxRadius }

    /// The blurred colour at normalised coordinates X = x/a, Y = y/b
    /// (relative to the centre, before any scale).
    @inline(__always)
    public func value(normalizedX x: Float, y: Float) -> RGBA {
        let t2 = x * x + y * y
        let t = t2.squareRoot()
        let position = t * positionScale
        let alongX = BlurredRadialTable.lookup(UnsafeBufferPointer(currentX), position)
        if semiAxisX == semiAxisY { return alongX }
        let alongY = BlurredRadialTable.lookup(UnsafeBufferPointer(currentY), position)
        let weightX = t2 > 1e-12 ? x * x / t2 : 0.5
        return alongY + (alongX - alongY) * weightX
    }

    /// `value(normalizedX: x0 + i·dx, y: y)` into `row[i]` for every i in
    /// `cells`, four cells a step (`chakra_ellipse_cells`, CLanes): the
    /// radius, the table position and its whole and fractional parts are
    /// computed on lanes, so only the table reads and the interpolation are
    /// per cell (a third of the instructions of calling `value` per cell,
    /// which is scalar).
    @inline(__always)
    public func evaluate(into row: UnsafeMutablePointer<RGBA>, cells: Range<Int>, x0: Float, dx: Float, y: Float) {
        guard !cells.isEmpty, let tableX = UnsafePointer(currentX.baseAddress), let tableY = UnsafePointer(currentY.baseAddress) else { return }
        // Positions stop just short of the last entry, so entry index + 1
        // exists; beyond it the tables are constant anyway.
        chakra_ellipse_cells(tableX, tableY, circular ? 1 : 0, row, cells.lowerBound, cells.upperBound, x0, dx, y, positionScale,
                             Float(currentX.count - 1) - 1.0 / 64)
    }
}
