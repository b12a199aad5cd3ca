import ChakraRaster
import Glibc

/// The heart's layers on their grids, and how each is drawn for a state.
///
/// Ownership: created by `HeartScene` for one size; owns every surface,
/// table and scratch buffer for its lifetime.
final class HeartLayers: @unchecked Sendable {
    typealias P = HeartParameters
    let layout: DesignLayout
    let width: Int, height: Int
    let u: Double
    let cellsPerSigma: Double

    /// Opaque full-screen base: background, bands, mist.
    let base: Surface
    /// The base with the glow (and, once it is soft enough, the ring)
    /// blended in at grid points of a factor dividing the base's
    /// (`fold`): what the final pass takes, see `Folding`.
    let folded: Surface
    /// The smallest factor `folded` takes (its capacity), and the ring's
    /// grid factor from which it is folded.
    let minimumFoldFactor: Int
    let backgroundCache: Surface
    /// The mist at two keyframe times (`drawMist`); `mistKeyIndex` says
    /// which (index · `mistKeyStep` seconds; nil: none yet).
    let mistKeys: (Surface, Surface)
    var mistKeyIndex: (Int?, Int?) = (nil, nil)
    let bandX: UnsafeMutablePointer<Float>   // bands × base.width
    let bandY: UnsafeMutablePointer<Float>   // bands × base.height
    /// A band's blurred triangle across the screen, by distance from its
    /// left end, and each band's blurred box down it, by distance from its
    /// top: the bands drift, their blurred shapes stay (`drawBands`).
    let bandAcross: SampledProfile
    let bandDown: [SampledProfile]
    let particles: [Surface]
    let ring: Surface
    /// The glow (animated blur, brightness and opacity), on the folded
    /// base's grid.
    let glow: Surface
    /// The heart shape, which never changes: drawn once, an overlay of its own.
    let shape: Surface
    let center: Surface
    /// The centre's halo (its box-shadow, σ 17.5u) on a grid for that blur,
    /// whose lattice holds the centre's: beyond `haloRadius` the centre's
    /// cells are interpolated from it (`fillRow`), evaluated only inside.
    let centerHalo: Surface
    /// The halo interpolated where the centre's cells mix it in, row by row
    /// of the centre's grid (rows are filled by several threads).
    let centerScratch: Surface
    /// Normalised radii between which a centre cell mixes from its own
    /// value to the halo's interpolation; 4 element-blur σ past the
    /// ellipse's edge, where the blurred edge has faded.
    let haloRadius: (inner: Float, outer: Float)
    var ringVisible = false
    /// This frame's folding (`prepare`): the ring folded into the base or
    /// under it, and the factor of the folded base, the glow and a folded ring.
    var ringFolded = false
    var foldFactor = 1
    /// Off only to test folding against the frame composed layer by layer.
    var foldingEnabled = true
    /// Half the glow's extent on screen, in pixels.
    let glowHalf: (x: Int, y: Int)

    let particleTables: [BlurredEllipse]
    let ringTable: BlurredEllipse
    let glowTable: BlurredEllipse
    let centerTable: BlurredEllipse
    let canvas: Canvas
    let blur: GaussianBlur
    var mistStops: GradientStops
    let maxGridWidth: Int
    /// This frame's overlay evaluations: particles, ring, above, centre.
    var fills: [OverlayFill]
    /// Alpha below which a pixel adds under a quarter of an 8-bit level.
    let negligible: Float = 1.0 / 1024

