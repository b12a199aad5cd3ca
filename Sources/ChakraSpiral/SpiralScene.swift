import ChakraConfig
import ChakraMotion
import ChakraRaster
import ChakraScenes
import ChakraText
import Glibc

/// The spiral-breathing exercise on screen (docs/design.md, The spiral;
/// chosen values in docs/spiral-params.json): the calm scene's warm
/// background, the dimmed track, the travelled part in a gradient, the
/// glowing head orb, the pulsing "touch here" orb in Idle, the hold's
/// pulse, progress bar with shimmer and countdown, the guidance texts, and
/// the celebration burst.
///
/// A frame draws what its `session` says at the frame's time; the scene
/// never changes the session (the daemon feeds it touches and
/// `advance(to:)` with the same clock before rendering). Same session
/// state and time, same pixels.
///
/// How a frame is made: the background is a static coarse base; the track
/// and its coloured part, the bar and the particles are sharp and painted
/// straight into each row of the final pass (`SpiralPainter`, from a
/// per-pixel length table computed once); the orb's glow and core are soft
/// overlays evaluated analytically around the head; texts are overlays
/// drawn once per string (`TextImage`). Nothing is allocated per frame.
///
/// Ownership: everything is allocated in init for this size, settings and
/// configuration; the session is shared with the daemon.
public final class SpiralScene: Scene, PartitionedJob, @unchecked Sendable {
    public static let name = "spiral"
    typealias P = SpiralParameters

    public let width: Int, height: Int
    public let settings: RenderSettings
    public let session: SpiralSession
    public let layout: SpiralLayout
    public let config: ChakraConfig.Spiral

    let base: Surface
    /// `base` expanded once: it never changes.
    let background: StillBase
    let painter: SpiralPainter
    let glow: SoftDiscLayer
    let orb: SoftDiscLayer
    let texts: SpiralTexts
    let compositor: FrameCompositor
    public let pool: WorkerPool
    private var overlays: [Surface]
    private let opacities: UnsafeMutableBufferPointer<Float>
    private let work = WorkCounter()
    private var frame = FrameToken.none
    private var output: PixelBuffer?
    private let progressStops: GradientStops
    private let highlight: RGBA
    /// The burst, fixed at init from the seed: direction, distance, radius, colour.
    private let burst: [(dx: Double, dy: Double, distance: Double, radius: Double, color: RGBA)]
    private let burstSpring = Spring(response: P.Celebration.springResponse, dampingFraction: P.Celebration.springDampingFraction)

    /// Overlay slots, bottom to top.
    private enum Slot: Int, CaseIterable { case glow, orb, guidance, hint, counter }

    /// Why the configured font ([text] font) was not used, when it was not:
    /// the texts are then in the default font. For the daemon to log.
    public private(set) var fontProblem: FontError?

