import ChakraMotion

/// Every animated value of the calm scene at one instant, in design px.
public struct CalmState: Sendable, Equatable {
    /// Each blob's offset from its resting centre: drift plus breathing.
    public var offsets: [SIMD2<Double>]
}

/// The calm scene's animations: per blob, x and y drift legs (linear,
/// autoreversing, the ambient token) and the breathing float on y
/// (ease-in-out, autoreversing), each an infinite CSS-style animation with
/// `alternate` direction.
public struct CalmMotion: Sendable {
    typealias P = CalmParameters

    struct BlobMotion: Sendable {
        var x: KeyframeAnimation<Double>
        var y: KeyframeAnimation<Double>
        var breathe: KeyframeAnimation<Double>
    }

    let blobs: [BlobMotion]

    public init() {
        func leg(_ from: Double, _ to: Double, _ easing: TimingFunction, duration: Double, delay: Double) -> KeyframeAnimation<Double> {
            KeyframeAnimation(KeyframeTrack([Keyframe(0, from), Keyframe(1, to)], easing: .perSegment(easing)),
                              timing: AnimationTiming(duration: duration, delay: delay, direction: .alternate))
        }
        blobs = P.blobs.map { blob in
            BlobMotion(x: leg(blob.driftX.from, blob.driftX.to, .linear, duration: blob.driftX.duration, delay: blob.driftX.delay),
                       y: leg(blob.driftY.from, blob.driftY.to, .linear, duration: blob.driftY.duration, delay: blob.driftY.delay),
                       breathe: leg(0, blob.breathe.offset, .easeInOut, duration: blob.breathe.duration, delay: blob.breathe.delay))
        }
    }

    /// The state at scene time t (allocates its array; the renderer uses
    /// `update(_:at:)`).
    public func state(at t: Double) -> CalmState {
        var state = CalmState(offsets: Array(repeating: .zero, count: blobs.count))
        update(&state, at: t)
        return state
    }

    /// Writes the state at scene time t into `state` without allocating.
    public func update(_ state: inout CalmState, at t: Double) {
        for (index, blob) in blobs.enumerated() {
            // Delays are ≤ 0, so every animation is running from t = 0.
            let breathe = blob.breathe.value(at: t, base: 0)
            state.offsets[index] = SIMD2(blob.x.value(at: t, base: 0), blob.y.value(at: t, base: 0) + breathe)
        }
    }
}
