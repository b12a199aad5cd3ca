import ChakraRaster

/// The warm ambient background of the HowRU motion system
/// (docs/design.md, Motion; values in docs/calm-params.json): four
/// soft warm blobs drifting slowly in straight, linear legs (the ambient
/// token) over a warm diagonal gradient, each with the subtle breathing
/// float.
///
/// A frame is one opaque coarse base (the cached gradient with the blobs,
/// blurred analytically, over it) upsampled by the compositor's final pass.
/// Reduce motion shows the static gradient alone (the document's
/// StaticGradientBackground); low power paints the base on a grid twice as
/// coarse.
///
/// Ownership: everything is allocated in init for this size and settings.
public final class CalmScene: Scene, @unchecked Sendable {
    public static let name = "calm"

    public let width: Int, height: Int
    public let settings: RenderSettings
    public var isStill: Bool { settings.reduceMotion }
    let motion = CalmMotion()
    var state: CalmState
    let layers: CalmLayers
    let frame: SoftFrame
    public var pool: WorkerPool { frame.pool }

    public init(width: Int, height: Int, settings: RenderSettings = RenderSettings(), threads: Int = 1) {
        precondition(width > 0 && height > 0, "a scene needs a non-empty screen")
        self.width = width
        self.height = height
        self.settings = settings
        state = motion.state(at: 0)
        layers = CalmLayers(width: width, height: height, cellsPerSigma: settings.lowPower ? 1.5 : 3, blobsShown: !settings.reduceMotion)
        frame = SoftFrame(width: width, base: layers.base, overlays: [], threads: threads)
    }

    public func render(time: Double, into output: PixelBuffer) {
        precondition(output.width == width && output.height == height, "frame size differs from the scene's")
        if !settings.reduceMotion { motion.update(&state, at: time) }
        layers.prepare(state)
        frame.render(into: output, painter: layers)
    }
}
