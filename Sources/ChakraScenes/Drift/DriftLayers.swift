import ChakraRaster
import Glibc

/// The drift scene's layers for one screen size, and how they are drawn for
/// a state.
///
/// Layers bottom to top: background, dotted grid, floats 1-4, decorative
/// circles 1-2. All but the grid are soft (σ ≥ 40u), so they are painted
/// together on one opaque coarse base; the grid's sharp dots are small
/// factor-1 overlays. The grid lies *under* the floats, yet its dots are
/// composited over the base. That is exact: with B the background, G the
/// grid (alpha αG) and T the floats and circles composited together,
///
///   T over (G over B) = (αG·(T over g)) over (T over B),
///
/// where g is the opaque dot colour: each dot is painted in "T over g"
/// (T evaluated at the dot's centre; T's blur is ≥ 25 dots wide, so it is
/// constant across one) at the grid's alpha, over the base T over B.
///
/// Ownership: created by `DriftScene` for one size; owns its surfaces, dot
/// lattice and element list for its lifetime.
final class DriftLayers: BasePainter, @unchecked Sendable {
    typealias P = DriftParameters
    let layout: DesignLayout
    let u: Double
    /// Opaque: background with floats and circles over it.
    let base: Surface
    /// The background gradient on the base grid (it never changes).
    let background: Surface
    /// The grid's dots; nil on screens too small for separate dots.
    let dots: DotLattice?
    /// This frame's blurred elements, bottom to top: floats, then circles.
    let discs: UnsafeMutableBufferPointer<PlacedDisc>
    let dotColor = opaque(P.Grid.dotColor)

    /// The blurred-disc tables depend only on σ/radius, not on the screen:
    /// built once per process.
    static let floatTables = P.floats.map { BlurredGradientDisc(sigma: $0.blur / ($0.size / 2)) }
    static let decoTables = P.decos.map { BlurredGradientDisc(sigma: $0.blur / ($0.size / 2)) }

    init(width: Int, height: Int, cellsPerSigma: Double) {
        layout = DesignLayout(width: width, height: height)
        u = layout.u
        let sharpestBlur = P.floats.map(\.blur).min()!
        let factor = Surface.gridFactor(screenSigma: sharpestBlur * u, cellsPerSigma: cellsPerSigma)
        base = Surface(capacityWidth: Surface.gridExtent(pixels: width, factor: factor),
                       capacityHeight: Surface.gridExtent(pixels: height, factor: factor))
        base.place(coveringMinX: 0, minY: 0, maxX: width - 1, maxY: height - 1, factor: factor)
        background = Surface(capacityWidth: base.width, capacityHeight: base.height)
        background.place(width: base.width, height: base.height, originX: base.originX, originY: base.originY, factor: factor)

        let pitch = P.Grid.tile * u, diameter = P.Grid.dotDiameter * u
        dots = pitch >= diameter + 2
            ? DotLattice(width: width, height: height, pitch: pitch, diameter: diameter,
                         firstCentre: Point(P.Grid.dotCenterInTile.x * u, P.Grid.dotCenterInTile.y * u))
            : nil

        let tables = Self.floatTables + Self.decoTables
        discs = .allocate(capacity: tables.count)
        _ = discs.initialize(from: tables.map { PlacedDisc(table: $0) })
        drawBackground()
    }

    deinit {
        discs.deinitialize()
        discs.deallocate()
    }

    /// linear-gradient(to bottom right, …) over the whole screen:
    /// t = (x/W + y/H)/2, evaluated at each grid point's pixel centre.
    private func drawBackground() {
        let stops = GradientStops(P.Background.stops.map { GradientStop(Float($0.0), opaque($0.1)) })
        let gradient = LinearGradient.toBottomRight(boxX: 0, y: 0, width: layout.width, height: layout.height, stops: stops)
        for j in 0..<background.height {
            for i in 0..<background.width {
                background[i, j] = gradient.color(atX: background.screenX(i), y: background.screenY(j))
            }
        }
    }

    // MARK: - Geometry

    /// The centre of a size × size element whose Tailwind classes anchor it
    /// to the given screen edges (offsets and size in design px).
    func anchoredCentre(size: Double, _ horizontal: P.Horizontal, _ vertical: P.Vertical) -> Point {
        let half = size * u / 2
        let x = switch horizontal {
        case .left(let offset): offset * u + half
        case .right(let offset): layout.width - offset * u - half
        }
        let y = switch vertical {
        case .top(let offset): offset * u + half
        case .bottom(let offset): layout.height - offset * u - half
        }
        return Point(x, y)
    }

    /// Where float `index` is and how large, in screen px.
    func floatPlacement(_ index: Int, _ state: DriftState.FloatingCircle) -> (centre: Point, radius: Double) {
        let item = P.floats[index]
        return (anchoredCentre(size: item.size, item.horizontal, item.vertical) + state.translate * u, item.size / 2 * u * state.scale)
    }

    /// Where decorative circle `index` is, and the turn of its gradient:
    /// rotate(a) translate(x, y) moves the centre by R(a)·(x, y)·size.
    func decoPlacement(_ index: Int, _ state: DriftState.DecorativeCircle) -> (centre: Point, radius: Double, cos: Double, sin: Double) {
        let item = P.decos[index]
        let size = item.size * u
        let angle = state.rotationDegrees * .pi / 180
        let c = cos(angle), s = sin(angle)
        let offset = Point(c * state.translate.x - s * state.translate.y, s * state.translate.x + c * state.translate.y) * size
        return (anchoredCentre(size: item.size, item.horizontal, item.vertical) + offset, size / 2, c, s)
    }

    // MARK: - Per frame

    /// The serial part of a frame: places the elements and tints the dots.
    func prepare(_ state: DriftState) {
        for index in P.floats.indices {
            let item = P.floats[index], placement = floatPlacement(index, state.floats[index])
            discs[index].place(centre: placement.centre, radius: placement.radius, color: opaque(item.color), opacity: state.floats[index].opacity)
        }
        for index in P.decos.indices {
            let item = P.decos[index], placement = decoPlacement(index, state.decos[index])
            // In its own box the gradient's opacity is 1 − t with
            // t = (x/s + y/s)/2, i.e. ½ − (X + Y)/4 in radii from the centre;
            // on screen its gradient (−¼, −¼) turns with the circle.
            let g = SIMD2(-0.25, -0.25)
            let turned = SIMD2(placement.cos * g.x - placement.sin * g.y, placement.sin * g.x + placement.cos * g.y)
            discs[P.floats.count + index].place(centre: placement.centre, radius: placement.radius, color: opaque(item.color),
                                                opacity: item.opacity, base: 0.5, gradient: turned)
        }
        let elements = UnsafeBufferPointer(discs)
        dots?.tint(opacity: Float(P.Grid.layerOpacity)) { dot in
            let top = elements.composite(atX: Float(dot.centre.x), y: Float(dot.centre.y), over: .zero)
            return Colors.over(top, dotColor)
        }
    }

    /// Base rows: the cached background with every element over it.
    func paintBase(rowsFrom counter: WorkCounter) {
        let elements = UnsafeBufferPointer(discs)
        while true {
            let j = counter.take()
            guard j < base.height else { return }
            let target = base.row(j), source = background.row(j)
            let y = base.screenY(j)
            for i in 0..<base.width {
                target[i] = elements.composite(atX: base.screenX(i), y: y, over: source[i])
            }
        }
    }
}
