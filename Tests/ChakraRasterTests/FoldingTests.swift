import Testing
@testable import ChakraRaster

/// A base with a soft overlay folded in at its grid points, composed with
/// `Folding`: spans under an `under` overlay are composed from the plain
/// base with every overlay, the same bytes as without folding; elsewhere the
/// folded overlay is not blended again.
@Suite("Folding")
struct FoldingTests {
    static let (width, height, f) = (48, 20, 4)
    static let (gw, gh) = (width / f + 2, height / f + 2)

    /// Base (opaque, smooth), the soft overlay to fold (the base's lattice),
    /// a sharp overlay under it (factor 1, one square) and one over it.
    final class Layers {
        let base = Surface(capacityWidth: gw, capacityHeight: gh)
        let folded = Surface(capacityWidth: gw, capacityHeight: gh)
        let soft = Surface(capacityWidth: gw, capacityHeight: gh)
        let under = Surface(width: width, height: height)
        let over = Surface(capacityWidth: width, capacityHeight: height)
        static let square = (x: 17..<24, y: 6..<12)

        init() {
            for s in [base, folded, soft] { s.place(width: gw, height: gh, originX: 0, originY: 0, factor: f) }
            for j in 0..<gh {
                for i in 0..<gw {
                    let (x, y) = (Float(i) / Float(gw), Float(j) / Float(gh))
                    base[i, j] = RGBA(0.2 + 0.3 * x, 0.1 + 0.2 * y, 0.4, 1)
                    let a = 0.5 * x * (1 - y) + 0.1
                    soft[i, j] = RGBA(0.9, 0.6, 0.3, 1) * a
                    folded[i, j] = Colors.over(soft[i, j], base[i, j])
                }
            }
            under.clear()
            for y in Self.square.y { for x in Self.square.x { under[x, y] = RGBA(0.1, 0.7, 0.2, 1) * 0.8 } }
            over.place(width: width / 2, height: height / 2, originX: 0, originY: 0, factor: 2)
            over.clear()
            for j in 2..<8 { for i in 6..<18 { over[i, j] = RGBA(0.3, 0.3, 0.9, 1) * 0.5 } }
            for s in [soft, under, over] { s.updateRowExtents() }
        }
    }

    static func compose(base: Surface, overlays: [Surface], roles: [OverlayRole]?, plain: Surface?) -> FrameBuffer {
        let compositor = FrameCompositor(maxWidth: width, maxGridWidth: width, threads: 1)
        let frame = FrameBuffer(width: width, height: height, format: .xrgb8888)
        let opacities = [Float](repeating: 1, count: overlays.count)
        overlays.withUnsafeBufferPointer { o in
            opacities.withUnsafeBufferPointer { a in
                (roles ?? []).withUnsafeBufferPointer { r in
                    let folding = plain.map { Folding(plainBase: $0, roles: r) }
                    compositor.compose(base: base, overlays: o, opacities: a, into: frame.pixels, rows: 0..<height, slot: 0,
                                       frame: compositor.beginFrame(), folding: folding)
                }
            }
        }
        return frame
    }

    @Test("under the sharp overlay the same bytes as composing every layer; elsewhere the folded overlay is blended once")
    func foldedMatchesLayers() {
        let l = Layers()
        let layered = Self.compose(base: l.base, overlays: [l.under, l.soft, l.over], roles: nil, plain: nil)
        let folded = Self.compose(base: l.folded, overlays: [l.under, l.soft, l.over], roles: [.under, .folded, .over], plain: l.base)
        // Rows the sharp overlay does not reach: the folded base and the
        // over overlay alone, byte for byte.
        let withoutSoft = Self.compose(base: l.folded, overlays: [l.under, l.over], roles: nil, plain: nil)
        var largest = 0
        for y in 0..<Self.height {
            for x in 0..<Self.width {
                let a = layered.pixels.rgb(x: x, y: y), b = folded.pixels.rgb(x: x, y: y)
                if Layers.square.x.contains(x) && Layers.square.y.contains(y) {
                    #expect(a == b, "(\(x), \(y)) under the sharp overlay: \(a) vs \(b)")
                } else {
                    largest = max(largest, Int((SIMD3<Int32>(truncatingIfNeeded: a) &- SIMD3<Int32>(truncatingIfNeeded: b)).abs().max()))
                }
                if !Layers.square.y.contains(y) {
                    #expect(b == withoutSoft.pixels.rgb(x: x, y: y), "(\(x), \(y)): the soft overlay blended per pixel too")
                }
            }
        }
        #expect(largest <= 1, "folding is off the layers by \(largest) levels")
        // The checks can fail: blended per pixel over the folded base, the
        // soft overlay shows twice.
        let twice = Self.compose(base: l.folded, overlays: [l.under, l.soft, l.over], roles: nil, plain: nil)
        #expect(twice.rgbBytes() != folded.rgbBytes())
    }
}

private extension SIMD3 where Scalar == Int32 {
    func abs() -> SIMD3<Int32> { SIMD3(Swift.abs(x), Swift.abs(y), Swift.abs(z)) }
}
