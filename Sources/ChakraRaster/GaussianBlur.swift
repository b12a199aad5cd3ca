import Glibc

/// Separable Gaussian blur of a surface in place: CSS `filter: blur(r)` is a
/// Gaussian of standard deviation r (Filter Effects 1 §blur()). Pixels
/// outside the surface count as transparent, so a surface must have room for
/// about 3σ around its content.
///
/// The scenes blur on coarse grids where σ is a few cells, so a direct
/// kernel (radius ⌈3σ⌉) is both exact and cheap. A grid cell that was
/// box-sampled already carries the variance of its box (f²/12 screen px² per
/// axis); `sigma(forScreenSigma:factor:)` subtracts it so the total is right.
///
/// Ownership: owns a kernel and one scratch line sized for `maxExtent`.
public final class GaussianBlur: @unchecked Sendable {
    public static let maxRadius = 96
    private let kernel: UnsafeMutablePointer<Float>
    private let line: UnsafeMutablePointer<RGBA>
    private let lineCapacity: Int

    public init(maxExtent: Int) {
        kernel = .allocate(capacity: Self.maxRadius + 1)
        kernel.initialize(repeating: 0, count: Self.maxRadius + 1)
        lineCapacity = maxExtent + 2 * Self.maxRadius + 2
        line = .allocate(capacity: lineCapacity)
        line.initialize(repeating: .zero, count: lineCapacity)
    }

    deinit {
        kernel.deallocate()
        line.deallocate()
    }

    /// σ in grid cells for a screen-space σ on a grid of `factor`, removing
    /// the box-sampling variance the grid cells already have.
    public static func sigma(forScreenSigma sigma: Double, factor: Int, boxSampled: Bool) -> Double {
        let f = Double(factor)
        let variance = sigma * sigma - (boxSampled ? f * f / 12 : 0)
        return max(variance, 0).squareRoot() / f
    }

    /// Fills the kernel for σ (grid cells) and returns its radius.
    private func prepareKernel(sigma: Double) -> Int {
        let radius = min(Self.maxRadius, Int((3 * sigma).rounded(.up)))
        var sum = 0.0
        for k in 0...radius {
            // Below one cell, sample the Gaussian's integral over each cell so
            // tiny blurs keep their mass where it belongs.
            let w = sigma < 1
                ? 0.5 * (erf((Double(k) + 0.5) / (sigma * 2.0.squareRoot())) - erf((Double(k) - 0.5) / (sigma * 2.0.squareRoot())))
                : exp(-Double(k * k) / (2 * sigma * sigma))
            kernel[k] = Float(w)
            sum += k == 0 ? w : 2 * w
        }
        for k in 0...radius { kernel[k] = Float(Double(kernel[k]) / sum) }
        return radius
    }

    /// Blurs `surface` in place by σ grid cells along x and y.
    public func blur(_ surface: Surface, sigma: Double) {
        guard sigma > 0.01 else { return }
        let radius = prepareKernel(sigma: sigma)
        let w = surface.width, h = surface.height
        precondition(max(w, h) + 2 * radius <= lineCapacity, "blur line capacity exceeded")
        for j in 0..<h {
            convolve(count: w, radius: radius, load: { surface.pixels[j * w + $0] }, store: { surface.pixels[j * w + $0] = $1 })
        }
        for i in 0..<w {
            convolve(count: h, radius: radius, load: { surface.pixels[$0 * w + i] }, store: { surface.pixels[$0 * w + i] = $1 })
        }
    }

    @inline(__always)
    private func convolve(count: Int, radius: Int, load: (Int) -> RGBA, store: (Int, RGBA) -> Void) {
        // Copy into the zero-padded line, then convolve back.
        for k in 0..<radius { line[k] = .zero; line[radius + count + k] = .zero }
        for index in 0..<count { line[radius + index] = load(index) }
        let centre = kernel[0]
        for index in 0..<count {
            let p = line + radius + index
            var sum = p[0] * centre
            var k = 1
            while k <= radius {
                sum += (p[-k] + p[k]) * kernel[k]
                k += 1
            }
            store(index, sum)
        }
    }
}
