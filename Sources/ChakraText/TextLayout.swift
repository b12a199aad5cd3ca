import ChakraRaster

/// One laid-out line: each glyph with its pen position, and the width.
public struct TextLine {
    public let text: String
    /// Glyphs with their pen x in pixels from the line's start.
    public let glyphs: [(glyph: Glyph, x: Double)]
    /// Advances plus kerning: the pen position after the last glyph.
    public let width: Double

    public init(_ text: String, glyphs set: GlyphSet) {
        self.text = text
        var list: [(glyph: Glyph, x: Double)] = []
        width = set.forEachGlyph(text.unicodeScalars) { list.append(($0, $1)) }
        glyphs = list
    }
}

public enum TextLayout {
    /// Breaks `text` at spaces into lines no wider than `maxWidth` where
    /// the words allow (a word wider than that gets a line of its own).
    /// Explicit newlines break too.
    public static func wrap(_ text: String, glyphs: GlyphSet, maxWidth: Double) -> [String] {
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var current = ""
            for word in paragraph.split(separator: " ") {
                let candidate = current.isEmpty ? String(word) : current + " " + word
                if current.isEmpty || glyphs.width(of: candidate) <= maxWidth {
                    current = candidate
                } else {
                    lines.append(current)
                    current = String(word)
                }
            }
            lines.append(current)
        }
        return lines
    }

    /// Draws text into a factor-1 surface: the line starts at screen x
    /// `penX` on the baseline at screen y `baseline`; each glyph's bitmap
    /// is placed at its pen position rounded to a whole pixel. Colour is
    /// premultiplied, multiplied by each pixel's coverage and composited
    /// source-over. Returns the line's width. Allocates nothing once the
    /// glyphs have been seen.
    @discardableResult
    public static func draw<S: Sequence>(_ text: S, glyphs: GlyphSet, penX: Double, baseline: Double, color: RGBA,
                                         into surface: Surface) -> Double where S.Element == Unicode.Scalar {
        precondition(surface.factor == 1, "text is drawn at screen resolution")
        let top = Int(baseline.rounded())
        return glyphs.forEachGlyph(text) { glyph, x in
            let left = Int((penX + x).rounded()) + glyph.left - surface.originX
            let first = top - glyph.top - surface.originY
            glyph.coverage.withUnsafeBufferPointer { coverage in
                for gy in 0..<glyph.rows {
                    let j = first + gy
                    guard j >= 0, j < surface.height else { continue }
                    let row = surface.row(j)
                    for gx in 0..<glyph.width {
                        let i = left + gx
                        guard i >= 0, i < surface.width else { continue }
                        let c = coverage[gy * glyph.width + gx]
                        if c > 0 { row[i] = Colors.over(color * c, row[i]) }
                    }
                }
            }
        }
    }
}

/// A block of text (one or more centred lines) drawn once into its own
/// factor-1 surface, for a scene to compose as an overlay and move about
/// without redrawing it.
///
/// Ownership: owns its surface; made when a string is first shown at a
/// size (scenes cache these) and never redrawn.
public final class TextImage: @unchecked Sendable {
    public let lines: [String]
    public let surface: Surface
    /// The block's size in pixels; the first baseline is `ascent` below its top.
    public let width: Int, height: Int
    public let ascent: Double
    /// Each line's width in pixels (advances plus kerning).
    public let lineWidths: [Double]

    /// `lineHeight` is the distance between baselines (a multiple of the size).
    public init(lines: [String], glyphs: GlyphSet, color: RGBA, lineHeight: Double = 1.25) {
        self.lines = lines
        let widths = lines.map { glyphs.width(of: $0) }
        lineWidths = widths
        let step = glyphs.size * lineHeight
        // Bitmaps may reach a pixel or two past the advances and the
        // typographic extents (italics, accents): a margin keeps them.
        let margin = Int((glyphs.size * 0.15).rounded(.up)) + 2
        ascent = glyphs.ascent + Double(margin)
        width = Int((widths.max() ?? 0).rounded(.up)) + 2 * margin
        height = Int((glyphs.ascent + glyphs.descent + step * Double(max(lines.count - 1, 0))).rounded(.up)) + 2 * margin
        surface = Surface(width: max(width, 1), height: max(height, 1))
        surface.clear()
        for (index, line) in lines.enumerated() {
            TextLayout.draw(line.unicodeScalars, glyphs: glyphs, penX: (Double(width) - widths[index]) / 2,
                            baseline: ascent + step * Double(index), color: color, into: surface)
        }
        surface.updateRowExtents(threshold: 1.0 / 1024)
    }

    /// Puts the block on screen centred at (x, y), rounded to whole pixels
    /// (the glyphs were drawn on the pixel grid). Allocates nothing.
    public func place(centreX x: Double, centreY y: Double) {
        let originX = Int((x - Double(width) / 2).rounded()), originY = Int((y - Double(height) / 2).rounded())
        surface.place(width: max(width, 1), height: max(height, 1), originX: originX, originY: originY, factor: 1)
    }
}
