import Foundation
import Testing
@testable import ChakraRaster

@Suite("Gaussian blur")
struct GaussianBlurTests {
    static let size = 31

    /// A few non-zero pixels, two of them near the border (zero padding matters there).
    static func sparseImage() -> [SIMD4<Double>] {
        var image = [SIMD4<Double>](repeating: .zero, count: size * size)
        image[15 * size + 15] = SIMD4(1, 0.5, 0.25, 1)
        image[4 * size + 3] = SIMD4(0.2, 0.1, 0, 0.3)
        image[10 * size + 27] = SIMD4(0, 0.6, 0.6, 0.6)
        image[28 * size + 20] = SIMD4(0.7, 0.7, 0.7, 0.9)
        image[16 * size + 15] = SIMD4(0.1, 0.2, 0.3, 0.4)
        return image
    }

    /// Direct 2-D convolution with the normalized sampled Gaussian on the
    /// square of radius R = ⌈3σ⌉, zero outside the image.
    static func directBlur(_ image: [SIMD4<Double>], sigma: Double) -> [SIMD4<Double>] {
        let radius = Int((3 * sigma).rounded(.up))
        var kernel = [[Double]](repeating: [Double](repeating: 0, count: 2 * radius + 1), count: 2 * radius + 1)
        var sum = 0.0
        for dy in -radius...radius {
            for dx in -radius...radius {
                let w = exp(-Double(dx * dx + dy * dy) / (2 * sigma * sigma))
                kernel[dy + radius][dx + radius] = w
                sum += w
            }
        }
        var out = [SIMD4<Double>](repeating: .zero, count: size * size)
        for y in 0..<size {
            for x in 0..<size {
                var acc = SIMD4<Double>.zero
                for dy in -radius...radius {
                    for dx in -radius...radius {
                        let (sx, sy) = (x - dx, y - dy)
                        guard sx >= 0, sx < size, sy >= 0, sy < size else { continue }
                        acc += image[sy * size + sx] * (kernel[dy + radius][dx + radius] / sum)
                    }
                }
                out[y * size + x] = acc
            }
        }
        return out
    }

    static func surface(from image: [SIMD4<Double>]) -> Surface {
        let surface = Surface(width: size, height: size)
        for k in image.indices { surface.pixels[k] = rgba(image[k]) }
        return surface
    }

    @Test("separable blur equals a direct 2-D convolution", arguments: [1.5, 3.0])
    func matchesDirectConvolution(sigma: Double) {
        let image = Self.sparseImage()
        let surface = Self.surface(from: image)
        GaussianBlur(maxExtent: Self.size).blur(surface, sigma: sigma)
        let expected = Self.directBlur(image, sigma: sigma)
        var worst = 0.0
        for k in expected.indices { worst = max(worst, maxAbsDifference(surface.pixels[k], expected[k])) }
        #expect(worst < 1e-4, "largest difference \(worst)")
    }

    @Test("mass is conserved away from the edges")
    func massConserved() {
        var image = [SIMD4<Double>](repeating: .zero, count: Self.size * Self.size)
        image[15 * Self.size + 14] = SIMD4(0.5, 0.25, 0.125, 0.5)
        image[13 * Self.size + 16] = SIMD4(0.3, 0.3, 0.3, 0.3)
        let surface = Self.surface(from: image)
        GaussianBlur(maxExtent: Self.size).blur(surface, sigma: 2.5)  // radius 8: stays inside
        var total = SIMD4<Double>.zero
        for k in 0..<(Self.size * Self.size) { total += double4(surface.pixels[k]) }
        let expected = SIMD4<Double>(0.8, 0.55, 0.425, 0.8)
        let difference = total - expected
        #expect(max(max(abs(difference.x), abs(difference.y)), max(abs(difference.z), abs(difference.w))) < 1e-5)
        // The centre pixel is no longer the whole mass: the blur did spread it.
        #expect(surface[14, 15].w < 0.1)
    }

    @Test("below one cell the kernel is the Gaussian integrated over each cell")
    func smallSigmaCellIntegrated() {
        let sigma = 0.6
        var image = [SIMD4<Double>](repeating: .zero, count: Self.size * Self.size)
        image[15 * Self.size + 15] = SIMD4(1, 1, 1, 1)
        let surface = Self.surface(from: image)
        GaussianBlur(maxExtent: Self.size).blur(surface, sigma: sigma)
        // Radius ⌈1.8⌉ = 2; w_k = Φ((k + ½)/σ) − Φ((k − ½)/σ), normalized over −2...2.
        let raw = (-2...2).map { Ref.normalCDF((Double($0) + 0.5) / sigma) - Ref.normalCDF((Double($0) - 0.5) / sigma) }
        let weights = raw.map { $0 / raw.reduce(0, +) }
        for dy in -3...3 {
            for dx in -3...3 {
                let expected = abs(dx) <= 2 && abs(dy) <= 2 ? weights[dx + 2] * weights[dy + 2] : 0
                #expect(abs(Double(surface[15 + dx, 15 + dy].x) - expected) < 1e-6, "offset \(dx), \(dy)")
            }
        }
    }

    @Test("a σ of (almost) zero leaves the surface alone")
    func tinySigma() {
        let image = Self.sparseImage()
        let surface = Self.surface(from: image)
        GaussianBlur(maxExtent: Self.size).blur(surface, sigma: 0.005)
        for k in image.indices { #expect(surface.pixels[k] == rgba(image[k])) }
    }

    @Test("grid σ for a screen σ subtracts the box-sampling variance f²/12")
    func gridSigma() {
        // σ = 6 px on a factor-4 grid: √(36 − 16/12)/4 = √34.666…/4 ≈ 1.47196 cells.
        #expect(abs(GaussianBlur.sigma(forScreenSigma: 6, factor: 4, boxSampled: true) - 1.471960) < 1e-6)
        #expect(abs(GaussianBlur.sigma(forScreenSigma: 6, factor: 4, boxSampled: false) - 1.5) < 1e-12)
        #expect(abs(GaussianBlur.sigma(forScreenSigma: 20, factor: 8, boxSampled: true) - (400.0 - 64.0 / 12).squareRoot() / 8) < 1e-12)
        // A blur smaller than the cells' own box variance needs no more blur.
        #expect(GaussianBlur.sigma(forScreenSigma: 1, factor: 4, boxSampled: true) == 0)
        #expect(GaussianBlur.sigma(forScreenSigma: 3, factor: 1, boxSampled: false) == 3)
    }
}