    /// A scene with its own session (the daemon takes `scene.session` to
    /// feed it), or sharing `session`, which must have been made for this
    /// size and configuration. A font that cannot be read falls back to
    /// `Font.defaultPath` (`fontProblem` says why); throws when that cannot
    /// be read either.
    public init(width: Int, height: Int, settings: RenderSettings = RenderSettings(), threads: Int = 1,
                spiral: ChakraConfig.Spiral = ChakraConfig.Spiral(), text: ChakraConfig.Text = ChakraConfig.Text(),
                catalogDirectory: String = StringCatalog.defaultDirectory, session: SpiralSession? = nil,
                time: Double = 0) throws(FontError) {
        precondition(width > 0 && height > 0, "a scene needs a non-empty screen")
        self.width = width
        self.height = height
        self.settings = settings
        config = spiral
        layout = SpiralLayout(width: width, height: height, config: spiral)
        let session = session ?? SpiralSession(config: spiral, geometry: SpiralGeometry(config: spiral, layout: layout), time: time)
        precondition(session.geometry.scale == layout.scale && session.geometry.centre == layout.centre,
                     "the session was made for another screen")
        self.session = session
        let s = layout.scale
        let cellsPerSigma = settings.lowPower ? 1.5 : 3

        // The background never changes: a coarse linear gradient.
        let factor = max(1, Int((8 * DesignLayout(width: width, height: height).u).rounded(.down)))
        base = Surface(capacityWidth: Surface.gridExtent(pixels: width, factor: factor),
                       capacityHeight: Surface.gridExtent(pixels: height, factor: factor))
        base.place(coveringMinX: 0, minY: 0, maxX: width - 1, maxY: height - 1, factor: factor)
        let gradient = LinearGradient.toBottomRight(boxX: 0, y: 0, width: Double(width), height: Double(height),
                                                      stops: GradientStops(P.background.map { GradientStop(Float($0.0), opaque($0.1)) }))
        for j in 0..<base.height {
            for i in 0..<base.width { base[i, j] = gradient.color(atX: base.screenX(i), y: base.screenY(j)) }
        }

        let track = SpiralTrack(geometry: session.geometry, lineWidth: spiral.lineWidth * s, width: width, height: height)
        painter = SpiralPainter(track: track, totalLength: session.totalLength, particleCapacity: P.Celebration.particles)
        progressStops = GradientStops(P.progressStops.map { GradientStop(Float($0.0), opaque($0.1)) })
        highlight = opaque(P.Head.highlightColor)

        let headRadius = spiral.headSize / 2 * s
        let scales = 0.5...max(SpiralSession.pulseMaximum, P.IdleOrb.pulseScale)
        glow = SoftDiscLayer(radius: headRadius * P.Head.glowRadiusFactor, blur: P.Head.glowBlur * s, inner: nil,
                             scales: scales, cellsPerSigma: cellsPerSigma, width: width, height: height)
        orb = SoftDiscLayer(radius: headRadius, blur: P.Head.edgeBlur * s,
                            inner: (P.Head.highlightRadiusFraction, P.Head.highlightBlurFraction),
                            scales: scales, cellsPerSigma: cellsPerSigma, width: width, height: height)

        let font: Font
        do {
            font = try Font(path: text.font)
        } catch where text.font != Font.defaultPath {
            fontProblem = error
            font = try Font(path: Font.defaultPath)
        }
        // Every pattern an exercise may be started with: its texts and its
        // longest countdown are made now, never while frames are drawn.
        let patterns = spiral.availablePatterns + [session.configuredPattern]
        let longestHold = patterns.map { $0.holdSeconds(near: spiral.holdDuration) }.max() ?? spiral.holdDuration
        texts = SpiralTexts(font: font, catalog: StringCatalog(directory: catalogDirectory, language: text.language),
                            layout: layout, maxSeconds: Int(longestHold.rounded(.up)),
                            phaseTexts: patterns.flatMap { $0.phases.compactMap(\.text) })

        var random = SeededRandom(seed: P.Celebration.seed)
        burst = (0..<P.Celebration.particles).map { index in
            let angle = 2 * Double.pi * (Double(index) + random.next()) / Double(P.Celebration.particles)
            let distance = P.Celebration.distance.lowerBound + random.next() * (P.Celebration.distance.upperBound - P.Celebration.distance.lowerBound)
            let radius = P.Celebration.radius.lowerBound + random.next() * (P.Celebration.radius.upperBound - P.Celebration.radius.lowerBound)
            let color = opaque(P.Celebration.colors[index % P.Celebration.colors.count])
            return (sin(angle), -cos(angle), distance, radius, color)
        }

        overlays = [glow.surface, orb.surface, texts.counter, texts.counter, texts.counter]
        opacities = .allocate(capacity: Slot.allCases.count)
        opacities.initialize(repeating: 0)
        pool = WorkerPool(threads: threads)
        // Overlays are clipped to the screen but for texts, which a long
        // word may make wider than it.
        let widest = texts.allImages.reduce(max(width, texts.counterWidth)) { max($0, $1.width) }
        compositor = FrameCompositor(maxWidth: width, maxGridWidth: widest + 4, threads: pool.threadCount, maxOverlays: Slot.allCases.count)
        background = compositor.still(base, width: width)
    }

    deinit { opacities.deallocate() }

    /// Nothing on screen depends on time: under reduce motion, in every
    /// state but a running hold (its countdown and pulse). The picture still
    /// changes with touches (the daemon redraws after feeding one) and at
    /// `session.nextDeadline`.
    public var isStill: Bool {
        guard settings.reduceMotion else { return false }
        return !(session.state == .hold && !session.needsResume)
    }

