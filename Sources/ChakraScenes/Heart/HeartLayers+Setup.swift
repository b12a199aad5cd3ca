import ChakraRaster
import Glibc

extension HeartLayers {
    /// The ring grows from 0.6 to 10 times its size and its grid coarsens
    /// with it; the surface is sized for the largest grid over the cycle,
    /// and for the whole screen at `foldFactor` (folded, it may be on the
    /// folded base's grid).
    static func ringSurface(layout: DesignLayout, width: Int, height: Int, table: BlurredEllipse, cellsPerSigma: Double,
                            foldFactor: Int) -> Surface {
        typealias R = HeartParameters.PulseEcho
        var maxW = Surface.gridExtent(pixels: width, factor: foldFactor), maxH = Surface.gridExtent(pixels: height, factor: foldFactor)
        // Sampled scales; each sample's grid factor is paired with the next
        // sample's (larger) extent, so a factor threshold between samples
        // cannot hide a larger grid.
        let steps = 400
        for step in 0..<steps {
            let s = 0.6 + (10 - 0.6) * Double(step) / Double(steps)
            let sNext = 0.6 + (10 - 0.6) * Double(step + 1) / Double(steps)
            let f = Surface.gridFactor(screenSigma: R.blur * layout.u * s, cellsPerSigma: cellsPerSigma)
            let spanX = min(width, Int((2 * table.reach * R.semiAxes.x * layout.u * sNext).rounded(.up)) + 3)
            let spanY = min(height, Int((2 * table.reach * R.semiAxes.y * layout.u * sNext).rounded(.up)) + 3)
            maxW = max(maxW, Surface.gridExtent(pixels: spanX, factor: f))
            maxH = max(maxH, Surface.gridExtent(pixels: spanY, factor: f))
        }
        return Surface(capacityWidth: maxW, capacityHeight: maxH)
    }

    /// The heart centre as one radial paint: the gradient ellipse, and
    /// outside it its box-shadow (CSS clips an outer shadow inside the
    /// border box), the solid ellipse blurred by 35/2 px; then the whole
    /// element is blurred again by its animated filter blur (4 → 6 px).
    static func centerTable() -> BlurredEllipse {
        typealias C = HeartParameters.HeartCenter
        let element = stops(C.stops)
        let shadowColor = RGBA(premultiplied(C.shadowColor))
        let shadowSigma = C.shadowBlur / 2
        let extent = 1 + 4.5 * shadowSigma / min(C.semiAxes.x, C.semiAxes.y)
        return BlurredEllipse(semiAxisX: C.semiAxes.x, semiAxisY: C.semiAxes.y,
                              sigmaLevels: stride(from: 4.0, through: 6.0, by: 0.25).map { $0 },
                              extent: extent, breaks: [0, 0.5, 1, extent]) { axis in
            let shadow = BlurredRadialTable(stops: GradientStops([GradientStop(0, shadowColor)]), sigma: shadowSigma / axis,
                                            maxRadius: extent, count: 1024)
            return { r in r <= 1 ? SIMD4<Double>(element.color(at: Float(r))) : SIMD4<Double>(shadow.value(at: Float(r))) }
        }
    }

    /// Rasterizes the two lobes once: each lobe's box-shadow (σ 10u), the
    /// lobe with its radial gradient over it, the element blur (σ 8u), then
    /// lobe B over lobe A. Drawing the lobes already rotated is the same as
    /// rotating after the blur, which is rotation-invariant.
    func drawHeartShape() {
        typealias S = HeartParameters.HeartShape
        let lobe = Surface(capacityWidth: shape.width, capacityHeight: shape.height)
        lobe.place(width: shape.width, height: shape.height, originX: shape.originX, originY: shape.originY, factor: shape.factor)
        shape.clear()
        let cw = S.container.width * u, ch = S.container.height * u
        let origin = layout.center - Point(cw / 2, ch / 2)
        let pivot = origin + Point(0.5 * cw, 0.8 * ch)
        let size = (w: S.lobeFraction.width * cw, h: S.lobeFraction.height * ch)
        let radius = S.cornerRadius * u
        for spec in S.lobes {
            lobe.clear()
            let box = origin + Point(spec.boxOrigin.0 * cw, spec.boxOrigin.1 * ch)
            let rotation = Transform.rotation(degrees: spec.rotation, about: pivot)
            let path = Path.roundedRect(x: box.x, y: box.y, width: size.w, height: size.h,
                                        radii: .init(topLeft: radius, topRight: radius, bottomRight: 0, bottomLeft: 0))
            canvas.fill(path, transform: rotation, paint: .solid(RGBA(premultiplied(S.shadowColor))), on: lobe)
            blur.blur(lobe, sigma: GaussianBlur.sigma(forScreenSigma: S.shadowBlur / 2 * u, factor: lobe.factor, boxSampled: true))
            let gradient = RadialGradient(center: box + Point(spec.gradientCenter.0 * size.w, spec.gradientCenter.1 * size.h),
                                          radiusX: S.gradientRadius * u, radiusY: S.gradientRadius * u,
                                          stops: Self.stops(S.stops), transform: rotation)
            canvas.fill(path, transform: rotation, paint: .radial(gradient), on: lobe)
            blur.blur(lobe, sigma: GaussianBlur.sigma(forScreenSigma: S.blur * u, factor: lobe.factor, boxSampled: true))
            for index in 0..<(lobe.width * lobe.height) {
                shape.pixels[index] = Colors.over(lobe.pixels[index], shape.pixels[index])
            }
        }
        shape.updateRowExtents(threshold: negligible)
    }
}
