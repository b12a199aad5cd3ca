import ChakraRaster

/// A soft round element (the orb's glow, or its core with the highlight)
/// drawn analytically onto its own overlay surface around wherever it is
/// this frame, on the coarsest grid its blur allows.
///
/// Ownership: owned by the scene; owns its surface, sized at init for the
/// largest scale the element takes.
final class SoftDiscLayer: @unchecked Sendable {
    let surface: Surface
    let table: BlurredGradientDisc
    /// An optional smaller disc composited over the main one (the highlight).
    let inner: BlurredGradientDisc?
    let innerFraction: Double
    /// Blur in design px at scale 1 (the grid follows it).
    let blur: Double
    let cellsPerSigma: Double
    let width: Int, height: Int

    /// `radius` and `blur` in screen px at scale 1; `scales` the range the
    /// element's scale takes (the surface is sized for all of it).
    init(radius: Double, blur: Double, inner: (fraction: Double, blurFraction: Double)?, scales: ClosedRange<Double>,
         cellsPerSigma: Double, width: Int, height: Int) {
        table = BlurredGradientDisc(sigma: blur / radius)
        self.inner = inner.map { BlurredGradientDisc(sigma: $0.blurFraction) }
        innerFraction = inner?.fraction ?? 0
        self.blur = blur
        self.cellsPerSigma = cellsPerSigma
        (self.width, self.height) = (width, height)
        var capacity = 1
        var scale = scales.lowerBound
        while scale <= scales.upperBound + 1e-9 {
            let factor = Self.factor(blur: blur * scale, cellsPerSigma: cellsPerSigma)
            let span = min(max(width, height), Int((2 * table.reach * radius * scale).rounded(.up)) + 4)
            capacity = max(capacity, Surface.gridExtent(pixels: span, factor: factor))
            scale += 0.01
        }
        surface = Surface(capacityWidth: capacity, capacityHeight: capacity)
        hide()
    }

    static func factor(blur: Double, cellsPerSigma: Double) -> Int { Surface.gridFactor(screenSigma: blur, cellsPerSigma: cellsPerSigma) }

    func hide() {
        surface.place(width: 1, height: 1, originX: 0, originY: 0, factor: 1)
        surface.clear()
        surface.updateRowExtents()
    }

    /// Draws the disc of `radius` (screen px, already scaled by `scale`) at
    /// `centre` in premultiplied `color` × `opacity`, the inner disc in
    /// `innerColor` over it. False when nothing is on screen.
    @discardableResult
    func draw(centre: Point, radius: Double, scale: Double, color: RGBA, opacity: Float, innerColor: RGBA = .zero) -> Bool {
        let half = table.reach * radius
        let minX = max(0, Int((centre.x - half).rounded(.down))), maxX = min(width - 1, Int((centre.x + half).rounded(.up)))
        let minY = max(0, Int((centre.y - half).rounded(.down))), maxY = min(height - 1, Int((centre.y + half).rounded(.up)))
        guard minX <= maxX, minY <= maxY, opacity > 0 else { hide(); return false }
        surface.place(coveringMinX: minX, minY: minY, maxX: maxX, maxY: maxY, factor: Self.factor(blur: blur * scale, cellsPerSigma: cellsPerSigma))
        let cx = Float(centre.x), cy = Float(centre.y), inverse = Float(1 / radius)
        let paint = color * opacity
        let innerInverse = Float(1 / (radius * max(innerFraction, 1e-9)))
        // Views: calling the table objects per cell retained and released them.
        let table = table.view, inner = inner?.view
        // Four cells a step: the square roots and the blends in lanes.
        let step = SIMD4<Float>(0, 1, 2, 3) * Float(surface.factor)
        for j in 0..<surface.height {
            let row = surface.row(j)
            let y = surface.screenY(j) - cy
            var i = 0
            while i < surface.width {
                let x = SIMD4(repeating: surface.screenX(i)) + step - cx
                let o = table.positions(x: x * inverse, y: y * inverse)
                if let inner {
                    let h = inner.positions(x: x * innerInverse, y: y * innerInverse)
                    for lane in 0..<min(4, surface.width - i) {
                        row[i + lane] = Colors.over(innerColor * (inner.discOpacity(at: h[lane]) * opacity),
                                                    paint * table.discOpacity(at: o[lane]))
                    }
                } else {
                    for lane in 0..<min(4, surface.width - i) { row[i + lane] = paint * table.discOpacity(at: o[lane]) }
                }
                i += 4
            }
        }
        surface.updateRowExtents(threshold: 1.0 / 2048)
        return true
    }
}
