import ChakraConfig
import ChakraRaster
import ChakraScenes
import Glibc

/// The nearest point of the spiral to a touch, as `closestProgress` finds it.
public struct SpiralMatch: Sendable, Equatable {
    /// Path length from the start to the nearest point, screen px.
    public var length: Double
    /// `length` over the whole length, 0...1.
    public var progress: Double
    /// Distance from the touch to that point, screen px.
    public var distance: Double
    /// The segment holding the point (points[index] → points[index + 1]).
    public var index: Int
    /// True when the local search had lost track and the whole path was scanned.
    public var fullScan: Bool
}

/// The Archimedean spiral r = startRadius + spacing·θ/2π for θ in
/// [0, 2π·rotations], in design px scaled by u and centred on the screen,
/// sampled into a polyline with its cumulative lengths
/// (docs/design.md, The spiral: progress by physical length, never by
/// point index, since the points crowd together near the centre).
///
/// The spiral starts above the centre and winds clockwise outwards: the
/// exercise begins at the centre and opens out.
///
/// Ownership: a value; `closestProgress(to:)` keeps the last matched index
/// in it (the owner of the tracking, `SpiralSession`, holds it).
public struct SpiralGeometry: Sendable {
    /// Samples per turn: segments of at most ~5.7 design px on the outer
    /// turn of the default spiral (2π·164/180), a fraction of the stroke.
    public static let defaultPointsPerTurn = 180
    /// The local search looks this many points either side of the last match.
    public static let searchWindow = 50

    public let startRadius: Double, spacing: Double, rotations: Double
    /// Screen px per design px, and the spiral's centre on screen.
    public let scale: Double
    public let centre: Point
    /// The polyline, screen px.
    public let points: [Point]
    /// cumulativeLengths[i]: path length from points[0] to points[i], screen px.
    public let cumulativeLengths: [Double]
    public var totalLength: Double { cumulativeLengths[cumulativeLengths.count - 1] }
    /// Farther than this from the local search's best point, tracking is
    /// lost and the whole path is scanned (screen px).
    public var lostDistance: Double
    /// The segment of the last match (nil before the first, or after `resetTracking`).
    public private(set) var lastIndex: Int?

    /// A spiral in design px (`startRadius`, `spacing` per turn) scaled by
    /// `scale` about `centre`. `lostDistance` in screen px.
    public init(startRadius: Double, spacing: Double, rotations: Double, scale: Double, centre: Point,
                lostDistance: Double, pointsPerTurn: Int = SpiralGeometry.defaultPointsPerTurn) {
        precondition(rotations > 0 && pointsPerTurn >= 8 && scale > 0)
        (self.startRadius, self.spacing, self.rotations, self.scale, self.centre) = (startRadius, spacing, rotations, scale, centre)
        self.lostDistance = lostDistance
        let count = max(2, Int((rotations * Double(pointsPerTurn)).rounded(.up)) + 1)
        let thetaEnd = 2 * Double.pi * rotations
        var points: [Point] = []
        var lengths: [Double] = []
        points.reserveCapacity(count)
        lengths.reserveCapacity(count)
        for k in 0..<count {
            let theta = thetaEnd * Double(k) / Double(count - 1)
            points.append(Self.point(theta: theta, startRadius: startRadius, spacing: spacing, scale: scale, centre: centre))
            if k == 0 {
                lengths.append(0)
            } else {
                let d = points[k] - points[k - 1]
                lengths.append(lengths[k - 1] + (d.x * d.x + d.y * d.y).squareRoot())
            }
        }
        self.points = points
        cumulativeLengths = lengths
    }

    /// The exact curve at angle θ (radians from the start), screen px.
    public static func point(theta: Double, startRadius: Double, spacing: Double, scale: Double, centre: Point) -> Point {
        let r = (startRadius + spacing * theta / (2 * .pi)) * scale
        // Angle 0 points up (−y on screen); θ grows clockwise on screen.
        return centre + Point(r * sin(theta), -r * cos(theta))
    }

