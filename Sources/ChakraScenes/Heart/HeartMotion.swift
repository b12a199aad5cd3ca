import ChakraMotion

/// Every animated value of the heart at one instant, in design units
/// (lengths in design px; the renderer multiplies by u).
public struct HeartState: Sendable, Equatable {
    public struct Band: Sendable, Equatable {
        /// Translation as fractions of the band's own width and height.
        public var translate: SIMD2<Double>
        public var color: SIMD4<Double>   // premultiplied
    }
    public struct Particle: Sendable, Equatable {
        /// Drift from the particle's base position, design px.
        public var drift: SIMD2<Double>
        /// fade × twinkle (two nested layers' opacities multiply).
        public var opacity: Double
        public var color: SIMD4<Double>   // premultiplied
        public var visible: Bool
    }
    public var bands: [Band]
    public var mistTeal: SIMD4<Double>
    public var mistRotationDegrees: Double
    public var mistOpacity: Double
    public var particles: [Particle]
    public var ringScale: Double
    public var ringOpacity: Double
    public var glowBlur: Double, glowBrightness: Double, glowOpacity: Double
    public var centerScale: Double, centerBlur: Double, centerBrightness: Double
}

/// The heart's animations, built once from `HeartParameters` with CSS
/// semantics (heart-params.json "conventions"): per-segment easing, each
/// property with its own keyframes, delays with fill-mode backwards where
/// the JSON says so, infinite repeats.
public struct HeartMotion: Sendable {
    typealias P = HeartParameters

    struct BandMotion: Sendable {
        var drift: KeyframeAnimation<SIMD2<Double>>
        var color: KeyframeAnimation<SIMD4<Double>>
    }
    struct ParticleMotion: Sendable {
        var drift: KeyframeAnimation<SIMD2<Double>>
        var fade: KeyframeAnimation<Double>
        var twinkle: KeyframeAnimation<Double>
        var color: KeyframeAnimation<SIMD4<Double>>?
        var baseColor: SIMD4<Double>
    }

    let bands: [BandMotion]
    let mistTeal: KeyframeAnimation<SIMD4<Double>>
    let mistRotation: KeyframeAnimation<Double>
    let mistOpacity: KeyframeAnimation<Double>
    let particles: [ParticleMotion]
    let ringScale: KeyframeAnimation<Double>
    let ringOpacity: KeyframeAnimation<Double>
    let glow: (blur: KeyframeAnimation<Double>, brightness: KeyframeAnimation<Double>, opacity: KeyframeAnimation<Double>)
    let center: (scale: KeyframeAnimation<Double>, blur: KeyframeAnimation<Double>, brightness: KeyframeAnimation<Double>)

    public init() {
        let easeInOut = KeyframeEasing.perSegment(.easeInOut)
        let easeOut = KeyframeEasing.perSegment(.easeOut)
        bands = P.Bands.items.map { band in
            BandMotion(
                drift: Self.animation(band.driftKeyframes.map { ($0.0, SIMD2($0.1.0, $0.1.1)) }, easeInOut,
                                      AnimationTiming(duration: band.driftDuration, delay: band.driftDelay, fill: .backwards)),
                color: Self.animation(zip(P.Bands.colorKeyTimes, band.colorCycle).map { ($0, premultiplied($1)) }, easeInOut,
                                      AnimationTiming(duration: band.colorDuration)))
        }
        mistTeal = Self.animation(zip(P.Mist.tealKeyTimes, P.Mist.tealCycle).map { ($0, premultiplied($1)) }, easeInOut,
                                  AnimationTiming(duration: P.Mist.tealCycleDuration))
        mistRotation = Self.animation([(0, 0), (1, 360)], .perSegment(.linear), AnimationTiming(duration: P.Mist.rotationDuration))
        mistOpacity = Self.animation([(0, P.Mist.opacityFrom), (1, P.Mist.opacityTo)], easeInOut,
                                     AnimationTiming(duration: P.Mist.opacityDuration, direction: .alternate))
        particles = P.Particles.items.map { item in
            let timing = AnimationTiming(duration: item.duration, delay: item.delay, fill: .backwards)
            return ParticleMotion(
                drift: Self.animation([(0, SIMD2(0, 0)), (1, SIMD2(item.drift.0, item.drift.1))], easeInOut, timing),
                fade: Self.animation(Array(zip(P.Particles.fadeKeyTimes, P.Particles.fadeValues)), easeInOut, timing),
                twinkle: Self.animation(Array(zip(P.Particles.twinkleKeyTimes, P.Particles.twinkleValues)), easeInOut,
                                        AnimationTiming(duration: item.twinkleDuration, delay: item.twinkleDelay, fill: .backwards)),
                color: item.colorCycle.map { cycle in
                    Self.animation(zip(P.Particles.colorKeyTimes, cycle).map { ($0, premultiplied($1)) }, easeInOut,
                                   AnimationTiming(duration: item.colorCycleDuration ?? 1))
                },
                baseColor: premultiplied(item.color))
        }
        let pulse = AnimationTiming(duration: P.PulseEcho.duration)
        ringScale = Self.animation(P.PulseEcho.scaleKeyframes, easeOut, pulse)
        ringOpacity = Self.animation(P.PulseEcho.opacityKeyframes, easeOut, pulse)
        let glowTiming = AnimationTiming(duration: P.HeartGlow.duration)
        glow = (Self.animation(P.HeartGlow.keyframes.map { ($0.0, $0.1) }, easeOut, glowTiming),
                Self.animation(P.HeartGlow.keyframes.map { ($0.0, $0.2) }, easeOut, glowTiming),
                Self.animation(P.HeartGlow.keyframes.map { ($0.0, $0.3) }, easeOut, glowTiming))
        let centerTiming = AnimationTiming(duration: P.HeartCenter.duration)
        center = (Self.animation(P.HeartCenter.keyframes.map { ($0.0, $0.1) }, easeOut, centerTiming),
                  Self.animation(P.HeartCenter.keyframes.map { ($0.0, $0.2) }, easeOut, centerTiming),
                  Self.animation(P.HeartCenter.keyframes.map { ($0.0, $0.3) }, easeOut, centerTiming))
    }