    init(layout: DesignLayout, width: Int, height: Int, cellsPerSigma: Double, settings: RenderSettings) {
        self.layout = layout
        self.width = width
        self.height = height
        u = layout.u
        self.cellsPerSigma = cellsPerSigma
        func factor(_ sigmaDesign: Double) -> Int { Surface.gridFactor(screenSigma: sigmaDesign * layout.u, cellsPerSigma: cellsPerSigma) }

        // Base and mist share one grid lattice (origin multiples of the
        // factor). A multiple of 12 (rounded down: finer), so that a
        // quarter, a third and a half of it are grid factors too: the
        // folded base's lattice then holds the base's, and the base
        // resampled on it is the same bilinear surface.
        let idealBaseFactor = factor(P.Bands.blur)
        let baseFactor = idealBaseFactor >= 12 ? idealBaseFactor - idealBaseFactor % 12 : idealBaseFactor
        base = Surface(capacityWidth: Surface.gridExtent(pixels: width, factor: baseFactor),
                       capacityHeight: Surface.gridExtent(pixels: height, factor: baseFactor))
        base.place(coveringMinX: 0, minY: 0, maxX: width - 1, maxY: height - 1, factor: baseFactor)
        minimumFoldFactor = Self.largestDivisor(of: baseFactor, atMost: max(baseFactor / 4, 1))
        folded = Surface(capacityWidth: Surface.gridExtent(pixels: width, factor: minimumFoldFactor),
                         capacityHeight: Surface.gridExtent(pixels: height, factor: minimumFoldFactor))
        backgroundCache = Surface(capacityWidth: base.width, capacityHeight: base.height)
        backgroundCache.place(width: base.width, height: base.height, originX: base.originX, originY: base.originY, factor: baseFactor)
        let mistMargin = Int((3.2 * P.Mist.blur * u).rounded(.up))
        func mistSurface() -> Surface {
            let surface = Surface(capacityWidth: Surface.gridExtent(pixels: width + 2 * mistMargin, factor: baseFactor),
                                  capacityHeight: Surface.gridExtent(pixels: height + 2 * mistMargin, factor: baseFactor))
            surface.place(coveringMinX: -mistMargin, minY: -mistMargin, maxX: width - 1 + mistMargin, maxY: height - 1 + mistMargin, factor: baseFactor)
            return surface
        }
        mistKeys = (mistSurface(), mistSurface())
        let bandCount = P.Bands.items.count
        bandX = .allocate(capacity: bandCount * base.width)
        bandY = .allocate(capacity: bandCount * base.height)
        bandX.initialize(repeating: 0, count: bandCount * base.width)
        bandY.initialize(repeating: 0, count: bandCount * base.height)
        // Sampled σ/16 apart out to 6σ past each end, where they are zero.
        let bandSigma = P.Bands.blur * layout.u
        let (across, down) = (layout.width, layout.height)
        bandAcross = SampledProfile(from: -6 * bandSigma, through: across + 6 * bandSigma, step: bandSigma / 16) {
            PiecewiseLinearProfile.blurredTriangle(at: $0, from: 0, to: across, sigma: bandSigma)
        }
        bandDown = P.Bands.items.map { band in
            let height = band.heightFraction * down
            return SampledProfile(from: -6 * bandSigma, through: height + 6 * bandSigma, step: bandSigma / 16) {
                PiecewiseLinearProfile.blurredBox(at: $0, from: 0, to: height, sigma: bandSigma)
            }
        }
        mistStops = GradientStops([GradientStop(0, .zero), GradientStop(Float(P.Mist.stopOffsets[1]), RGBA(premultiplied(P.Mist.indigo))),
                                   GradientStop(Float(P.Mist.stopOffsets[2]), .zero), GradientStop(Float(P.Mist.stopOffsets[3]), .zero)])

        // Particles: discs with a colour → transparent gradient, blurred.
        let fade = GradientStops([GradientStop(0, RGBA(1, 1, 1, 1)), GradientStop(1, .zero)])
        particleTables = P.Particles.items.map {
            BlurredEllipse(stops: fade, semiAxisX: $0.size / 2, semiAxisY: $0.size / 2, sigmaLevels: [$0.blur])
        }
        particles = zip(P.Particles.items, particleTables).map { item, table in
            let f = factor(item.blur)
            let extent = Surface.gridExtent(pixels: Int((2 * table.reach * item.size / 2 * layout.u).rounded(.up)) + 2, factor: f)
            return Surface(capacityWidth: extent, capacityHeight: extent)
        }

        ringTable = BlurredEllipse(stops: Self.stops(P.PulseEcho.stops), semiAxisX: P.PulseEcho.semiAxes.x,
                                   semiAxisY: P.PulseEcho.semiAxes.y, sigmaLevels: [P.PulseEcho.blur])
        ring = Self.ringSurface(layout: layout, width: width, height: height, table: ringTable, cellsPerSigma: cellsPerSigma,
                                foldFactor: minimumFoldFactor)

        glowTable = BlurredEllipse(stops: Self.stops(P.HeartGlow.stops), semiAxisX: P.HeartGlow.semiAxes.x, semiAxisY: P.HeartGlow.semiAxes.y,
                                   sigmaLevels: stride(from: 20.0, through: 24.0, by: 0.5).map { $0 })
        let shapeFactor = factor(P.HeartShape.blur)
        let glowHalf = (x: Int((glowTable.reach * P.HeartGlow.semiAxes.x * u).rounded(.up)) + 1,
                        y: Int((glowTable.reach * P.HeartGlow.semiAxes.y * u).rounded(.up)) + 1)
        let centre = layout.center
        func placeAround(_ s: Surface, halfX: Int, halfY: Int, factor: Int) {
            s.place(coveringMinX: max(0, Int(centre.x) - halfX), minY: max(0, Int(centre.y) - halfY),
                    maxX: min(width - 1, Int(centre.x) + halfX), maxY: min(height - 1, Int(centre.y) + halfY), factor: factor)
        }
        // The glow's grid is the folded base's (`prepare`), never finer than
        // the minimum fold factor.
        glow = Surface(capacityWidth: Surface.gridExtent(pixels: 2 * glowHalf.x + 2, factor: minimumFoldFactor),
                       capacityHeight: Surface.gridExtent(pixels: 2 * glowHalf.y + 2, factor: minimumFoldFactor))
        self.glowHalf = glowHalf
        // The shape's blurs (σ 10u, then 8u) reach less far than the glow's.
        shape = Surface(capacityWidth: Surface.gridExtent(pixels: 2 * glowHalf.x + 2, factor: shapeFactor),
                        capacityHeight: Surface.gridExtent(pixels: 2 * glowHalf.y + 2, factor: shapeFactor))
        placeAround(shape, halfX: glowHalf.x, halfY: glowHalf.y, factor: shapeFactor)

        centerTable = Self.centerTable()
        // The centre's grid for its mean blur over the pulse (4u at rest,
        // 6u at the peak, back over 90 % of the cycle: about 5u): at rest
        // 1.6 cells a σ, which moved frames by at most 3 levels in the
        // bright core and its Chromium comparisons by a hundredth of a
        // level, for 0.5 M fewer instructions at 800x480.
        let centerFactor = factor(5)
        let centerHalf = (x: Int((centerTable.reach * P.HeartCenter.semiAxes.x * 1.08 * u).rounded(.up)) + 1,
                          y: Int((centerTable.reach * P.HeartCenter.semiAxes.y * 1.08 * u).rounded(.up)) + 1)
        center = Surface(capacityWidth: Surface.gridExtent(pixels: 2 * centerHalf.x + 2, factor: centerFactor),
                         capacityHeight: Surface.gridExtent(pixels: 2 * centerHalf.y + 2, factor: centerFactor))
        placeAround(center, halfX: centerHalf.x, halfY: centerHalf.y, factor: centerFactor)
        centerScratch = Surface(capacityWidth: center.width, capacityHeight: center.height)
        centerScratch.place(width: center.width, height: center.height, originX: center.originX, originY: center.originY, factor: centerFactor)
        let haloSigma = P.HeartCenter.shadowBlur / 2 * u
        let haloFactor = max(centerFactor, factor(P.HeartCenter.shadowBlur / 2) / centerFactor * centerFactor)
        centerHalo = Surface(capacityWidth: Surface.gridExtent(pixels: 2 * centerHalf.x + 2, factor: haloFactor) + 2,
                             capacityHeight: Surface.gridExtent(pixels: 2 * centerHalf.y + 2, factor: haloFactor) + 2)
        centerHalo.place(coveringMinX: center.originX - haloFactor, minY: center.originY - haloFactor,
                         maxX: center.originX + (center.width - 1) * centerFactor + haloFactor,
                         maxY: center.originY + (center.height - 1) * centerFactor + haloFactor, factor: haloFactor)
        let edgeBlur = centerTable.sigmaLevels.max()! / min(P.HeartCenter.semiAxes.x, P.HeartCenter.semiAxes.y)
        let inner = 1 + 4 * edgeBlur
        // The mix spans a halo cell at the smallest scale.
        let cell = Double(haloFactor) / (P.HeartCenter.semiAxes.x * u)
        haloRadius = (Float(inner), Float(inner + max(cell, haloSigma / (P.HeartCenter.semiAxes.x * u) / 2)))

        // Overlays are clipped to the screen, so no grid row is wider than it.
        maxGridWidth = width + 4
        canvas = Canvas(capacityWidth: max(mistKeys.0.width, shape.width) + 4, capacityHeight: max(mistKeys.0.height, shape.height) + 4)
        blur = GaussianBlur(maxExtent: max(mistKeys.0.width, mistKeys.0.height, shape.width, shape.height) + 4)

        fills = []
        drawBackground()
        drawHeartShape()
        let placeholder = OverlayFill(surface: base, table: ringTable, centre: .zero, a: 1, b: 1, shading: .plain, threshold: 1)
        fills = Array(repeating: placeholder, count: particles.count + 3)
        fills[particles.count + 1] = OverlayFill(surface: glow, table: glowTable, centre: layout.center,
                                                 a: P.HeartGlow.semiAxes.x * u, b: P.HeartGlow.semiAxes.y * u,
                                                 shading: .glow(brightness: 1, opacity: 1), threshold: negligible)
    }

