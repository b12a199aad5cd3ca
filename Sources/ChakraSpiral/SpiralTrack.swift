import ChakraRaster

/// The spiral's stroke at screen resolution, computed once per screen size:
/// for every pixel the stroke touches, its coverage (round caps and joins:
/// the distance to the nearest segment turned into a one-pixel ramp, as
/// `Canvas.stroke` does) and the path length of its nearest point. A frame
/// then colours each pixel by comparing that length with the coloured
/// length, so the travelled part needs no rasterizing per frame.
///
/// Stored as runs of pixels per screen row.
///
/// Ownership: owned by the scene for its size; immutable after init.
final class SpiralTrack: @unchecked Sendable {
    struct Run {
        var x: Int32, count: Int32, offset: Int32
    }
    /// The screen it was made for.
    let width: Int, height: Int
    /// Per screen row, its runs: runs[rowFirst[y] ..< rowFirst[y + 1]].
    let rowFirst: [Int32]
    let runs: [Run]
    let coverage: [Float]
    let length: [Float]

    init(geometry: SpiralGeometry, lineWidth: Double, width: Int, height: Int) {
        (self.width, self.height) = (width, height)
        let half = lineWidth / 2
        let points = geometry.points, lengths = geometry.cumulativeLengths
        var lo = Point(repeating: .infinity), hi = Point(repeating: -.infinity)
        for p in points {
            lo = pointwiseMin(lo, p)
            hi = pointwiseMax(hi, p)
        }
        let x0 = max(0, Int((lo.x - half - 2).rounded(.down))), x1 = min(width - 1, Int((hi.x + half + 2).rounded(.up)))
        let y0 = max(0, Int((lo.y - half - 2).rounded(.down))), y1 = min(height - 1, Int((hi.y + half + 2).rounded(.up)))
        let boxW = max(x1 - x0 + 1, 0), boxH = max(y1 - y0 + 1, 0)
        var distance = [Float](repeating: .infinity, count: boxW * boxH)
        var along = [Float](repeating: 0, count: boxW * boxH)
        // Each segment stamps the pixels within half a line width (+1 for
        // the ramp) with its distance and length where it is the nearest.
        for index in 0..<(points.count - 1) where boxW > 0 && boxH > 0 {
            let a = points[index], b = points[index + 1]
            let ab = b - a
            let ab2 = max(ab.x * ab.x + ab.y * ab.y, 1e-12)
            let segment = lengths[index + 1] - lengths[index]
            let sx0 = max(x0, Int((min(a.x, b.x) - half - 1.5).rounded(.down))), sx1 = min(x1, Int((max(a.x, b.x) + half + 1.5).rounded(.up)))
            let sy0 = max(y0, Int((min(a.y, b.y) - half - 1.5).rounded(.down))), sy1 = min(y1, Int((max(a.y, b.y) + half + 1.5).rounded(.up)))
            guard sx0 <= sx1, sy0 <= sy1 else { continue }
            for y in sy0...sy1 {
                for x in sx0...sx1 {
                    let p = Point(Double(x) + 0.5, Double(y) + 0.5)
                    let ap = p - a
                    let t = min(max((ap.x * ab.x + ap.y * ab.y) / ab2, 0), 1)
                    let d = ap - ab * t
                    let dist = Float((d.x * d.x + d.y * d.y).squareRoot())
                    let k = (y - y0) * boxW + (x - x0)
                    if dist < distance[k] {
                        distance[k] = dist
                        along[k] = Float(lengths[index] + t * segment)
                    }
                }
            }
        }
        var rowFirst = [Int32](repeating: 0, count: height + 1)
        var runs: [Run] = [], coverage: [Float] = [], length: [Float] = []
        let halfF = Float(half)
        for y in 0..<height {
            rowFirst[y] = Int32(runs.count)
            guard y >= y0, y <= y1 else { continue }
            var x = x0
            while x <= x1 {
                let cover = min(max(halfF - distance[(y - y0) * boxW + (x - x0)] + 0.5, 0), 1)
                guard cover > 1.0 / 1024 else { x += 1; continue }
                let start = x
                let offset = coverage.count
                while x <= x1 {
                    let k = (y - y0) * boxW + (x - x0)
                    let c = min(max(halfF - distance[k] + 0.5, 0), 1)
                    guard c > 1.0 / 1024 else { break }
                    coverage.append(c)
                    length.append(along[k])
                    x += 1
                }
                runs.append(Run(x: Int32(start), count: Int32(x - start), offset: Int32(offset)))
            }
        }
        rowFirst[height] = Int32(runs.count)
        self.rowFirst = rowFirst
        self.runs = runs
        self.coverage = coverage
        self.length = length
    }

    /// Pixels the stroke touches.
    var pixelCount: Int { coverage.count }
}
