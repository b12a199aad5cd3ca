import ChakraMotion

/// Every animated value of the drift scene at one instant, in design units.
public struct DriftState: Sendable, Equatable {
    public struct FloatingCircle: Sendable, Equatable {
        /// translate(x, y) of the circle, design px.
        public var translate: SIMD2<Double>
        /// scale about its centre (float-slow), which scales its blur too.
        public var scale: Double
        public var opacity: Double
    }
    public struct DecorativeCircle: Sendable, Equatable {
        /// rotate(a), clockwise on screen.
        public var rotationDegrees: Double
        /// translate(x, y) applied inside the rotation, as fractions of the
        /// circle's own size.
        public var translate: SIMD2<Double>
    }
    public var floats: [FloatingCircle]
    public var decos: [DecorativeCircle]
}

/// The drift scene's animations with CSS semantics (drift-params.json
/// "conventions"): ease-in-out on each keyframe segment, delays with fill
/// none (the rest state, which is the 0% keyframe), infinite repeats,
/// `reverse` as directed progress 1 − p.
public struct DriftMotion: Sendable {
    typealias P = DriftParameters

    struct FloatMotion: Sendable {
        /// (translate x, translate y, scale).
        var transform: KeyframeAnimation<SIMD3<Double>>
    }

    let floats: [FloatMotion]
    let pulseGlow: KeyframeAnimation<Double>
    /// (rotation degrees, translate x, translate y).
    let decos: [KeyframeAnimation<SIMD3<Double>>]

    public init() {
        let easing = KeyframeEasing.perSegment(.easeInOut)
        func track(_ keys: [(Double, SIMD3<Double>)]) -> KeyframeTrack<SIMD3<Double>> {
            KeyframeTrack(keys.map { Keyframe($0.0, $0.1) }, easing: easing)
        }
        let floatTrack = track(P.FloatKeyframes.keyframes.map { ($0.0, SIMD3($0.1.0, $0.1.1, 1)) })
        let floatSlowTrack = track(P.FloatSlowKeyframes.keyframes.map { ($0.0, SIMD3($0.1.0, $0.1.1, $0.2)) })
        floats = P.floats.map { item in
            let timing = AnimationTiming(duration: item.duration, delay: item.delay)
            return FloatMotion(transform: KeyframeAnimation(item.animation == .float ? floatTrack : floatSlowTrack, timing: timing))
        }
        pulseGlow = KeyframeAnimation(KeyframeTrack(P.PulseGlow.keyframes.map { Keyframe($0.0, $0.1) }, easing: easing),
                                      timing: AnimationTiming(duration: P.PulseGlow.duration, delay: P.PulseGlow.delay))
        let rotateMove = track(P.RotateMove.keyframes.map { ($0.0, SIMD3($0.1, $0.2.0, $0.2.1)) })
        decos = P.decos.map { item in
            KeyframeAnimation(rotateMove, timing: AnimationTiming(duration: item.duration, delay: item.delay,
                                                                  direction: item.reversed ? .reverse : .normal))
        }
    }

    /// The state at scene time t. Allocates the small arrays of the result;
    /// the renderer uses `update(_:at:)` instead.
    public func state(at t: Double) -> DriftState {
        var state = DriftState.placeholder
        update(&state, at: t)
        return state
    }

    /// Writes the state at scene time t into `state` (no allocation once
    /// `state` has its arrays).
    public func update(_ state: inout DriftState, at t: Double) {
        // pulse-glow runs from t = 0 on every float and replaces its static
        // opacity, so the static value never shows while animating.
        let opacity = pulseGlow.value(at: t, base: P.PulseGlow.keyframes[0].1)
        for (index, motion) in floats.enumerated() {
            // Before its delay (fill none) a float rests at translate 0, scale 1.
            let transform = motion.transform.value(at: t, base: SIMD3(0, 0, 1))
            state.floats[index] = .init(translate: SIMD2(transform.x, transform.y), scale: transform.z, opacity: opacity)
        }
        for (index, motion) in decos.enumerated() {
            let value = motion.value(at: t, base: SIMD3(0, -0.5, -0.5))
            state.decos[index] = .init(rotationDegrees: value.x, translate: SIMD2(value.y, value.z))
        }
    }

    /// The reduce-motion frame (docs/design.md, Reduce motion):
    /// the page with its decorative animations switched off, as CSS shows
    /// it under `animation: none` — each float at its anchor with its static
    /// opacity (the value the document gives for exactly that case), each
    /// decorative circle untransformed in its anchored box.
    public func restingState() -> DriftState {
        DriftState(floats: P.floats.map { .init(translate: .zero, scale: 1, opacity: $0.staticOpacity) },
                   decos: P.decos.map { _ in .init(rotationDegrees: 0, translate: .zero) })
    }
}

extension DriftState {
    static var placeholder: DriftState {
        DriftState(floats: Array(repeating: FloatingCircle(translate: .zero, scale: 1, opacity: 0), count: DriftParameters.floats.count),
                   decos: Array(repeating: DecorativeCircle(rotationDegrees: 0, translate: .zero), count: DriftParameters.decos.count))
    }
}