    static func animation<V: Interpolatable>(_ keys: [(Double, V)], _ easing: KeyframeEasing, _ timing: AnimationTiming) -> KeyframeAnimation<V> {
        KeyframeAnimation(KeyframeTrack(keys.map { Keyframe($0.0, $0.1) }, easing: easing), timing: timing)
    }

    /// The state at scene time t. Allocates the small arrays of the result;
    /// the renderer uses `update(_:at:)` instead.
    public func state(at t: Double) -> HeartState {
        var state = HeartState.placeholder
        update(&state, at: t)
        return state
    }

    /// Writes the state at scene time t into `state` (no allocation once
    /// `state` has its arrays).
    public func update(_ state: inout HeartState, at t: Double) {
        for (index, band) in bands.enumerated() {
            state.bands[index] = .init(translate: band.drift.value(at: t, base: .zero), color: band.color.value(at: t, base: .zero))
        }
        state.mistTeal = mistTeal.value(at: t, base: .zero)
        state.mistRotationDegrees = mistRotation.value(at: t, base: 0)
        state.mistOpacity = mistOpacity.value(at: t, base: P.Mist.opacityFrom)
        for (index, particle) in particles.enumerated() {
            let fade = particle.fade.value(at: t, base: 1), twinkle = particle.twinkle.value(at: t, base: 1)
            state.particles[index] = .init(drift: particle.drift.value(at: t, base: .zero), opacity: fade * twinkle,
                                           color: particle.color?.value(at: t, base: particle.baseColor) ?? particle.baseColor, visible: true)
        }
        state.ringScale = ringScale.value(at: t, base: 1)
        state.ringOpacity = ringOpacity.value(at: t, base: 0)
        state.glowBlur = glow.blur.value(at: t, base: 20)
        state.glowBrightness = glow.brightness.value(at: t, base: 1)
        state.glowOpacity = glow.opacity.value(at: t, base: 0.6)
        state.centerScale = center.scale.value(at: t, base: 1)
        state.centerBlur = center.blur.value(at: t, base: 4)
        state.centerBrightness = center.brightness.value(at: t, base: 1)
    }

    /// The reduce-motion frame (docs/design.md, Reduce motion): the
    /// composition at rest — bands and mist where they start, heart glow and
    /// centre at their resting keyframe — with the decorative motion that
    /// has no still form (pulse ring, drifting particles) left out.
    public func restingState() -> HeartState {
        var state = self.state(at: 0)
        state.ringOpacity = 0
        for index in state.particles.indices { state.particles[index].visible = false }
        return state
    }
}

extension HeartState {
    static var placeholder: HeartState {
        HeartState(bands: Array(repeating: Band(translate: .zero, color: .zero), count: HeartParameters.Bands.items.count),
                   mistTeal: .zero, mistRotationDegrees: 0, mistOpacity: 0,
                   particles: Array(repeating: Particle(drift: .zero, opacity: 0, color: .zero, visible: true), count: HeartParameters.Particles.items.count),
                   ringScale: 1, ringOpacity: 0, glowBlur: 20, glowBrightness: 1, glowOpacity: 0.6,
                   centerScale: 1, centerBlur: 4, centerBrightness: 1)
    }
}

/// [r, g, b] 0-255 with alpha 0-1 → premultiplied 0-1 components.
func premultiplied(_ c: HeartParameters.Color) -> SIMD4<Double> {
    SIMD4(c.r / 255 * c.a, c.g / 255 * c.a, c.b / 255 * c.a, c.a)
}