    public func render(time: Double, into output: PixelBuffer) {
        precondition(output.width == width && output.height == height, "frame size differs from the scene's")
        prepare(time: time)
        self.output = output
        frame = compositor.beginFrame()
        work.reset()
        pool.run(self)
        self.output = nil
    }

    public func run(part: Int, of parts: Int) {
        guard let output else { return }
        overlays.withUnsafeBufferPointer { list in
            compositor.composeBands(base: background, overlays: list, opacities: UnsafeBufferPointer(opacities), into: output,
                                    taking: work, slot: part, frame: frame, sharp: painter)
        }
    }

    // MARK: - The frame's layers

    private func prepare(time t: Double) {
        let state = session.state
        painter.fillLength = state == .idle ? -1 : Float(session.headLength)
        prepareOrb(time: t)
        prepareBar(time: t)
        prepareBurst(time: t)
        prepareTexts(time: t)
    }

    private func headColor() -> RGBA { progressStops.color(at: Float(session.colorProgress)) }

    private func prepareOrb(time t: Double) {
        let reduce = settings.reduceMotion
        let headRadius = config.headSize / 2 * layout.scale
        var scale = 1.0, glowOpacity = P.Head.glowOpacity
        switch session.state {
        case .idle:
            if reduce {
                glowOpacity = P.IdleOrb.reduceMotionGlowOpacity
            } else {
                // An autoreversing ease-in-out leg (CSS alternate) from the scene's start.
                let legs = max(t - session.stateEnteredAt, 0) / P.IdleOrb.legDuration
                let leg = Int(legs.rounded(.down))
                var f = legs - Double(leg)
                if leg % 2 == 1 { f = 1 - f }
                let eased = TimingFunction.easeInOut.value(at: f)
                scale = 1 + (P.IdleOrb.pulseScale - 1) * eased
                glowOpacity = P.IdleOrb.glowOpacity.low + (P.IdleOrb.glowOpacity.high - P.IdleOrb.glowOpacity.low) * eased
            }
        case .hold:
            let pulse = session.holdPulse(elapsed: session.holdElapsed(at: t))
            if reduce {
                let f = (pulse - 1) / (SpiralSession.pulseMaximum - 1)
                let range = P.HoldPulse.reduceMotionGlowOpacity
                glowOpacity = range.low + (range.high - range.low) * f
            } else {
                scale = pulse
            }
        case .inhale, .exhale, .completed:
            break
        }
        let centre = session.headPosition
        let color = headColor()
        glow.draw(centre: centre, radius: headRadius * P.Head.glowRadiusFactor * scale, scale: scale, color: color, opacity: Float(glowOpacity))
        orb.draw(centre: centre, radius: headRadius * scale, scale: scale, color: color, opacity: 1,
                 innerColor: highlight * Float(P.Head.highlightOpacity))
        opacities[Slot.glow.rawValue] = 1
        opacities[Slot.orb.rawValue] = 1
    }

    private func prepareBar(time t: Double) {
        guard session.state == .hold else { painter.barShown = false; return }
        let s = layout.scale
        let w = layout.barWidth, h = P.Bar.height * s
        painter.barShown = true
        painter.barX0 = Float(layout.bar.x - w / 2)
        painter.barY0 = Float(layout.bar.y - h / 2)
        painter.barWidth = Float(w)
        painter.barHeight = Float(h)
        let fraction = session.holdElapsed(at: t) / max(session.holdDuration, 1e-9)
        let fillX = layout.bar.x - w / 2 + w * fraction
        painter.barFill = Float(fillX)
        // The shimmer runs while the hold counts (not under reduce motion or low power).
        if settings.reduceMotion || settings.lowPower || session.needsResume {
            painter.shimmerOpacity = 0
        } else {
            let band = P.Bar.shimmerWidth * s
            let phase = t.truncatingRemainder(dividingBy: P.Bar.shimmerPeriod) / P.Bar.shimmerPeriod
            let start = layout.bar.x - w / 2 - band / 2
            painter.shimmerCentre = Float(start + phase * (fillX - start + band / 2))
            painter.shimmerHalfWidth = Float(band / 2)
            painter.shimmerOpacity = Float(P.Bar.shimmerOpacity)
        }
    }

