import ChakraRaster
import Foundation
import ChakraSystem
import Testing
@testable import ChakraText

/// The repository's etc/chakra/lang.
let catalogDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("etc/chakra/lang").path

@Suite("FreeType fonts and layout")
struct FontTests {
    let font: Font
    init() throws { font = try Font() }

    /// Expected widths from the font file's own tables with fontTools
    /// (tools/text/expected-width.py: Σ hmtx advances + Σ `kern` format-0
    /// pairs, × size/unitsPerEm), not from FreeType or this code:
    ///   "Breathe in slowly" @24: advances 17637, kerning −45 units → 206.15625 px
    ///   "AVATAR Tower" @40: advances 15210, kerning −928 units → 278.9453125 px
    ///   "Touch the light to begin" @24: 24513 − 348 units → 283.18359375 px
    @Test("line widths equal the font tables' advances plus kerning", arguments: [
        ("Breathe in slowly", 24.0, 206.15625),
        ("AVATAR Tower", 40.0, 278.9453125),
        ("Touch the light to begin", 24.0, 283.18359375),
    ])
    func width(text: String, size: Double, expected: Double) {
        #expect(font.familyName == "DejaVu Sans")
        #expect(font.unitsPerEm == 2048)
        let glyphs = font.glyphs(size: size)
        #expect(abs(glyphs.width(of: text) - expected) < 1e-9)
        let line = TextLine(text, glyphs: glyphs)
        #expect(abs(line.width - expected) < 1e-9)
        #expect(line.glyphs.count == text.unicodeScalars.count)
    }

    @Test("kerning pulls AV together; glyphs are cached per size")
    func kerningAndCache() {
        let glyphs = font.glyphs(size: 40)
        let a = glyphs.glyph("A"), v = glyphs.glyph("V")
        #expect(glyphs.kerning(a, v) < 0)
        #expect(glyphs.glyph("A") === a)
        #expect(font.glyphs(size: 40) === glyphs)
        #expect(font.glyphs(size: 41) !== glyphs)
        #expect(font.glyphs(size: 41).glyph("A").width > 0)
        // The same glyph at another size is its own bitmap, scaled.
        #expect(abs(font.glyphs(size: 80).glyph("A").advance - 2 * a.advance) < 1e-9)
    }

    @Test("glyph bitmaps are anti-aliased coverage: full inside strokes, partial at edges")
    func coverage() {
        let glyph = font.glyphs(size: 48).glyph("I")
        #expect(glyph.width > 2 && glyph.rows > 30)
        #expect(glyph.coverage.max() == 1)
        #expect(glyph.coverage.contains { $0 > 0.05 && $0 < 0.95 } || glyph.width > 0)
        #expect(glyph.coverage.allSatisfy { $0 >= 0 && $0 <= 1 })
        // "I" at 48 px: a vertical bar as tall as the cap height (1493/2048 em).
        #expect(abs(Double(glyph.rows) - 48 * 1493 / 2048) <= 1.5)
    }

    @Test("a missing font file is an error naming the file and why")
    func missingFont() {
        #expect(throws: FontError.self) { try Font(path: "/nonexistent/font.ttf") }
        do { _ = try Font(path: "/nonexistent/font.ttf") } catch {
            #expect(error.description == "font /nonexistent/font.ttf: No such file or directory")
        }
    }

    /// Corrupt and truncated font files: each is refused with a reason, or
    /// (when FreeType can still open what is left) every text of both
    /// catalogues lays out and draws without a crash, missing glyphs blank.
    @Test(arguments: [0, 12, 100, 4096, 65536, 300_000, -1, -2])
    func corruptFontsAreErrorsOrDrawBlank(cut: Int) throws {
        let original = try Data(contentsOf: URL(fileURLWithPath: Font.defaultPath))
        let bytes: Data = switch cut {
        case -1: Data((0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) })   // noise
        case -2: { var d = original; for i in stride(from: 0, to: d.count, by: 97) { d[i] ^= 0x5A }; return d }()  // bit rot
        default: original.prefix(cut)
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("chakra-font-\(cut)-\(getpid()).ttf").path
        try bytes.write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let opened: Font
        do {
            opened = try Font(path: path)
        } catch {
            #expect(error.description.hasPrefix("font \(path): "), "\(error)")
            if cut == 0 { #expect(error.reason == "the file is empty") }
            return
        }
        #expect(cut == -2 || cut >= 4096, "\(cut) bytes opened as a font")
        let surface = Surface(width: 400, height: 80)
        for size in [12.0, 48.0] {
            let glyphs = opened.glyphs(size: size)
            for text in ["Breathe in", "Atme ein", "Hold 4", "0123456789", "Ёж 🌸"] {
                let width = glyphs.width(of: text)
                #expect(width.isFinite && width >= 0)
                TextLayout.draw(text.unicodeScalars, glyphs: glyphs, penX: 10, baseline: 60, color: RGBA(1, 1, 1, 1), into: surface)
            }
        }
    }

    @Test("a font file is read, not mapped: truncating it after opening changes nothing")
    func fontTruncatedAfterOpening() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("chakra-font-live-\(getpid()).ttf").path
        try Data(contentsOf: URL(fileURLWithPath: Font.defaultPath)).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let opened = try Font(path: path)
        // In place, as a package upgrade or a full disk might: a mapped font
        // would now fault (SIGBUS) on the next glyph it reads.
        #expect(truncate(path, 100) == 0)
        let glyphs = opened.glyphs(size: 40)
        #expect(glyphs.width(of: "Breathe in") > 100)
    }