    deinit {
        bandX.deallocate()
        bandY.deallocate()
    }

    static func stops(_ list: [(Double, HeartParameters.Color)]) -> GradientStops {
        GradientStops(list.map { GradientStop(Float($0.0), RGBA(premultiplied($0.1))) })
    }

    // MARK: - Per frame

    /// The serial part of a frame: where each overlay goes. `drawBase` and
    /// `fillRows` then draw, on several threads at once, and `fold` after them.
    func prepare(_ state: HeartState, particlesShown: Bool) {
        for index in fills.indices { fills[index].active = false }
        for index in particles.indices where particlesShown && state.particles[index].visible {
            drawParticle(index, state.particles[index])
        }
        // The glow is always folded into the base, on a grid at most its
        // own; the ring too once its blur allows the smallest fold factor
        // (it grows), on a grid at most its own as well. Both grids are the
        // folded base's, so folding reads their cells as they are.
        let glowFactor = gridFactor(screenSigma: state.glowBlur * u)
        let ringFactor = gridFactor(screenSigma: P.PulseEcho.blur * u * state.ringScale)
        ringFolded = ringFactor >= minimumFoldFactor
        let finest = ringFolded ? min(glowFactor, ringFactor) : glowFactor
        foldFactor = Self.largestDivisor(of: base.factor, atMost: max(finest, minimumFoldFactor))
        drawRing(state, factor: ringFolded ? foldFactor : ringFactor)
        drawGlow(state)
        drawCenter(state)
    }

    /// The largest d ≤ `limit` (at least 1) that divides `n`.
    static func largestDivisor(of n: Int, atMost limit: Int) -> Int {
        var d = max(min(limit, n), 1)
        while n % d != 0 { d -= 1 }
        return d
    }
}
