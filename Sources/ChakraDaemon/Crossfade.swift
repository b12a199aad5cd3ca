import ChakraMotion

/// How much of the incoming scene shows during a crossfade, over wall
/// time. Pure: no clock, no frames.
///
/// The amount follows a spring from 0 to 1: SwiftUI's `howruSmooth`
/// (response 0.5 s, damping fraction 0.8) by default, or the same damping
/// with the asked duration as the response. The spring overshoots by about
/// 1.5%; the amount is clamped to [0, 1], so the picture never passes the
/// new scene. With reduce motion it is a plain linear fade of 0.3 s instead
/// (docs/design.md, Reduce motion: no spring motion).
///
/// A switch back to the scene being left continues from where the fade is,
/// velocity kept (`swapped`).
public struct Crossfade: Sendable {
    public static let defaultResponse = 0.5
    public static let dampingFraction = 0.8
    public static let reducedMotionDuration = 0.3

    private enum Curve: Sendable {
        case spring(SpringAnimation<Double>)
        case linear(start: Double, duration: Double, from: Double, to: Double)
    }
    private var curve: Curve

    /// A crossfade starting at `time`; `duration` is the spring's response
    /// (nil: howruSmooth's 0.5 s).
    public init(at time: Double, duration: Double? = nil, reduceMotion: Bool = false) {
        if reduceMotion {
            curve = .linear(start: time, duration: Self.reducedMotionDuration, from: 0, to: 1)
        } else {
            let spring = Spring(response: duration ?? Self.defaultResponse, dampingFraction: Self.dampingFraction)
            curve = .spring(SpringAnimation(spring: spring, from: 0, to: 1, startTime: time))
        }
    }

    /// The share of the incoming scene at `time`, in [0, 1].
    public func amount(at time: Double) -> Double {
        let raw: Double
        switch curve {
        case .spring(let animation): raw = animation.value(at: time)
        case .linear(let start, let duration, let from, let to):
            let progress = duration > 0 ? min(max((time - start) / duration, 0), 1) : 1
            raw = from + (to - from) * progress
        }
        return min(max(raw, 0), 1)
    }

    /// True once the picture no longer changes: the spring has settled
    /// (within 1/1000, under half an output level) or the fade has ended.
    public func isFinished(at time: Double) -> Bool {
        switch curve {
        case .spring(let animation): animation.isSettled(at: time)
        case .linear(let start, let duration, _, _): time >= start + duration
        }
    }

    /// The same fade seen from the other side, for a switch back to the
    /// scene being left: the incoming share becomes 1 − amount, heading to
    /// 1 from there with the spring's velocity turned round (the picture
    /// and its motion carry on with no jump).
    public func swapped(at time: Double) -> Crossfade {
        var other = self
        let now = amount(at: time)
        switch curve {
        case .spring(let animation):
            let velocity = time > animation.startTime ? animation.velocity(at: time) : animation.startVelocity
            other.curve = .spring(SpringAnimation(spring: animation.spring, from: 1 - now, to: 1, startTime: time, initialVelocity: -velocity))
        case .linear:
            other.curve = .linear(start: time, duration: Self.reducedMotionDuration * now, from: 1 - now, to: 1)
        }
        return other
    }
}