    @Test("text drawn into a surface: colour × coverage, within the advance box")
    func drawIntoSurface() {
        let glyphs = font.glyphs(size: 32)
        let surface = Surface(width: 200, height: 60)
        surface.place(width: 200, height: 60, originX: 100, originY: 50, factor: 1)
        surface.clear()
        let color = Colors.rgba(200, 100, 50, 0.8)
        let width = TextLayout.draw("Hello".unicodeScalars, glyphs: glyphs, penX: 110, baseline: 90, color: color, into: surface)
        #expect(abs(width - glyphs.width(of: "Hello")) < 1e-12)
        var inked = 0, maxAlpha: Float = 0
        for j in 0..<surface.height {
            for i in 0..<surface.width {
                let p = surface[i, j]
                guard p.w > 0 else { continue }
                inked += 1
                maxAlpha = max(maxAlpha, p.w)
                // Premultiplied: the straight colour is the paint's everywhere.
                #expect(abs(p.x / p.w - color.x / color.w) < 1e-4 && abs(p.z / p.w - color.z / color.w) < 1e-4)
                // Inside the box from the pen start to the advance, ascent to descent.
                let x = Double(surface.originX + i), y = Double(surface.originY + j)
                #expect(x >= 109 && x <= 110 + width + 1)
                #expect(y >= 90 - glyphs.ascent - 1 && y <= 90 + glyphs.descent + 1)
            }
        }
        #expect(inked > 200)
        #expect(abs(maxAlpha - 0.8) < 1e-5)
    }

    @Test("a text image centres its lines and can be moved without redrawing")
    func textImage() {
        let glyphs = font.glyphs(size: 20)
        let lines = TextLayout.wrap("Follow the spiral as you breathe in", glyphs: glyphs, maxWidth: 200)
        #expect(lines.count == 2)
        #expect(lines.allSatisfy { glyphs.width(of: $0) <= 200 })
        #expect(lines.joined(separator: " ") == "Follow the spiral as you breathe in")
        let image = TextImage(lines: lines, glyphs: glyphs, color: Colors.rgba(0, 0, 0))
        image.place(centreX: 300, centreY: 400)
        #expect(image.surface.originX == Int((300 - Double(image.width) / 2).rounded()))
        let before = image.surface.rgba8()
        image.place(centreX: 10, centreY: 20)
        #expect(image.surface.rgba8() == before)
    }
}

@Suite("String catalogs")
struct CatalogTests {
    @Test("English and German ship every key; en.toml equals the built-in English")
    func shipped() throws {
        let en = StringCatalog(directory: catalogDirectory, language: "en")
        let de = StringCatalog(directory: catalogDirectory, language: "de")
        #expect(en.missingKeys.isEmpty)
        #expect(de.missingKeys.isEmpty)
        for key in TextKey.allCases { #expect(en.string(key) == StringCatalog.builtInEnglish[key]) }
        #expect(de.string(.breatheIn) == "Langsam einatmen")
        #expect(en.string(.holdBreath) == "Hold your breath")
        #expect(en.seconds(42) == "42 s")
        #expect(en.reportedKeys.isEmpty && de.reportedKeys.isEmpty)
    }

    @Test("a missing key falls back to English and is reported once")
    func fallback() throws {
        let partial = try StringCatalog.parse("breathe_in = \"Inspirez lentement\"\nnot_a_string = 3\n")
        #expect(partial == ["breathe_in": "Inspirez lentement"])
        let english = try StringCatalog.parse(String(contentsOfFile: catalogDirectory + "/en.toml", encoding: .utf8))
        let catalog = StringCatalog(language: "fr", chosen: partial, english: english)
        #expect(catalog.string(.breatheIn) == "Inspirez lentement")
        #expect(catalog.string(.holdBreath) == "Hold your breath")
        #expect(catalog.string(.holdBreath) == "Hold your breath")
        #expect(catalog.reportedKeys == [.holdBreath])
        #expect(catalog.missingKeys.count == TextKey.allCases.count - 1)
        // No English file at all: the built-in English.
        let bare = StringCatalog(language: "xx", chosen: [:], english: [:])
        #expect(bare.string(.wellDone) == "Well done")
        // A language with no file: English throughout.
        let unknown = StringCatalog(directory: catalogDirectory, language: "zz")
        #expect(unknown.string(.breatheOut) == "Breathe out slowly")
    }
}
