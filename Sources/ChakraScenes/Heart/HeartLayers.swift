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
    let backgroundCache: Surface
    /// The mist at two keyframe times (`drawMist`); `mistKeyIndex` says
    /// which (index · `mistKeyStep` seconds; nil: none yet).
    let mistKeys: (Surface, Surface)
    var mistKeyIndex: (Int?, Int?) = (nil, nil)
    let bandX: UnsafeMutablePointer<Float>   // bands × base.width
    let bandY: UnsafeMutablePointer<Float>   // bands × base.height
    let particles: [Surface]
    let ring: Surface
    /// Glow with the (static) heart shape over it, on the shape's grid.
    let above: Surface
    let shapeCache: Surface
    /// The glow's values before they go under the shape, row by row of `above`.
    let glowScratch: Surface
    let center: Surface
    var ringVisible = false

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

        // Base and mist share one grid lattice (origin multiples of the factor).
        let baseFactor = factor(P.Bands.blur)
        base = Surface(capacityWidth: Surface.gridExtent(pixels: width, factor: baseFactor),
                       capacityHeight: Surface.gridExtent(pixels: height, factor: baseFactor))
        base.place(coveringMinX: 0, minY: 0, maxX: width - 1, maxY: height - 1, factor: baseFactor)
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
        ring = Self.ringSurface(layout: layout, width: width, height: height, table: ringTable, cellsPerSigma: cellsPerSigma)

        glowTable = BlurredEllipse(stops: Self.stops(P.HeartGlow.stops), semiAxisX: P.HeartGlow.semiAxes.x, semiAxisY: P.HeartGlow.semiAxes.y,
                                   sigmaLevels: stride(from: 20.0, through: 24.0, by: 0.5).map { $0 })
        let aboveFactor = factor(P.HeartShape.blur)
        let glowHalf = (x: Int((glowTable.reach * P.HeartGlow.semiAxes.x * u).rounded(.up)) + 1,
                        y: Int((glowTable.reach * P.HeartGlow.semiAxes.y * u).rounded(.up)) + 1)
        let centre = layout.center
        func placeAround(_ s: Surface, halfX: Int, halfY: Int, factor: Int) {
            s.place(coveringMinX: max(0, Int(centre.x) - halfX), minY: max(0, Int(centre.y) - halfY),
                    maxX: min(width - 1, Int(centre.x) + halfX), maxY: min(height - 1, Int(centre.y) + halfY), factor: factor)
        }
        above = Surface(capacityWidth: Surface.gridExtent(pixels: 2 * glowHalf.x + 2, factor: aboveFactor),
                        capacityHeight: Surface.gridExtent(pixels: 2 * glowHalf.y + 2, factor: aboveFactor))
        placeAround(above, halfX: glowHalf.x, halfY: glowHalf.y, factor: aboveFactor)
        shapeCache = Surface(capacityWidth: above.width, capacityHeight: above.height)
        shapeCache.place(width: above.width, height: above.height, originX: above.originX, originY: above.originY, factor: aboveFactor)
        glowScratch = Surface(capacityWidth: above.width, capacityHeight: above.height)

        centerTable = Self.centerTable()
        let centerFactor = factor(4)
        let centerHalf = (x: Int((centerTable.reach * P.HeartCenter.semiAxes.x * 1.08 * u).rounded(.up)) + 1,
                          y: Int((centerTable.reach * P.HeartCenter.semiAxes.y * 1.08 * u).rounded(.up)) + 1)
        center = Surface(capacityWidth: Surface.gridExtent(pixels: 2 * centerHalf.x + 2, factor: centerFactor),
                         capacityHeight: Surface.gridExtent(pixels: 2 * centerHalf.y + 2, factor: centerFactor))
        placeAround(center, halfX: centerHalf.x, halfY: centerHalf.y, factor: centerFactor)

        // Overlays are clipped to the screen, so no grid row is wider than it.
        maxGridWidth = width + 4
        canvas = Canvas(capacityWidth: max(mistKeys.0.width, above.width) + 4, capacityHeight: max(mistKeys.0.height, above.height) + 4)
        blur = GaussianBlur(maxExtent: max(mistKeys.0.width, mistKeys.0.height, above.width, above.height) + 4)

        fills = []
        drawBackground()
        drawHeartShape()
        let placeholder = OverlayFill(surface: base, table: ringTable, centre: .zero, a: 1, b: 1, shading: .plain, threshold: 1)
        fills = Array(repeating: placeholder, count: particles.count + 3)
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
    /// `fillRows` then draw, on several threads at once.
    func prepare(_ state: HeartState, particlesShown: Bool) {
        for index in fills.indices { fills[index].active = false }
        for index in particles.indices where particlesShown && state.particles[index].visible {
            drawParticle(index, state.particles[index])
        }
        drawRing(state)
        drawAbove(state)
        drawCenter(state)
    }
}
