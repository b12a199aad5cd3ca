import ChakraRaster

/// Paints a scene's opaque coarse base for the current frame.
protocol BasePainter: AnyObject {
    /// Paints base grid rows taken from `counter` until it runs past the
    /// last; several threads call this at once, each taking other rows.
    func paintBase(rowsFrom counter: WorkCounter)
}

/// The frame of a scene whose soft layers are all painted on one opaque
/// coarse base, with optional sharp overlays prepared before the frame
/// (drift's dots): phase 1 paints base rows, phase 2 is the compositor's
/// final pass in bands of output rows (docs/renderer.md). In both phases
/// threads take work from a counter as they come free.
///
/// Ownership: owned by one scene for its screen size; owns the pool,
/// compositor and opacity list; borrows the base, overlays and painter
/// (the scene owns them and outlives this).
final class SoftFrame: PartitionedJob, @unchecked Sendable {
    private enum Phase { case base, compose }

    let base: Surface
    let overlays: [Surface]
    let pool: WorkerPool
    private let compositor: FrameCompositor
    private let opacities: UnsafeMutableBufferPointer<Float>
    private let work = WorkCounter()
    private var phase = Phase.base
    private var frame = FrameToken.none
    private var output: PixelBuffer?
    private unowned(unsafe) var painter: BasePainter?

    init(width: Int, base: Surface, overlays: [Surface], threads: Int) {
        self.base = base
        self.overlays = overlays
        pool = WorkerPool(threads: threads)
        let widest = overlays.reduce(base.width) { max($0, $1.width) }
        compositor = FrameCompositor(maxWidth: width, maxGridWidth: widest + 4, threads: pool.threadCount, maxOverlays: overlays.count)
        // Overlays carry their opacity in their pixels.
        opacities = .allocate(capacity: max(overlays.count, 1))
        opacities.initialize(repeating: 1)
    }

    deinit { opacities.deallocate() }

    /// Paints the base with `painter`, then composes base and overlays into
    /// `output`. Allocates nothing.
    func render(into output: PixelBuffer, painter: BasePainter) {
        self.painter = painter
        self.output = output
        phase = .base
        work.reset()
        pool.run(self)
        phase = .compose
        frame = compositor.beginFrame()
        work.reset()
        pool.run(self)
        self.output = nil
        self.painter = nil
    }

    func run(part: Int, of parts: Int) {
        guard let output, let painter else { return }
        if phase == .base {
            painter.paintBase(rowsFrom: work)
            return
        }
        let opacityList = UnsafeBufferPointer(rebasing: opacities[0..<overlays.count])
        overlays.withUnsafeBufferPointer { list in
            compositor.composeBands(base: base, overlays: list, opacities: opacityList, into: output, taking: work, slot: part, frame: frame)
        }
    }
}
