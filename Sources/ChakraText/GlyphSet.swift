import CFreeType

/// One glyph at one size: its advance and its anti-aliased coverage bitmap
/// (FreeType's 8-bit gray rendering of the unhinted outline).
public final class Glyph: @unchecked Sendable {
    public let index: UInt32
    /// Pen advance in pixels (unhinted, fractional).
    public let advance: Double
    /// Bitmap size and placement: its top-left pixel is at
    /// (penX + left, baseline − top).
    public let width: Int, rows: Int
    public let left: Int, top: Int
    /// Coverage 0...1, row-major, `width`×`rows`.
    public let coverage: [Float]

    init(index: UInt32, advance: Double, width: Int, rows: Int, left: Int, top: Int, coverage: [Float]) {
        (self.index, self.advance, self.width, self.rows, self.left, self.top, self.coverage) = (index, advance, width, rows, left, top, coverage)
    }
}

/// A font's glyphs at one size, rasterized on first use and kept.
///
/// Ownership: made and owned by its `Font` (one per size); holds the font
/// unowned, since the font outlives its sets. Same threading rule as the font.
public final class GlyphSet: @unchecked Sendable {
    /// Wider or taller than this, a glyph is taken as corrupt and drawn blank.
    static let maximumGlyphSide = 4096

    unowned let font: Font
    let sizeKey: Int
    /// Pixels per em.
    public let size: Double
    /// Pixels per font unit.
    public let scale: Double
    /// Typographic ascent (positive, above the baseline) and descent
    /// (positive, below it), in pixels.
    public let ascent: Double, descent: Double
    private var glyphs: [UInt32: Glyph] = [:]
    private var kerning: [UInt64: Double] = [:]

    init(font: Font, sizeKey: Int) {
        self.font = font
        self.sizeKey = sizeKey
        size = Double(sizeKey) / 64
        scale = size / Double(font.unitsPerEm)
        ascent = Double(font.ascender) * scale
        descent = Double(-font.descender) * scale
    }

    /// The glyph for a character (the font's missing-glyph box when it has
    /// none). Rasterizes and allocates only the first time.
    public func glyph(_ scalar: Unicode.Scalar) -> Glyph {
        if let glyph = glyphs[scalar.value] { return glyph }
        let glyph = rasterize(font.glyphIndex(scalar))
        glyphs[scalar.value] = glyph
        return glyph
    }

    /// Kerning between two glyphs in pixels (0 for most pairs).
    public func kerning(_ left: Glyph, _ right: Glyph) -> Double {
        let key = UInt64(left.index) << 32 | UInt64(right.index)
        if let value = kerning[key] { return value }
        let value = Double(font.kerningUnits(left.index, right.index)) * scale
        kerning[key] = value
        return value
    }

    private func rasterize(_ index: UInt32) -> Glyph {
        let advance = Double(font.advanceUnits(index)) * scale
        let face = font.face
        guard (try? font.select(sizeKey: sizeKey)) != nil,
              FT_Load_Glyph(face, index, CFreeType_loadFlags) == 0,
              FT_Render_Glyph(face.pointee.glyph, CFreeType_renderNormal) == 0 else {
            return Glyph(index: index, advance: advance, width: 0, rows: 0, left: 0, top: 0, coverage: [])
        }
        let slot = face.pointee.glyph.pointee
        let bitmap = slot.bitmap
        let width = Int(bitmap.width), rows = Int(bitmap.rows), pitch = Int(bitmap.pitch)
        // A corrupt font can describe a glyph of any size; one larger than
        // any screen is drawn blank rather than copied (4 bytes a pixel).
        guard width <= Self.maximumGlyphSide, rows <= Self.maximumGlyphSide else {
            return Glyph(index: index, advance: advance, width: 0, rows: 0, left: 0, top: 0, coverage: [])
        }
        let levels = max(Float(bitmap.num_grays) - 1, 1)
        var coverage = [Float](repeating: 0, count: width * rows)
        if let buffer = bitmap.buffer, width > 0, rows > 0 {
            // A negative pitch means the rows are stored bottom-up.
            let first = pitch >= 0 ? buffer : buffer + (rows - 1) * -pitch
            for y in 0..<rows {
                let source = first + y * pitch
                for x in 0..<width { coverage[y * width + x] = Float(source[x]) / levels }
            }
        }
        return Glyph(index: index, advance: advance, width: width, rows: rows,
                     left: Int(slot.bitmap_left), top: Int(slot.bitmap_top), coverage: coverage)
    }

    /// Walks the glyphs of `text` with their pen positions (pixels from the
    /// line's start: advances plus kerning) and returns the line's width,
    /// the pen position after the last glyph. Allocates nothing once the
    /// glyphs and pairs have been seen.
    @discardableResult
    public func forEachGlyph<S: Sequence>(_ text: S, _ body: (Glyph, Double) -> Void = { _, _ in }) -> Double where S.Element == Unicode.Scalar {
        var pen = 0.0
        var previous: Glyph?
        for scalar in text {
            let glyph = self.glyph(scalar)
            if let previous { pen += kerning(previous, glyph) }
            body(glyph, pen)
            pen += glyph.advance
            previous = glyph
        }
        return pen
    }

    /// The width of one line of text in pixels: advances plus kerning.
    public func width(of text: String) -> Double { forEachGlyph(text.unicodeScalars) }
}
