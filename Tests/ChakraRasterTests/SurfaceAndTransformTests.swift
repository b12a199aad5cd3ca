import Foundation
import Testing
@testable import ChakraRaster

@Suite("Surfaces")
struct SurfaceTests {
    @Test("grid points sit on screen pixel centres")
    func screenCoordinates() {
        let s = Surface(capacityWidth: 10, capacityHeight: 10)
        s.place(width: 5, height: 4, originX: -8, originY: 12, factor: 4)
        #expect(s.screenX(0) == -7.5 && s.screenX(3) == 4.5 && s.screenY(0) == 12.5 && s.screenY(2) == 20.5)
        s[3, 2] = RGBA(1, 2, 3, 4)
        #expect(s.pixels[2 * 5 + 3] == RGBA(1, 2, 3, 4) && s.row(2)[3] == RGBA(1, 2, 3, 4))
    }

    @Test("place(covering:) aligns to the factor, covers the span minimally, fits gridExtent")
    func placeCovering() {
        let s = Surface(capacityWidth: 64, capacityHeight: 64)
        for f in 1...5 {
            for minX in -11...11 {
                for span in 1...25 {
                    let maxX = minX + span - 1
                    s.place(coveringMinX: minX, minY: -minX, maxX: maxX, maxY: -minX + span - 1, factor: f)
                    let first = s.originX, last = s.originX + (s.width - 1) * f
                    // Origin: the largest multiple of f at or below minX.
                    #expect(first <= minX && first > minX - f && ((first % f) + f) % f == 0, "f \(f) minX \(minX)")
                    #expect(last >= maxX && last - f < maxX, "f \(f) minX \(minX) span \(span)")
                    #expect(s.width <= Surface.gridExtent(pixels: span, factor: f))
                    #expect(s.originY <= -minX && s.originY + (s.height - 1) * f >= -minX + span - 1)
                    #expect(s.factor == f)
                }
            }
        }
    }

    @Test("row extents and the widest inner hole")
    func rowExtents() {
        let s = Surface(width: 12, height: 4)
        s.clear()
        let on = RGBA(0, 0, 0, 0.5), faint = RGBA(0, 0, 0, 0.0001)
        // Row 0: content at 2, 3, 6, 11 → extent [2, 11], holes [4, 5] and [7, 10]: the widest is [7, 10].
        for i in [2, 3, 6, 11] { s[i, 0] = on }
        // Row 1: only faint pixels (below the 1/2048 threshold): empty.
        for i in 0..<12 { s[i, 1] = faint }
        // Row 2: a single pixel, no hole. Row 3: solid.
        s[5, 2] = on
        for i in 0..<12 { s[i, 3] = on }
        s.updateRowExtents()
        #expect(s.rowFirst[0] == 2 && s.rowLast[0] == 11 && s.holeFirst[0] == 7 && s.holeLast[0] == 10)
        #expect(s.rowFirst[1] > s.rowLast[1])
        #expect(s.rowFirst[2] == 5 && s.rowLast[2] == 5 && s.holeFirst[2] > s.holeLast[2])
        #expect(s.rowFirst[3] == 0 && s.rowLast[3] == 11 && s.holeFirst[3] > s.holeLast[3])
        // A lower threshold sees the faint row.
        s.updateRowExtent(1, threshold: 0.00005)
        #expect(s.rowFirst[1] == 0 && s.rowLast[1] == 11)
        s.markRowsFull()
        for j in 0..<4 { #expect(s.rowFirst[j] == 0 && s.rowLast[j] == 11 && s.holeFirst[j] > s.holeLast[j]) }
    }

    @Test("row extents agree with a cell-by-cell scan on rows of runs, whole and within a range")
    func rowExtentsOfRuns() {
        let width = 37
        let s = Surface(width: width, height: 1)
        var state: UInt64 = 7
        func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33) % n
        }
        for trial in 0..<2000 {
            // Runs of content and of clear cells, of random lengths 1-9.
            var above = [Bool](), on = next(2) == 0
            while above.count < width {
                above += Array(repeating: on, count: 1 + next(9))
                on.toggle()
            }
            above = Array(above.prefix(width))
            for i in 0..<width { s[i, 0] = above[i] ? RGBA(0, 0, 0, 0.5) : .zero }
            let lo = trial % 3 == 0 ? next(10) : 0, hi = trial % 3 == 0 ? width - next(10) : width
            // Reference: first and last above in [lo, hi); the widest clear run
            // strictly between them, the leftmost of equals.
            let inside = (lo..<hi).filter { above[$0] }
            var hole = (1, 0)
            if let first = inside.first, let last = inside.last {
                var start = -1
                for i in first...last {
                    if !above[i] { if start < 0 { start = i } } else if start >= 0 {
                        if i - start > hole.1 - hole.0 + 1 { hole = (start, i - 1) }
                        start = -1
                    }
                }
            }
            s.updateRowExtent(0, threshold: 1.0 / 2048, within: lo..<hi)
            let got = (Int(s.rowFirst[0]), Int(s.rowLast[0]), Int(s.holeFirst[0]), Int(s.holeLast[0]))
            let expected = (inside.first ?? width, inside.last ?? -2, hole.0, hole.1)
            #expect(got == expected, "trial \(trial): \(above.map { $0 ? "#" : "." }.joined()) in \(lo)..<\(hi)")
            if got != expected { return }
        }
    }

    @Test("clear and straight 8-bit export")
    func clearAndExport() {
        let s = Surface(width: 2, height: 1)
        s.clear(to: RGBA(0.2, 0.1, 0, 0.4))
        s[1, 0] = .zero
        // Straight: (0.5, 0.25, 0)·255 rounded = (128, 64, 0), α 0.4·255 = 102.
        #expect(s.rgba8() == [128, 64, 0, 102, 0, 0, 0, 0])
    }
}

