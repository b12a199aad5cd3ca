import ChakraConfig
import ChakraRaster
import ChakraText

/// The exercise's texts, drawn once per string and size when the scene is
/// made (`TextImage`): the catalog's, and the literal texts of the
/// breathing patterns' phases (each distinct string once); and the hold
/// countdown, redrawn into its own surface only when its number changes,
/// from cached glyphs (no allocation).
///
/// Ownership: owned by the scene; owns the font, the images and the
/// counter's surface.
final class SpiralTexts: @unchecked Sendable {
    enum Role { case guidance, hint }
    typealias T = SpiralParameters.Text

    let font: Font
    let catalog: StringCatalog
    private(set) var images: [TextKey: TextImage] = [:]
    /// The patterns' own phase texts, by string.
    private(set) var phaseImages: [String: TextImage] = [:]
    let counter: Surface
    let counterWidth: Int
    let counterGlyphs: GlyphSet
    let counterColor: RGBA
    /// The countdown's format split around "{n}".
    let counterPrefix: String, counterSuffix: String
    private(set) var counterShown = -1

    static let roles: [TextKey: Role] = [
        .touchToBegin: .guidance, .traceToInhale: .guidance, .breatheIn: .guidance, .holdBreath: .guidance,
        .breatheOut: .guidance, .holdEmpty: .guidance, .traceToExhale: .guidance, .wellDone: .guidance,
        .holdFinger: .hint, .resume: .hint, .resumeHold: .hint,
    ]

    /// The catalog's text for each kind of breathing phase.
    static func key(for kind: BreathPhase.Kind) -> TextKey {
        switch kind {
        case .in: .breatheIn
        case .holdIn: .holdBreath
        case .out: .breatheOut
        case .holdOut: .holdEmpty
        }
    }

    /// `phaseTexts`: the literal texts the breathing patterns give their
    /// phases (repeats are drawn once).
    init(font: Font, catalog: StringCatalog, layout: SpiralLayout, maxSeconds: Int, phaseTexts: [String] = []) {
        self.font = font
        self.catalog = catalog
        let s = layout.scale
        func draw(_ text: String, role: Role) -> TextImage {
            let glyphs = font.glyphs(size: (role == .guidance ? T.guidanceSize : T.hintSize) * s)
            let lines = TextLayout.wrap(text, glyphs: glyphs, maxWidth: layout.textMaxWidth)
            return TextImage(lines: lines, glyphs: glyphs, color: opaque(role == .guidance ? T.color : T.hintColor), lineHeight: T.lineHeight)
        }
        for (key, role) in Self.roles { images[key] = draw(catalog.string(key), role: role) }
        for text in phaseTexts where phaseImages[text] == nil { phaseImages[text] = draw(text, role: .guidance) }
        counterGlyphs = font.glyphs(size: T.counterSize * s)
        counterColor = opaque(T.color)
        let format = catalog.string(.seconds)
        if let range = format.firstRange(of: "{n}") {
            counterPrefix = String(format[..<range.lowerBound])
            counterSuffix = String(format[range.upperBound...])
        } else {
            (counterPrefix, counterSuffix) = ("", " " + format)
        }
        var widest = 0.0
        for n in 0...max(maxSeconds, 0) {
            widest = max(widest, counterGlyphs.forEachGlyph(CounterText(prefix: counterPrefix, number: n, suffix: counterSuffix)))
        }
        let margin = Int((counterGlyphs.size * 0.15).rounded(.up)) + 2
        counterWidth = Int(widest.rounded(.up)) + 2 * margin
        counter = Surface(width: counterWidth,
                          height: Int((counterGlyphs.ascent + counterGlyphs.descent).rounded(.up)) + 2 * margin)
    }

    func image(_ key: TextKey) -> TextImage { images[key]! }

    /// The guidance for a breathing phase: its own text, if it has one
    /// drawn, else the catalog's for its kind.
    func image(for phase: BreathPhase) -> TextImage {
        if let text = phase.text, let image = phaseImages[text] { return image }
        return image(Self.key(for: phase.kind))
    }

    /// Every text image, for sizing the compositor.
    var allImages: [TextImage] { Array(images.values) + Array(phaseImages.values) }

    /// Draws the countdown's number centred at `centre` (redrawn only when
    /// the number changes; moved otherwise).
    func placeCounter(_ number: Int, centre: Point) {
        let w = counterWidth
        let h = counter.height
        let originX = Int((centre.x - Double(w) / 2).rounded()), originY = Int((centre.y - Double(h) / 2).rounded())
        counter.place(width: w, height: h, originX: originX, originY: originY, factor: 1)
        guard number != counterShown else { return }
        counterShown = number
        counter.clear()
        let text = CounterText(prefix: counterPrefix, number: number, suffix: counterSuffix)
        let lineWidth = counterGlyphs.forEachGlyph(text)
        let baseline = Double(originY) + (Double(h) - counterGlyphs.ascent - counterGlyphs.descent) / 2 + counterGlyphs.ascent
        TextLayout.draw(text, glyphs: counterGlyphs, penX: Double(originX) + (Double(w) - lineWidth) / 2,
                        baseline: baseline.rounded(), color: counterColor, into: counter)
        counter.updateRowExtents(threshold: 1.0 / 1024)
    }
}

/// prefix + the decimal digits of `number` + suffix, as Unicode scalars,
/// without building a String.
struct CounterText: Sequence {
    let prefix: String, number: Int, suffix: String

    struct Iterator: IteratorProtocol {
        var prefix: String.UnicodeScalarView.Iterator
        var suffix: String.UnicodeScalarView.Iterator
        let number: Int
        var divisor: Int
        var stage = 0

        mutating func next() -> Unicode.Scalar? {
            if stage == 0 {
                if let scalar = prefix.next() { return scalar }
                stage = 1
            }
            if stage == 1 {
                if divisor > 0 {
                    let digit = (number / divisor) % 10
                    divisor /= 10
                    return Unicode.Scalar(UInt8(48 + digit))
                }
                stage = 2
            }
            return suffix.next()
        }
    }

    func makeIterator() -> Iterator {
        let n = Swift.max(number, 0)
        var divisor = 1
        while divisor * 10 <= n { divisor *= 10 }
        return Iterator(prefix: prefix.unicodeScalars.makeIterator(), suffix: suffix.unicodeScalars.makeIterator(), number: n, divisor: divisor)
    }
}
