/// A smooth function of one variable sampled once on a uniform grid and
/// read back by linear interpolation: for a profile whose shape is fixed
/// while it moves, such as the heart's bands, which drift but keep their
/// blurred edges. Evaluated analytically each frame (error functions and
/// exponentials), the bands' profiles cost 0.15 M instructions a frame on
/// aarch64 at 800x480; read from the table, a few thousand.
///
/// With samples σ/16 apart, linear interpolation of a Gaussian-blurred
/// step is off by at most h²/8·max|f''| = 1.2·10⁻⁴ of its range (|f''| ≤
/// 1/(σ²√(2πe))), a thirtieth of an 8-bit level.
/// Outside the sampled interval the end values hold.
///
/// Ownership: a value; its samples are an array made once.
public struct SampledProfile: Sendable {
    private let samples: [Float]
    private let start: Double
    private let inverseStep: Double

    /// f sampled over [start, end] every `step` (both ends included).
    public init(from start: Double, through end: Double, step: Double, _ f: (Double) -> Double) {
        precondition(step > 0 && end >= start, "a sampled profile needs a positive step over an interval")
        let count = Int(((end - start) / step).rounded(.up)) + 1
        samples = (0..<count).map { Float(f(start + Double($0) * step)) }
        self.start = start
        inverseStep = 1 / step
    }

    /// f(x), linear between the two samples around x.
    @inline(__always)
    public func value(at x: Double) -> Float {
        let position = (x - start) * inverseStep
        guard position > 0 else { return samples[0] }
        let last = samples.count - 1
        guard position < Double(last) else { return samples[last] }
        let index = Int(position)
        let fraction = Float(position - Double(index))
        return samples[index] + (samples[index + 1] - samples[index]) * fraction
    }
}