@Suite("Transforms")
struct TransformTests {
    static func close(_ a: Point, _ b: Point, _ tolerance: Double = 1e-12) -> Bool { simdLength(a - b) < tolerance }

    static func closeTransforms(_ a: Transform, _ b: Transform) -> Bool {
        let d = [a.a - b.a, a.b - b.b, a.c - b.c, a.d - b.d, a.tx - b.tx, a.ty - b.ty]
        return d.allSatisfy { abs($0) < 1e-12 }
    }

    static let samples: [Transform] = [
        .identity,
        .translation(3, -7),
        .scale(2, 0.5),
        .rotation(degrees: 37),
        Transform(a: 1.2, b: 0.3, c: -0.7, d: 0.9, tx: 5, ty: -2),
        Transform.translation(10, 20).rotated(degrees: -65).scaled(1.5, 3),
    ]

    @Test("inverted ∘ self = identity = self ∘ inverted")
    func inverse() {
        for t in Self.samples {
            #expect(Self.closeTransforms(t.inverted.concatenating(after: t), .identity))
            #expect(Self.closeTransforms(t.concatenating(after: t.inverted), .identity))
            for p in [Point(0, 0), Point(3.5, -2), Point(-100, 42)] { #expect(Self.close(t.inverted.apply(t.apply(p)), p, 1e-9)) }
        }
    }

    @Test("rotation by 90° maps (1, 0) to (0, 1): clockwise on screen with y down")
    func rotation90() {
        let r = Transform.rotation(degrees: 90)
        #expect(Self.close(r.apply(Point(1, 0)), Point(0, 1)))
        #expect(Self.close(r.apply(Point(0, 1)), Point(-1, 0)))
        #expect(abs(r.determinant - 1) < 1e-12)
        // 30°: (cos 30°, sin 30°).
        #expect(Self.close(Transform.rotation(degrees: 30).apply(Point(2, 0)), Point(3.0.squareRoot(), 1)))
    }

    @Test("composition order: CSS `translate(..) rotate(..)` applies the rotation first")
    func order() {
        let t = Transform.identity.translated(10, 0).rotated(degrees: 90)
        #expect(Self.close(t.apply(Point(1, 0)), Point(10, 1)))
        let s = Transform.identity.scaled(2, 3).translated(1, 1)   // translate, then scale
        #expect(Self.close(s.apply(Point(0, 0)), Point(2, 3)))
        // concatenating(after:) = apply `first`, then self.
        let a = Transform.scale(2, 2), b = Transform.translation(5, 0)
        #expect(Self.close(b.concatenating(after: a).apply(Point(1, 1)), Point(7, 2)))
        #expect(Self.close(a.concatenating(after: b).apply(Point(1, 1)), Point(12, 2)))
    }

    @Test("rotation about a pivot keeps the pivot and the distances")
    func pivot() {
        let pivot = Point(40, -12)
        let r = Transform.rotation(degrees: 123, about: pivot)
        #expect(Self.close(r.apply(pivot), pivot, 1e-9))
        let p = Point(47, -3)
        #expect(abs(simdLength(r.apply(p) - pivot) - simdLength(p - pivot)) < 1e-9)
        // 180° about the pivot mirrors through it.
        #expect(Self.close(Transform.rotation(degrees: 180, about: pivot).apply(p), 2 * pivot - p, 1e-9))
    }

    @Test("determinant and maximum scale")
    func scaleMeasures() {
        #expect(Transform.scale(2, 3).determinant == 6)
        #expect(Transform.scale(2, 3).maxScale == 3)
        #expect(abs(Transform.rotation(degrees: 20).scaled(4, 4).maxScale - 4) < 1e-12)
        #expect(Transform(a: 1.2, b: 0.3, c: -0.7, d: 0.9, tx: 5, ty: -2).determinant == 1.2 * 0.9 + 0.3 * 0.7)
    }
}
