import ChakraRaster
import Glibc

/// The heart-chakra scene (docs/design.md, The scenes; every value in
/// heart-params.json).
///
/// How a frame is made (see docs/renderer.md): every layer is soft, so each
/// is drawn at the coarsest grid its blur allows (about 2 grid cells per
/// Gaussian σ; 1.5 in low power) and the compositor upsamples them all in
/// one fused pass per output row:
///
///   base (opaque, coarse): background gradient + 4 bands + mist
///   overlays, bottom to top: 3 particles, pulse ring, glow, heart shape,
///   heart centre
///
/// The glow, and the ring once its blur is wide, are soft and cover much of
/// the screen: they are folded into a finer copy of the base at its grid
/// points (`HeartLayers.fold`, `Folding`), so the final pass blends them
/// per pixel only where a particle (or a ring too sharp to fold) lies under
/// them.
///
/// Bands, particles, ring, glow and centre are blurred analytically
/// (`PiecewiseLinearProfile`, `BlurredEllipse`); the mist is rasterized and
/// blurred on its coarse grid; the heart shape, which never changes, is
/// rasterized and blurred once at setup.
///
/// Ownership: everything is allocated in init for this size and settings.
public final class HeartScene: Scene, PartitionedJob, @unchecked Sendable {
    public static let name = "heart"
    typealias P = HeartParameters

    public let width: Int, height: Int
    public let settings: RenderSettings
    public var isStill: Bool { settings.reduceMotion }
    let layout: DesignLayout
    let motion = HeartMotion()
    var state: HeartState

    /// Target grid cells per Gaussian σ: finer grids cost more, coarser ones
    /// lose accuracy in the bilinear upsampling. 2 here, where the other
    /// scenes take 3: the heart's cells (centre, glow, ring) are most of its
    /// fixed cost, and its frames at 2 differ from 3's by at most 3 levels
    /// (PSNR 60 dB at 1280x720 and 1920x1080) with its Chromium comparisons
    /// within 0.1 level of 3's, for 17% fewer instructions at 800x480.
    /// Drift's comparisons lost half a level at 2, for 9%: it stays at 3.
    let cellsPerSigma: Double

    let layers: HeartLayers
    let compositor: FrameCompositor
    public let pool: WorkerPool
    private var overlays: [Surface]
    private let opacities: UnsafeMutableBufferPointer<Float>
    private let roles: UnsafeMutableBufferPointer<OverlayRole>
    private var output: PixelBuffer?

    public init(width: Int, height: Int, settings: RenderSettings = RenderSettings(), threads: Int = 1) {
        precondition(width > 0 && height > 0, "a scene needs a non-empty screen")
        self.width = width
        self.height = height
        self.settings = settings
        layout = DesignLayout(width: width, height: height)
        cellsPerSigma = settings.lowPower ? 1.5 : 2
        state = motion.state(at: 0)
        layers = HeartLayers(layout: layout, width: width, height: height, cellsPerSigma: cellsPerSigma, settings: settings)
        overlays = layers.particles + [layers.ring, layers.glow, layers.shape, layers.center]
        opacities = .allocate(capacity: overlays.count)
        opacities.initialize(repeating: 0)
        roles = .allocate(capacity: overlays.count)
        roles.initialize(repeating: .over)
        pool = WorkerPool(threads: threads)
        compositor = FrameCompositor(maxWidth: width, maxGridWidth: layers.maxGridWidth, threads: pool.threadCount, maxOverlays: overlays.count)
    }

    deinit {
        opacities.deallocate()
        roles.deallocate()
    }

    public func render(time: Double, into output: PixelBuffer) {
        precondition(output.width == width && output.height == height, "frame size differs from the scene's")
        if settings.reduceMotion {
            state = motion.restingState()
        } else {
            motion.update(&state, at: time)
        }
        let particlesShown = !settings.lowPower
        layers.prepare(state, particlesShown: particlesShown)
        let particleCount = layers.particles.count
        for index in 0..<particleCount {
            let particle = state.particles[index]
            opacities[index] = layers.fills[index].active ? Float(particle.opacity) : 0
        }
        opacities[particleCount] = layers.ringVisible ? Float(state.ringOpacity) : 0
        opacities[particleCount + 1] = 1
        opacities[particleCount + 2] = 1
        opacities[particleCount + 3] = 1
        let folding = layers.foldingEnabled
        for index in 0..<particleCount { roles[index] = folding ? .under : .over }
        roles[particleCount] = !folding ? .over : layers.ringFolded ? .folded : .under
        roles[particleCount + 1] = folding ? .folded : .over
        layers.placeFolded()
        self.output = output
        self.time = time
        phase = .overlays
        work.reset()
        pool.run(self)
        if folding {
            phase = .fold
            work.reset()
            pool.run(self)
        }
        phase = .compose
        frame = compositor.beginFrame()
        work.reset()
        pool.run(self)
        self.output = nil
    }

    private enum Phase { case overlays, fold, compose }
    /// Work items of the current phase, taken by the pool's threads.
    private let work = WorkCounter()
    private var phase = Phase.overlays
    private var frame = FrameToken.none
    /// This frame's scene time.
    private var time = 0.0
    /// The mist mixed from keyframes (`HeartLayers.drawMist`); off only to
    /// test the mix against the mist drawn at each frame's own time.
    var mistKeyframed = true

    /// Phase 1: the base and the overlay rows. Phase 2: the folded base's
    /// rows. Phase 3: the final pass, in bands of rows. Threads take work
    /// items as they come free.
    public func run(part: Int, of parts: Int) {
        guard let output else { return }
        if phase == .overlays {
            // The base (bands, mist) is one job of a thread's; the overlay
            // rows are shared out as threads come free.
            if part == 0 { layers.drawBase(state, time: time, motion: motion, keyframed: mistKeyframed && !settings.reduceMotion) }
            layers.fillRows(taking: work)
            return
        }
        if phase == .fold {
            layers.fold(taking: work, ringOpacity: opacities[layers.particles.count])
            return
        }
        let folding = layers.foldingEnabled ? Folding(plainBase: layers.base, roles: UnsafeBufferPointer(roles)) : nil
        overlays.withUnsafeBufferPointer { list in
            compositor.composeBands(base: folding == nil ? layers.base : layers.folded, overlays: list, opacities: UnsafeBufferPointer(opacities),
                                    into: output, taking: work, slot: part, frame: frame, folding: folding)
        }
    }
}
