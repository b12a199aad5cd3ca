import ChakraRaster

/// The calm scene's layers for one screen size: the warm gradient, and the
/// blobs painted over it on one opaque coarse base.
///
/// Ownership: created by `CalmScene` for one size; owns its surfaces and
/// blob list for its lifetime.
final class CalmLayers: BasePainter, @unchecked Sendable {
    typealias P = CalmParameters
    let layout: DesignLayout
    let u: Double
    let base: Surface
    /// The gradient on the base grid (it never changes).
    let gradient: Surface
    /// This frame's blobs, bottom to top.
    let blobs: UnsafeMutableBufferPointer<PlacedDisc>
    /// False under reduce motion: the gradient alone.
    let blobsShown: Bool

    /// Blur relative to radius, per blob; independent of the screen.
    static let tables = P.blobs.map { BlurredGradientDisc(sigma: $0.blur / $0.radius) }

    init(width: Int, height: Int, cellsPerSigma: Double, blobsShown: Bool) {
        layout = DesignLayout(width: width, height: height)
        u = layout.u
        self.blobsShown = blobsShown
        let sharpestBlur = P.blobs.map(\.blur).min()!
        let factor = Surface.gridFactor(screenSigma: sharpestBlur * u, cellsPerSigma: cellsPerSigma)
        base = Surface(capacityWidth: Surface.gridExtent(pixels: width, factor: factor),
                       capacityHeight: Surface.gridExtent(pixels: height, factor: factor))
        base.place(coveringMinX: 0, minY: 0, maxX: width - 1, maxY: height - 1, factor: factor)
        gradient = Surface(capacityWidth: base.width, capacityHeight: base.height)
        gradient.place(width: base.width, height: base.height, originX: base.originX, originY: base.originY, factor: factor)
        blobs = .allocate(capacity: Self.tables.count)
        _ = blobs.initialize(from: Self.tables.map { PlacedDisc(table: $0) })
        drawGradient()
    }

    deinit {
        blobs.deinitialize()
        blobs.deallocate()
    }

    private func drawGradient() {
        let stops = GradientStops(P.gradient.map { GradientStop(Float($0.0), opaque($0.1)) })
        let paint = LinearGradient.toBottomRight(boxX: 0, y: 0, width: layout.width, height: layout.height, stops: stops)
        for j in 0..<gradient.height {
            for i in 0..<gradient.width {
                gradient[i, j] = paint.color(atX: gradient.screenX(i), y: gradient.screenY(j))
            }
        }
    }

    /// Blob `index`'s centre in screen px for an offset in design px.
    func blobCentre(_ index: Int, offset: SIMD2<Double>) -> Point {
        let fraction = P.blobs[index].centerFraction
        return Point(fraction.x * layout.width, fraction.y * layout.height) + offset * u
    }

    func prepare(_ state: CalmState) {
        for index in P.blobs.indices {
            let blob = P.blobs[index]
            blobs[index].place(centre: blobCentre(index, offset: state.offsets[index]), radius: blob.radius * u,
                               color: opaque(blob.color), opacity: blob.opacity)
            blobs[index].shown = blobsShown
        }
    }

    func paintBase(rowsFrom counter: WorkCounter) {
        let elements = UnsafeBufferPointer(blobs)
        while true {
            let j = counter.take()
            guard j < base.height else { return }
            let target = base.row(j), source = gradient.row(j)
            guard blobsShown else {
                target.update(from: source, count: base.width)
                continue
            }
            let y = base.screenY(j)
            for i in 0..<base.width {
                target[i] = elements.composite(atX: base.screenX(i), y: y, over: source[i])
            }
        }
    }
}