    private func prepareBurst(time t: Double) {
        painter.particleCount = 0
        guard session.state == .completed, !settings.reduceMotion, !settings.lowPower else { return }
        let elapsed = t - session.stateEnteredAt
        typealias C = P.Celebration
        guard elapsed >= 0, elapsed < C.duration else { return }
        let displacement = burstSpring.state(at: elapsed, initialDisplacement: 1, initialVelocity: 0).displacement
        let opacity = elapsed < C.fadeStart ? 1 : 1 - (elapsed - C.fadeStart) / (C.duration - C.fadeStart)
        let s = layout.scale, centre = layout.centre
        for (index, particle) in burst.enumerated() {
            let travel = (particle.distance * (1 - displacement) + C.drift * elapsed / C.duration) * s
            painter.place(particle: index, cx: Float(centre.x + particle.dx * travel), cy: Float(centre.y + particle.dy * travel),
                          radius: Float(particle.radius * s), color: particle.color * Float(opacity))
        }
        painter.particleCount = burst.count
    }

    private func prepareTexts(time t: Double) {
        let state = session.state
        var guidance: TextImage?
        var hint: TextImage?
        switch state {
        case .idle: guidance = texts.image(.touchToBegin)
        case .inhale:
            guidance = texts.image(.traceToInhale)
            if session.needsResume { hint = texts.image(.resume) }
        case .hold:
            // The phase's own text if the pattern gives one, else the catalog's for its kind.
            let moment = session.holdPhase(elapsed: session.holdElapsed(at: t))
            guidance = texts.image(for: session.pattern.phases[moment.index])
            hint = texts.image(session.needsResume ? .resumeHold : .holdFinger)
        case .exhale:
            guidance = texts.image(.traceToExhale)
            if session.needsResume { hint = texts.image(.resume) }
        case .completed: guidance = texts.image(.wellDone)
        }
        let fade = settings.reduceMotion ? 1 : Float(min(max((t - session.stateEnteredAt) / P.Text.fadeIn, 0), 1))
        place(guidance, slot: .guidance, opacity: fade, anchor: .above)
        place(hint, slot: .hint, opacity: fade, anchor: .below)
        if state == .hold {
            let remaining = Int(session.holdRemaining(at: t).rounded(.up))
            texts.placeCounter(remaining, centre: layout.counter)
            overlays[Slot.counter.rawValue] = texts.counter
            opacities[Slot.counter.rawValue] = 1
        } else {
            opacities[Slot.counter.rawValue] = 0
        }
    }

    private enum Anchor { case above, below }

    private func place(_ image: TextImage?, slot: Slot, opacity: Float, anchor: Anchor) {
        guard let image else { opacities[slot.rawValue] = 0; return }
        var centre = anchor == .above ? layout.guidance : layout.hint
        if layout.mode == .side {
            // Side columns: the guidance ends above the middle, the hint starts below it.
            let half = Double(image.height) / 2
            centre.y = anchor == .above ? layout.centre.y - layout.sideGap - half : layout.centre.y + layout.sideGap + half
        }
        image.place(centreX: centre.x, centreY: centre.y)
        overlays[slot.rawValue] = image.surface
        opacities[slot.rawValue] = opacity
    }
}

/// SplitMix64: a few seeded numbers in [0, 1) for the burst's layout.
struct SeededRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> Double {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Double(z >> 11) / Double(1 << 53)
    }
}

/// The exercise as an interactive scene: touches and time go to the session,
/// its events come back in the daemon's terms.
extension SpiralScene: InteractiveScene {
    public func touchDown(at point: Point, time: Double) { session.touchDown(at: point, time: time) }
    public func touchMoved(to point: Point, time: Double) { session.touchMoved(to: point, time: time) }
    public func touchUp(time: Double) { session.touchUp(time: time) }
    public func advance(to time: Double) { session.advance(to: time) }
    public var nextDeadline: Double? { session.nextDeadline }

    public func takeEvents() -> [SceneEvent] {
        let events = session.takeEvents()
        guard !events.isEmpty else { return [] }
        return events.map { event in
            switch event {
            case .stateChanged(let from, let to, _): .stateChanged(from: from.rawValue, to: to.rawValue)
            case .haptic(let cue, _): .haptic(cue)
            case .celebrationEnded: .finished
            }
        }
    }
}