    /// The point `length` screen px along the path (clamped to the path),
    /// interpolated within its segment.
    public func point(atLength length: Double) -> Point {
        let (index, t) = segment(atLength: length)
        return points[index] + (points[index + 1] - points[index]) * t
    }

    /// The point at `progress` (0...1) of the path's length.
    public func point(atProgress progress: Double) -> Point { point(atLength: progress * totalLength) }

    /// The unit tangent at `length` (the direction of travel).
    public func direction(atLength length: Double) -> Point {
        let (index, _) = segment(atLength: length)
        let d = points[index + 1] - points[index]
        let n = (d.x * d.x + d.y * d.y).squareRoot()
        return n > 0 ? d / n : Point(1, 0)
    }

    /// The segment holding `length` and the fraction along it: binary
    /// search in the cumulative lengths.
    public func segment(atLength length: Double) -> (index: Int, t: Double) {
        let lengths = cumulativeLengths
        let last = lengths.count - 2
        guard length > 0 else { return (0, 0) }
        guard length < totalLength else { return (last, 1) }
        var lo = 0, hi = lengths.count - 1   // lengths[lo] <= length < lengths[hi]
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if lengths[mid] <= length { lo = mid } else { hi = mid }
        }
        let span = lengths[lo + 1] - lengths[lo]
        return (lo, span > 0 ? (length - lengths[lo]) / span : 0)
    }

    /// The nearest point to `touch` among segments `range` (indices of
    /// segment starts).
    public func closest(to touch: Point, segments range: ClosedRange<Int>) -> SpiralMatch {
        var best = SpiralMatch(length: 0, progress: 0, distance: .infinity, index: range.lowerBound, fullScan: false)
        var bestSquared = Double.infinity
        for index in range {
            let a = points[index], ab = points[index + 1] - a
            let ap = touch - a
            let ab2 = ab.x * ab.x + ab.y * ab.y
            let t = ab2 > 0 ? min(max((ap.x * ab.x + ap.y * ab.y) / ab2, 0), 1) : 0
            let d = ap - ab * t
            let d2 = d.x * d.x + d.y * d.y
            if d2 < bestSquared {
                bestSquared = d2
                let length = cumulativeLengths[index] + t * (cumulativeLengths[index + 1] - cumulativeLengths[index])
                best = SpiralMatch(length: length, progress: length / totalLength, distance: 0, index: index, fullScan: false)
            }
        }
        best.distance = bestSquared.squareRoot()
        return best
    }

    /// Every segment, for the fallback and for tests.
    public func closestByFullScan(to touch: Point) -> SpiralMatch {
        var match = closest(to: touch, segments: 0...(points.count - 2))
        match.fullScan = true
        return match
    }

    /// The progress nearest a touch, as a drag needs it at 60 fps: the
    /// segments within ±`searchWindow` points of the last match are
    /// searched; tracking is *lost* when there was no last match or when
    /// the best point of that window is farther than `lostDistance` from
    /// the touch, and then the whole path is scanned. Remembers the match.
    public mutating func closestProgress(to touch: Point) -> SpiralMatch {
        let lastSegment = points.count - 2
        var match: SpiralMatch
        if let last = lastIndex {
            let range = max(0, last - Self.searchWindow)...min(lastSegment, last + Self.searchWindow)
            match = closest(to: touch, segments: range)
            if match.distance > lostDistance { match = closestByFullScan(to: touch) }
        } else {
            match = closestByFullScan(to: touch)
        }
        lastIndex = match.index
        return match
    }

    /// Starts the local search from the segment at `length` (the head).
    public mutating func track(fromLength length: Double) { lastIndex = segment(atLength: length).index }

    /// Forgets the last match: the next search scans the whole path.
    public mutating func resetTracking() { lastIndex = nil }
}
