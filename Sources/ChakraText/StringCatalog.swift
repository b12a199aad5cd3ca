import ChakraSystem
import ChakraConfig
import Synchronization

/// Every user-facing string of the daemon, by key. The catalogs under
/// etc/chakra/lang/ (installed in /etc/chakra/lang) give one value per key
/// and language.
public enum TextKey: String, CaseIterable, Sendable {
    /// Idle: the pulsing orb at the spiral's start.
    case touchToBegin = "touch_to_begin"
    /// Inhale: trace the first part of the spiral.
    case traceToInhale = "trace_to_inhale"
    /// Hold: the finger rests on the orb while the countdown runs.
    case holdFinger = "hold_finger"
    /// The phases of the hold's breathing pattern (docs/spiral.md), one
    /// per kind: in, hold-in, out, hold-out.
    case breatheIn = "breathe_in"
    case holdBreath = "hold_breath"
    case breatheOut = "breathe_out"
    case holdEmpty = "hold_empty"
    /// Exhale: trace the rest of the spiral.
    case traceToExhale = "trace_to_exhale"
    /// Inhale or Exhale after the finger lifted or strayed off the head.
    case resume = "resume"
    /// Hold after the finger lifted (the countdown is paused).
    case resumeHold = "resume_hold"
    /// Completed.
    case wellDone = "well_done"
    /// The hold countdown; "{n}" stands for the whole seconds left.
    case seconds = "seconds"
}

/// The strings of one language, falling back to English key by key.
///
/// A catalog is a TOML file `<language>.toml` of `key = "value"` lines. A
/// key missing from the chosen language is taken from English and logged
/// once (per catalog and key); a key missing from English too uses the
/// built-in English below, so the exercise never shows a raw key.
///
/// Ownership: a value the scene reads at setup; immutable but for the
/// record of keys already reported (behind a mutex).
public final class StringCatalog: @unchecked Sendable {
    /// Where the daemon looks unless told: `make install` puts etc/chakra/lang there.
    public static let defaultDirectory = "/etc/chakra/lang"

    /// The English strings, also compiled in (etc/chakra/lang/en.toml holds
    /// the same; a test keeps them equal).
    public static let builtInEnglish: [TextKey: String] = [
        .touchToBegin: "Touch the light to begin",
        .traceToInhale: "Follow the spiral as you breathe in",
        .holdFinger: "Keep your finger on the light",
        .breatheIn: "Breathe in slowly",
        .holdBreath: "Hold your breath",
        .breatheOut: "Breathe out slowly",
        .holdEmpty: "Pause before breathing in",
        .traceToExhale: "Follow the spiral as you breathe out",
        .resume: "Touch the light to continue",
        .resumeHold: "Touch and hold the light to continue",
        .wellDone: "Well done",
        .seconds: "{n} s",
    ]

    public let language: String
    /// The chosen language's values, then English's.
    let chosen: [String: String]
    let english: [String: String]
    let logger: Logger
    /// Whether a key the chosen language lacks is worth a line: not when
    /// its whole file is missing, which was said once already.
    let reportsMissingKeys: Bool
    private let reported = Mutex<Set<TextKey>>([])

    /// Loads `<directory>/<language>.toml` and `<directory>/en.toml`. A
    /// missing or unusable file counts as empty and is logged in one line
    /// (`fileProblems`); its keys then fall back without a line each.
    public init(directory: String = StringCatalog.defaultDirectory, language: String,
                logger: Logger = Logger(label: "chakra.text")) {
        self.language = language
        self.logger = logger
        let englishFile = CatalogFile.read(Self.path(directory, "en"))
        let chosenFile = language == "en" ? englishFile : CatalogFile.read(Self.path(directory, language))
        english = englishFile.strings ?? [:]
        chosen = chosenFile.strings ?? [:]
        reportsMissingKeys = chosenFile.strings != nil
        for (level, message) in Self.fileProblems(directory: directory, language: language, english: englishFile, chosen: chosenFile,
                                                  directoryMissing: { CatalogFile.isMissing(directory: directory) }) {
            logger.log(level: level, "\(message)")
        }
    }

    /// A catalog from tables already read (tests, or callers that read the files themselves).
    public init(language: String, chosen: [String: String], english: [String: String], logger: Logger = Logger(label: "chakra.text")) {
        (self.language, self.chosen, self.english, self.logger) = (language, chosen, english, logger)
        reportsMissingKeys = true
    }

    /// The string for `key` in the catalog's language, else English.
    public func string(_ key: TextKey) -> String {
        if let value = chosen[key.rawValue] { return value }
        reportMissing(key)
        return english[key.rawValue] ?? Self.builtInEnglish[key]!
    }

    /// The countdown text for `seconds` whole seconds ("{n} s" → "42 s").
    public func seconds(_ seconds: Int) -> String {
        string(.seconds).replacing("{n}", with: String(seconds))
    }

    /// Keys the chosen language lacks (checked by tests and at start).
    public var missingKeys: [TextKey] { TextKey.allCases.filter { chosen[$0.rawValue] == nil } }

    private func reportMissing(_ key: TextKey) {
        guard reportsMissingKeys else { return }
        let first = reported.withLock { $0.insert(key).inserted }
        guard first else { return }
        let fallback = english[key.rawValue] != nil ? "English" : "the built-in English"
        logger.warning("text: '\(key.rawValue)' is missing from the '\(language)' catalog; using \(fallback)")
    }

    /// Times a key has been reported (at most once each): for tests.
    public var reportedKeys: Set<TextKey> { reported.withLock { $0 } }

    /// `<directory>/<language>.toml`.
    static func path(_ directory: String, _ language: String) -> String {
        directory.hasSuffix("/") ? "\(directory)\(language).toml" : "\(directory)/\(language).toml"
    }

    /// What to log about the catalog files, a line for each problem:
    /// nothing when the chosen language's file was read (and English's, if
    /// that is another file, is not broken); one line for a missing
    /// directory, however many files are not in it; an error naming the
    /// file for one that is there but unusable (a mistake to mend, not a
    /// kiosk without catalogs).
    static func fileProblems(directory: String, language: String, english: CatalogFile, chosen: CatalogFile,
                             directoryMissing: () -> Bool) -> [(Logger.Level, String)] {
        let builtIn = "using the built-in English texts"
        let fallback = language != "en" && english.strings != nil ? "using English" : builtIn
        var problems: [(Logger.Level, String)] = []
        switch chosen {
        case .strings: break
        case .missing:
            if directoryMissing() {
                return [(.warning, "text: no language catalogs in \(directory) (no such directory); " + (language == "en" ? "" : "no '\(language)' texts, ") + builtIn)]
            }
            problems.append((.warning, "text: no '\(language)' catalog \(path(directory, language)) (no such file); \(fallback)"))
        case .unusable(let why):
            problems.append((.error, "text: the '\(language)' catalog \(path(directory, language)) cannot be used: \(why); \(fallback)"))
        }
        if language != "en", case .unusable(let why) = english {
            let effect = chosen.strings != nil ? "keys the '\(language)' catalog lacks use the built-in English texts" : builtIn
            problems.append((.error, "text: the 'en' catalog \(path(directory, "en")) cannot be used: \(why); \(effect)"))
        }
        return problems
    }

    /// The `key = "value"` pairs of a catalog's text; non-string values are ignored.
    public static func parse(_ text: String) throws -> [String: String] {
        let table = try TOML.parse(text)
        var values: [String: String] = [:]
        for key in table.keys {
            if let value = table[key]?.string { values[key] = value }
        }
        return values
    }
}
