import ChakraRaster

/// The login page's animated background (docs/design.md, The scenes; every
/// value in drift-params.json), without its card or form: a diagonal gradient, a
/// dotted grid, four floating blurred circles (float / float-slow with
/// pulse-glow) and two decorative gradient circles turning with
/// rotate-move, one of them reversed.
///
/// How a frame is made (see `DriftLayers` and docs/renderer.md): every
/// element but the grid is blurred by σ ≥ 40u, analytically
/// (`BlurredGradientDisc`), and painted on one opaque coarse base (about 3
/// grid cells per σ; 1.5 in low power); the grid's dots are small
/// factor-1 overlays; the compositor's final pass upsamples the base and
/// blends the dots in one pass per row.
///
/// Reduce motion shows the page with its animations off (floats at their
/// anchors with their static opacities, circles in their boxes); low power
/// paints the base on a grid twice as coarse.
///
/// Ownership: everything is allocated in init for this size and settings.
public final class DriftScene: Scene, @unchecked Sendable {
    public static let name = "drift"

    public let width: Int, height: Int
    public let settings: RenderSettings
    public var isStill: Bool { settings.reduceMotion }
    let motion = DriftMotion()
    var state: DriftState
    let layers: DriftLayers
    let frame: SoftFrame
    public var pool: WorkerPool { frame.pool }

    public init(width: Int, height: Int, settings: RenderSettings = RenderSettings(), threads: Int = 1) {
        precondition(width > 0 && height > 0, "a scene needs a non-empty screen")
        self.width = width
        self.height = height
        self.settings = settings
        state = settings.reduceMotion ? motion.restingState() : motion.state(at: 0)
        layers = DriftLayers(width: width, height: height, cellsPerSigma: settings.lowPower ? 1.5 : 3)
        frame = SoftFrame(width: width, base: layers.base, overlays: layers.dots?.surfaces ?? [], threads: threads)
    }

    public func render(time: Double, into output: PixelBuffer) {
        precondition(output.width == width && output.height == height, "frame size differs from the scene's")
        if !settings.reduceMotion { motion.update(&state, at: time) }
        layers.prepare(state)
        frame.render(into: output, painter: layers)
    }
}
