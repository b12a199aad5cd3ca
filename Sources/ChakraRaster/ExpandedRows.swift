// The compositor's per-thread cache of overlay rows at screen resolution.
//
// Upsampling an overlay costs a setup per grid interval (the four channels'
// start and step spread over lanes) that dwarfs the few pixels of a small
// factor's interval. Done per screen row, that setup is paid f times for
// each grid row. Expanding each grid row once into screen pixels and then
// interpolating vertically between two expanded rows pays it once: the
// vertical step is a plain weighted sum of two planar rows, eight pixels
// per vector, whatever the factor.

/// Names one frame's surface contents: rows expanded under another token are
/// stale. `FrameCompositor.beginFrame()` hands out a new one per frame.
public struct FrameToken: Equatable, Sendable {
    let value: Int
    public static let none = FrameToken(value: -1)
}

/// One overlay grid row expanded to screen pixels: planar, premultiplied,
/// 16-bit fixed point with colour at twice `FixedRow.one` (one bit more
/// precision for the products of the blend) and alpha in Q15 (32767 = 1).
/// Zero everywhere but its two parts (pixel ranges; the second is past a
/// ring's hole, and either may be empty), so the blend may read whole
/// groups of eight anywhere in the row.
///
/// A struct of pointers, owned and freed by `ExpandedRows`: as a class it
/// was retained and released for every output row that blended it (atomic
/// operations, a seventh of drift's frame time).
struct ExpandedRow {
    let red, green, blue, alpha: UnsafeMutablePointer<Int16>
    /// Which grid row of which frame this holds.
    var row = -1
    var frame = FrameToken.none
    private var parts = (0..<0, 0..<0)

    init(width: Int) {
        (red, green, blue, alpha) = (FixedRow.allocateLanes(width), FixedRow.allocateLanes(width),
                                     FixedRow.allocateLanes(width), FixedRow.allocateLanes(width))
    }

    func deallocate() {
        red.deallocate()
        green.deallocate()
        blue.deallocate()
        alpha.deallocate()
    }

    /// Groups of eight that may hold colour: [start, end), empty when
    /// start ≥ end. Kept when the parts are set: the final pass reads them
    /// for every output row.
    private(set) var start = 0, end = 0
    /// Groups all zero between the two parts; empty when holeStart ≥ holeEnd.
    private(set) var holeStart = 0, holeEnd = 0

    /// About to write `first` and `second` (ordered, disjoint): zeroes what
    /// the previous row left outside them. Consecutive grid rows have
    /// similar extents, so little is cleared.
    mutating func prepare(_ first: Range<Int>, _ second: Range<Int>) {
        zero(parts.0, except: first, second)
        zero(parts.1, except: first, second)
        parts = (first, second)
        start = (first.isEmpty ? second.lowerBound : first.lowerBound) & ~7
        let last = second.isEmpty ? first : second
        end = last.isEmpty ? 0 : ((last.upperBound - 1) | 7) + 1
        let split = !first.isEmpty && !second.isEmpty
        holeStart = split ? (first.upperBound + 7) & ~7 : 0
        holeEnd = split ? second.lowerBound & ~7 : 0
    }

    /// `expand` may write up to seven pixels past a part's end: zero those
    /// before `limit` (where the next part starts). All seven, not only
    /// those in the part's last group of eight: `prepare` zeroes only a
    /// previous row's parts, and a later row's blend may read the group
    /// after (say, where its hole ends).
    @inline(__always)
    func clearSpill(after last: Int, before limit: Int) {
        zero(last + 1, min(last + 8, limit))
    }

    private func zero(_ old: Range<Int>, except a: Range<Int>, _ b: Range<Int>) {
        var cursor = old.lowerBound
        if !a.isEmpty {
            zero(cursor, min(a.lowerBound, old.upperBound))
            cursor = max(cursor, a.upperBound)
        }
        if !b.isEmpty {
            zero(cursor, min(b.lowerBound, old.upperBound))
            cursor = max(cursor, b.upperBound)
        }
        zero(cursor, old.upperBound)
    }

    private func zero(_ from: Int, _ to: Int) {
        guard from < to else { return }
        (red + from).update(repeating: 0, count: to - from)
        (green + from).update(repeating: 0, count: to - from)
        (blue + from).update(repeating: 0, count: to - from)
        (alpha + from).update(repeating: 0, count: to - from)
    }
}

/// One overlay's two most recent expanded rows: moving down the screen,
/// row j + 1 of one screen row is row j of a later one. The owner (the
/// compositor's scratch) calls `deallocate`.
struct ExpandedRows {
    private var first: ExpandedRow
    private var second: ExpandedRow

    init(width: Int) {
        (first, second) = (ExpandedRow(width: width), ExpandedRow(width: width))
    }

    func deallocate() {
        first.deallocate()
        second.deallocate()
    }

    /// The slot holding grid row `j` of `frame`, expanded by `fill` when
    /// neither holds it, into the slot not holding row `keep`.
    @inline(__always)
    mutating func slot(for j: Int, keeping keep: Int, frame: FrameToken, fill: (inout ExpandedRow) -> Void) -> ExpandedRow {
        if first.row == j, first.frame == frame { return first }
        if second.row == j, second.frame == frame { return second }
        if first.row == keep && first.frame == frame {
            fill(&second)
            (second.row, second.frame) = (j, frame)
            return second
        }
        fill(&first)
        (first.row, first.frame) = (j, frame)
        return first
    }
}
